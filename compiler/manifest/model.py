"""The typed manifest: plain attrs classes; ``manifest.load.load`` is the one way to get a
trusted model.

Validation belongs to the edge: ``structure.py`` turns the TOML mapping into these classes with
a strict converter, ``validate.py`` checks what spans fields (the logs glob: ``logs_glob.py``);
after loading, the rest of the compiler trusts the model. Every problem is collected (not just
the first) with its key path, e.g. ``target[1].worker``; list indexes count from 0, as in TOML's
arrays of tables.
"""

from __future__ import annotations

import functools
import posixpath
from pathlib import Path
from typing import Any, Literal

from hotplex.generated import attrs
from hotplex.manifest import read as manifest_file
from hotplex.values import Record

Unit = Literal["chars", "bytes"]
Overflow = Literal["truncate", "error"]
# How the total budget is spread: in document order, or max-min fair (limits.py).
Share = Literal["order", "fair"]
VariantMode = Literal["append", "replace"]
VariantLayout = Literal["suffix", "directory"]
Channel = Literal["B", "C"]
Profile = Literal["main", "subagent"]
# HTML comments are invisible on a rendered page; "strip" keeps them out of the artifact too.
HtmlComments = Literal["keep", "strip"]
# How a source's own import syntax is followed: "claude" loads CLAUDE.md @imports as Claude Code
# does, each imported file an input of the build (compiler/sources/claude_imports.py).
Imports = Literal["claude"]
# What launch.json does with the instruction files a worker's program loads by itself
# (worker.OwnFiles): "off" switches them off, "keep" lets them load beside the compiled copy.
OwnInstructions = Literal["off", "keep"]
# What a finding in a per-user overlay does: fail the compile, or block the entry holding it.
OnFinding = Literal["error", "block"]
# Which files the prompt-injection rules (scanning/injection.py) read: the overlays, or all.
InjectionScope = Literal["overlays", "all"]

# Variables every template sees, set per job; a manifest cannot define them.
BUILTIN_VARS = ("platform", "worker", "target")
DEFAULT_NOTES = {
    "B": "Core behavioral parameters — follow unless overridden by explicit user instructions.",
    "C": "Reference material to inform your responses.",
}
METACOGNITION_NOTE = (
    "Agent self-identity, operating constraints, and meta-rules governing your behavior."
)
# A subagent keeps only the working rules and tool guidance (OpenClaw's AGENTS.md + TOOLS.md idea).
DEFAULT_SUBAGENT_KEEP = ("rules", "skills", "tools")


@attrs.frozen(repr=False)
class ProjectSettings(Record):
    name: str = ""
    sources: str = "agent-configs"
    out: str = manifest_file.DEFAULT_OUT
    # Projects whose files are full of foreign braces can turn the template language off.
    templates: bool = True
    html_comments: HtmlComments = "keep"
    # false: the workers' default sources are dropped and [[source]] is the whole list.
    default_sources: bool = True
    # Globs of paths under the sources folder that no artifact reads, on purpose (no warning).
    ignore: tuple[str, ...] = ()
    # A build or check fails (exit 1) when hotplex.lock and [[package]] disagree, as --frozen.
    frozen: bool = False


@attrs.frozen(repr=False)
class ChannelSettings(Record):
    tag: str
    note: str = ""


# Hashed at every job's every section (the section cache's key) and every document (the limits in
# its key): the hash is kept on the object, which nothing changes.
@attrs.frozen(cache_hash=True, repr=False)
class Source(Record):
    """A source as the build uses it: a worker's default, a declaration, or both merged."""

    name: str
    file: str
    channel: Channel
    tag: str
    note: str = ""
    required: bool = False
    html_comments: HtmlComments | None = None  # None: the project's setting
    imports: Imports | None = None
    # false: a leading '---' is text, not metadata (files an agent writes, such as MEMORY.md).
    frontmatter: bool = True


@attrs.frozen(repr=False)
class DeclaredSource(Record):
    """A ``[[source]]`` table as written: with a default's name it changes only the keys it sets;
    a new name needs ``file``, ``channel`` and ``tag``."""

    name: str
    file: str | None = None
    channel: Channel | None = None
    tag: str | None = None
    note: str | None = None
    required: bool | None = None
    html_comments: HtmlComments | None = None
    imports: Imports | None = None
    frontmatter: bool | None = None

    def set_keys(self) -> dict[str, Any]:
        return {k: v for k, v in attrs.asdict(self).items() if v is not None and k != "name"}


