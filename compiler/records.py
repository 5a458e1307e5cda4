"""Every record that crosses a stage, typed (attrs, frozen unless the engine fills it in): what a
worker is given and answers (``Section``, ``Emitted``, ...), the cuts and sizes of an artifact, the
log's record of how an artifact was made, the report a command prints. JSON only at the edges:
``build/log.py``, each command's ``--json``, ``serve/routes.py``, through ``json_text``.

An up-to-date ``check`` never imports this module (``tests/build/test_noop.py``): attrs would
cost it a third of its time.
"""

from __future__ import annotations

from hotplex.errors import Span, shown
from hotplex.findings_shown import findings_json
from hotplex.generated import attrs
from hotplex.values import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hotplex.manifest.model import Source
    from hotplex.scanning.origins import Origin


@attrs.frozen(repr=False)
class Truncation(Record):
    section: str  # the source's name
    files: tuple[str, ...]  # the files the section came from
    limit: str  # "per_file", "total" or "read" (a file larger than reading will ever need)
    before: int
    after: int
    unit: str
    # How: "marker" (the head kept, a marker line added), "head" (the head kept, no room for the
    # marker), "entries" (a day's newest entries), "dropped" (no room left), "repeat" (a day whose
    # every entry a newer day holds), "capped" (read no further), or a worker's own ("head 70% /
    # tail 20%", "skipped", ...).
    style: str = "marker"
    # The further document of the set the cut is in (subagent.xml, agents/x.md), by its path;
    # None: the primary. The same source can be cut twice over, once in each document.
    document: str | None = None

    @property
    def limit_name(self) -> str:
        """The limit as messages name it: hotplex's own are manifest keys (``limits.total``),
        a worker's are named as they are (``openclaw.max_chars``)."""
        return self.limit if "." in self.limit else f"limits.{self.limit}"

    def describe(self) -> str:
        files = ", ".join(self.files) or self.section
        limit = self.limit_name
        where = f" in {self.document}" if self.document else ""
        if self.style == "repeat":
            return f"{files}: left out{where}; every entry of it repeats a newer day"
        if self.after == 0:
            return f"{files}: dropped{where} ({self.before} {self.unit}); no room left in {limit}"
        return f"{files}: truncated{where} {self.before} → {self.after} {self.unit} ({limit})"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Truncation:
        return cls(
            data["section"],
            tuple(data["files"]),
            data["limit"],
            data["before"],
            data["after"],
            data["unit"],
            data.get("style", "marker"),
            data.get("document"),
        )

    def to_json(self) -> dict[str, object]:
        return {
            "section": self.section,
            "files": list(self.files),
            "limit": self.limit,
            "before": self.before,
            "after": self.after,
            "unit": self.unit,
            "style": self.style,
        } | ({"document": self.document} if self.document else {})

    def quoted_json(self) -> dict[str, object]:
        """``to_json`` as an answer quotes it: its files as messages show them (``shown``), so
        a megabyte key a client sent is not sent back whole, nor a secret in a day's name."""
        return self.to_json() | {"files": [shown(f) for f in self.files]}


@attrs.frozen(repr=False)
class SectionSize(Record):
    """How much of a section reaches the worker, in the unit of the budget that counts it."""

    name: str
    files: tuple[str, ...]
    raw: int  # before any budget
    injected: int  # what the worker receives
    unit: str


@attrs.frozen(repr=False)
class Finding(Record):
    """Something in a file's text that must not reach a prompt as written, and what is done
    with it: ``kind`` is "secret", "hidden-text", "injection", "reserved-tag" or "unscanned" (a
    file's tail past ``limits.read``); ``rule`` the rule that found it (``anthropic-api-key``,
    ``bidi-control``, ``image-url-data``, ``reserved-tag``); ``file`` the file as messages name
    it (an overlay's label); ``action`` "error" (the compile fails), "blocked" (its entry is
    replaced by a ``[blocked by hotplex: <rule>]`` line), "escaped" (the sanitizer makes it
    inert: a reserved tag's ``<``), "unscanned" (not scanned: not ok), "refused" (a learned
    fact not written) or "removed" (hidden text taken out of a transcript: ``learning``)."""

    kind: str
    rule: str
    file: str
    line: int | None
    column: int | None
    message: str
    hint: str | None
    action: str

    def describe(self) -> str:
        """One line for a log: the file and the message are the user's text (a match may hold a
        line break), shown with their control characters visible, as in JSON."""
        place = ":".join(
            str(p) for p in (shown(self.file), self.line, self.column) if p is not None
        )
        return f"{place}: {shown(self.message)}"

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "file": shown(self.file),
            "line": self.line,
            "column": self.column,
            "message": shown(self.message),
            "hint": None if self.hint is None else shown(self.hint),
            "action": self.action,
        }


