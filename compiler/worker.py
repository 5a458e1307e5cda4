"""The worker contract: what a worker provides, and the records that cross the seam.

A worker turns the resolved sections of one job into the files its program reads. It is one
module under ``targets/`` holding one ``Worker`` subclass, registered by one line in
``registry.BUILT_IN``; the core looks workers up by name and never names one. Everything a
worker may bring — its own manifest keys, checks that need the whole manifest, default sources,
budgets, ``init`` templates, the files it emits — is declared here, with a default, so a small
worker is small (pre-commit's plug-in shape: a base class with defaults, and a registry).

The records that cross the seam (``Section`` in, ``Emitted`` out, ``Output``, ``Budgets``,
``OptionProblem``, ...) live in ``hotplex.records`` with every other record that crosses a
stage; they become JSON only at the edges (``build/log.py``, the commands' ``--json``, the
server's answers).
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from hotplex.generated import attrs
from hotplex.json_writer import json_text
from hotplex.manifest.model import HOTPLEX_SOURCES, SKILLS_SOURCE
from hotplex.records import Budgets, Section, SkillRow
from hotplex.text.measure import measure

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Manifest, Model, Source, Target
    from hotplex.records import (
        Emitted,
        OptionProblem,
        Output,
        Skill,
        SourceTemplate,
        TargetSources,
    )


@attrs.frozen
class NoOptions:
    """The options of a worker that has none: any key is an unknown key."""


_NO_NAMES: Mapping[str, tuple[str, ...]] = MappingProxyType({})  # read-only: shared


class OwnFiles(NamedTuple):
    """The instruction files a worker's program loads by itself, beside the compiled document:
    the raw copy of rules hotplex compiles. Established with the real program and declared by
    the worker; ``raw_copies.py`` tells the user where one will reach the program."""

    program: str  # as users name it: "Claude Code"
    # Globs, relative to each folder from the session folder up, of the files it reads there.
    names: tuple[str, ...]
    home: str  # what it reads from its home and global config, in words
    # How ``launch.json`` turns the session folder's files off (None: the program has no way).
    switch: str | None = None
    # What else the switch drops that hotplex compiles nowhere (a user's own home file): while
    # not None the switch is the target's explicit choice (``own_instructions = "off"``).
    also_drops: str | None = None
    # A name read only when none of these sits in the same folder (AGENTS.md beside CLAUDE.md).
    unless_beside: Mapping[str, tuple[str, ...]] = _NO_NAMES
    # Names of which the program reads only the first found, in this order: in each folder
    # (Pi: CLAUDE.md only where no AGENTS.md sits beside it), or with ``first_across`` on the
    # whole way up, every folder's file of the first name found anywhere there (OpenCode: no
    # CLAUDE.md at all once an AGENTS.md is found in one of the folders).
    first_of: tuple[str, ...] = ()
    first_across: bool = False
    # It also reads these names from the folders below the session folder.
    below: bool = False
    # Those of ``names`` the switch leaves on (Kilo's legacy rule folders): raw copies whatever
    # the target says, with no way out but a session folder outside the project.
    unswitched: tuple[str, ...] = ()
    # It reads them from the folders above the session folder too (Cline: only from its own).
    above: bool = True
    # Those of ``names`` it reads from the session folder only, never above (Hermes: AGENTS.md).
    only_here: tuple[str, ...] = ()
    # It climbs only inside a git repository, up to its root (a folder holding ``.git``);
    # outside one it reads its own folder only (Hermes's ``.hermes.md``).
    in_repository: bool = False
    # It passes over a file of white space only (or not UTF-8) as if it were not there, to the
    # next of ``first_of`` (Hermes).
    blank_absent: bool = False
    # Files in the session folder that compete with the delivered document, by glob, with what
    # happens to it or to them ("not read: the document takes its place"): ``check`` names each
    # one there, whoever wrote it.
    rivals: Mapping[str, str] = _NO_NAMES
    # Those of them the program does not read at all beside the document (it takes their place):
    # never a raw copy, even when compiled.
    shadowed: tuple[str, ...] = ()

    def unless(self, name: str) -> tuple[str, ...]:
        """The names whose presence keeps the program from reading ``name``: beside it, or with
        ``first_across`` in any folder it reads."""
        earlier = self.first_of[: self.first_of.index(name)] if name in self.first_of else ()
        return (*self.unless_beside.get(name, ()), *earlier)

    def read(self, switched_off: bool) -> tuple[str, ...]:
        """The names the program reads with its loading switched on or off."""
        return self.unswitched if switched_off else self.names


# What happens to a skill of the user's own in the folder the gateway places skills in.
PLACED_OVER = "; the gateway's copy replaces one named like a compiled skill"


def skill_rivals(program: str, folders: tuple[str, ...], more: str = "") -> dict[str, str]:
    """``OwnFiles.rivals`` for the skill folders ``program`` also lists from the session folder
    (``.agents/skills``): each skill there is a raw copy beside the compiled ones, a folder
    below another's too (``x/y/SKILL.md``: Codex CLI and OpenCode list one found at any depth)."""
    effect = f"is a skill {program} lists beside the compiled ones, raw (not checked or scanned)"
    return {f"{folder}/**/SKILL.md": effect + more for folder in folders}