@attrs.frozen(repr=False)
class Variants(Record):
    platforms: tuple[str, ...] = ()
    mode: VariantMode = "append"
    # suffix: SOUL.slack.md beside SOUL.md; directory: slack/SOUL.md under the sources folder.
    layout: VariantLayout = "suffix"

    def file(self, file: str, platform: str) -> str:
        """A source's ``file`` for ``platform``, in the sources folder as the file is."""
        if self.layout == "directory":
            head, name = posixpath.split(file)
            return posixpath.join(head, platform, name)
        stem, dot, ext = file.rpartition(".")
        return f"{stem}.{platform}.{ext}" if dot and "/" not in ext else f"{file}.{platform}"


@attrs.frozen(cache_hash=True, repr=False)  # as ``Source``'s: in the key of every document
class Limits(Record):
    per_file: int = 8000
    total: int = 40000
    unit: Unit = "chars"
    overflow: Overflow = "truncate"
    share: Share = "order"


@attrs.frozen(repr=False)
class Memory(Record):
    # A glob inside the sources folder ("memory/*.md"): the daily logs that follow MEMORY.md in
    # the section of the source named "memory", newest first by file name (memory_logs.py).
    logs: str | None = None
    # ``hotplex memory compact`` folds the days more than this many days older than the newest
    # day into one file per month (``sources/compacted.py``); None: days are never compacted.
    compact_after_days: int | None = None
    # Characters of the built-in compactor's digest of a month (``memory/builtin.py``).
    digest_chars: int = 2000
    # Characters of the days one compaction request (``memory compact --request``) carries.
    request_chars: int = 32000


@attrs.frozen(repr=False)
class Metacognition(Record):
    enabled: bool = True
    file: str | None = None
    note: str = METACOGNITION_NOTE


@attrs.frozen(repr=False)
class Secrets(Record):
    # A rule name (see hotplex.text.secret_rules.RULES) turns that rule off; any other entry
    # allows the findings whose secret is it, whole (never one holding it).
    allow: tuple[str, ...] = ()
    # Globs of project-relative source paths whose findings are allowed ("agent-configs/demo/*").
    allow_files: tuple[str, ...] = ()


@attrs.frozen(repr=False)
class Skills(Record):
    # Globs of "<skill>/<path>" naming the scripts of skills that may ship (mode 0755 where the
    # gateway places them); any other script is refused. hotplex never runs one.
    scripts: tuple[str, ...] = ()


@attrs.frozen(repr=False)
class Unicode(Record):
    # Code points ("U+200B"), character names ("ZERO WIDTH SPACE") or rule names (see
    # hotplex.scanning.hidden.RULES) the hidden-text scan lets through.
    allow: tuple[str, ...] = ()
    allow_files: tuple[str, ...] = ()  # globs, as in [secrets]


@attrs.frozen(repr=False)
class Injection(Record):
    # Rule names (see hotplex.scanning.injection.RULES) or parts of a finding's text, as in
    # [secrets]; globs of files whose findings are allowed.
    allow: tuple[str, ...] = ()
    allow_files: tuple[str, ...] = ()
    # Hosts (and the names under them) an image, stylesheet, frame or other URL fetched without
    # a click may come from; every other host is a finding.
    allow_hosts: tuple[str, ...] = ()
    # "overlays": a gateway's per-user files (and Project.check); "all": the project's own too.
    scope: InjectionScope = "overlays"


@attrs.frozen(repr=False)
class OverlaySettings(Record):
    # "block": an entry of an overlaid file holding a finding is replaced by a
    # [blocked by hotplex: <rule>] line (scanning/blocking.py) instead of failing the compile.
    on_finding: OnFinding = "error"


@attrs.frozen(repr=False)
class Learn(Record):
    # The learned block of a profile (``hotplex learn``): the most characters of its facts as
    # the worker reads them (``- key: value`` lines), whatever the workers' own limits; the
    # least recently confirmed facts leave first.
    budget: int = 4000
    # The most characters of a transcript an extraction request carries (its end is kept).
    transcript: int = 40000


