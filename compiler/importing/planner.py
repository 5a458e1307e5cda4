"""Decide everything ``hotplex import`` will do before anything is written.

By default the files stay where they are: the manifest's sources point at them (``sources =
"."``), so editing CLAUDE.md later is what the next build compiles. ``--copy`` puts copies in
``agent-configs/`` instead. Each tool's files feed that tool's target only (CLAUDE.md the
``claude-code`` target, AGENTS.md OpenCode's and Codex's, and Claude Code's where no CLAUDE.md
sits beside it, ...); Cursor, Copilot and ruler rules feed the
targets of the workers named by ``--for`` (Copilot's also Copilot CLI's, which reads them). An
existing manifest is reconciled, never rewritten.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from hotplex import registry
from hotplex.commands.scaffold import GITIGNORE_NAME, SOURCES_DIR, relative
from hotplex.errors import HotplexError, Problem, Span
from hotplex.fs import is_utf8, skipped_folder
from hotplex.generated import attrs
from hotplex.importing import skills, toml
from hotplex.importing.detect import detect, refuse_state_folders
from hotplex.importing.found import (
    RESERVED_TAGS,
    Found,
    Placed,
    Plan,
    Skip,
    foreign,
    free_name,
    in_folder,
    meta,
    read,
)
from hotplex.importing.manifest_plan import (
    chosen_targets,
    compiled,
    data_of,
    entries,
    model,
    workers_for,
)
from hotplex.importing.reconcile import reconcile
from hotplex.importing.rewrite import rewrite
from hotplex.manifest.model import Skills
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.placement import without_marker
from hotplex.scanning import hidden, secrets
from hotplex.scanning.origins import Allowance, Origin
from hotplex.sources.inputs import cap_of
from hotplex.sources.skill_listing import SKILL_FILE
from hotplex.sources.skill_names import literal_glob
from hotplex.sources.skills import SKILLS_FOLDER


def plan(
    paths: list[Path], into: Path, *, copy: bool = False, for_workers: tuple[str, ...] = ()
) -> Plan:
    """Detect, map and check everything; raises HotplexError before any file is written."""
    refuse_state_folders(paths, into)
    named = workers_for(for_workers) if for_workers else ()
    each = [(path, detect(path, into, named)) for path in paths]
    _nothing_at(each)
    found = _one_workspace([f for _, kinds in each for f in kinds])
    _skip_foreign_switch(found)
    _something_left(found, paths)
    notes: list[str] = []
    workspace = next((f for f in found if f.workspace is not None), None)
    if workspace is not None and not workspace.in_place:
        into, copy = _beside(workspace, into, notes), True
    into = Path(os.path.normpath(into.absolute()))
    if workspace is not None and not _within(workspace.workspace or into, into):
        copy = True  # a workspace elsewhere: the project gets copies of its files
    _utf8_names(found)
    _unique_names(found)
    sources_dir = _sources_dir(workspace, into, copy)
    targets, keep = chosen_targets(found, workers_for(for_workers))
    placed = _place(found, into, sources_dir, copy, keep)
    templates = _templates(found, placed, notes)
    readers = tuple(
        t["name"]
        for t in targets
        if registry.workers()[t["worker"]].skills is not None or t.get("skills_listing")
    )
    manifest = model(found, into, sources_dir, placed, (targets, keep), templates)
    cap = cap_of(manifest, lambda t: registry.workers()[t.worker])
    adopted = _skills(found, into, sources_dir, readers, cap)
    there = in_folder(sources_dir, SKILLS_FOLDER)
    notes += skills.refuse_clashes(
        [s for kind in found for s in kind.skills],
        lambda s: os.path.lexists(into / there / s.name),
    )
    _something_left(found, paths)  # a skill may have been left out for its size
    _skills_folder_free(into, sources_dir, adopted)
    scripts = tuple(s for skill in adopted for s in skill.scripts)
    if scripts:
        manifest = attrs.evolve(manifest, skills=Skills(scripts=scripts))
    copied = sorted(
        {
            _shown(Path(os.path.normpath(s.origin.parent.absolute())), into)
            for s in adopted
            if not s.in_place
        }
    )
    if copied:
        notes.append(
            f"the skill folders copied stay where they were ({', '.join(copied)}): delete them"
            " once the build ships the copies, or a program still reading skills there lists"
            " each twice"
        )
    placed += [p for skill in adopted for p in skill.files]
    comments = {f"source:{e.name}": f"from {_shown(e.origin, into)}" for e in entries(found)}
    notes += _scan_notes(placed, into)
    result = Plan(into, found, manifest, toml.document(manifest, comments), placed, [], copy)
    result.notes = notes
    if (into / MANIFEST_NAME).exists():
        reconcile(result, comments)
        _add_skills(result, adopted)
    else:
        result.writes = _writes(placed, into)
        result.gitignore = not os.path.lexists(into / GITIGNORE_NAME)
        if scripts:
            result.notes.append(
                f"[skills] scripts allows {', '.join(scripts)}: they were where a program could"
                " run them already; read each, and remove what should not ship"
            )
    return result


KNOWN = (
    "CLAUDE.md, AGENTS.md, GEMINI.md, QWEN.md, .hermes.md, .cursorrules, .cursor/rules/,"
    " .github/copilot-instructions.md, .clinerules, .windsurf/rules/, .rules, .junie/guidelines.md,"
    " .kiro/steering/, .kilocode/rules/, .aider.conf.yml, .continue/rules/, .ruler/, skill folders"
    " (.claude/skills/, .agents/skills/, .opencode/skill/, .gemini/skills/), an OpenClaw"
    " workspace, a Hermes Agent home or agent-configs/"
)


def _something_left(found: list[Found], paths: list[Path]) -> None:
    """A source or a skill to import, else an error naming each thing left out and why."""
    if any(f.entries or f.skills for f in found):
        return
    where = ", ".join(str(p) for p in paths)
    raise HotplexError(
        [
            Problem(f"nothing to import in {where}: each file found is left out"),
            *(
                Problem(f"left out: {skip.reason}", Span(str(skip.origin)))
                for kind in found
                for skip in kind.skipped
            ),
        ]
    )


def _nothing_at(each: list[tuple[Path, list[Found]]]) -> None:
    """Each path named that holds nothing hotplex imports, nor anything it left out, is an
    error: a name given is never dropped without a word."""
    problems = [
        Problem(
            f"nothing to import: '{path}' is none of the files hotplex imports ({KNOWN})"
            if path.is_file()
            else f"nothing to import: no {KNOWN} in {path}"
        )
        for path, kinds in each
        if not kinds
    ]
    if problems:
        hint = "name the files or folders: hotplex import PATH..."
        raise HotplexError([*problems[:-1], problems[-1].replace(hint=hint)])


# --- where the project and its files go --------------------------------------------------------


def _beside(workspace: Found, into: Path, notes: list[str]) -> Path:
    """A project for a workspace that must not hold it: next to the folder, unless --into says."""
    folder = workspace.workspace
    assert folder is not None
    if not _within(into, folder):
        return into
    beside = folder.parent / f"{folder.name}-hotplex"
    notes.append(
        f"the project is written beside the {workspace.kind}, in {beside}: a build deploys into the"
        " workspace, so the project's sources cannot live there (choose another with --into DIR)"
    )
    return beside


def _sources_dir(workspace: Found | None, into: Path, copy: bool) -> str:
    """A HotPlex folder inside the project is used where it is; copies go to agent-configs/;
    files used in place are named from the project folder."""
    if copy:
        return SOURCES_DIR
    if workspace is not None and workspace.workspace is not None:
        return Path(os.path.relpath(workspace.workspace.absolute(), into)).as_posix()
    return "."


def _skip_foreign_switch(found: list[Found]) -> None:
    """A frontmatter key ``template`` that is not true/false belongs to another tool (Jekyll's
    layout name): hotplex would refuse the file, so it is left out, with the way forward."""
    for kind in found:
        for entry in list(kind.entries):
            flag = meta(entry.origin).get("template")
            if flag is not None and not isinstance(flag, bool):
                kind.entries.remove(entry)
                why = f"frontmatter key 'template' is hotplex's on/off switch, here {flag!r}"
                kind.skipped.append(
                    Skip(entry.origin, why + "; rename that key, then import again")
                )


def _place(
    found: list[Found], into: Path, sources_dir: str, copy: bool, keep: dict[str, list[str]]
) -> list[Placed]:
    """Each file the project reads, once, with its project path and (copying) the bytes."""
    placed: dict[Path, Placed] = {}
    outside: list[Problem] = []
    for kind in found:
        base = kind.workspace if kind.workspace is not None else kind.root
        roles = [(e.origin, f"[[source]] '{e.name}'", e.name) for e in kind.entries]
        roles += [(c.origin, c.role, "") for c in kind.companions]
        if kind.metacognition is not None:
            roles.append((kind.metacognition, "[metacognition] file", ""))
        own = {e.name for e in kind.entries}
        readers = tuple(t for t, names in keep.items() if own & set(names))
        for origin, role, name in roles:
            if origin in placed:
                continue
            targets = tuple(t for t, names in keep.items() if name in names) if name else readers
            if not origin.exists():
                file = in_folder(sources_dir, Path(os.path.relpath(origin, base)).as_posix())
                placed[origin] = Placed(
                    origin, file, role + " (no such file yet)", None, (), targets
                )
            elif copy:
                rel = Path(os.path.relpath(origin.absolute(), base.absolute())).as_posix()
                file = in_folder(sources_dir, rel)
                data, changes = _copied(origin, bool(name) and kind.workspace is None)
                if kind.rewrite is not None:
                    data, more = kind.rewrite(origin, data)
                    changes += more
                placed[origin] = Placed(origin, file, role, data, changes, targets)
            elif _within(origin, into):
                file = Path(os.path.relpath(origin.absolute(), into)).as_posix()
                placed[origin] = Placed(origin, file, role, targets=targets)
            elif name:
                outside.append(Problem(f"'{origin}' is outside the project {into}"))
    if outside:
        hint = "files are used in place only inside the project: import --copy, or --into a folder"
        hint += " holding them"
        raise HotplexError([*outside[:-1], Problem(outside[-1].message, hint=hint)])
    return list(placed.values())


@dataclass(frozen=True)
class Adopted:
    """A skill folder adopted: its name, its files as copies, the scripts among them."""

    name: str
    origin: Path  # the program's folder it comes from
    folder: str  # where it goes, project-relative: "skills/deploy"
    files: list[Placed]
    scripts: tuple[str, ...]  # "<name>/<path>", for [skills] scripts
    in_place: bool = False  # already where the build reads it: nothing copied


def _add_skills(result: Plan, adopted: list[Adopted]) -> None:
    """Running import again: each skill not adopted yet is copied (its scripts are the user's
    to allow: the manifest is theirs); one whose folder is there already is left as it is,
    said so where its files differ from the program's folder it came from."""
    fresh = [s for s in adopted if not os.path.lexists(result.into / s.folder)]
    result.writes = _writes([p for s in fresh for p in s.files], result.into)
    result.notes += [
        f"adopted skill '{s.name}' into {s.folder}/ ({len(s.files)} files)" for s in fresh
    ]
    result.notes += [
        f"add [skills] scripts = [{', '.join(repr(x) for x in s.scripts)}] to"
        f" {MANIFEST_NAME} once you have read them: the build refuses a script not allowed"
        for s in fresh
        if s.scripts
    ]
    result.notes += [
        f"skill '{s.name}': {s.folder}/ is there already and differs from {s.origin}; import"
        f" never overwrites it, and the build ships {s.folder}/"
        for s in adopted
        if s not in fresh and any(_differs(p, result.into) for p in s.files)
    ]