class Verified(NamedTuple):
    """What a worker's delivery was checked against: its real program at the version the live
    tests pin, or (``version`` None) the tool's published format documentation."""

    program: str  # as users name it: "Codex CLI"
    version: str | None
    evidence: str  # the test, fixture or reference file that checks it, repository-relative

    def text(self) -> str:
        """The check in words, as the README's worker table and the worker's page say it."""
        if self.version is None:
            return f"{self.program}'s format documentation"
        return f"{self.program} {self.version}"


class SkillsPlace(NamedTuple):
    """Where a worker's program loads Agent Skills, as checked with the real program."""

    folder: str  # relative to the session folder, ``{name}`` the skill's: ".claude/skills/{name}"
    # Frontmatter keys beyond the specification's that the program documents.
    keys: frozenset[str] = frozenset()
    # The keys whose texts the program lists for each skill, in order, and how it joins them;
    # the most characters it keeps of one entry (None: no cap), measured with the program.
    listed: tuple[str, ...] = ("description",)
    joiner: str = " - "
    entry_cap: int | None = None
    entry_unit: str = "chars"  # how it counts the cap: "chars", or "utf16" (JavaScript's length)
    # The tag the program wraps its listing in: no listed text may spell it, in any spelling
    # the reserved-tag sanitizer knows (``scanning.sanitize``).
    wrapper: str | None = None
    # The most the whole listing may take, each skill's line (``skill_listing.LINE``, its entry
    # cut at ``entry_cap``) and a line break, in ``listing_unit``, and how much of it the
    # program's own skills keep (None: no budget). Over it, the program lists a skill by its name
    # alone (``skill_listing.NAME_LINE``) from the first that no longer fits, in its order:
    # measured with the program.
    listing_budget: int | None = None
    listing_own: int = 0
    listing_unit: str = "chars"
    # Whether ``folder`` is relative to the home ``launch.json`` sets instead (Codex's
    # ``$CODEX_HOME/skills``): the skills are written into that home, and placed nowhere.
    in_home: bool = False