@attrs.frozen(repr=False)
class Target(Record):
    name: str
    worker: str
    platforms: tuple[str, ...] | None = None
    # Also build the artifact without a platform (the base files alone).
    base: bool = True
    # A bot overlay (HotPlex's per-bot folders): <sources>/<platform>/<bot>/<file> is consulted
    # after the platform variant, so one target per bot shares the base and platform files.
    bot: str | None = None
    vars: dict[str, str] = attrs.field(factory=dict)
    profile: Profile = "main"
    keep: tuple[str, ...] | None = None
    # The session folder the gateway starts the program in, relative to the project
    # (launch.json's ``cwd``): somewhere the raw sources are not, for a program with no switch.
    # None: not given (the project itself), so that a worker with no session folder can refuse
    # the key however it is spelt; as the project names it: ``Model.session_dir``.
    cwd: str | None = None
    own_instructions: OwnInstructions | None = None  # None: the worker's default
    # For a program that loads no Agent Skills: each skill's name and description listed at the
    # end of the <skills> section instead of a warning naming them (``worker.emit_with_skills``).
    skills_listing: bool = False
    # The worker's own keys, an instance of its ``Options`` class (``worker.py``); written in the
    # manifest beside the keys above (``max_chars = 500``), never as an ``options`` table.
    options: Any = None
    # Keys given to this target that are another worker's options: reported by validation.
    misplaced: tuple[str, ...] = ()

    def kept_sources(self, sources: tuple[Source, ...]) -> tuple[Source, ...]:
        if self.profile == "main" and self.keep is None:
            return sources
        keep = self.keep if self.keep is not None else DEFAULT_SUBAGENT_KEEP
        return tuple(s for s in sources if s.name in keep)


@attrs.frozen(repr=False)
class Package(Record):
    """A ``[[package]]``: sources from a git repository (``git``, ``rev``, ``subdir``) or a local
    folder (``path``), read as if they were the folder ``<sources>/<name>/``
    (``sources/packages.py``); pinned in hotplex.lock by ``hotplex lock``."""

    name: str
    git: str | None = None  # a URL git understands, file:// and a local path included
    rev: str | None = None  # a tag, branch or commit
    subdir: str | None = None  # a folder inside the repository
    path: str | None = None  # a local folder, relative to the project
    # Findings of the scan at lock time let through, for this package only: rule names,
    # code points or parts of a finding's text, as in [secrets], [unicode] and [injection].
    allow: tuple[str, ...] = ()


SKILLS_SOURCE = "skills"  # the source of the <skills> section (SKILLS.md)

# HotPlex's five sources (the files the HotPlex gateway reads): what a worker reads when it
# names no defaults of its own.
HOTPLEX_SOURCES = (
    Source("soul", "SOUL.md", "B", "persona", "Embody this persona naturally in all interactions."),
    Source("rules", "AGENTS.md", "B", "rules", "Treat as mandatory workspace constraints."),
    Source(SKILLS_SOURCE, "SKILLS.md", "B", "skills", "Apply these capabilities when relevant."),
    Source(
        "user",
        "USER.md",
        "C",
        "user",
        "Tailor responses to this user's preferences and expertise.",
    ),
    Source("memory", "MEMORY.md", "C", "memory", "Recall relevant past context when applicable."),
)


def default_channels() -> dict[str, ChannelSettings]:
    return {
        "B": ChannelSettings("directives", DEFAULT_NOTES["B"]),
        "C": ChannelSettings("context", DEFAULT_NOTES["C"]),
    }


@attrs.frozen(repr=False)
class Manifest(Record):
    project: ProjectSettings = ProjectSettings()
    channels: dict[str, ChannelSettings] = attrs.field(factory=default_channels)
    source: tuple[DeclaredSource, ...] = ()
    variants: Variants = Variants()
    limits: Limits = Limits()
    vars: dict[str, str] = attrs.field(factory=dict)
    metacognition: Metacognition = Metacognition()
    secrets: Secrets = Secrets()
    skills: Skills = Skills()
    unicode: Unicode = Unicode()
    injection: Injection = Injection()
    overlay: OverlaySettings = OverlaySettings()
    memory: Memory = Memory()
    learn: Learn = Learn()
    target: tuple[Target, ...] = ()
    package: tuple[Package, ...] = ()