@attrs.frozen(repr=False)
class CheckedFile(Record):
    """One file given to ``Project.check``: its key, its name in messages, its size."""

    key: str  # as given ("MEMORY.md")
    file: str  # as messages name it ("overlay:MEMORY.md", or its ``overlay_names`` label)
    bytes: int
    chars: int  # after decoding (no BOM, LF line ends), frontmatter included

    def to_json(self) -> dict[str, object]:
        quoted = {"key": shown(self.key), "file": shown(self.file)}
        return quoted | {"bytes": self.bytes, "chars": self.chars}


@attrs.frozen(repr=False)
class CheckedJob(Record):
    """What one artifact would make of the checked files: the cuts and the sizes of the
    sections they feed (entries blocked, as ``on_finding = "block"`` would)."""

    target: str
    platform: str | None
    truncations: tuple[Truncation, ...]
    sizes: tuple[SectionSize, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target,
            "platform": self.platform,
            "truncations": [t.quoted_json() for t in self.truncations],
            "sizes": [
                {"section": s.name, "files": [shown(f) for f in s.files], "raw": s.raw}
                | {"injected": s.injected, "unit": s.unit}
                for s in self.sizes
            ],
        }


@attrs.frozen(repr=False)
class CheckReport(Record):
    """``Project.check``: every finding in the files, their sizes, and per artifact what the
    budgets would cut. ``ok`` when nothing would fail a compile or be blocked."""

    findings: tuple[Finding, ...]
    files: tuple[CheckedFile, ...]
    jobs: tuple[CheckedJob, ...]
    warnings: tuple[str, ...] = ()  # of the manifest: an allow_files glob naming no user's file

    @property
    def ok(self) -> bool:
        return all(f.action == "escaped" for f in self.findings)

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            **findings_json(self.findings),
            "files": [f.to_json() for f in self.files],
            "jobs": [j.to_json() for j in self.jobs],
            "warnings": list(self.warnings),
        }


@attrs.frozen(repr=False)
class Day(Record):
    """One daily log as read: its file, the heading naming it, its entries in file order (those
    repeated verbatim in a newer day already removed), the line breaks before each entry in the
    file (a tight list stays tight) and its text as the agent wrote it. A compacted month
    (``sources/compacted.py``) is one too, ``month`` set: older than every day, it follows them
    in ``Logs.days`` (the order the budget keeps them in) and precedes them in the text."""

    display: str
    name: str
    entries: tuple[str, ...]
    body: str = ""
    gaps: tuple[str, ...] = ()  # before each entry; none given: a blank line
    month: bool = False

    @property
    def heading(self) -> str:
        return f"## {self.name}"

    def text(self, first: int = 0) -> str:
        """The heading, then the entries from ``first`` on, separated as in the file."""
        parts = [self.heading]
        for index in range(first, len(self.entries)):
            gap = self.gaps[index] if index > first and self.gaps else "\n\n"
            parts += (gap, self.entries[index])
        return "".join(parts)


@attrs.frozen(repr=False)
class Unread(Record):
    """A day older than anything the budget can use: listed, never opened."""

    display: str
    size: int  # bytes on disk


@attrs.frozen(repr=False)
class Logs(Record):
    days: tuple[Day, ...]  # newest first, then the compacted months, newest first
    unread: tuple[Unread, ...] = ()  # newest first, all older than ``days``
    # The section's own text (MEMORY.md and its variants) before the days. ``Section.text``
    # holds it followed by every day read, so a worker that knows nothing of logs still loses
    # nothing; ``limits.apply`` starts again from here and fits whole days.
    curated: str = ""


@attrs.frozen(repr=False)
class Section(Record):
    """One source after resolution, frontmatter stripping and rendering; not yet sanitized."""

    name: str
    tag: str
    channel: str
    note: str
    text: str
    files: tuple[str, ...]  # display paths of the files it came from, base first
    # The memory section's daily logs ([memory] logs), which ``text`` holds unless the worker's
    # ``daily_logs`` is "files": ``limits.apply`` keeps whole days, a "files" worker deploys each.
    logs: Logs | None = None
    origins: tuple[Origin, ...] = attrs.field(default=(), eq=False, repr=False)  # its texts


