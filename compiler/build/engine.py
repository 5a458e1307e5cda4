"""The slow path: load the manifest, decide each job against its log record, compile the dirty
ones (in parallel with ``-j``), execute, record, delete orphans, and close with a snapshot."""

from __future__ import annotations

import contextlib
import functools
import posixpath
import time
from itertools import islice
from typing import TYPE_CHECKING

from hotplex.build import decide, orphans, snapshot
from hotplex.build import log as state_log
from hotplex.build import reports as reports_line
from hotplex.build.closing import full_closing
from hotplex.build.execute import Check, Strategy, Write, refuse_foreign_places
from hotplex.build.outputs import Outputs
from hotplex.build.pool import Pool
from hotplex.errors import HotplexError
from hotplex.fs import Stamp, stamp
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job, plan, select
from hotplex.records import Interrupted, JobRecord, JobReport, Outcome

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from hotplex.build.execute import Done
    from hotplex.build.request import Request
    from hotplex.manifest.model import Model

# Jobs compiled before their files are written and recorded: bounds memory, not correctness.
BATCH = 256


class Builder:
    def __init__(self, request: Request, manifest_path: Path, state: state_log.State) -> None:
        from hotplex.manifest import load as loading
        from hotplex.sources.inputs import Inputs

        self.request = request
        self.state = state
        self.started = time.time_ns()  # every stamp this build records was taken after this
        self.manifest_stamp = stamp(manifest_path)
        snapshot.remember_package(state.snapshot)
        self.model = loading.load(request.root, manifest_path, cached=True)
        known = {
            path: (Stamp(rec.mtime_ns, rec.size, rec.ino, rec.ctime_ns), rec.digest)
            for path, rec in state.files.items()
            if rec.digest
        }
        local = snapshot.local_known(state.snapshot)
        self.inputs, stale = Inputs.of(self.model, known, request.frozen, local)
        self.outputs = Outputs(request.root, self.model.manifest_display)
        self.keys = decide.Keys(self.model)
        self.strategy: Strategy = (Check if request.check else Write)(self.outputs, request.diff)
        self.warnings = [state.warning] if state.warning else []
        self.warnings += stale
        self.stale = stale  # what the lock says, repeated by a no-op build while it holds
        self.read: dict[str, dict[str, str | None]] = {}  # job id -> the inputs it consulted
        out = self.model.out_dir
        earlier = orphans.earlier_outs(state.jobs, out, self.model.sources_dir)
        declared = _declared_outputs(self.model)
        selected = frozenset(request.targets) or None
        job_names = frozenset(("default", *self.model.manifest.variants.platforms))
        self.scope = orphans.Scope(
            request.root, out, selected, earlier, declared, _primaries(), job_names
        )

    def run(self, log: state_log.Log | None) -> Outcome:
        """Build (or check); Ctrl-C raises Interrupted with the sets finished by then."""
        planned = plan(self.model)
        jobs = select(self.model, planned, self.request.targets)
        reports: list[JobReport] = []
        try:
            return self._run(planned, jobs, reports, log)
        except KeyboardInterrupt:
            raise Interrupted(reports, len(jobs)) from None

    def _run(
        self,
        planned: list[Job],
        jobs: list[Job],
        reports: list[JobReport],
        log: state_log.Log | None,
    ) -> Outcome:
        before = dict(self.state.jobs)  # records are replaced, never mutated, by the log
        refuse_foreign_places(self.model, jobs, before)
        work = functools.partial(self.strategy.execute, self.model, self.inputs)
        pool = Pool(work, self.request.processes)
        try:
            for batch in _batches(jobs, BATCH):
                self._run_batch(batch, pool, log, reports, len(jobs))
        finally:
            pool.close()
        from hotplex.sources import build_warnings

        read = {**{job: r.inputs for job, r in before.items()}, **self.read}
        produced = {posixpath.normpath(f.path) for r in reports for f in r.files}
        own = produced | {posixpath.normpath(p) for r in before.values() for p in r.outputs}
        unread, folders = build_warnings.after_build(self.model, planned, read, own)
        self.warnings += unread
        names = orphans.artifact_names(produced, before)
        # Never delete what an artifact reads (an earlier `out` inside the sources folder).
        kept = produced | {path for inputs in read.values() for path in inputs}
        found = orphans.find(self.scope, kept, before, names)
        places = {p for job in planned if (p := job.worker.placed(job.target)) is not None}
        placed, left = orphans.placed(self.scope, kept, before, places)
        found += placed
        manifest_name = self.model.manifest_path.name
        left.update(orphans.unlogged_placed(self.scope, kept, before, manifest_name))
        self.warnings += left.values()
        if log is not None:
            orphans.delete(self.scope, found, {j.id for j in planned}, log)
            closing = self._closing(planned, kept, names, {j.id for j in jobs})
            written = None
            if closing is not None:  # a no-op build repeats what is still true, till it moves
                taken, records = closing
                told = [*self.stale, *unread, *left.values()]
                watched = (*folders, *left)
                taken.update(snapshot.unread(self.model.root, watched, told, self.started))
                line = reports_line.encode(records, [self.state.at[r.job] for r in records])
                written = full_closing(line, taken, self.state.live)
            log.close(written)
            if self.model.uncached is not None:
                from hotplex.manifest import cache as manifest_cache

                manifest_cache.save(self.model, self.model.uncached)
        return Outcome(reports, found, self.warnings, fast=False)

    def _run_batch(
        self,
        jobs: list[Job],
        pool: Pool,
        log: state_log.Log | None,
        reports: list[JobReport],
        total: int,
    ) -> None:
        decided = [(job, self.keys.of(job), self.state.jobs.get(job.id)) for job in jobs]
        decided = [(*d, self._reasons(*d)) for d in decided]
        done = pool.map([d for d in decided if d[3]])
        for _job, _keys, record, reasons in decided:
            if not reasons:
                if log is not None:
                    self._restat(record, log)
                self.read[record.job] = record.inputs
                reports.append(JobReport.of(record, "current"))
            else:
                self._record(next(done), log, reports)
            if self.request.on_progress is not None:
                self.request.on_progress(len(reports), total)

    def _reasons(self, job: Job, keys: dict[str, str], record: JobRecord | None) -> list[str]:
        from hotplex.sources.resolve import variables

        current = variables(self.model, job)
        pinned = self.inputs.packages
        origin = pinned.origin if pinned is not None else None
        return decide.reasons(
            record, keys, current, self.inputs.digest, self.outputs.digest, origin
        )

    def _record(
        self,
        done: Done | HotplexError,
        log: state_log.Log | None,
        reports: list[JobReport],
    ) -> None:
        """Report a job done, then append its record: its files are written, so a Ctrl-C
        while it is logged still counts it."""
        if isinstance(done, HotplexError):
            raise done
        record, result, stamps = done
        self.read[record.job] = record.inputs
        for path, digest in record.inputs.items():  # what a pool process read, for the snapshot
            self.inputs.digests.setdefault(path, digest)
            self.inputs.stamps.setdefault(path, stamps[path])
        report = JobReport.of(record, result.status)
        report.reasons, report.written, report.diff = result.reasons, result.written, result.diff
        report.changes = result.changes
        reports.append(report)
        if log is not None:
            log.append(record)

    def _restat(self, record: JobRecord, log: state_log.Log) -> None:
        """Record new stamps of outputs whose bytes are verified unchanged (a `touch`, a
        checkout), as ninja's restat does: otherwise the fast path would miss forever."""
        outputs = {
            p: self.outputs.stamped(p, rec.digest or "", rec.size)
            for p, rec in record.outputs.items()
        }
        if outputs != record.outputs:
            log.append(attrs.evolve(record, outputs=outputs))

    def _still_current(self, job: Job, record: JobRecord) -> bool:
        """A job this build did not select: are its record's keys and inputs still true?"""
        from hotplex.sources.resolve import variables

        now = variables(self.model, job)
        return decide.still_current(record, self.keys.of(job), now, self.inputs.digest)

    def _closing(
        self, planned: list[Job], kept: set[str], names: set[str], decided: set[str]
    ) -> tuple[dict, list[JobRecord]] | None:
        """The snapshot and the records it covers, or None when some
        planned job is not current (a `build TARGET` left others stale, or left orphans
        elsewhere)."""
        if self.manifest_stamp is None:
            return None
        records = []
        for job in planned:
            record = self.state.jobs.get(job.id)
            if record is None:
                return None
            if job.id not in decided and not self._still_current(job, record):
                return None
            records.append(record)
        if self.scope.targets is not None:
            everything = kept | {posixpath.normpath(p) for r in records for p in r.outputs}
            whole = self.scope.replace(targets=None)
            if orphans.find(whole, everything, self.state.jobs, names):
                return None
        taken = snapshot.take(self.model, self.manifest_stamp, records, self.inputs, self.started)
        return taken, records