def _differs(item: Placed, into: Path) -> bool:
    if item.data is None:  # used in place: the file is its own copy
        return False
    target = into / item.file
    return not target.is_file() or target.read_bytes() != item.data


def _skills(
    found: list[Found], into: Path, sources_dir: str, readers: tuple[str, ...], cap: int
) -> list[Adopted]:
    """Each skill folder found, copied whole to ``skills/<name>/`` of the sources folder, byte
    for byte (a skill ships as written), or used in place when it is there already (a HotPlex
    sources folder imported in place); its scripts allowed, as they were where its program
    could already run them. ``readers``: the targets whose programs load them. A skill with a
    file over ``cap``, the most a build reads of one, is left out, said why: it ships whole."""
    adopted = []
    for kind in found:
        for skill in list(kind.skills):
            big = next((f for f in skill.files if (skill.origin / f).stat().st_size > cap), None)
            if big is not None:
                size = (skill.origin / big).stat().st_size
                why = f"{big} is {size} bytes, more than a build reads of one file ({cap})"
                kind.skipped.append(Skip(skill.origin, why + ": a skill ships whole"))
                kind.skills.remove(skill)
                continue
            folder = in_folder(sources_dir, f"{SKILLS_FOLDER}/{skill.name}")
            role = f"skill '{skill.name}'"
            in_place = (
                os.path.samefile(skill.origin, into / folder) if (into / folder).is_dir() else False
            )
            files = [
                Placed(skill.origin / f, f"{folder}/{f}", role, targets=readers)
                if in_place
                else _skill_file(skill.origin / f, f"{folder}/{f}", role, readers)
                for f in skill.files
            ]
            scripts = tuple(
                literal_glob(f"{skill.name}/{f}")
                for f in skill.files
                if skills.is_script(skill.origin, f)
            )
            adopted.append(Adopted(skill.name, skill.origin, folder, files, scripts, in_place))
    return adopted