class Worker:
    """Subclass it, set ``name`` and ``outputs``, implement ``emit``; the rest is optional."""

    name: ClassVar[str]
    outputs: ClassVar[tuple[Output, ...]]
    # How its program gets the artifact, in Markdown: the README's worker table and the worker's
    # page on the documentation site say it in these words.
    delivery: ClassVar[str] = ""
    # What the delivery was checked against (None: nothing yet).
    verified: ClassVar[Verified | None] = None
    # An attrs class: the worker's own target keys, structured by the manifest's strict converter
    # (unknown keys and wrong types are errors with their key path).
    Options: ClassVar[type] = NoOptions
    # Whether a gateway starts its program itself, headless, with the files hotplex compiles (a
    # launch.json, an HTTP payload): False for an editor's rules file or a workspace its own
    # program reads, which cannot run an extraction request (``learning/request.py``).
    headless: ClassVar[bool] = True
    # ``hotplex init``: the target name it scaffolds and a comment on what the artifact is for.
    init_target: ClassVar[tuple[str, str]]
    # Daily memory logs: "section" folds the days that fit into the memory section; "files"
    # leaves the section to MEMORY.md and hands every day to ``emit`` (its program reads them).
    daily_logs: ClassVar[str] = "section"
    # What its program loads by itself (None: nothing; OpenClaw reads only what hotplex places).
    own_files: ClassVar[OwnFiles | None] = None
    # Its program's own budgets, named as its target keys, when ``budgets`` is not ``[limits]``.
    own_limits: ClassVar[str | None] = None
    # What its primary output carries: "agent-configuration" when it is the document
    # ``document.configuration`` builds (sanitized, reserved tags escaped); None: its own format.
    document: ClassVar[str | None] = None
    # ``hotplex init`` and ``hotplex import`` scaffold a target of it unless told which workers.
    scaffold_default: ClassVar[bool] = False
    # The audiences of imported instruction files its program reads (``hotplex import``):
    # "claude-code" (CLAUDE.md), "agents" (AGENTS.md), "gemini" (GEMINI.md), "hermes" (.hermes.md).
    imports_read: ClassVar[frozenset[str]] = frozenset()
    # The instruction-file formats ``hotplex import`` finds for its program, each a "module" or
    # "module:NAME" (as ``pkgutil.resolve_name`` reads it) naming an object with ``KIND`` and
    # ``find(root) -> Found | None`` (``hotplex.importing.found``); a format several programs
    # read (AGENTS.md) is declared by each, and found once, in registry order.
    import_formats: ClassVar[tuple[str, ...]] = ()
    # The module of a workspace format ``hotplex import`` recognises as its program's own
    # (``KIND``, ``find(root)``, ``claims(folder)``), if any.
    importer: ClassVar[str | None] = None

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        """Checks of a target the converter cannot express; the whole manifest is at hand, and
        the sources the target reads."""
        return ()

    def default_sources(self, target: Target) -> tuple[Source, ...]:
        """The sources a target of this worker reads without a ``[[source]]`` (``source_rule``):
        HotPlex's five unless the worker's program loads files of its own."""
        return HOTPLEX_SOURCES

    def budgets(self, target: Target, manifest: Manifest) -> Budgets:
        """The budgets its artifacts are cut to: the manifest's ``[limits]`` unless its own."""
        limits = manifest.limits
        return Budgets(limits.per_file, limits.total, limits.unit)

    def document_budgets(self, target: Target, manifest: Manifest, name: str) -> Budgets:
        """The budgets of a further document (``Emitted.documents``; ``name``: its path from the
        primary's folder) that ``stats`` measures it against: the primary's unless its own (Hermes
        Agent's memory files)."""
        return self.budgets(target, manifest)

    def section_budgets(self, target: Target, manifest: Manifest, section: str) -> Budgets:
        """The budgets of the document a section goes into, which bound how many days of a daily
        log are worth reading for it: the primary's unless it goes elsewhere (Hermes Agent's
        memory slots)."""
        return self.budgets(target, manifest)

    def document_size(self, name: str, text: str, unit: str) -> int:
        """A document's size (the primary's too; ``name``: its path from the primary's folder)
        as its program measures it against its budgets (``stats`` and ``show`` compare the two):
        the file's whole text unless the program says otherwise."""
        return measure(text, unit)

    def read_budget(self, target: Target) -> int | None:
        """The most characters it can keep of one file, when larger than ``[limits]`` allow."""
        return None

    def templates(self, folder: Path) -> tuple[SourceTemplate, ...]:
        """Source files ``hotplex init`` writes into ``folder`` beyond HotPlex's five."""
        return ()

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        raise NotImplementedError

    # Where its program loads Agent Skills, once a live test has shown it; None: a target of it
    # leaves the skills out, with a warning naming them.
    skills: ClassVar[SkillsPlace | None] = None
    # For a program shown to load none at its checked version: what showed it. The README's
    # table and the warning then say it has no skills there, not that it is unverified.
    no_skills: ClassVar[str | None] = None
    # For a tool that reads no ``own_files`` (an editor's), the skill folders it lists from the
    # repository, as ``skill_rivals`` gives them: the one-copy warnings (``raw_copies``).
    skills_listed: ClassVar[Mapping[str, str]] = _NO_NAMES

    def emit_with_skills(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        """``emit``, and the project's Agent Skills: a worker with a ``skills`` place ships
        them (its family's ``emit_with_skills``); any other says which it leaves out."""
        folded = _folded(job, sections, skills, model) if skills else None
        emitted = self.emit(job, sections if folded is None else folded, model)
        rows = tuple(_unshipped(s, folded is not None) for s in skills)
        emitted = attrs.evolve(emitted, skills=rows) if rows else emitted
        if not skills or folded is not None:
            return emitted
        program = self.verified.program if self.verified else self.name
        names = ", ".join(s.name for s in skills)
        why = (
            "the target reads no skills section to list them in"
            if job.target.skills_listing
            else "skills_listing = true lists their names and descriptions in <skills>"
        )
        loads = (
            f"{program} {self.verified.version} loads no Agent Skills"
            if self.no_skills and self.verified
            else f"{program} is not verified to load Agent Skills"
        )
        warning = f"{loads}, so this target leaves out the skills {names} ({why})"
        return attrs.evolve(emitted, warnings=(*emitted.warnings, warning))

    # The paths (a glob: ``*`` one name, ``**`` any folders) where its tool reads the file it
    # places, if it places one: searched for placed files the build log does not know.
    places: ClassVar[str | None] = None
    # What its tool makes of the other rule files beside the placed one (``stats``' copies).
    places_beside: ClassVar[str] = (
        "the editor also reads the other rule files it finds in the repository, which hotplex"
        " does not check"
    )

    def placed(self, target: Target) -> str | None:
        """Where in the repository the base job's primary is also written (``placement.py``),
        project-relative, or None. A worker that places builds the base job only: an editor
        reads one file per repository."""
        return None

    def switched_off(self, target: Target) -> bool:
        """Whether ``launch.json`` turns the program's own instruction files off: by default
        when the switch drops nothing hotplex does not compile, else as the target chooses."""
        own = self.own_files
        if own is None or own.switch is None:
            return False
        if target.own_instructions is None:
            return own.also_drops is None
        return target.own_instructions == "off"


def _unshipped(skill: Skill, folded: bool) -> SkillRow:
    """A skill a program that loads none leaves out, or lists in ``<skills>`` (``folded``)."""
    size = len(skill.description) if folded else 0
    how = "in <skills>" if folded else "left out"
    return SkillRow(skill.name, size, None, "chars", 0, 0, (), how)


SKILLS_LISTING_HEAD = (
    "Agent Skills of this project (only their names and descriptions reach you here; their"
    " instructions do not):"
)


def _folded(
    job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
) -> list[Section] | None:
    """``sections`` with each skill's name and description at the end of ``<skills>``, where
    the target asks for it (``skills_listing``); None where it does not, or the
    target reads no skills source."""
    order = [s.name for s in model.sources_of(job.target)]
    if not job.target.skills_listing or SKILLS_SOURCE not in order:
        return None
    source = model.sources_of(job.target)[order.index(SKILLS_SOURCE)]
    listing = "\n".join(f"- {s.name}: {s.description}" for s in skills)
    text = f"{SKILLS_LISTING_HEAD}\n{listing}"
    files = tuple(f"{s.folder}/SKILL.md" for s in skills)
    found = next((x for x in sections if x.name == SKILLS_SOURCE), None)
    if found is not None:
        grown = attrs.evolve(
            found, text=f"{found.text.rstrip()}\n\n{text}", files=found.files + files
        )
        return [grown if x is found else x for x in sections]
    made = Section(SKILLS_SOURCE, source.tag, source.channel, source.note, text, files)
    after = order.index(SKILLS_SOURCE)
    at = next(
        (i for i, x in enumerate(sections) if x.name in order and order.index(x.name) > after),
        len(sections),
    )
    return [*sections[:at], made, *sections[at:]]


def json_bytes(value: object) -> bytes:
    """Deterministic JSON for emitted files: sorted keys, two-space indent, UTF-8, final newline;
    written by ``json_writer.json_text``, the one JSON writer (a lone surrogate as its escape)."""
    return (json_text(value, indent=2, sort_keys=True) + "\n").encode("utf-8")


LAUNCH_FILE = "launch.json"


def yaml_text(value: object) -> str:
    """``value`` as YAML by PyYAML's safe emitter, which quotes and escapes what needs it (a
    line break, U+0085, a control character: a JSON string is no YAML string for these); in
    block style, keys in their order, characters beyond ASCII as they are, one line a scalar.
    Read back before it is accepted; when it does not read as ``value`` (PyYAML 6 writes a
    U+0085 in a single-quoted string, where it reads as a line break), every string is written
    double-quoted, escapes and all; ValueError when even that would give a program another
    value."""
    import yaml  # only a worker that writes YAML needs it

    for style in (None, '"'):
        emitted = yaml.safe_dump(
            value,
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            default_style=style,
            width=2**16,
        )
        try:
            read = yaml.safe_load(emitted)
        except yaml.YAMLError as exc:
            raise ValueError(f"it is no valid YAML ({exc})") from None
        if read == value:
            return emitted
    raise ValueError("it does not read back as written")


def in_session(job: Job, model: Model, path: str) -> str:
    """A project-relative ``path`` as the program, started in the target's session folder
    (``cwd``), must be given it: programs resolve relative paths against their working folder.
    From a session folder outside the project the way back names every folder ``cwd`` climbs
    out of, down to the project's (``load`` refuses a ``cwd`` climbing above the root)."""
    session = model.session_dir(job.target)
    if session == ".":
        return path
    climbs = session_climbs(session)
    names = model.root.resolve().parts[1:]
    # Only the folders climbed out of show in the result; the rest of the root path cancels.
    root = posixpath.join("/", *names[len(names) - climbs :])
    return posixpath.relpath(posixpath.join(root, path), posixpath.join(root, session))


def session_climbs(session: str) -> int:
    """How many folders a normalised ``cwd`` climbs up out of the project (``../../x``: 2)."""
    parts = session.split("/")
    return next((i for i, part in enumerate(parts) if part != ".."), len(parts))


def launch_json(
    job: Job,
    model: Model,
    argv: list[str] | None = None,
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    gateway_adds: str | None = None,
    executable: list[str] | None = None,
) -> bytes:
    """``launch.json``: how a gateway starts the worker's program for this job. ``cwd``, the
    session folder, is relative to the project (the project itself unless the target's ``cwd``
    says otherwise); the paths in ``argv`` and ``env`` are relative to ``cwd`` (``in_session``),
    as the program resolves them. ``files`` maps where to place each built file in the session
    folder to the file, relative to the project (the gateway copies it); ``executable`` lists
    those of them the gateway makes executable (mode 0755: a skill's allowed scripts, and no
    other file), or of a home's files, each as the home's variable names it (``cwd``-relative:
    the gateway makes the same file of its copy of the home executable). The gateway adds its
    own credentials and provider settings on top; ``gateway_adds`` says what, where the program
    cannot start without more."""
    launch: dict[str, object] = {
        "cwd": model.session_dir(job.target),
        "platform": job.platform,  # None for the base artifact: null, as in every JSON report
        "target": job.target.name,
    }
    pairs = (
        ("argv", argv),
        ("env", env),
        ("files", files),
        ("executable", executable),
        ("gateway_adds", gateway_adds),
    )
    for key, value in pairs:
        if value:
            launch[key] = value
    # The same few for every call of a gateway: the JSON (an indented dump, in Python) once
    # per content. The key is the whole content (strings, lists and maps of strings).
    try:
        key = tuple(
            (name, tuple(value.items()) if isinstance(value, dict) else _frozen(value))
            for name, value in launch.items()
        )
        found = _LAUNCHES.get(key)
    except TypeError:  # a value no key can hold: made every time
        return json_bytes(launch)
    if found is None:
        if len(_LAUNCHES) >= LAUNCHES_KEPT:
            # The oldest first: the cache stays bounded (another thread may take it first).
            with contextlib.suppress(KeyError, RuntimeError, StopIteration):
                _LAUNCHES.pop(next(iter(_LAUNCHES)))
        found = _LAUNCHES[key] = json_bytes(launch)
    return found


def _frozen(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


LAUNCHES_KEPT = 4096
_LAUNCHES: dict[tuple, bytes] = {}
