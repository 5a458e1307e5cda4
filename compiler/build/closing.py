"""A finished build's closing in the log, and what reads it without reading the records.

A full closing is two lines: the reports line (``build/reports.py``: the report part of each
planned job's record, the jobs reading each list of inputs, where each job's latest record line
is) and the snapshot (``build/snapshot.py``: every stamp the build depended on). A delta closing
is one line after some records: what the touched builds since the full closing changed of it,
cumulated (the rebuilt jobs' reports and record places, the snapshot's entries that moved, what
the deltas since it have cost), naming where the full closing is, so that a reader of the log's
last line finds both. The no-op path reads the header, the last line and, after a delta, the
full snapshot it names: never the records.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys

from hotplex.build.log import (
    DELTA,
    HEADER,
    INDEXED,
    REPORTS,
    SNAPSHOT_CACHE,
    TABLES,
    TAIL_BLOCK,
    VERSION,
    json_line,
    log_path,
    merged,
    parsed,
    report_records,
)
from hotplex.errors import HotplexError
from hotplex.fs import Stamp
from hotplex.writes import folder_of, write_atomic

TYPE_CHECKING = False  # not typing's: this module is the no-op path
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from hotplex.records import JobRecord

_DELTA_BYTES = DELTA.encode()
# The tag of the snapshot's cache (``log.SNAPSHOT_CACHE``): the log's version and Python's,
# whose marshal format it is.
_CACHE_TAG = f"hotplex snapshot v{VERSION} {sys.hexversion}"


def changes(base: dict[str, Any], snap: dict[str, Any]) -> dict[str, Any]:
    """What ``merged`` takes to make ``snap`` of ``base``: the touched path's snapshot differs
    from the last full one in a few entries of its tables, ``told`` and ``live``."""
    if base.keys() - snap.keys():
        raise ValueError("a snapshot key removed")  # no delta can say it
    delta: dict[str, Any] = {}
    for key, value in snap.items():
        old = base.get(key, _ABSENT)
        if key in TABLES:
            moved = _moved({} if old is _ABSENT else old, value)
        elif key == "outputs":
            moved = {t: m for t, paths in value.items() if (m := _moved(old.get(t, {}), paths))}
        else:
            moved = value if old != value else _ABSENT
            if moved is not _ABSENT:
                delta[key] = moved
            continue
        if moved:
            delta[key] = moved
    return delta


def _moved(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {path: rec for path, rec in new.items() if path not in old or old[path] != rec}


_ABSENT = object()


class Closing:
    """What closes a finished build: a full closing (the reports of every job, then the
    snapshot: the stamps of every file the build involved, the outputs' too), or a delta
    closing after it, which holds what the touched builds since changed of both. The reports
    are read and parsed only when asked for (a no-op build seldom does)."""

    def __init__(
        self,
        snapshot: dict[str, Any],
        path: str,
        reports: tuple[int | None, int, int],
        delta: dict[str, Any] | None = None,
        base: dict[str, Any] | None = None,
    ) -> None:
        self.snapshot = snapshot  # the delta's merged into the full one's
        self.base = snapshot if base is None else base  # the full closing's snapshot, as written
        self.path = path  # the log
        # Where the full closing's reports line starts (None: not known till it is read), where
        # it ends (its newline included: the snapshot line starts) and where the snapshot ends.
        self.reports_start, self.reports_end, self.snapshot_end = reports
        self.delta = delta  # the delta closing, parsed; None when the full one closes the log
        self.delta_size = 0  # bytes of the delta closing's line
        self.unkept: bytes | None = None  # the full snapshot's cache, when it missed

    def keep(self) -> None:
        """Write the full snapshot's cache (``log.SNAPSHOT_CACHE``) when it missed: a no-op
        build does, under the project's lock, so the next ones load it instead of parsing the
        line (once after each full closing: a delta closing leaves the full one as it was)."""
        if self.unkept is not None:
            with contextlib.suppress(HotplexError):  # a cache not written is one parse more
                write_atomic(_cache_of(self.path), self.unkept)
            self.unkept = None

    @property
    def full_size(self) -> int | None:
        """Bytes of the full closing, once its reports line's start is known."""
        start = self.reports_start
        return None if start is None else self.snapshot_end - start

    def reports_line(self) -> bytes | None:
        """The full closing's reports line, as the log holds it (None: not one)."""
        try:
            with open(self.path, "rb") as handle:
                if self.reports_start is None:
                    line = _last_line(handle, self.reports_end)
                else:
                    handle.seek(self.reports_start)
                    size = self.reports_end - self.reports_start
                    line = _whole_line(handle.read(size), size)
        except OSError:
            return None
        if line is None or not line.startswith((INDEXED.encode(), REPORTS.encode())):
            return None
        self.reports_start = self.reports_end - len(line) - 1
        return line

    def job_reports(self) -> list[dict[str, Any]] | None:
        """The report part of each job's record (no keys, inputs or variables), as the log holds
        it: the no-op path reads it without making records."""
        line = self.reports_line()
        if line is None:
            return None
        try:
            jobs = parsed(line)["reports"]
            for index, report in (self.delta or {}).get("reports", {}).items():
                jobs[int(index)] = report
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


def load_closing(root: str | Path) -> Closing | None:
    """The closing of the log, or None: reads the header and the last line only (and, when it
    is a delta closing, the full snapshot it names), so a no-op build costs the same whatever
    the log's length (the reports line is read when asked for). Anything unexpected is None
    (the full ``load`` then decides, and warns). The full snapshot is taken from its cache
    when that holds the parse of its line (``Closing.keep`` writes it)."""
    path = log_path(root)
    try:
        with open(path, "rb") as handle:
            if handle.read(len(HEADER)) != HEADER.encode():
                return None
            end = handle.seek(0, os.SEEK_END)
            line = _last_line(handle, end)
            if line is None:
                return None
            if not line.startswith(_DELTA_BYTES):
                return _full_closing(path, line, end)
            return _delta_closing(path, handle, line, end)
    except OSError:
        return None


def _full_closing(path: str, line: bytes, end: int) -> Closing | None:
    snapshot, unkept = _snapshot_of(line, path)
    if snapshot is None or not _stamps_of_files(snapshot):
        return None
    closing = Closing(snapshot, path, (None, end - len(line) - 1, end))
    closing.unkept = unkept
    return closing


def _delta_closing(path: str, handle: Any, line: bytes, end: int) -> Closing | None:
    try:
        delta = parsed(line)["delta"]
        start, middle, stop = delta["base"]
        kinds = {"written": int, "reports": dict, "records": dict, "snapshot": dict}
        if not all(type(delta.get(key)) is kind for key, kind in kinds.items()):
            return None
        if not 0 < start < middle < stop <= end - len(line) - 1:
            return None
        handle.seek(middle)
        whole = _whole_line(handle.read(stop - middle), stop - middle)
        base, unkept = _snapshot_of(whole, path) if whole is not None else (None, None)
        if base is None:
            return None
        snapshot = merged(base, delta["snapshot"])
        if not _stamps_of_files(snapshot):
            return None
        closing = Closing(snapshot, path, (start, middle, stop), delta, base)
        closing.delta_size = len(line) + 1
        closing.unkept = unkept
        return closing
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _cache_of(log: str) -> str:
    return os.path.join(folder_of(log), SNAPSHOT_CACHE)


def _snapshot_of(line: bytes, log: str) -> tuple[dict[str, Any] | None, bytes | None]:
    """The snapshot a snapshot line holds (None: not one): from the cache beside the log when
    it holds the parse of these very bytes (it keeps them: comparing them costs a hundredth of
    hashing them), else parsed, with the cache's bytes to write (``Closing.keep``)."""
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
        with open(_cache_of(log), "rb") as handle:
            tag, kept, snapshot = marshal.loads(handle.read())
        if tag == _CACHE_TAG and kept == line and type(snapshot) is dict:
            return snapshot, None
    with contextlib.suppress(ValueError):
        record = parsed(line)
        if isinstance(record, dict) and isinstance(record.get("snapshot"), dict):
            snapshot = record["snapshot"]
            return snapshot, marshal.dumps((_CACHE_TAG, line, _shared(snapshot, {})))
    return None, None


def _shared(value: Any, met: dict[Any, Any]) -> Any:
    """``value`` with each int and str equal to one met before replaced by that one: marshal
    writes a repeat as a reference to the first, and loading a reference costs a fraction of
    making the object again (a build stamps most files within a few clock ticks, so a 10,000-set
    snapshot's 62,000 nanosecond times hold a few hundred values; its load takes 40% less)."""
    if type(value) is dict:
        return {_shared(k, met): _shared(v, met) for k, v in value.items()}
    if type(value) is list:
        return [_shared(v, met) for v in value]
    if type(value) in (int, str):
        return met.setdefault(value, value)
    return value


def _stamps_of_files(snapshot: dict[str, Any]) -> bool:
    """Whether each input's stamp is one (``[mtime_ns, size, inode, ctime_ns, digest]``) or
    None, as the touched path takes them: a hand-edited one leaves the build to the slow path."""
    files = snapshot.get("files")
    return isinstance(files, dict) and all(
        rec is None
        or (
            isinstance(rec, list)
            and len(rec) == Stamp.WIDTH + 1
            and all(type(n) is int for n in rec[: Stamp.WIDTH])
            and isinstance(rec[Stamp.WIDTH], (str, type(None)))
        )
        for rec in files.values()
    )


def _whole_line(data: bytes, size: int) -> bytes | None:
    """``data`` as one line (without its newline), when it is one of ``size`` bytes."""
    if len(data) != size or not data.endswith(b"\n") or b"\n" in data[:-1]:
        return None
    return data[:-1]


def _last_line(handle: Any, end: int) -> bytes | None:
    """The last line of a file that ends with a newline at ``end`` (None for a torn one): the
    newline before it is looked for backwards in doubling blocks (``rfind``, which stops at
    the first), and the blocks are joined once."""
    handle.seek(end - 1)
    if end <= len(HEADER) or handle.read(1) != b"\n":
        return None
    blocks: list[bytes] = []
    start = end - 1  # the final newline ends the last line; it is not part of it
    size = TAIL_BLOCK
    while start > 0:
        step = min(size, start)
        start -= step
        handle.seek(start)
        blocks.append(handle.read(step))
        found = blocks[-1].rfind(b"\n")
        if found >= 0:
            line = b"".join(reversed(blocks))[found + 1 :]
            return line if len(line) == end - 1 - (start + found + 1) else None
        size *= 2
    return None


def full_closing(reports: str, snapshot: dict[str, Any], live: int) -> bytes:
    """A full closing: the reports line (``build/reports.py``), then the snapshot, with how
    long the live records are, for a build that appends without reading them
    (``build/touched.py``)."""
    return (reports + json_line({"snapshot": {**snapshot, "live": live}})).encode()


def delta_closing(base: tuple[int, int, int], snapshot: dict[str, Any], extra: dict) -> bytes:
    """A delta closing after the full one at ``base`` (where its reports line starts, where its
    snapshot line starts and ends): the snapshot's ``changes`` and ``extra``."""
    return json_line({"delta": {**extra, "base": list(base), "snapshot": snapshot}}).encode()