def _skill_file(origin: Path, file: str, role: str, readers: tuple[str, ...]) -> Placed:
    """A skill's file as adopted, byte for byte, but for the marker line of a skill a build
    placed and the user edited since (a placed one unedited is never adopted)."""
    data = origin.read_bytes()
    if origin.name == SKILL_FILE and (unmarked := without_marker(data)) is not None:
        return Placed(origin, file, role, unmarked, ("hotplex's marker line left out",), readers)
    return Placed(origin, file, role, data, targets=readers)


def _skills_folder_free(into: Path, sources_dir: str, adopted: list[Adopted]) -> None:
    """The skills adopted go to a ``skills/`` folder of the sources folder that holds skill
    folders only, as the build reads it: one of the repository's own (a code package, with
    ``sources = "."``) would fail every build after."""
    folder = into / in_folder(sources_dir, SKILLS_FOLDER)
    if not adopted or not folder.is_dir():
        return
    other = [
        p
        for p in sorted(folder.iterdir())
        if not skipped_folder(p.name) and not (p / SKILL_FILE).is_file()
    ]
    if other:
        raise HotplexError.single(
            f"the skills would go to {relative(folder, into)}/, which holds what is no skill"
            f" ({', '.join(p.name for p in other[:3])}): a build reads skills/ of the sources"
            " folder as skill folders only",
            Span(str(other[0])),
            hint="import --copy (the skills go to agent-configs/skills/), or move that folder",
        )


