"""The build log in ``.hotplex/log``: what each artifact was built from, append-only.

Like ninja's ``.ninja_log``: a versioned header, then one JSON line per built job, appended only
after the job's files are in place, so a killed build loses at most the jobs it had not finished.
A ``forget`` line drops the record of a job no longer planned. A finished build ends with a
closing: in full, ``reports`` (what a report of each job needs, and where each job's latest
record is) and ``snapshot`` (the stamps of every file involved); after a build of the touched
path (``build/touched.py``), one ``delta`` line of what it changed since the full closing it
names. When the closing is the last line and nothing it names moved, the next build is a no-op
that reads only the header, the snapshot and a delta (``closing.py``), not the records.

The log is disposable: an unknown version, a broken header or a malformed line means starting
over with a warning (a full rebuild), never a crash. A log of the two versions before
(``MIGRATED``) is rewritten in this one, rebuilding nothing: each file its stamps name (without
the ctime) is hashed once more. An unterminated last line, what a build killed mid-write leaves,
is dropped silently, and the next build rewrites the log before appending. The log is compacted
(temp file + rename, each job's latest record kept) by a slow build once it is half as long
again as what is live, and by the touched path once it is twice as long as compacted, copying
each record from where the closing says it is.

Records are typed (``build/records.py``) everywhere but here, where they become JSON lines and
come back, checked. Every stamp, of an input or an output, is one layout: ``[mtime_ns, size,
inode, ctime_ns, digest]`` (``[mtime_ns, size, inode, digest]`` before v6).
"""

from __future__ import annotations

import contextlib
import os

from hotplex.build.record_json import record_from_json, record_to_json
from hotplex.errors import BuildFailed, HotplexError, Problem, Span
from hotplex.fs import STATE_DIR
from hotplex.writes import crash_point, folder_of, is_temp_of, write_atomic

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from hotplex.records import JobRecord, Stamped

LOG_NAME = "log"
# The last full snapshot read, as marshal (its load costs a fifth of the JSON's parse), with
# the line it is the parse of (``closing.py``): disposable like the log.
SNAPSHOT_CACHE = "snapshot"
VERSION = 6
HEADER = f"# hotplex log v{VERSION}\n"
# Logs of the versions before: their lines are this version's but for the stamps, which lack the
# ctime (v5), and the closing's index of each job's record (v4), so they are read as they are and
# rewritten in this version (no job is rebuilt for it).
MIGRATED = ("# hotplex log v5\n", "# hotplex log v4\n")
# Rewrite the log once it is this many times longer than its live job records, plus some
# slack (in characters) so a small log is not rewritten at every build. A rewrite copies the
# live lines as read, which costs far less than parsing superseded ones at every slow build.
COMPACT_RATIO = 1.5
COMPACT_SLACK = 64 * 1024
# The fast path reads the log's last line backwards in blocks of this size (doubling).
TAIL_BLOCK = 64 * 1024
# Lines are written with sorted keys, so a reports line is known by its start (``INDEXED``;
# ``REPORTS``: as hotplex wrote it before the line had its index, ``build/reports.py``).
INDEXED = '{"at":'
REPORTS = '{"reports":'
# A delta closing: what a touched build changed since the last full closing, which it names.
DELTA = '{"delta":'

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
    """The log as read: filled in line by line, then handed to the build. Lengths and offsets
    are in bytes, as the closing's index of each job's record holds them."""

    def __init__(self, torn: bool = False, warning: str | None = None) -> None:
        self.jobs: dict[str, JobRecord] = {}
        self.snapshot: dict[str, Any] | None = None  # only when it closes the log
        self.files: dict[str, Stamped] = {}  # inputs, as the snapshot saw them
        self.size = 0  # bytes of all lines after the header
        self.lines: dict[str, bytes] = {}  # job -> its record's line, as read
        self.at: dict[str, tuple[int, int]] = {}  # job -> its record line's offset and length
        self.torn = torn  # the last line was cut short by a killed build
        self.warning = warning
        self.migrated = False  # a log of a version before, to rewrite in this one
        # The manifest whose builds the log records (its path from the project root), from the
        # line after the header; None in a log of an older hotplex, which any manifest takes.
        self.manifest: str | None = None

    @property
    def width(self) -> int:
        """How many values each stamp of the log holds: an older log's have no ctime."""
        return 4 if self.migrated else 5

    @property
    def live(self) -> int:
        """Bytes of the lines still in force: the latest record of each job."""
        return sum(len(line) for line in self.lines.values())