@attrs.frozen(repr=False)
class Emitted(Record):
    """A job's files and what the worker did to fit them: the worker's whole answer."""

    files: dict[str, bytes]  # project-relative path -> bytes, in a stable order
    primary: str  # the file a user means by "the artifact" (shown by `hotplex show`)
    truncations: tuple[Truncation, ...] = ()
    warnings: tuple[str, ...] = ()
    sizes: tuple[SectionSize, ...] = ()
    # Further documents among ``files`` (a sub-agent's): each path and its sections' sizes (stats)
    documents: tuple[tuple[str, tuple[SectionSize, ...]], ...] = ()
    # What a user should know of what reaches whom (which sub-agents get which document), said
    # once per job: ``stats`` shows them under its table.
    notes: tuple[str, ...] = ()
    skills: tuple[SkillRow, ...] = ()  # the job's Agent Skills, which ``show`` and ``stats`` list
    placed: tuple[str, ...] = ()  # more of ``files`` placed in the repository (editor skills)
    primary_text: str | None = None  # ``files[primary]`` as the str the worker had (None: decode)


@attrs.frozen(repr=False)
class SkillRow(Record):
    """How one artifact set carries one Agent Skill, a row of ``show`` and ``stats``."""

    name: str
    entry: int  # its listed text (description, and what else the program lists), in ``unit``
    cap: int | None  # the most of it the program lists (None: no cap, or it lists none)
    unit: str
    files: int  # SKILL.md and its resources, as shipped (0: not shipped)
    bytes: int
    scripts: tuple[str, ...]  # the scripts that ship, allowed by [skills] scripts
    # "whole", "head" (cut at ``cap``), "name only" (past the listing's budget), "in <skills>"
    # (``skills_listing``) or "left out" (a program that loads none).
    listed: str

    def describe(self) -> str:
        """The row in words, as ``show`` prints it."""
        if self.listed == "left out":
            return f"skill {self.name}: left out (the program loads no skills)"
        cap = f" of {self.cap}" if self.cap is not None else ""
        text = f"skill {self.name}: listed {self.listed}, its entry {self.entry}{cap} {self.unit}"
        if self.files:
            scripts = ", ".join(self.scripts) or "none"
            text += f"; {self.files} files, {self.bytes} bytes; scripts allowed: {scripts}"
        return text


@attrs.frozen(repr=False)
class Output(Record):
    """A file a worker emits in each job folder: a name (``*`` matches one path segment's part)
    and its kind. Exactly one output of a worker is ``primary``."""

    name: str
    kind: str  # "document" (what the agent receives), "launch", "workspace", ...
    primary: bool = False


@attrs.frozen(repr=False)
class SourceTemplate(Record):
    """A source file ``hotplex init`` writes for a worker, and how a manifest declares it."""

    source: Source
    text: str


@attrs.frozen(repr=False)
class TargetSources(Record):
    """What ``validate`` knows of a target's sources: the ones it reads (its ``keep`` applied),
    and every source of the project, for a "did you mean"."""

    reads: tuple[Source, ...]
    project: tuple[Source, ...]


@attrs.frozen(repr=False)
class Budgets(Record):
    """The budgets ``stats`` measures an artifact against."""

    per_file: int | None
    total: int | None
    unit: str
    # The most its program keeps of the file as a whole, as it measures it
    # (``Worker.document_size``): Hermes Agent's caps. None: the program keeps any file whole.
    document: int | None = None


@attrs.frozen(repr=False)
class OptionProblem(Record):
    """A problem with a target, placed at ``target[i].<key>``, or at ``key`` itself when the
    problem lies elsewhere in the manifest (``at_target=False``: ``source[5].file``)."""

    key: str
    message: str
    hint: str | None = None
    at_target: bool = True


@attrs.frozen(repr=False)
class Stamped(Record):
    """A file as last seen: its stamp and its content digest, one layout for inputs and outputs.
    ``mtime_ns`` is -1 when the stamp cannot vouch for the content (written in the read's tick),
    ``ctime_ns`` -1 in a log too old to hold it: neither matches, so the file is hashed again."""

    mtime_ns: int
    size: int
    ino: int
    ctime_ns: int
    digest: str | None

    @classmethod
    def from_list(cls, values: list[Any]) -> Stamped:
        """From the log's ``[mtime_ns, size, inode, ctime_ns, digest]``, or an older log's
        ``[mtime_ns, size, inode, digest]``."""
        return cls(*values) if len(values) != 4 else cls(*values[:3], -1, values[3])

    def to_list(self) -> list[Any]:
        return [self.mtime_ns, self.size, self.ino, self.ctime_ns, self.digest]

    def same_stamp(self, stamp: list[int]) -> bool:
        return [self.mtime_ns, self.size, self.ino, self.ctime_ns] == stamp