def _copied(origin: Path, rewritable: bool) -> tuple[bytes, tuple[str, ...]]:
    """The copy's bytes: an instruction file rewritten where hotplex would read it otherwise
    than its tool does; a workspace file (its gateway reads it too) or a file imported by @path
    (read literally) byte for byte."""
    try:
        text = read(origin)
    except HotplexError:
        return origin.read_bytes(), ()
    return rewrite(text) if rewritable else (text.data, ())


def _templates(found: list[Found], placed: list[Placed], notes: list[str]) -> bool:
    """Whether templates stay on: off when a rendered file read as it is (in place, or a
    workspace file copied byte for byte) holds template-looking text."""
    rendered = {e.origin for e in entries(found)}
    rendered |= {c.origin for f in found for c in f.companions if "imported" not in c.role}
    literal = {e.origin for e in entries(found) if e.imports}  # read as Claude Code does
    on = True
    for item in placed:
        if item.origin not in rendered or item.changes or not item.origin.exists():
            continue  # read literally, already made readable by the rewrite, or absent
        try:
            text = read(item.origin)
        except HotplexError as exc:
            notes.append(f"{item.file}: {exc.problems[0].message}")
            continue
        if text.broken and item.origin not in literal:
            notes.append(
                f"{item.file}: its first line '---' opens no valid frontmatter, which hotplex"
                " refuses; close the block or remove the line (or import --copy)"
            )
        if foreign(text) and text.meta.get("template") is not False and on:
            on = False
            notes.append(
                f"templates are off for this project: {item.file} holds {{{{ / {{% / {{# outside"
                " code and is read as it is; turn them on once no source needs that"
            )
    return on


