"""Which formats a path holds. A workspace folder (HotPlex, OpenClaw) is a project of its own;
any other folder is searched for every tool's instruction files, in the formats the workers
declare (``Worker.import_formats``) and ruler's."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from pkgutil import resolve_name
from types import ModuleType
from typing import Any

from hotplex import registry
from hotplex.commands.scaffold import SOURCE_FILES, SOURCES_DIR
from hotplex.errors import HotplexError, Problem, Span, visible
from hotplex.fs import STATE_DIR, kind_of, wrong_kind
from hotplex.importing import hotplex, ruler, skills
from hotplex.importing.found import Found, Skip, left_out
from hotplex.manifest.read import DEFAULT_OUT, MANIFEST_NAME, read_bytes
from hotplex.placement import origin, read_regular

_SUFFIXED = re.compile(r"(SOUL|AGENTS|SKILLS|USER|MEMORY)\.[A-Za-z0-9][A-Za-z0-9_-]*\.md")


def workspace_format(folder: Path, chosen: tuple[str, ...] = ()) -> ModuleType | None:
    """The format module of the workspace ``folder`` is (HotPlex's, or one a worker declares as
    its ``importer``), else None. A folder holding only files HotPlex's sources and a worker's
    workspace both have (AGENTS.md and SOUL.md) is HotPlex's, unless that worker is ``chosen``
    (``import --for``)."""
    names = {p.name for p in folder.iterdir() if p.is_file()}
    own = _only_hotplex(names)
    held = names & {*SOURCE_FILES, hotplex.META}
    subfolders = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
    platforms = any(any((sub / n).is_file() for n in SOURCE_FILES) for sub in subfolders)
    if folder.name == SOURCES_DIR and (held or own or platforms):
        return hotplex
    importers = _worker_importers()
    for importer in importers.values():
        if importer.claims(folder, False):
            return importer
    if "SOUL.md" not in names and not own:
        return None
    asked = (i for w, i in importers.items() if w in chosen and i.claims(folder, True))
    return hotplex if own else next(asked, hotplex)


def _only_hotplex(names: set[str]) -> bool:
    """Whether the file ``names`` of a folder hold one only HotPlex's sources have: SKILLS.md,
    META.md, or a platform's variant (``SOUL.telegram.md``)."""
    return any(n in ("SKILLS.md", hotplex.META) or _SUFFIXED.fullmatch(n) for n in names)


def _worker_importers() -> dict[str, ModuleType]:
    """The workspace formats workers declare, by worker name, in registry order."""
    workers = registry.workers()
    return {n: resolve_name(w.importer) for n, w in workers.items() if w.importer}


def _also_workspaces(path: Path) -> list[str]:
    """For a folder taken as HotPlex's sources, a note per worker whose workspace it could be
    too, asked for (``import --for``): it holds only files both read."""
    if _only_hotplex({p.name for p in path.iterdir() if p.is_file()}):
        return []
    return [
        f"{path} is taken as HotPlex's sources; it could be an {importer.KIND} too:"
        f" `hotplex import --for {worker}` imports it as one"
        for worker, importer in _worker_importers().items()
        if importer.claims(path, True)
    ]


def instruction_formats() -> list[Any]:
    """Every tool's instruction-file format, each with ``KIND`` and ``find(root) -> Found |
    None``, in the order their sources take in the manifest: those the workers declare
    (``Worker.import_formats``; AGENTS.md, which several programs read, once) in registry order,
    then ruler's and the Agent Skills' folders, the core's own: ruler is no program hotplex
    builds for, it writes the others' files from ``.ruler/``; a skill folder is the
    specification's, which several programs load."""
    declared = dict.fromkeys(s for w in registry.workers().values() for s in w.import_formats)
    return [*(resolve_name(spec) for spec in declared), ruler, skills]