@attrs.frozen(repr=False)
class JobRecord(Record):
    """How one job's artifacts were made: the log line the next build compares against."""

    job: str
    target: str
    worker: str
    platform: str | None
    primary: str
    keys: dict[str, str]
    inputs: dict[str, str | None]  # every path consulted -> content digest (None: absent)
    variables: dict[str, str | None]  # every template variable read -> its value
    outputs: dict[str, Stamped]  # digest = sha256 of the bytes written
    truncations: tuple[Truncation, ...]
    warnings: tuple[str, ...]
    sizes: tuple[SectionSize, ...]
    # Outputs written outside ``out``, where an editor reads them (``placement.py``): the only
    # files outside ``out`` that orphan deletion and ``clean`` may remove.
    placed: tuple[str, ...] = ()


@attrs.frozen(repr=False)
class FileReport(Record):
    path: str
    sha256: str
    bytes: int


@attrs.define(repr=False)
class JobReport(Record):
    id: str
    target: str
    worker: str
    platform: str | None
    primary: str
    files: list[FileReport]
    truncations: tuple[Truncation, ...]
    warnings: list[str]
    sizes: tuple[SectionSize, ...]
    status: str  # current | rebuilt | stale | missing | edited
    reasons: list[str] = attrs.Factory(list)
    written: list[str] = attrs.Factory(list)
    diff: str = ""
    # check: each file a build would write -> missing | edited | stale (the others are current)
    changes: dict[str, str] = attrs.Factory(dict)

    @property
    def rebuilt(self) -> bool:
        return self.status == "rebuilt"

    @classmethod
    def of(cls, record: JobRecord, status: str) -> JobReport:
        return cls(
            id=record.job,
            target=record.target,
            worker=record.worker,
            platform=record.platform,
            primary=record.primary,
            files=[
                FileReport(path, out.digest or "", out.size)
                for path, out in sorted(record.outputs.items())
            ],
            truncations=record.truncations,
            warnings=list(record.warnings),
            sizes=record.sizes,
            status=status,
        )


@attrs.define(repr=False)
class Outcome(Record):
    jobs: list[JobReport]
    orphans: list[str]  # deleted by build, or that a build would delete (check)
    warnings: list[str]
    fast: bool

    @property
    def stale(self) -> list[JobReport]:
        return [j for j in self.jobs if j.status in ("stale", "missing", "edited")]


class Interrupted(KeyboardInterrupt):
    """A build stopped by Ctrl-C, and how far it got: the reports of the sets it finished (files
    written; the last one's record may not be), of ``total``. Still a KeyboardInterrupt."""

    def __init__(self, jobs: list[JobReport], total: int) -> None:
        super().__init__()
        self.jobs = jobs
        self.total = total


@attrs.frozen(repr=False)
class SkillFile(Record):
    """One file of an Agent Skill: its path in the skill's folder and its bytes as shipped."""

    path: str  # relative to the skill's folder, '/'-separated: "SKILL.md", "scripts/check.sh"
    data: bytes
    kind: str  # "text" (scanned), "binary" (copied verbatim, listed with its digest), "script"


@attrs.frozen(repr=False)
class Skill(Record):
    """An Agent Skill of the sources folder (``skills/<name>/``), read and checked: its
    ``SKILL.md`` (frontmatter normalised) first among its files."""

    name: str
    description: str
    folder: str  # the display path of its folder: "agent-configs/skills/deploy-check"
    files: tuple[SkillFile, ...]
    # Frontmatter keys the specification does not define, each with where it is written
    # (file:line:column): a target whose program documents the key takes it without a word.
    extra_keys: tuple[tuple[str, str], ...] = ()
    # Every frontmatter key whose value is text, with the value: a program lists some of them
    # (``worker.SkillsPlace.listed``).
    texts: tuple[tuple[str, str], ...] = ()
    # Where each of those values is written (file:line:column), for a problem with one of them.
    places: tuple[tuple[str, Span], ...] = ()