def _shown(path: Path, into: Path) -> str:
    return os.path.relpath(path, into) if _within(path, into) else str(path)


def _within(path: Path, root: Path) -> bool:
    """Inside ``root`` both as written and with symlinks resolved (no reading /etc by a link)."""
    pairs = (
        (os.path.normpath(path.absolute()), os.path.normpath(root.absolute())),
        (os.path.realpath(path), os.path.realpath(root)),
    )
    return all(os.path.commonpath([inner, outer]) == outer for inner, outer in pairs)


def _one_workspace(found: list[Found]) -> list[Found]:
    """A workspace is a project of its own: instruction files found beside it are left out."""
    workspaces = [f for f in found if f.workspace is not None]
    if len(workspaces) > 1:
        names = ", ".join(f"{f.kind} ({f.workspace})" for f in workspaces)
        raise HotplexError.single(
            f"found more than one workspace: {names}",
            hint="import each into its own project: hotplex import PATH --into DIR",
        )
    if not workspaces:
        return found
    for other in found:
        if other.workspace is None:
            workspaces[0].skipped += [
                Skip(e.origin, f"not imported with the {workspaces[0].kind}; import it on its own")
                for e in other.entries
            ]
    return workspaces


def _utf8_names(found: list[Found]) -> None:
    """A name not UTF-8 can be no source name or manifest path: refused before any write."""
    bad = [str(e.origin) for e in entries(found) if not is_utf8(str(e.origin))]
    message = "this file's name is not valid UTF-8 (a byte that is not shows as U+DCxx)"
    hint = "rename it to a UTF-8 name, or import the other files by naming them"
    if bad:  # the hint once, under the last
        raise HotplexError([Problem(message, Span(p), hint if p == bad[-1] else None) for p in bad])


def _unique_names(found: list[Found]) -> None:
    """Source names and tags must differ from each other, and tags from the structural ones."""
    names: set[str] = set()
    tags = set(RESERVED_TAGS)
    for kind in found:
        for index, entry in enumerate(kind.entries):
            name = free_name(entry.name, names)
            tag = free_name(name if entry.section_tag == entry.name else entry.section_tag, tags)
            kind.entries[index] = replace(entry, name=name, tag=tag)


def _scan_notes(placed: list[Placed], into: Path) -> list[str]:
    """Where the build's secret and hidden-text scans will stop, said now. Import never silences
    them: a key or an invisible instruction in CLAUDE.md must not reach an artifact just because
    it was there before."""
    notes = []
    for item in (p for p in placed if p.origin.exists()):
        body, first_line = compiled(data_of(item), item.file)
        origin = Origin(body, item.file, first_line)
        for finding in secrets.find(body, [origin], Allowance()):
            notes.append(
                f"{finding.span.location()}: looks like a credential ({finding.rule}); the build"
                " stops there: remove it (and revoke it if it is real), or if it is not one, add"
                f' [secrets] allow_files = ["{item.file}"]'
            )
        for found in hidden.find(body, [origin], Allowance()):
            notes.append(
                f"{found.span.location()}: {found.summary()}; the build stops there: remove it,"
                f' or if it is meant, add [unicode] allow = ["{found.allow_entry}"]'
            )
    return notes


def _writes(placed: list[Placed], into: Path) -> list[Placed]:
    """The copies still to write; a clash with different bytes stops the import."""
    clashes: list[Problem] = []
    writes = []
    for item in (p for p in placed if p.data is not None):
        target = into / item.file
        if not target.exists() and not target.is_symlink():
            writes.append(item)
        elif not target.is_file() or target.read_bytes() != item.data:
            clashes.append(
                Problem(f"'{target}' already exists with other content", Span(str(item.origin)))
            )
    if clashes:
        hint = "nothing was written; import into an empty folder with --into DIR"
        raise HotplexError([*clashes[:-1], Problem(clashes[-1].message, clashes[-1].span, hint)])
    return writes