def detect(path: Path, project: Path, chosen: tuple[str, ...] = ()) -> list[Found]:
    """Every format found at ``path``: a folder, or a file or folder inside one a tool reads
    (``.cursor/rules/a.mdc``, ``.kiro/steering``, ``.aider.conf.yml``), found from the folder
    that holds it, or holds the hidden folder it is in, and reduced to it. ``project`` is the
    folder imported into: no folder above it is searched; ``chosen``: the workers ``--for``
    names."""
    mode = kind_of(path)
    if mode is None:
        raise HotplexError.single(f"'{path}': no such file or folder")
    found = _in_folder(path, project, chosen) if path.is_dir() else []
    for root in _roots(Path(os.path.normpath(path.absolute())), project):
        found = found or _only(_in_folder(root, project, chosen), path)
    if not found and not stat.S_ISDIR(mode) and not stat.S_ISREG(mode):
        raise HotplexError.single(wrong_kind(str(path), mode, "a regular file or a folder"))
    return found


def _roots(path: Path, project: Path) -> list[Path]:
    """The folders a tool may read ``path`` from: the one holding it, and the one holding the
    hidden folder it is in (a tool's rules sit in ``.<tool>/`` at the root), unless that is
    above the project."""
    roots = [path.parent] if not path.is_dir() else []
    hidden = next((p for p in (path, *path.parents) if p.name.startswith(".")), None)
    if hidden is not None and hidden.parent not in roots:
        above = Path(os.path.normpath(project.absolute())).is_relative_to(hidden.parent)
        if not above or hidden.parent == project.absolute():
            roots.append(hidden.parent)
    return roots


def _in_folder(path: Path, project: Path, chosen: tuple[str, ...]) -> list[Found]:
    """Every format found in the folder ``path``."""
    workspace = workspace_format(path, chosen)
    if workspace is hotplex and path.name != SOURCES_DIR:
        found = hotplex.find(path)
        found.notes += _also_workspaces(path)
        return [found]
    if workspace is not None:
        return [workspace.find(path)]
    found = [f for f in (module.find(path) for module in instruction_formats()) if f is not None]
    _leave_unreadable(found, project if _inside(path, project) else path)
    _leave_placed(found)
    _leave_rulers_output(found)
    _keep_what_is_read(found)
    child = path / SOURCES_DIR
    if child.is_dir() and workspace_format(child) is hotplex:
        found.insert(0, hotplex.find(child))
    return found


def _only(found: list[Found], path: Path) -> list[Found]:
    """The formats holding ``path`` (a file, a folder, or the file naming the sources, Aider's
    config), reduced to it: its entries, and what it left out there and why."""
    wanted = path.resolve()

    def inside(origin: Path) -> bool:
        return origin.resolve() == wanted or origin.resolve().is_relative_to(wanted)

    kept = []
    for kind in found:
        if kind.config is None or kind.config.resolve() != wanted:
            kind.entries = [e for e in kind.entries if inside(e.origin)]
            kind.skipped = [s for s in kind.skipped if inside(s.origin)]
            # A file of a skill names the skill: it ships whole.
            kind.skills = [
                s
                for s in kind.skills
                if inside(s.origin) or wanted.is_relative_to(s.origin.resolve())
            ]
        if kind.entries or kind.skipped or kind.skills:
            kept.append(kind)
    return kept


def _leave_unreadable(found: list[Found], project: Path) -> None:
    """A tool's file that is a symlink leaving the project, a FIFO or a device is left out,
    named with why, whatever its format made of it (its content was never read)."""
    for kind in found:
        for entry in list(kind.entries):
            why = left_out(entry.origin, project)
            if why is not None:
                kind.entries.remove(entry)
                kind.skipped.append(Skip(entry.origin, why))
        kind.skipped = [
            Skip(s.origin, left_out(s.origin, project, folder=True) or s.reason)
            for s in kind.skipped
        ]


