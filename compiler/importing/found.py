"""What a format module reports: the sources it found, the files beside them, what it left out.

Also the few ways of reading a file every format shares. Nothing here writes.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hotplex.errors import HotplexError
from hotplex.fs import file_kind, kind_of, read_input_bytes, skipped_folder
from hotplex.manifest.model import HOTPLEX_SOURCES, Manifest, default_channels
from hotplex.manifest.vocabulary import BUILT_IN_TAGS
from hotplex.sources import frontmatter, unmapped
from hotplex.templates import parse as template

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

RULES_NOTE = HOTPLEX_SOURCES[1].note  # "Treat as mandatory workspace constraints."
# Who reads a source: the workers that name its audience in ``Worker.imports_read`` (the
# tool whose own file it is: "gemini" for GEMINI.md), "for" (Cursor and ruler rules: the targets
# named by --for), "copilot" (Copilot's: those named by --for and Copilot CLI's, which reads them
# itself), or "all" (a workspace: every target of the project).
Audience = str
_NOT_SLUG = re.compile(r"[^a-z0-9_.-]+")
RESERVED_TAGS = BUILT_IN_TAGS | {c.tag for c in default_channels().values()}


@dataclass(frozen=True)
class Entry:
    """One ``[[source]]`` of the new manifest, and the file it comes from."""

    name: str
    origin: Path
    channel: str = "B"
    tag: str = ""
    note: str = RULES_NOTE
    audience: Audience = "all"
    imports: Literal["claude"] | None = None

    @property
    def section_tag(self) -> str:
        return self.tag or self.name


@dataclass(frozen=True)
class Companion:
    """A file the project reads that is no source's base file (a variant, an imported file)."""

    origin: Path
    role: str


@dataclass(frozen=True)
class Skip:
    """Something found that the project does not take, why, and the way forward."""

    origin: Path
    reason: str


@dataclass
class Found:
    """What one format contributes to the project."""

    kind: str
    root: Path  # the folder the format's paths are relative to
    entries: list[Entry] = field(default_factory=list)
    companions: list[Companion] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    workspace: Path | None = None  # the folder, for a workspace format
    config: Path | None = None  # the file naming the entries (Aider's): importing it takes them
    in_place: bool = True  # False: a workspace whose project must be written beside it
    variants: dict[str, Any] | None = None
    targets: list[dict[str, Any]] = field(default_factory=list)  # a workspace's own targets
    metacognition: Path | None = None  # HotPlex's META.md
    logs: Path | None = None  # a folder of daily logs (memory/): [memory] logs = "memory/*.md"
    # A workspace format's own change to a copy of one of its files (the file, its bytes): the
    # bytes to write and what was changed, for text its program reads otherwise than hotplex.
    rewrite: Callable[[Path, bytes], tuple[bytes, tuple[str, ...]]] | None = None
    # Agent Skills' folders, each copied whole to the sources folder's skills/<name>/
    # (``importing.skills.Folder``).
    skills: list[Any] = field(default_factory=list)


LOGS_FOLDER = "memory"


def daily_logs(found: Found, folder: Path) -> bool:
    """Take ``folder/memory/`` as the daily logs when it holds a day (``2026-11-29.md``): its
    days become companions, ``[memory] logs`` its glob; any other file there is said to be left
    out. Whether it was taken."""
    from hotplex.sources.logs import DAY_FORMS, is_day

    logs = folder / LOGS_FOLDER
    files = sorted(p for p in logs.iterdir() if p.is_file()) if logs.is_dir() else []
    days = [p for p in files if p.suffix == ".md" and is_day(p.name)]
    if not days:
        return False
    found.logs = logs
    found.companions += [Companion(day, "daily log ([memory] logs)") for day in days]
    why = f"not a daily log: [memory] logs reads files named by their date, {DAY_FORMS}"
    found.skipped += [Skip(p, why) for p in files if p not in days and not p.name.startswith(".")]
    folders = sorted(p for p in logs.iterdir() if p.is_dir() and not p.name.startswith("."))
    why = "a folder: [memory] logs reads only the days directly in memory/"
    found.skipped += [Skip(p, why) for p in folders]
    return True


@dataclass(frozen=True)
class Text:
    data: bytes  # as on disk
    header: str  # the frontmatter block, as written ("" when none)
    body: str  # what the compiler will see after stripping
    meta: dict[str, Any]
    broken: bool  # a first line "---" that opens no valid frontmatter


def present(path: Path) -> bool:
    """Whether something is where a tool reads its file: a regular file, or a FIFO, a device or
    a socket, which ``left_out`` names and nothing reads (a FIFO would block, /dev/zero never
    end)."""
    mode = kind_of(path)
    return mode is not None and not stat.S_ISDIR(mode)