class CorruptLog(ValueError):
    """A line that is not a record this version of hotplex wrote."""


def log_path(root: str | Path) -> str:
    return os.path.join(root, STATE_DIR, LOG_NAME)


def load(root: Path) -> State:
    path = log_path(root)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        data.decode("utf-8")  # checked whole once: each line is then parsed as bytes
    except FileNotFoundError:
        return State()
    except (OSError, UnicodeDecodeError) as exc:
        return _start_over(f"ignoring unreadable build log {path} ({exc})")
    header = next((h for h in (HEADER, *MIGRATED) if data.startswith(h.encode())), None)
    if header is None:
        first = data.decode("utf-8").split("\n", 1)[0][:60]
        return _start_over(f"ignoring build log {path} of another version ({first!r})")
    lines = data[len(header) :].split(b"\n")
    state = State(torn=lines[-1] != b"")
    state.migrated = header != HEADER
    offset, full = len(header), None  # the last full snapshot: (its line's offset, itself)
    try:
        for number, line in enumerate(lines[:-1], start=2):
            if line.startswith(_DELTA_BYTES):
                state.snapshot = _delta_snapshot(line, full, number)
                state.files = _files_of(state.snapshot or {}, number, state.width)
                state.size += len(line) + 1
            elif line.startswith(_CLOSING_BYTES):
                state.size += len(line) + 1  # for the fast path only: counted, not parsed
            else:
                _apply(state, line, number, offset)
                if line.startswith(_SNAPSHOT_BYTES) and state.snapshot is not None:
                    full = (offset, state.snapshot)
            offset += len(line) + 1
    except CorruptLog as exc:
        return _start_over(f"ignoring corrupt build log {path} ({exc})")
    return state


_DELTA_BYTES = DELTA.encode()
_CLOSING_BYTES = (INDEXED.encode(), REPORTS.encode())
_SNAPSHOT_BYTES = b'{"snapshot":'


def _delta_snapshot(
    line: bytes, full: tuple[int, dict[str, Any]] | None, number: int
) -> dict[str, Any] | None:
    """The snapshot a delta closing makes of the full one it names (None: not the last full
    snapshot read, which a build killed mid-compaction cannot leave, but a hand edit can)."""
    try:
        delta = parsed(line)["delta"]
        base = delta["base"]
        if full is None or base[1] != full[0]:
            return None
        return merged(full[1], delta["snapshot"])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise CorruptLog(f"line {number}: bad delta closing") from None