@attrs.frozen(repr=False)
class Model(Record):
    """A validated manifest and where it lives."""

    manifest: Manifest
    root: Path  # the folder holding the manifest; every path is relative to it
    manifest_path: Path
    manifest_display: str
    # The project's sources: the workers' defaults merged with [[source]] (``source_rule.py``),
    # in output order; and by target name, the ones it reads.
    sources: tuple[Source, ...] = ()
    read_by: dict[str, tuple[Source, ...]] = attrs.field(factory=dict)
    # The manifest cache's key for the bytes it came from, when the cache was asked and missed:
    # the build keeps the model once it has finished (``manifest_cache.save``).
    uncached: str | None = None
    # By target name, its ``hotplex.worker.Worker`` (``registry``), resolved once when the
    # manifest is loaded. Typed ``Any``: the worker contract is built on this module, not under.
    workers: dict[str, Any] = attrs.field(factory=dict)
    # By target name, its session folder (``cwd``) as the project names it, one spelling per
    # folder, resolved against the project when the manifest is loaded (``load.sessions``).
    sessions: dict[str, str] = attrs.field(factory=dict)
    # By target name, where it stands in ``[[target]]`` (``target[2]`` in messages); and the
    # files the targets place in the repository (``Worker.placed``): both once per model, not
    # once per job (a manifest of a thousand targets asked each target of every other).
    positions: dict[str, int] = attrs.field(factory=dict)
    placed: tuple[str, ...] = ()

    def worker_of(self, target: Target) -> Any:
        return self.workers[target.name]

    def skills_placer(self, folder: str) -> str | None:
        """The name of the target that places the skills in the repository at ``folder`` (a
        ``SkillsPlace.folder``, ``.cursor/skills/{name}``): the first in ``[[target]]`` whose
        editor loads them there, one per folder (a later one places none); None: none does.
        A name, so that callers compare names: a pool process's job holds a copy of its target."""
        for target in self.manifest.target:
            worker = self.worker_of(target)
            place = worker.skills
            if not worker.headless and place is not None and place.folder == folder:
                return target.name
        return None

    def target_index(self, target: Target) -> int:
        """Where ``target`` stands in ``[[target]]``."""
        found = self.positions.get(target.name)
        return found if found is not None else self.manifest.target.index(target)

    def session_dir(self, target: Target) -> str:
        """The folder ``target``'s program is started in, relative to the project: ``.`` (the
        project) unless its ``cwd`` names another (``./run/`` and ``../proj/run`` are ``run``)."""
        return self.sessions.get(target.name, ".")

    def sources_of(self, target: Target) -> tuple[Source, ...]:
        """The sources ``target`` reads, in output order."""
        return self.read_by[target.name]

    def source_key(self, source: Source, field: str) -> str:
        """The manifest key that sets ``field`` of ``source``, for placing an error:
        ``source[2].file``, or ``project.sources`` for a default nobody declared."""
        for index, declared in enumerate(self.manifest.source):
            if declared.name == source.name:
                return f"source[{index}].{field}"
        return "project.sources"

    @property
    def sources_dir(self) -> str:
        """The sources folder, spelled one way everywhere (``./agent-configs/`` is
        ``agent-configs``), as the paths of the files in it are."""
        return _normalised(self.manifest.project.sources or ".")

    def source_path(self, *parts: str) -> str:
        """A file of the sources folder as the build names it: one spelling per file
        (``SOUL.md``, not ``./SOUL.md``), so it is read, hashed and recorded once."""
        return _source_path(self.sources_dir, parts)

    @property
    def out_dir(self) -> str:
        """The artifact folder, spelled one way everywhere (``./dist/`` is ``dist``)."""
        return _normalised(self.manifest.project.out.replace("\\", "/"))

    def platforms_of(self, target: Target) -> tuple[str, ...]:
        return (
            target.platforms if target.platforms is not None else self.manifest.variants.platforms
        )


@functools.lru_cache(maxsize=64)
def _normalised(path: str) -> str:
    """The folders' one spelling, asked several times in every compile of every job."""
    return posixpath.normpath(path)


@functools.lru_cache(maxsize=8192)
def _source_path(sources_dir: str, parts: tuple[str, ...]) -> str:
    """Asked for every source, variant and include of every job: computed once per name."""
    return posixpath.normpath(posixpath.join(sources_dir, *parts))
