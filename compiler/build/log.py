"""The build log in ``.hotplex/log``: what each artifact was built from, append-only.

Like ninja's ``.ninja_log``: a versioned header, then one JSON line per built job, appended only
after the job's files are in place, so a killed build loses at most the jobs it had not finished.
A ``forget`` line drops the record of a job the manifest no longer plans. A finished build ends
with two lines: ``reports`` (what a report of each job needs) and ``snapshot`` (the stamps of
every file involved). When the snapshot is the last line and nothing it names moved, the next
build is a no-op that reads only the header and those two lines (``load_closing``), neither the
manifest nor the job records; a build that does read the records skips the reports lines.

The log is disposable: an unknown version, a broken header or a malformed line means starting
over with a warning (a full rebuild), never a crash. The one exception is an unterminated last
line, which is what a build killed mid-write leaves: it is dropped silently, and the next build
rewrites the log before appending so no record is ever glued to it. The log is compacted
(rewritten via temp file + rename, keeping each job's latest record) once superseded records,
reports and snapshots make it longer than what is live by half.

Records are typed (``build/records.py``) everywhere but here: this module is where they become
JSON lines and come back, checked. Every stamp, of an input or an output, is one layout:
``[mtime_ns, size, inode, digest]``.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from hotplex.errors import BuildFailed, HotplexError, Problem, Span
from hotplex.fs import STATE_DIR, crash_point, is_temp_of, write_atomic
from hotplex.json_writer import json_text

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from typing import Any

    from hotplex.records import JobRecord, Stamped, Truncation

LOG_NAME = "log"
VERSION = 4
HEADER = f"# hotplex log v{VERSION}\n"
# Rewrite the log once it is this many times longer than its live job records, plus some
# slack (in characters) so a small log is not rewritten at every build. A rewrite copies the
# live lines as read, which costs far less than parsing superseded ones at every slow build.
COMPACT_RATIO = 1.5
COMPACT_SLACK = 64 * 1024
# The fast path reads the log's last line backwards in blocks of this size (doubling).
TAIL_BLOCK = 64 * 1024
# Lines are written with sorted keys, so a reports line is known by its start (``INDEXED``;
# ``_REPORTS``: as hotplex wrote it before the line had its index, ``build/reports.py``).
INDEXED = '{"at":'
_REPORTS = '{"reports":'

# What a job record must hold for the build to trust it (key -> type).
_JOB_FIELDS: dict[str, type | tuple[type, ...]] = {
    "job": str,
    "target": str,
    "worker": str,
    "platform": (str, type(None)),
    "primary": str,
    "keys": dict,
    "inputs": dict,
    "variables": dict,
    "outputs": dict,
    "truncations": list,
    "warnings": list,
    "sizes": list,
}


class State:
    """The log as read: filled in line by line, then handed to the build."""

    def __init__(self, torn: bool = False, warning: str | None = None) -> None:
        self.jobs: dict[str, JobRecord] = {}
        self.snapshot: dict[str, Any] | None = None  # only when it is the log's last line
        self.files: dict[str, Stamped] = {}  # inputs, as the snapshot saw them
        self.size = 0  # characters of all lines after the header
        self.lines: dict[str, str] = {}  # job -> its record's line, as read
        self.torn = torn  # the last line was cut short by a killed build
        self.warning = warning
        # The manifest whose builds the log records (its path from the project root), from the
        # line after the header; None in a log of an older hotplex, which any manifest takes.
        self.manifest: str | None = None

    @property
    def live(self) -> int:
        """Characters of the lines still in force: the latest record of each job."""
        return sum(len(line) for line in self.lines.values())


class CorruptLog(ValueError):
    """A line that is not a record this version of hotplex wrote."""


def log_path(root: Path) -> Path:
    return root / STATE_DIR / LOG_NAME


def load(root: Path) -> State:
    path = log_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return State()
    except (OSError, UnicodeDecodeError) as exc:
        return _start_over(f"ignoring unreadable build log {path} ({exc})")
    if not text.startswith(HEADER):
        first = text.split("\n", 1)[0][:60]
        return _start_over(f"ignoring build log {path} of another version ({first!r})")
    lines = text[len(HEADER) :].split("\n")
    state = State(torn=lines[-1] != "")
    try:
        for number, line in enumerate(lines[:-1], start=2):
            if line.startswith((INDEXED, _REPORTS)):
                state.size += len(line) + 1  # for the fast path only: counted, not parsed
            else:
                _apply(state, line, number)
    except CorruptLog as exc:
        return _start_over(f"ignoring corrupt build log {path} ({exc})")
    return state


class Closing:
    """The two lines that close a finished build: the snapshot (the stamps of every file the
    build involved, the outputs' too) and, just before it, the reports of every job, which are
    read and parsed only when asked for (a no-op build seldom does)."""

    def __init__(self, snapshot: dict[str, Any], path: Path, reports_end: int) -> None:
        self.snapshot = snapshot
        self.path = path  # the log
        # Where the reports line ends (its newline included): the snapshot line starts.
        self.reports_end = reports_end

    def reports_line(self) -> bytes | None:
        """The reports line, as the log holds it (None: not one)."""
        try:
            with open(self.path, "rb") as handle:
                lines = _last_lines(handle, self.reports_end, 1)
        except OSError:
            return None
        if lines is None or not lines[0].startswith((INDEXED.encode(), _REPORTS.encode())):
            return None
        return lines[0]

    def job_reports(self) -> list[dict[str, Any]] | None:
        """The report part of each job's record (no keys, inputs or variables), as the log holds
        it: the no-op path reads it without making records."""
        line = self.reports_line()
        if line is None:
            return None
        try:
            jobs = json.loads(line)["reports"]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # ValueError includes a UnicodeDecodeError
        return jobs if isinstance(jobs, list) and all(isinstance(j, dict) for j in jobs) else None

    def jobs(self) -> list[JobRecord] | None:
        """The same as records."""
        jobs = self.job_reports()
        try:
            return None if jobs is None else report_records(jobs)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None


def report_records(reports: list[dict[str, Any]]) -> list[JobRecord]:
    """Job records of the report part of each one (``Closing.job_reports``)."""
    empty = {"keys": {}, "inputs": {}, "variables": {}}
    return [_record_from_json({**job, **empty}) for job in reports]


def load_closing(root: Path) -> Closing | None:
    """The snapshot that closes the log, or None: reads the header and the last line only, so
    a no-op build costs the same whatever the log's length (the reports line before it is read
    when asked for). Anything unexpected is None (the full ``load`` then decides, and warns)."""
    path = log_path(root)
    try:
        with open(path, "rb") as handle:
            if handle.read(len(HEADER)) != HEADER.encode():
                return None
            end = handle.seek(0, os.SEEK_END)
            lines = _last_lines(handle, end, 1)
    except OSError:
        return None
    if lines is None:
        return None
    try:
        record = json.loads(lines[0])
    except ValueError:
        return None
    snapshot = record.get("snapshot") if isinstance(record, dict) else None
    if not isinstance(snapshot, dict):
        return None
    return Closing(snapshot, path, end - len(lines[0]) - 1)


def _last_lines(handle: Any, end: int, count: int) -> list[bytes] | None:
    """The last ``count`` lines of a file that ends with a newline (None for a torn one), read
    backwards in doubling blocks, each searched for newlines once and joined once."""
    handle.seek(end - 1)
    if end <= len(HEADER) or handle.read(1) != b"\n":
        return None
    blocks: list[bytes] = []
    start = end - 1  # the final newline ends the last line; it is not part of it
    size = TAIL_BLOCK
    found = 0
    while start > 0 and found < count:
        step = min(size, start)
        start -= step
        handle.seek(start)
        blocks.append(handle.read(step))
        found += blocks[-1].count(b"\n")
        size *= 2
    lines = b"".join(reversed(blocks)).split(b"\n")
    return lines[-count:] if len(lines) > count else None


def _start_over(why: str) -> State:
    return State(warning=f"{why}; rebuilding everything")


def _apply(state: State, line: str, number: int) -> None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        raise CorruptLog(f"line {number} is not JSON") from None
    if not isinstance(record, dict):
        raise CorruptLog(f"line {number} is not a record")
    state.size += len(line) + 1
    if "snapshot" in record and isinstance(record["snapshot"], dict):
        state.snapshot = record["snapshot"]
        state.files = _files_of(record["snapshot"], number)
    elif "job" in record:
        state.jobs[record["job"]] = _checked_job(record, number)
        state.lines[record["job"]] = line + "\n"
        state.snapshot = None
    elif isinstance(record.get("manifest"), str) and len(record) == 1:
        state.manifest = record["manifest"]
    elif isinstance(record.get("forget"), str):
        state.jobs.pop(record["forget"], None)
        state.lines.pop(record["forget"], None)
        state.snapshot = None
    else:
        raise CorruptLog(f"line {number} is not a record")


def _checked_job(record: dict[str, Any], number: int) -> JobRecord:
    for key, kind in _JOB_FIELDS.items():
        if not isinstance(record.get(key), kind):
            raise CorruptLog(f"line {number}: job record without a valid '{key}'")
    for path, output in record["outputs"].items():
        if not (isinstance(output, list) and len(output) == 4 and isinstance(output[3], str)):
            raise CorruptLog(f"line {number}: bad output record for {path}")
    try:
        return _record_from_json(record)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CorruptLog(f"line {number}: bad job record ({exc})") from None


def _record_from_json(data: dict[str, Any]) -> JobRecord:
    from hotplex.records import JobRecord, SectionSize, Stamped, Truncation

    return JobRecord(
        job=data["job"],
        target=data["target"],
        worker=data["worker"],
        platform=data["platform"],
        primary=data["primary"],
        keys=data["keys"],
        inputs=data["inputs"],
        variables=data["variables"],
        outputs={path: Stamped.from_list(stamp) for path, stamp in data["outputs"].items()},
        truncations=_cuts_from_json(Truncation, data["truncations"]),
        warnings=tuple(data["warnings"]),
        sizes=tuple(SectionSize(n, tuple(f), r, i, u) for n, f, r, i, u in data["sizes"]),
        placed=tuple(_placed(data.get("placed", []), data["outputs"])),
    )


def _placed(paths: object, outputs: dict[str, Any]) -> list[str]:
    """A record's placed files: outputs of it, each a string (anything else is corrupt)."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and p in outputs for p in paths):
        raise ValueError("bad placed files")
    return paths