def merged(base: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """A full snapshot with what a delta closing changed: entries of its tables replaced or
    added (``files``, ``dirs``, ``sources`` and each target's ``outputs``), other keys
    replaced whole (``told``, ``live``)."""
    snap = dict(base)
    for key, value in changed.items():
        if key in TABLES:
            snap[key] = {**base.get(key, {}), **value}
        elif key == "outputs":
            outputs = base.get(key, {})
            snap[key] = {**outputs, **{t: {**outputs.get(t, {}), **p} for t, p in value.items()}}
        else:
            snap[key] = value
    return snap


# The snapshot's tables a delta closing changes entries of.
TABLES = ("files", "dirs", "sources", "local", "package")


def report_records(reports: list[dict[str, Any]]) -> list[JobRecord]:
    """Job records of the report part of each one (``closing.Closing.job_reports``)."""
    empty = {"keys": {}, "inputs": {}, "variables": {}}
    return [record_from_json({**job, **empty}) for job in reports]


def _start_over(why: str) -> State:
    return State(warning=f"{why}; rebuilding everything")


def parsed(line: bytes) -> Any:
    """A log line's JSON; one nested past the parser's depth (by hand) is corrupt: a ValueError."""
    import json  # here, not above: a no-op build parses no line (the snapshot's cache)

    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("a line nested past the JSON parser's depth") from None


def _apply(state: State, line: bytes, number: int, offset: int) -> None:
    try:
        record = parsed(line)
    except ValueError:
        raise CorruptLog(f"line {number} is not JSON") from None
    if not isinstance(record, dict):
        raise CorruptLog(f"line {number} is not a record")
    state.size += len(line) + 1
    if "snapshot" in record and isinstance(record["snapshot"], dict):
        state.snapshot = record["snapshot"]
        state.files = _files_of(record["snapshot"], number, state.width)
    elif "job" in record:
        state.jobs[record["job"]] = _checked_job(record, number, state.width)
        state.lines[record["job"]] = line + b"\n"
        state.at[record["job"]] = (offset, len(line) + 1)
        state.snapshot = None
    elif isinstance(record.get("manifest"), str) and len(record) == 1:
        state.manifest = record["manifest"]
    elif isinstance(record.get("forget"), str):
        state.jobs.pop(record["forget"], None)
        state.lines.pop(record["forget"], None)
        state.at.pop(record["forget"], None)
        state.snapshot = None
    else:
        raise CorruptLog(f"line {number} is not a record")


def _checked_job(record: dict[str, Any], number: int, width: int) -> JobRecord:
    for key, kind in _JOB_FIELDS.items():
        if not isinstance(record.get(key), kind):
            raise CorruptLog(f"line {number}: job record without a valid '{key}'")
    for path, output in record["outputs"].items():
        if not (isinstance(output, list) and len(output) == width and isinstance(output[-1], str)):
            raise CorruptLog(f"line {number}: bad output record for {path}")
    try:
        return record_from_json(record)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CorruptLog(f"line {number}: bad job record ({exc})") from None


def _files_of(snapshot: dict[str, Any], number: int, width: int) -> dict[str, Stamped]:
    from hotplex.records import Stamped

    files = snapshot.get("files", {})
    if not isinstance(files, dict) or not all(
        rec is None or (isinstance(rec, list) and len(rec) == width) for rec in files.values()
    ):
        raise CorruptLog(f"line {number}: bad snapshot")
    return {path: Stamped.from_list(rec) for path, rec in files.items() if rec is not None}


def owner(state: State, root: str | Path, manifest: str | Path) -> str:
    """The manifest as the log names it: relative to the root, or as the log recorded it when
    that is the same file under another spelling (its folder reached through a symlink:
    adversary22 D9, refused as another manifest's)."""
    named = os.path.relpath(manifest, root)
    if state.manifest not in (None, named):
        with contextlib.suppress(OSError):
            if os.path.samefile(os.path.join(root, state.manifest), manifest):
                return state.manifest
    return named


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
            os.makedirs(folder_of(path), exist_ok=True)
            _ignore_state_dir(folder_of(path))
            _remove_stale_temps(path)
            fresh = state.warning or state.torn or state.migrated or not os.path.exists(path)
            if fresh or state.manifest != manifest or self._needs_compaction():
                state.manifest = manifest
                self._rewrite()
            self._handle = open(path, "ab")  # noqa: SIM115 - held for the build
            self.end = self._handle.seek(0, os.SEEK_END)  # where the next line goes
        except OSError as exc:
            raise _log_failed(path, exc) from None

    def _needs_compaction(self) -> bool:
        return self.state.size > COMPACT_RATIO * self.state.live + COMPACT_SLACK

    def _rewrite(self) -> None:
        """Keep each job's latest record, copied as read: no need to serialise it again (but
        for an older log's, whose stamps are this version's only once serialised again)."""
        kept = {} if self.state.migrated else self.state.lines
        lines = {
            job: kept.get(job) or json_line(record_to_json(record)).encode()
            for job, record in self.state.jobs.items()
        }
        head, self.state.at = _laid_out(self.state.manifest, lines)
        write_atomic(log_path(self.root), head + b"".join(lines.values()))
        self.state.size = sum(len(line) for line in lines.values())
        self.state.torn = self.state.migrated = False

    def append(self, record: JobRecord) -> None:
        line = json_line(record_to_json(record)).encode()
        self.state.at[record.job] = (self._write(line), len(line))
        self.state.jobs[record.job] = record
        self.state.lines[record.job] = line

    def forget(self, job: str) -> None:
        self._write(json_line({"forget": job}).encode())
        self.state.jobs.pop(job, None)
        self.state.lines.pop(job, None)
        self.state.at.pop(job, None)

    def _write(self, line: bytes) -> int:
        """Append ``line``; where it starts."""
        at = self.end
        try:
            self._handle.write(line)
            self._handle.flush()
        except OSError as exc:
            raise _log_failed(log_path(self.root), exc) from None
        self.end += len(line)
        crash_point()
        return at

    def close(self, closing: bytes | None) -> None:
        """End the build: its closing (``closing.full_closing``, or a delta closing of the touched
        path) when it finished, nothing when it failed.

        No fsync, as for the artifacts: what a killed process wrote is safe in the kernel, and
        surviving a power cut would take an fsync per artifact, which no fast build affords."""
        if self._handle.closed:  # closed already: a failure after a finished build
            return
        try:
            if closing is not None:
                self._handle.write(closing)
            self._handle.flush()
        except OSError as exc:
            raise _log_failed(log_path(self.root), exc) from None
        finally:
            with contextlib.suppress(OSError):
                self._handle.close()

    def close_compacted(
        self, lines: list[bytes], closing: Callable[[list[tuple[int, int]]], bytes]
    ) -> None:
        """End the build by rewriting the log (temp file and rename): ``lines``, the latest
        record of each planned job, then the full closing ``closing`` makes of where each one
        now is. What the build appended stays until the rename, so a kill leaves the log whole."""
        self.close(None)
        head, at = _laid_out(self.state.manifest, dict(enumerate(lines)))
        data = head + b"".join(lines) + closing([at[i] for i in range(len(lines))])
        write_atomic(log_path(self.root), data)


def _laid_out(
    manifest: str | None, lines: dict[Any, bytes]
) -> tuple[bytes, dict[Any, tuple[int, int]]]:
    """The header and owner line of a rewritten log, and where each of ``lines`` (key -> line)
    then is, written after them in order."""
    head = (HEADER + json_line({"manifest": manifest})).encode()
    at, offset = {}, len(head)
    for key, line in lines.items():
        at[key] = (offset, len(line))
        offset += len(line)
    return head, at


def json_line(record: dict[str, Any]) -> str:
    """A record as the log holds it: one line of JSON. ``json`` is imported by the functions
    that read or write a line, never by the no-op path's start (it reads the snapshot's cache)."""
    from hotplex.json_writer import json_text

    return json_text(record, sort_keys=True, separators=(",", ":")) + "\n"


def _log_failed(path: str, exc: OSError) -> BuildFailed:
    return BuildFailed(
        [
            Problem(
                f"cannot write the build log '{path}': {exc.strerror or exc}",
                hint="the artifacts already written are complete; the next build re-checks them",
            )
        ]
    )


def _ignore_state_dir(folder: str) -> None:
    """Keep the state out of version control without asking the user to edit .gitignore."""
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w", encoding="utf-8") as handle:
            handle.write("*\n")


def _remove_stale_temps(path: str) -> None:
    """A compaction killed before its rename leaves a temp file (so does a killed write of the
    snapshot's cache); the lock says nobody owns it."""
    name = os.path.basename(path)
    for entry in os.scandir(folder_of(path)):
        if is_temp_of(entry.name, name) or is_temp_of(entry.name, SNAPSHOT_CACHE):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
