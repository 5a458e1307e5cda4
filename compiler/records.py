"""What the build knows about each job, as typed records: the log's record of how an artifact
was made, and the report a command prints. ``state.py`` turns them into JSON lines and back."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

# Not typing's: the no-op path loads this module, and importing typing costs it milliseconds.
# The two tuple records below are collections.namedtuple classes, their fields annotated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Truncation:
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

    def describe(self) -> str:
        files = ", ".join(self.files) or self.section
        # hotplex's own limits are manifest keys; a worker's (openclaw.max_chars) are named as is.
        limit = self.limit if "." in self.limit else f"limits.{self.limit}"
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


class SectionSize(namedtuple("SectionSize", "name files raw injected unit")):
    """How much of a section reaches the worker, in the unit of the budget that counts it."""

    __slots__ = ()
    name: str
    files: tuple[str, ...]
    raw: int  # before any budget
    injected: int  # what the worker receives
    unit: str


class Stamped(namedtuple("Stamped", "mtime_ns size ino digest")):
    """A file as last seen: its stamp and its content digest, one layout for inputs and outputs.

    ``mtime_ns`` is -1 when the stamp cannot vouch for the content (a write in the same tick as
    the read), so it never matches and the file is hashed again.
    """

    __slots__ = ()
    mtime_ns: int
    size: int
    ino: int
    digest: str | None


@dataclass(frozen=True)
class JobRecord:
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


@dataclass(frozen=True)
class FileReport:
    path: str
    sha256: str
    bytes: int


@dataclass
class JobReport:
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
    reasons: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    diff: str = ""
    # check: each file a build would write -> missing | edited | stale (the others are current)
    changes: dict[str, str] = field(default_factory=dict)

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


@dataclass
class Outcome:
    jobs: list[JobReport]
    orphans: list[str]  # deleted by build, or that a build would delete (check)
    warnings: list[str]
    fast: bool

    @property
    def stale(self) -> list[JobReport]:
        return [j for j in self.jobs if j.status in ("stale", "missing", "edited")]


class Interrupted(KeyboardInterrupt):
    """A build stopped by Ctrl-C, and how far it got: the reports of the sets it finished (their
    files written; the last one's record may not be), of ``total`` selected. Still a
    KeyboardInterrupt to a caller."""

    def __init__(self, jobs: list[JobReport], total: int) -> None:
        super().__init__()
        self.jobs = jobs
        self.total = total