def record_to_json(record: JobRecord, report_only: bool = False) -> dict[str, Any]:
    """A job record as the log writes it; ``report_only`` leaves out what only deciding needs."""
    data: dict[str, Any] = {
        "job": record.job,
        "target": record.target,
        "worker": record.worker,
        "platform": record.platform,
        "primary": record.primary,
        "outputs": {path: stamp.to_list() for path, stamp in record.outputs.items()},
        "truncations": _cuts_to_json(record.truncations),
        "warnings": list(record.warnings),
        "sizes": [[s.name, list(s.files), s.raw, s.injected, s.unit] for s in record.sizes],
    }
    if record.placed:  # absent otherwise: logs of builds without placed files stay as they were
        data["placed"] = list(record.placed)
    if not report_only:
        data.update(keys=record.keys, inputs=record.inputs, variables=record.variables)
    return data


def _cuts_to_json(cuts: tuple[Truncation, ...]) -> list[dict[str, Any]]:
    """A record's cuts as the log writes them, each its ``to_json``; but cuts in a row that
    differ only in their one file and its size (the days left out for room: 1,000 days are
    974 such cuts) are one entry, the first cut's with its ``files`` and ``before`` replaced
    by ``run``: the [file, size] of each, in order. The log's JSON is then a pair per day."""
    written: list[dict[str, Any]] = []
    shape: dict[str, Any] | None = None  # the last cut's, without its file and size
    for cut in cuts:
        data = cut.to_json()
        if len(cut.files) != 1:
            written.append(data)
            shape = None
            continue
        one = [data.pop("files")[0], data.pop("before")]
        if data != shape:
            written.append({**data, "files": [one[0]], "before": one[1]})
            shape = data
        elif "run" in written[-1]:
            written[-1]["run"].append(one)
        else:  # the second of a run: the first becomes its start
            first = written[-1]
            written[-1] = {**data, "run": [[first["files"][0], first["before"]], one]}
    return written


