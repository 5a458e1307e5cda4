"""The touched path: a build after a few inputs were edited, and nothing else moved.

When the snapshot's stamps all hold but some inputs' (not the manifest, a folder, hotplex's own
files nor an output), the jobs those inputs reach are found in the reports line's index
(``build/reports.py``) instead of deciding every job against its record: the other jobs' keys,
variables, inputs and outputs are exactly what the snapshot vouches for. Each moved input is
hashed; a job that reads one whose bytes changed is dirty, with the reasons the slow path gives
(``decide.input_reason``), and is compiled and written as there (``execute``). Its record is
appended to the log; then a delta closing holds what changed since the last full closing (the
dirty jobs' reports, record places, outputs and folders), and the log is not read: only copied,
by record places, when the touched path compacts it (``COMPACT_AT``).

The slow path settles it instead, in the same lock, when a rebuilt job read other inputs than
before (an include added) or wrote other files (a sub-agent removed: an orphan), or wrote a file
another job reads: the unused-file report, the orphans and the snapshot's files are then its to
redo, and it finds the rebuilt jobs current. Whatever else is unexpected (a log of another
layout, one the slow path would compact) leaves the build to the slow path before anything is
written.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import time

from hotplex.build import closing as closings
from hotplex.build import log as state_log
from hotplex.build import snapshot
from hotplex.build.request import Summary
from hotplex.fs import Stamp, stamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from hotplex.build.closing import Closing
    from hotplex.build.reports import Indexed
    from hotplex.build.request import Request
    from hotplex.records import JobRecord, JobReport

# The touched path appends its records and closes with a delta closing (what changed since the
# last full closing); a full closing once the deltas written since it are as long as it is. Past
# ``COMPACT_AT`` times the length of the log as compacted (its live records and a full closing)
# it compacts the log itself, copying each job's latest record line from where the index says;
# past ``APPEND_RATIO`` times (only when a record was not there) it leaves the build to the
# slow path, which compacts.
COMPACT_AT = 2
APPEND_RATIO = 4


def build(request: Request, manifest: Path, closing: Closing) -> Summary | None:
    """Build what the moved inputs reach, under the caller's lock; None: decide slowly."""
    snap = closing.snapshot
    if request.targets or request.check or snap.get("manifest") != _rel(manifest, request.root):
        return None
    moved = snapshot.moved_inputs(request.root, snap)
    live = snap.get("live")
    if not moved or not isinstance(live, int) or isinstance(live, bool):
        return None
    from hotplex.build.reports import indexed

    line = indexed(closing)
    if line is None or closing.full_size is None:
        return None
    try:
        size = os.path.getsize(closing.path)
    except OSError:
        return None
    if size > APPEND_RATIO * (live + closing.full_size) + state_log.COMPACT_SLACK:
        return None
    return _Touched(request, manifest, closing, line).run(moved)


def _rel(path: Path, root: Path) -> str:
    return os.path.relpath(path, root)


