"""OpenClaw: the workspace bootstrap files, and ``context.md``, the Project Context built from them.

OpenClaw reads a fixed set of Markdown files (AGENTS.md, SOUL.md, ...) from its workspace when a
session starts, cuts them to its own budgets and renders them into the ``# Project Context``
section of its system prompt. For each job this worker writes::

    <out>/<target>/<platform or default>/workspace/<FILE>   the files to deploy into the workspace
    <out>/<target>/<platform or default>/context.md         what OpenClaw will build from them

``context.md`` is predicted (``openclaw_context``) from exactly the bytes of the workspace files
written beside it, so a user sees before deploying what the agent receives and what OpenClaw cuts.

Sections -> files: each kept source becomes the workspace file named like its base file
(``agent-configs/SOUL.md`` -> ``SOUL.md``), with variants, templates and frontmatter already dealt
with. The META-COGNITION block is HotPlex's own and no OpenClaw file, so it is left out. A file
OpenClaw does not read (SKILLS.md; TOOLS.md under 2026.9) is still written, with a warning.

Decisions:

- A workspace file is the section's text plus one final newline, as an editor saves a text file;
  an empty section is an empty file. OpenClaw trims the end of each file before budgeting, so the
  newline reaches neither the prompt nor the sizes OpenClaw reports. ``context.md`` is the section
  exactly, with no newline added, so it can be compared byte for byte with OpenClaw's.
- No sanitising. OpenClaw's prompt is Markdown, with no reserved XML tags to protect. What would
  reach OpenClaw unintended is already gone upstream: frontmatter (OpenClaw injects it verbatim),
  a BOM (kept as text by OpenClaw) and CR line ends (counted against its budgets). Text that looks
  like OpenClaw's own structure (a "## /path/FILE.md" heading) is left alone: OpenClaw does not
  escape it either, so escaping would make the prediction wrong, and the files are the operator's
  own configuration, trusted like the rest of it.
- hotplex's ``[limits]`` do not apply: OpenClaw applies its own budgets (``max_chars``,
  ``total_max_chars``, its USER.md cap), and ``context.md`` shows their effect. Cutting the files
  beforehand would take text away from the agent that OpenClaw would have kept (or read on demand).
- Daily logs (``[memory] logs``) are deployed as they are, every day, under the workspace's
  ``memory/`` (the glob's folder): OpenClaw reads MEMORY.md at start and the days through its own
  memory tools, so the workspace MEMORY.md holds the curated file alone.
- ``workspace`` is used verbatim: "~" is not expanded, so artifacts are the same bytes on every
  machine. OpenClaw's headings show the expanded path; set ``workspace`` to it for an exact match.

Report: OpenClaw's warnings go into ``Emitted.warnings`` word for word. Each file OpenClaw cuts or
skips for lack of budget, including the silent stop once the total budget is spent, is also a
``Truncation`` whose limit names the budget (``openclaw.max_chars``, ``openclaw.user_cap``,
``openclaw.total_max_chars``). Sizes are in UTF-16 code units (unit ``utf16``): what OpenClaw
counts as "chars". A file left out by design (another session kind, an empty file) is no cut.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from hotplex.errors import suggest
from hotplex.fs import folded
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Manifest, Model, Source, Target
from hotplex.records import (
    Budgets,
    Emitted,
    OptionProblem,
    Output,
    Section,
    SectionSize,
    Skill,
    SourceTemplate,
    TargetSources,
    Truncation,
)
from hotplex.scanning import hidden
from hotplex.targets.gateway import SkillsShipper, shipped_skills
from hotplex.targets.openclaw import context as openclaw_context
from hotplex.targets.openclaw import templates as openclaw_templates
from hotplex.targets.openclaw.context import (
    BOOTSTRAP_FILES,
    COMPATS,
    SESSIONS,
    InjectedFile,
    ProjectContext,
)
from hotplex.targets.openclaw.templates import TEMPLATES
from hotplex.text.measure import measure
from hotplex.worker import SkillsPlace, Verified

CONTEXT_FILE = "context.md"
WORKSPACE_DIR = "workspace"
DEFAULT_COMPAT = "2026.9"
DEFAULT_WORKSPACE = "~/.openclaw/workspace"
UNIT = "utf16"
MEMORY_SOURCE = Source("memory", "MEMORY.md", "C", "memory", "Recall relevant past context.")
# OpenClaw 2026.9.6 lists the skills of ``<workspace>/skills`` first (its highest precedence) in
# ``<available_skills>``, each as ``<skill><name>…</name><description>…</description><location>
# …/SKILL.md</location></skill>``, and the model reads one with its ``read`` tool: shown with the
# real program by tests/integration/test_skills_each_program.py. The keys its skills page
# documents beyond the specification's.
SKILLS = SkillsPlace(
    "skills/{name}",
    keys=frozenset(
        {
            "homepage",
            "user-invocable",
            "disable-model-invocation",
            "command-dispatch",
            "command-tool",
            "command-arg-mode",
        }
    ),
    wrapper="available_skills",
    in_home=True,
)


@attrs.frozen
class Options:
    """The target keys of an ``openclaw`` target (None: OpenClaw's default)."""

    compat: str | None = None
    workspace: str | None = None
    session: str | None = None
    max_chars: int | None = None
    total_max_chars: int | None = None


@dataclass(frozen=True)
class Settings:
    """A target's OpenClaw options with their defaults applied (keyword names of the predictor)."""

    compat: str
    session: str
    workspace: str
    max_chars: int | None
    total_max_chars: int | None


@dataclass(frozen=True)
class _WorkspaceFile:
    name: str
    section: Section
    content: str


def settings(target: Target) -> Settings:
    """The options OpenClaw runs with; a sub-agent profile implies a sub-agent session."""
    options = target.options
    default_session = "subagent" if target.profile == "subagent" else "main"
    return Settings(
        compat=options.compat or DEFAULT_COMPAT,
        session=options.session or default_session,
        workspace=options.workspace or DEFAULT_WORKSPACE,
        max_chars=options.max_chars,
        total_max_chars=options.total_max_chars,
    )


def predict(files: Mapping[str, str], options: Settings) -> ProjectContext:
    """The Project Context OpenClaw builds from workspace ``files`` (name -> file text)."""
    return openclaw_context.build_project_context(files, **asdict(options))


class OpenClaw(SkillsShipper):
    name = "openclaw"
    delivery = (
        "the workspace files OpenClaw reads, and the exact `# Project Context` it will build from "
        "them"
    )
    verified = Verified("OpenClaw", "2026.9.6", "tests/integration/test_openclaw_live.py")
    Options = Options
    headless = False  # OpenClaw's own agent reads the workspace hotplex places
    outputs = (
        Output(CONTEXT_FILE, "document", primary=True),
        Output(f"{WORKSPACE_DIR}/*", "workspace"),
        Output(f"{WORKSPACE_DIR}/**/*.md", "memory"),  # the days, under the logs glob's folder
        Output(f"{WORKSPACE_DIR}/skills/**", "skill"),
    )
    skills = SKILLS
    home_dir = WORKSPACE_DIR  # where the skills are written: the workspace the user deploys
    init_target = ("claw", "the workspace files OpenClaw reads, and the context it will build")
    daily_logs = "files"
    importer = "hotplex.targets.openclaw.importer"  # ``hotplex import`` of a workspace
    own_limits = (
        "OpenClaw's own budgets, set by max_chars (its bootstrapMaxChars) and total_max_chars"
        " (bootstrapTotalMaxChars) on the target,"
    )

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        yield from _check_options(target.options)
        yield from _check_names(manifest, sources.reads)

    def default_sources(self, target: Target) -> tuple[Source, ...]:
        """Every bootstrap file the target's ``compat`` loads, as a source: without a
        ``[[source]]`` the build deploys exactly what OpenClaw would read from the sources
        folder. Each keeps the name, channel, tag and note of its workspace template (a
        ``[[source]] name = "identity"`` alone makes IDENTITY.md an ``<identity>`` section of
        the project's other targets too); MEMORY.md, which has no template, is context. Seed's
        lower-case ``memory.md`` is no default: declare it to deploy it. An unknown ``compat``
        has none (``validate`` says why)."""
        rows = {t.file: Source(t.source, t.file, t.channel, t.tag, t.note) for t in TEMPLATES}
        rows["MEMORY.md"] = MEMORY_SOURCE
        loaded = BOOTSTRAP_FILES.get(settings(target).compat, ())
        return tuple(rows[f] for f in loaded if f in rows)

    def budgets(self, target: Target, manifest: Manifest) -> Budgets:
        """OpenClaw's budgets, not hotplex's ``[limits]``, in the UTF-16 units it counts."""
        options = settings(target)
        per_file = options.max_chars or openclaw_context.PER_FILE_MAX_CHARS[options.compat]
        if options.compat == "seed":
            return Budgets(per_file, None, UNIT)  # the seed cuts each file on its own
        return Budgets(per_file, options.total_max_chars or openclaw_context.TOTAL_MAX_CHARS, UNIT)

    def read_budget(self, target: Target) -> int | None:
        options = target.options
        return max(options.max_chars or 0, options.total_max_chars or 0) or None

    def templates(self, folder: Path) -> tuple[SourceTemplate, ...]:
        return openclaw_templates.scaffold(folder)

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        """The workspace files, context.md predicted from them, every cut OpenClaw makes, and the
        project's Agent Skills in the workspace's ``skills/``."""
        options = settings(job.target)
        files = _workspace_files(sections, model, job.target)
        contents = {f.name: f.content for f in files}
        context = predict(contents, options)
        folder = job.out_dir(model)
        primary = f"{folder}/{CONTEXT_FILE}"
        out = {f"{folder}/{WORKSPACE_DIR}/{f.name}": f.content.encode("utf-8") for f in files}
        out.update(_daily_logs(sections, model, f"{folder}/{WORKSPACE_DIR}"))
        out[primary] = context.text.encode("utf-8")
        injected = {f.name: f for f in context.files}
        truncations = []
        sizes = []
        for file in files:
            section = file.section
            raw = measure(section.text, UNIT)
            entry = injected.get(file.name)
            size = entry.injected_size if entry is not None else 0
            sizes.append(SectionSize(section.name, section.files, raw, size, UNIT))
            cut = _cut(entry, file.name in context.skipped)
            if cut is not None:
                limit, style = cut
                truncations.append(
                    Truncation(section.name, section.files, limit, raw, size, UNIT, style)
                )
        unread = [
            _unread_warning(f.name, options.compat)
            for f in files
            if f.name not in BOOTSTRAP_FILES[options.compat]
        ]
        made = _hidden_made_by_cuts(context.text, contents.values())
        workspace = f"{folder}/{WORKSPACE_DIR}"
        shipped = shipped_skills(self, job, model, skills, workspace, launched=False)
        return Emitted(
            files={**out, **shipped.files},
            primary=primary,
            truncations=(*truncations, *shipped.truncations),
            warnings=(
                *context.warnings,
                *unread,
                *made,
                *shipped.warnings,
                *_unverified(options, skills),
            ),
            sizes=tuple(sizes),
            notes=(*shipped.notes, *((_OTHER_SKILL_ROOTS,) if skills else ())),
            skills=shipped.rows,
        )


# Where else OpenClaw 2026.9.6 finds skills (its skills page, "Loading order"): listed beside
# the workspace's, raw; one named like a skill of the workspace's skills/ is overridden by it.
_OTHER_SKILL_ROOTS = (
    "OpenClaw also lists, raw and unchecked, the skills of the workspace's .agents/skills,"
    " ~/.agents/skills (default state only), ~/.openclaw/skills (its managed folder) and its"
    " bundled ones; the workspace's skills/ wins over a skill of the same name there"
)


# --- validation ---------------------------------------------------------------------------------


def _check_options(options: Options) -> Iterable[OptionProblem]:
    """Each option OpenClaw would reject or hotplex could not predict."""
    for key, value, known in (
        ("compat", options.compat, COMPATS),
        ("session", options.session, SESSIONS),
    ):
        if value is not None and value not in known:
            hint = suggest(value, known)
            expected = ", ".join(f"'{k}'" for k in known)
            yield OptionProblem(
                key,
                f"unknown {key} '{value}' (expected one of {expected})"
                + (f" — {hint}" if hint else ""),
            )
    for key in ("max_chars", "total_max_chars"):
        value = getattr(options, key)
        if value is not None and value < 1:
            yield OptionProblem(key, f"must be a positive integer, got {value}")
    if options.compat == "seed" and options.total_max_chars is not None:
        yield OptionProblem(
            "total_max_chars", "compat 'seed' has no total budget: it cuts each file on its own"
        )
    if options.workspace is not None:
        yield from _check_workspace(options.workspace)


def _check_workspace(workspace: str) -> Iterable[OptionProblem]:
    """The path must be the one OpenClaw shows: absolute (or under "~"), normalised, one line."""
    if not (workspace.startswith("/") or workspace == "~" or workspace.startswith("~/")):
        yield OptionProblem(
            "workspace",
            f"'{workspace}' must be an absolute path or start with '~/': OpenClaw resolves a"
            " relative path against its own working directory, which hotplex cannot know",
        )
    elif any(ch < " " or ch == "\x7f" for ch in workspace):
        yield OptionProblem(
            "workspace", "must be one line without control characters (it is shown in headings)"
        )
    elif (normal := posixpath.normpath(workspace)) not in (workspace, workspace.removesuffix("/")):
        yield OptionProblem(
            "workspace", f"'{workspace}' is not normalised: OpenClaw shows it as '{normal}'"
        )


def _check_names(manifest: Manifest, sources: tuple[Source, ...]) -> Iterable[OptionProblem]:
    """Two sources must not become one workspace file, not even by letter case alone."""
    seen: dict[str, str] = {}
    declared = [d.name for d in manifest.source]
    for source in sources:
        name = file_name(source)
        other = seen.setdefault(folded(name), source.name)
        if other != source.name:
            index = declared.index(source.name) if source.name in declared else None
            yield OptionProblem(
                f"source[{index}].file" if index is not None else "project.sources",
                f"sources '{other}' and '{source.name}' would both be the OpenClaw workspace"
                f" file '{name}'",
                "OpenClaw reads each file by name from one folder, and a case-insensitive"
                " file system merges names that differ only in case: rename one file",
                at_target=False,
            )


# --- emitting -----------------------------------------------------------------------------------


def _workspace_files(sections: list[Section], model: Model, target: Target) -> list[_WorkspaceFile]:
    """One file per section that comes from a manifest source, named like the source's file."""
    kept = model.sources_of(target)
    by_key = {(s.name, s.tag): s for s in kept}
    files = []
    for section in sections:
        source = by_key.get((section.name, section.tag))
        if source is None or not section.files:
            continue  # the META-COGNITION block (HotPlex's), or daily logs without a MEMORY.md
        content = f"{section.text}\n" if section.text else ""
        files.append(_WorkspaceFile(file_name(source), section, content))
    return files


def _daily_logs(sections: list[Section], model: Model, workspace: str) -> dict[str, bytes]:
    """Every daily log, as the file OpenClaw's memory tools read (``memory/2026-11-29.md``):
    OpenClaw loads MEMORY.md at start and searches the days itself, so they are not folded into
    MEMORY.md and its budget is not spent on them. A compacted month stands in for the days it
    covers, as ``memory/compacted-2026-10.md``."""
    files = {}
    folder = "" if model.sources_dir == "." else f"{model.sources_dir}/"
    for section in sections:
        for day in section.logs.days if section.logs is not None else ():
            name = day.display.removeprefix(folder)
            if day.month:  # beside the days, where OpenClaw's memory search looks (memory/*.md)
                logs, month = posixpath.split(posixpath.dirname(name))[0], posixpath.basename(name)
                name = posixpath.join(logs, f"compacted-{month}")
            files[f"{workspace}/{name}"] = f"{day.body}\n".encode() if day.body else b""
    return dict(sorted(files.items()))


def file_name(source: Source) -> str:
    """The workspace file a source becomes: its base file's name, without folders."""
    return source.file.replace("\\", "/").rsplit("/", 1)[-1]


def _cut(entry: InjectedFile | None, skipped: bool) -> tuple[str, str] | None:
    """(budget, style) of the cut OpenClaw makes to a file; None when injected whole or left
    out by design (another session kind, an empty file)."""
    if skipped:
        return "openclaw.total_max_chars", "skipped"
    if entry is None or entry.cut is None:
        return None
    return f"openclaw.{entry.cut.budget}", entry.cut.style or "clamped"


def _hidden_made_by_cuts(context: str, files: Iterable[str]) -> tuple[str, ...]:
    """A warning when OpenClaw's cuts leave hidden text in Project Context that no workspace file
    holds: it cuts at UTF-16 units, so a flag can keep some of its tag letters and an emoji
    sequence its trailing joiner. The prediction shows what OpenClaw does; this says so."""
    held = {(m.rule, m.chars) for text in files for m in hidden.scan(text)}
    made = [m for m in hidden.scan(context) if (m.rule, m.chars) not in held]
    if not made:
        return ()
    shown = ", ".join(
        f"{m.rule} {''.join(hidden.code_point(c) for c in m.chars[:4])}" for m in made[:3]
    )
    return (
        f"OpenClaw's cuts leave hidden text in Project Context that no file holds ({shown}): it"
        " cuts at UTF-16 units, inside a flag or an emoji sequence; a max_chars or"
        " total_max_chars a few units larger or smaller moves the cut",
    )


def _unverified(options: Settings, skills: tuple[Skill, ...]) -> tuple[str, ...]:
    """Where skills were checked (2026.9.6), said for a target of another ``compat``."""
    if not skills or options.compat == DEFAULT_COMPAT:
        return ()
    names = ", ".join(s.name for s in skills)
    return (
        f"OpenClaw {options.compat} is not verified to load Agent Skills (2026.9.6 is): the"
        f" skills {names} are written to workspace/skills all the same",
    )


def _unread_warning(name: str, compat: str) -> str:
    known = ", ".join(BOOTSTRAP_FILES[compat])
    return (
        f"{name} is written to the workspace, but OpenClaw {compat} does not inject it into"
        f" Project Context (it reads {known})"
    )