def _cuts_from_json(kind: type[Truncation], written: list[Any]) -> tuple[Truncation, ...]:
    """``_cuts_to_json``'s cuts back, each run of them one cut per [file, size]."""
    cuts = []
    for data in written:
        if "run" not in data:
            cuts.append(kind.from_json(data))
            continue
        cuts.extend(kind.from_json({**data, "files": [f], "before": n}) for f, n in data["run"])
    return tuple(cuts)


def _files_of(snapshot: dict[str, Any], number: int) -> dict[str, Stamped]:
    from hotplex.records import Stamped

    files = snapshot.get("files", {})
    if not isinstance(files, dict) or not all(
        rec is None or (isinstance(rec, list) and len(rec) == 4) for rec in files.values()
    ):
        raise CorruptLog(f"line {number}: bad snapshot")
    return {path: Stamped.from_list(rec) for path, rec in files.items() if rec is not None}


def refuse_other_manifest(state: State, manifest: str) -> None:
    """Raise when the log records the builds of another manifest in the same folder (``-f``):
    its outputs and placed files would be this build's orphans, and deleted."""
    if state.manifest is None or state.manifest == manifest:
        return
    raise HotplexError.single(
        f"'{STATE_DIR}/' holds the build state of {state.manifest}, not of {manifest}: a build"
        f" of {manifest} here would take the files {state.manifest} built for its own orphans"
        " and delete them",
        Span(manifest),
        hint=f"give each manifest a folder of its own; or, to make this folder {manifest}'s,"
        f" delete {STATE_DIR}/ (no file {state.manifest} placed is deleted then, but what it"
        f" built in the `out` of {manifest} may be)",
    )