def _declared_outputs(model: Model) -> dict[str, tuple[str, ...]]:
    """Each target's declared outputs (``Worker.outputs``): in its job folders, a file matching
    one that no planned job produces is an orphan, build log or none."""
    return {
        t.name: tuple(o.name for o in model.worker_of(t).outputs) for t in model.manifest.target
    }


def _primaries() -> dict[str, tuple[str, ...]]:
    """Each registered worker's primary output -> the outputs of the workers sharing it."""
    from hotplex import fingerprint

    return {k: tuple(v) for k, v in fingerprint.registered()["primaries"].items()}


def _batches(jobs: list[Job], size: int):
    it = iter(jobs)
    while batch := list(islice(it, size)):
        yield batch


def slow(request: Request, manifest: Path) -> Outcome:
    """The slow path: every job decided against its record; the caller holds the lock when it
    builds."""
    with _no_cyclic_gc():
        state = state_log.load(request.root)
        owner = state_log.owner(state, request.root, manifest)
        state_log.refuse_other_manifest(state, owner)
        builder = Builder(request, manifest, state)
        if request.check:
            return builder.run(None)
        log = state_log.Log(request.root, builder.state, owner)
        try:
            return builder.run(log)
        except BaseException:
            with contextlib.suppress(HotplexError):
                log.close(None)
            raise


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause Python's cycle collector for the slow path: the log's records are a large heap of
    long-lived, acyclic objects that each full collection would traverse again (a third of a
    10,000-artifact build). Reference counting still frees everything; collection resumes after.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