class _Touched:
    def __init__(self, request: Request, manifest: Path, closing: Closing, line: Indexed):
        from hotplex.manifest import load as loading
        from hotplex.sources.inputs import Inputs

        self.request = request
        self.manifest = manifest
        self.closing = closing
        self.snap = snap = closing.snapshot
        self.line = line
        self.started = time.time_ns()
        snapshot.remember_package(snap)
        self.model = loading.load(request.root, manifest, cached=True)
        known = {
            path: snapshot.stamp_and_digest(rec)
            for path, rec in snap["files"].items()
            if rec is not None and rec[Stamp.WIDTH]
        }
        self.inputs = Inputs.of(self.model, known)[0]

    def run(self, moved: list[str]) -> Summary | None:
        from hotplex.build.decide import input_reason
        from hotplex.manifest.jobs import plan

        if self.inputs.packages is not None:
            return None  # a lock change moves no stamp of the project: every job is decided
        files = self.snap["files"]
        changed = {}
        for path in moved:
            old = files[path][Stamp.WIDTH] if files[path] is not None else None
            new = self.inputs.digest(path)
            if new != old:
                changed[path] = input_reason(path, old, new)
        planned = plan(self.model)
        if len(planned) != len(self.line) or self.model.uncached is not None:
            return None
        dirty: dict[int, list[str]] = {}
        reads: dict[int, list[str]] = {}
        for paths, indices in self.line.readers:
            reasons = [changed[p] for p in paths if p in changed]
            for index in indices if reasons else ():
                dirty[index], reads[index] = reasons, paths
        try:
            decided = [self._decided(planned[i], i, dirty[i]) for i in sorted(dirty)]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # a report of unexpected shape, or of another job
        return self._execute(planned, decided, reads, moved)

    def _decided(self, job: Any, index: int, reasons: list[str]) -> tuple[Any, ...]:
        from hotplex.build.decide import Keys
        from hotplex.build.log import report_records

        report = self.line.report(index)
        if report["job"] != job.id:
            raise ValueError(f"report {index} is not {job.id}'s")
        if not hasattr(self, "keys"):
            self.keys = Keys(self.model)
        (record,) = report_records([report])
        return index, (job, self.keys.of(job), record, reasons)

    def _execute(
        self,
        planned: list[Any],
        decided: list[tuple[int, tuple[Any, ...]]],
        reads: dict[int, list[str]],
        moved: list[str],
    ) -> Summary:
        import functools

        from hotplex.build.execute import Write, refuse_foreign_places
        from hotplex.build.outputs import Outputs
        from hotplex.build.pool import Pool
        from hotplex.errors import HotplexError
        from hotplex.records import Interrupted, JobReport

        jobs = [d[0] for _, d in decided]
        refuse_foreign_places(self.model, jobs, {d[0].id: d[2] for _, d in decided if d[2]})
        outputs = Outputs(self.request.root, self.model.manifest_display)
        work = functools.partial(Write(outputs).execute, self.model, self.inputs)
        # The snapshot is this manifest's (``build``), so the log is: it is appended to, never
        # rewritten from this empty state.
        owner = _rel(self.manifest, self.request.root)
        state = state_log.State()
        state.manifest = owner
        log = state_log.Log(self.request.root, state, owner)
        pool = Pool(work, self.request.processes)
        rebuilt: dict[int, JobReport] = {}
        records: dict[int, JobRecord] = {}
        settle = False
        try:
            for (index, (_job, _keys, old, _reasons)), done in zip(
                decided, pool.map([d for _, d in decided]), strict=True
            ):
                if isinstance(done, HotplexError):
                    raise done
                record, result, stamps = done
                for path, digest in record.inputs.items():
                    self.inputs.digests.setdefault(path, digest)
                    self.inputs.stamps.setdefault(path, stamps[path])
                report = JobReport.of(record, result.status)
                report.reasons, report.written = result.reasons, result.written
                rebuilt[index], records[index] = report, record  # reported, then logged
                log.append(record)
                settle = settle or _moved_shape(old, record, reads[index], self.snap["files"])
            if settle:
                log.close(None)
                return self._settled(rebuilt)
            self._close(log, planned, records, self._snapshot(planned, records, moved))
        except BaseException as exc:
            with contextlib.suppress(HotplexError):
                log.close(None)
            if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, Interrupted):
                raise self._interrupted(planned, decided, rebuilt) from None
            raise
        finally:
            pool.close()
        return self._summary(planned, rebuilt)

    def _close(
        self,
        log: state_log.Log,
        planned: list[Any],
        records: dict[int, JobRecord],
        snap: dict[str, Any],
    ) -> None:
        """Close with a delta closing, a full one, or the log compacted (``COMPACT_AT``)."""
        from hotplex.build.record_json import record_to_json

        placed = {index: log.state.at[record.job] for index, record in records.items()}
        places = [placed.get(i, place) for i, place in enumerate(self.line.records)]
        old = self.line.records
        snap["live"] = self.snap["live"] + sum(p[1] - old[i][1] for i, p in placed.items())
        closing = self.closing
        full = closing.full_size
        assert full is not None  # the reports line was read (``build``)
        if log.end > COMPACT_AT * (snap["live"] + full) + state_log.COMPACT_SLACK:
            lines = self._latest_lines(planned, places)
            if lines is not None:
                snap["live"] = sum(len(line) for line in lines)

                def closing_at(at: list[tuple[int, int]]) -> bytes:
                    line = self.line.replaced(records, at)
                    return closings.full_closing(line, snap, snap["live"])

                log.close_compacted(lines, closing_at)
                return
        delta = closing.delta or {}
        spent = delta.get("written", 0) + closing.delta_size
        reports = {**delta.get("reports", {})}
        reports.update((str(i), record_to_json(r, report_only=True)) for i, r in records.items())
        moved = {**delta.get("records", {}), **{str(i): list(p) for i, p in placed.items()}}
        base = (closing.reports_start, closing.reports_end, closing.snapshot_end)
        extra = {"reports": reports, "records": moved, "written": spent}
        line = closings.delta_closing(base, closings.changes(closing.base, snap), extra)
        if spent + len(line) > full:  # the deltas since the full closing cost as much as one
            line = closings.full_closing(self.line.replaced(records, places), snap, snap["live"])
        log.close(line)

    def _latest_lines(
        self, planned: list[Any], places: list[tuple[int, int]]
    ) -> list[bytes] | None:
        """Each planned job's latest record line, from where the index says it is (None: one
        is not there, as only a hand edit of the log can leave it)."""
        from hotplex.json_writer import json_text

        try:
            with open(self.closing.path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        lines = []
        for job, (start, size) in zip(planned, places, strict=True):
            line = data[start : start + size]
            named = b'"job":' + json_text(job.id).encode() + b","
            if data[start - 1 : start] != b"\n" or not line.endswith(b"\n") or named not in line:
                return None
            lines.append(line)
        return lines

    def _settled(self, rebuilt: dict[int, JobReport]) -> Summary:
        """The slow path, after the jobs it will find current were rebuilt here."""
        from hotplex.build.engine import slow

        outcome = slow(self.request, self.manifest)
        jobs = [rebuilt.get(i, job) for i, job in enumerate(outcome.jobs)]
        return Summary.of(jobs, outcome.orphans, outcome.warnings)

    def _interrupted(
        self, planned: list[Any], decided: list[tuple[int, Any]], rebuilt: dict[int, JobReport]
    ) -> Exception:
        """Ctrl-C: the sets reached by then, as the slow path counts them (in plan order, up to
        the first dirty set not finished)."""
        from hotplex.records import Interrupted

        left = [index for index, _ in decided if index not in rebuilt]
        reached = left[0] if left else len(planned)
        jobs = [rebuilt.get(i) or self._current(i) for i in range(reached)]
        return Interrupted(jobs, len(planned))

    def _current(self, index: int) -> JobReport:
        from hotplex.build.log import report_records
        from hotplex.records import JobReport

        (record,) = report_records([self.line.report(index)])
        return JobReport.of(record, "current")

    def _summary(self, planned: list[Any], rebuilt: dict[int, JobReport]) -> Summary:
        told = {job for _, job, _lines in self.snap["told"]}
        jobs = []
        for index, job in enumerate(planned):
            if index in rebuilt:
                jobs.append(rebuilt[index])
            elif job.id in told:
                jobs.append(self._current(index))
        current = len(planned) - len(rebuilt)
        return Summary(jobs, current, [], list(self.snap.get("warnings", ())))

    def _snapshot(
        self, planned: list[Any], records: dict[int, JobRecord], moved: list[str]
    ) -> dict[str, Any]:
        """The last snapshot with the moved inputs, the rebuilt jobs' outputs and reports, and
        the folders they wrote in, stamped again."""
        root = self.request.root
        snap = {**self.snap, "files": dict(self.snap["files"]), "dirs": dict(self.snap["dirs"])}
        sources = snap["sources"] = dict(snap.get("sources", {}))
        for path in moved:
            now = self.inputs.stamps.get(path)
            snap["files"][path] = snapshot.trusted(now, self.inputs.digest(path), self.started)
            if path in sources:  # a compiled source, for the raw-copy report
                sources[path] = snapshot.trusted(now, None, self.started)
        outputs = {target: dict(paths) for target, paths in snap["outputs"].items()}
        folders = set()
        for record in records.values():
            for path, stamped in record.outputs.items():
                outputs[record.target][path] = stamped.to_list()[: Stamp.WIDTH]
                folders.add(posixpath.dirname(path) or ".")
        for folder in folders.intersection(snap["dirs"]):
            snap["dirs"][folder] = snapshot.folder_stamp(root / folder)
        for folder in folders.intersection(sources):  # a placed file in a sources folder
            sources[folder] = snapshot.trusted(stamp(root / folder), None, self.started)
        told = {job: lines for _, job, lines in snap["told"]}
        for record in records.values():
            told.pop(record.job, None)
            if record.truncations or record.warnings:
                told[record.job] = snapshot.told(record)
        snap["told"] = [[j.target.name, j.id, told[j.id]] for j in planned if j.id in told]
        snap["outputs"] = outputs
        return snap


def _moved_shape(old: JobRecord, new: JobRecord, reads: list[str], files: dict[str, Any]) -> bool:
    """Whether a rebuilt job read other inputs, wrote other files, or wrote an input."""
    return (
        sorted(new.inputs) != reads
        or set(new.outputs) != set(old.outputs)
        or any(path in files for path in new.outputs)
    )