class Log:
    """Appends records for one build of ``manifest``; the caller holds the project lock."""

    def __init__(self, root: Path, state: State, manifest: str) -> None:
        self.root = root
        self.state = state
        path = log_path(root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _ignore_state_dir(path.parent)
            _remove_stale_temps(path)
            fresh = state.warning or state.torn or not path.exists()
            if fresh or state.manifest != manifest or self._needs_compaction():
                state.manifest = manifest
                self._rewrite()
            self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held for the build
        except OSError as exc:
            raise _log_failed(path, exc) from None

    def _needs_compaction(self) -> bool:
        return self.state.size > COMPACT_RATIO * self.state.live + COMPACT_SLACK

    def _rewrite(self) -> None:
        """Keep each job's latest record, copied as read: no need to serialise it again."""
        lines = [
            self.state.lines.get(job) or _line(record_to_json(record))
            for job, record in self.state.jobs.items()
        ]
        owner = _line({"manifest": self.state.manifest})
        write_atomic(log_path(self.root), (HEADER + owner + "".join(lines)).encode("utf-8"))
        self.state.size = sum(len(line) for line in lines)
        self.state.torn = False

    def append(self, record: JobRecord) -> None:
        line = _line(record_to_json(record))
        self._write(line)
        self.state.jobs[record.job] = record
        self.state.lines[record.job] = line

    def forget(self, job: str) -> None:
        self._write(_line({"forget": job}))
        self.state.jobs.pop(job, None)
        self.state.lines.pop(job, None)

    def _write(self, line: str) -> None:
        try:
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:
            raise _log_failed(log_path(self.root), exc) from None
        crash_point()

    def close(self, closing: tuple[dict[str, Any], str] | None) -> None:
        """End the build: the reports line (``build/reports.py``) and a snapshot when it
        finished, nothing when it failed. The snapshot records how long the live records are,
        for a build that appends without reading them (``build/touched.py``).

        No fsync, as for the artifacts: what a killed process wrote is safe in the kernel, and
        surviving a power cut would take an fsync per artifact, which no fast build affords."""
        if self._handle.closed:  # closed already: a failure after a finished build
            return
        try:
            if closing is not None:
                snapshot, reports = closing
                snapshot = {**snapshot, "live": snapshot.get("live", self.state.live)}
                self._handle.write(reports + _line({"snapshot": snapshot}))
            self._handle.flush()
        except OSError as exc:
            raise _log_failed(log_path(self.root), exc) from None
        finally:
            with contextlib.suppress(OSError):
                self._handle.close()


def _line(record: dict[str, Any]) -> str:
    return json_text(record, sort_keys=True, separators=(",", ":")) + "\n"


def _log_failed(path: Path, exc: OSError) -> BuildFailed:
    return BuildFailed(
        [
            Problem(
                f"cannot write the build log '{path}': {exc.strerror or exc}",
                hint="the artifacts already written are complete; the next build re-checks them",
            )
        ]
    )


def _ignore_state_dir(folder: Path) -> None:
    """Keep the state out of version control without asking the user to edit .gitignore."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


def _remove_stale_temps(path: Path) -> None:
    """A compaction killed before its rename leaves a temp file; the lock says nobody owns it."""
    for entry in os.scandir(path.parent):
        if is_temp_of(entry.name, path.name):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