def left_out(path: Path, project: Path, folder: bool = False) -> str | None:
    """Why the file a tool reads at ``path`` is not imported: a symlink leaving ``project``,
    or no regular file (``folder``: a folder is one to read); None when it is one to read."""
    real, boundary = os.path.realpath(path), os.path.realpath(project)
    if os.path.commonpath([real, boundary]) != boundary:
        return "a symlink leaving the project"
    mode = kind_of(path)
    if folder and mode is not None and stat.S_ISDIR(mode):
        return None
    if mode is not None and not stat.S_ISREG(mode):
        return f"{file_kind(mode)}, not a regular file"
    return None


def read(path: Path) -> Text:
    """The file as the compiler will read it; HotplexError when it is not UTF-8 text, or no
    regular file (read as every file a command names is, ``fs.read_input_bytes``)."""
    data = read_input_bytes(path, str(path))
    if data is None:
        raise HotplexError.single(f"cannot read '{path}': No such file or directory")
    return parsed(data, str(path))


def parsed(data: bytes, file: str) -> Text:
    """``data`` as the compiler will read it (HotplexError when it is not UTF-8 text)."""
    text = frontmatter.decode(data, file)
    try:
        stripped = frontmatter.strip(text, file)
    except HotplexError:
        return Text(data, "", text, {}, broken=True)
    header = text[: len(text) - len(stripped.body)]
    return Text(data, header, stripped.body, stripped.meta, broken=False)


def text_of(path: Path) -> str:
    """The file's text, a byte that is no UTF-8 replaced; "" when it is no regular file (a FIFO,
    a device: ``left_out`` names it)."""
    try:
        data = read_input_bytes(path, str(path))
    except HotplexError:
        return ""
    return (data or b"").decode("utf-8", errors="replace")


def meta(path: Path) -> dict[str, Any]:
    try:
        return read(path).meta
    except HotplexError:
        return {}  # the planner reports the problem


def foreign(text: Text) -> bool:
    """Whether the body holds template-looking text outside code (it was never hotplex's)."""
    return template.has_template_syntax(text.body)


def one_line(value: object) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


def slug(text: str) -> str:
    word = _NOT_SLUG.sub("-", text.lower()).strip("-.")
    return word if word[:1].isalpha() else f"s-{word}".rstrip("-")


def sorted_under(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    files = {p for pattern in patterns for p in folder.rglob(pattern) if present(p)}
    return sorted(files, key=lambda p: (p.relative_to(folder).as_posix().casefold(), p.name))


# Agent Skills a home keeps as its program's own state (a Hermes home's skills/): not imported.
SKILL_FOLDER_NOT_READ = (
    "Agent Skills: import does not read a home's skill folders; copy each to the sources"
    " folder's skills/<name>/, where hotplex checks, scans and ships it"
)
JOB_FOLDER = {"prompt.xml", "launch.json"}  # what every job folder of a CLI worker holds


def unmapped_below(root: Path, name: str) -> list[Skip]:
    """Each file called ``name`` in a subfolder of ``root`` (not hidden, not node_modules), with
    why its tool does not load it at start: the project leaves it out, and says so."""
    skips = []
    for folder, subfolders, files in os.walk(root):
        if set(files) >= JOB_FOLDER:  # hotplex's output (kilo-config/AGENTS.md): no one's rules
            subfolders[:] = []
            continue
        subfolders[:] = sorted(s for s in subfolders if not skipped_folder(s))
        if name in files and Path(folder) != root:
            path = Path(folder) / name
            why = unmapped.reason(path.relative_to(root).as_posix())
            if why is not None:
                skips.append(Skip(path, why))
    return skips


def scoped(path: Path, name: str, key: str, audience: Audience) -> Entry:
    """A rule meant for some files only: included always, its scope said in the section's note."""
    values = meta(path)
    globs = values.get(key)
    scope = ", ".join(map(str, globs)) if isinstance(globs, list) else one_line(globs)
    description = one_line(values.get("description")) or RULES_NOTE
    note = f"{description} (applies to files matching {scope})" if scope else description
    return Entry(name, path, note=note, audience=audience)


@dataclass(frozen=True)
class Placed:
    """A file of the new project: where it comes from, its project path, the bytes to write."""

    origin: Path
    file: str  # relative to the project folder, POSIX
    role: str
    data: bytes | None = None  # None: used in place
    changes: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()


@dataclass
class Plan:
    into: Path
    found: list[Found]
    manifest: Manifest
    text: str  # hotplex.toml as it will be written
    placed: list[Placed]
    writes: list[Placed]  # copies whose destination does not exist yet
    copy: bool
    reconciled: bool = False  # an existing manifest gets only what is new
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gitignore: bool = False  # a new project without one gets init's .gitignore

    @property
    def entries(self) -> list[Entry]:
        return [e for f in self.found for e in f.entries]


def free_name(word: str, used: set[str]) -> str:
    candidate, number = word, 1
    while candidate.lower() in used:
        number += 1
        candidate = f"{word}-{number}"
    used.add(candidate.lower())
    return candidate


def in_folder(sources_dir: str, rel: str) -> str:
    return rel if sources_dir == "." else f"{sources_dir}/{rel}"