def _inside(path: Path, project: Path) -> bool:
    return Path(os.path.normpath(path.absolute())).is_relative_to(
        os.path.normpath(project.absolute())
    )


def _leave_placed(found: list[Found]) -> None:
    """A rule file hotplex placed (its marker line there) is output, never a source: imported,
    the next build would read its own artifact back, a whole compiled document nested in each
    new one. Edited since, it is still that document: left out too, and the edit's place said."""
    for kind in found:
        for entry in list(kind.entries):
            data = read_regular(entry.origin)
            placed = origin(data) if data is not None else None
            if placed is None:
                continue
            why = "written by hotplex build (a placed rule file)"
            if not placed[2]:
                why += (
                    " and edited since: it holds the compiled document; move your edit to the"
                    f" sources {visible(placed[0])} names"
                )
            kind.entries.remove(entry)
            kind.skipped.append(Skip(entry.origin, why))


def _keep_what_is_read(found: list[Found]) -> None:
    """A file left out where it is may still be read another way: imported by a CLAUDE.md, or
    the file a symlinked CLAUDE.md points to (CLAUDE.md -> agents/AGENTS.md). It is no skip."""
    read = {item.origin.resolve() for f in found for item in (*f.entries, *f.companions)}
    for kind in found:
        kind.skipped = [s for s in kind.skipped if s.origin.resolve() not in read]
    found[:] = [f for f in found if f.entries or f.skipped or f.skills]


def _leave_rulers_output(found: list[Found]) -> None:
    """With a .ruler/ folder, the files ruler generated from it are ruler's, not sources."""
    if not any(f.kind == ruler.KIND for f in found):
        return
    for kind in found:
        if kind.kind == ruler.KIND:
            continue
        made = [e for e in kind.entries if ruler.generated(e.origin)]
        kind.entries = [e for e in kind.entries if e not in made]
        why = "written by ruler from .ruler/ (imported from there instead)"
        kind.skipped += [Skip(e.origin, why) for e in made]
    found[:] = [f for f in found if f.entries or f.skipped or f.skills]


def refuse_state_folders(paths: list[Path], into: Path) -> None:
    """A path in git's own folder, in hotplex's build state or in the artifact folder of the
    manifest there is no source: no tool reads rules there, and what is there never reaches
    a clone or is hotplex's own output."""
    out = _existing_out(into)
    reasons = {
        ".git": "'.git/' is git's own store: no tool reads rules there, and git commits none",
        STATE_DIR: f"'{STATE_DIR}/' is hotplex's build state, which git ignores: a source there"
        " never reaches a clone",
    }
    problems = []
    for path in paths:
        pairs = (
            (os.path.normpath(path.absolute()), os.path.normpath(into.absolute())),
            (os.path.realpath(path), os.path.realpath(into)),  # a symlink into .git/ too
        )
        for full, root in pairs:
            if os.path.commonpath([full, root]) != root:
                continue
            rel = Path(os.path.relpath(full, root))
            why = next((reasons[p] for p in rel.parts if p in reasons), None)
            if why is None and out is not None and rel.is_relative_to(out):
                why = f"'{out}/' is the artifact folder of {MANIFEST_NAME}: hotplex's output"
            if why is not None:
                problems.append(Problem(f"not imported: {why}", Span(str(path))))
                break
    if problems:
        hint = "import the file from where its tool reads it (copy it there first)"
        raise HotplexError([*problems[:-1], problems[-1].replace(hint=hint)])


def _existing_out(into: Path) -> str | None:
    """The ``[project] out`` of the manifest in ``into``, when there is one that reads."""
    import tomllib

    try:
        existing = tomllib.loads(read_bytes(into / MANIFEST_NAME, MANIFEST_NAME).decode("utf-8"))
        out = existing.get("project", {}).get("out", DEFAULT_OUT)
    except (HotplexError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return None  # reconciling it says what is wrong
    return os.path.normpath(out) if isinstance(out, str) and out else None
