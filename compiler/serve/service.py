"""What the server does, without HTTP: one ``Project`` per process, the last good artifact of
each job (served, marked stale, while the project on disk does not build), and one watcher of the
project folder that wakes every request waiting for an artifact to change.

Compiles run in a worker thread (the ``Project`` serialises them), so a long compile never stops
the event loop from answering ``/healthz`` or waking waiters. Errors leave as ``Refused``: what
went wrong (a ``HotplexError``) and whose fault it is; ``routes.py`` turns that into a status.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
import time
from collections.abc import Mapping
from pathlib import Path

import anyio.to_thread
import attrs
from hotplex.api import Artifact, Project
from hotplex.errors import EXIT_FAILED, HotplexError
from hotplex.fs import RACY_NS, STATE_DIR, settled, sha256, stamp
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.records import CheckReport
from hotplex.serve import metrics

TYPE_CHECKING = False
if TYPE_CHECKING:  # the learning modules load on the first learn call, not at start-up
    from hotplex.learning.report import LearnReport
    from hotplex.learning.request import LearnRequest

log = logging.getLogger("hotplex.serve")

# A broken file modified this recently is tried again this many times (RACY_NS apart) first.
SETTLE_TRIES = 5
# watchfiles: a burst of changes (an editor's save) is reported once this many ms after the last.
QUIET_MS = 50


class Fault(enum.Enum):
    UNKNOWN = "unknown"  # no such target or platform
    BROKEN = "broken"  # the project's own files do not build
    REQUEST = "request"  # the request's own input: a bad overlay key or value
    FINDING = "finding"  # the request's text holds a finding: a secret, hidden text, injection


class Refused(Exception):
    def __init__(self, fault: Fault, error: HotplexError) -> None:
        super().__init__(error.render())
        self.fault = fault
        self.error = error


@attrs.frozen
class Served:
    artifact: Artifact
    digest: str  # the set's sha256 (``set_digest``): the ETag
    stale: HotplexError | None = None  # why the last good artifact is served instead
    warnings: tuple[str, ...] = ()  # the project's, as `hotplex build` prints them


def set_digest(files: Mapping[str, bytes]) -> str:
    """One sha256 for a set of files: that of the ``sha256sum`` listing of its files sorted by
    path (``sha256sum dist/cc/slack/* | sha256sum`` from the project folder gives the same)."""
    listing = "".join(f"{sha256(data)}  {path}\n" for path, data in sorted(files.items()))
    return sha256(listing.encode("utf-8"))


class Service:
    def __init__(self, root: Path, manifest: Path | None) -> None:
        self.project = Project(root, manifest)
        self.root = root
        self.manifest = manifest or root / MANIFEST_NAME
        self._good: dict[tuple[str, str | None], Served] = {}
        self._changed = asyncio.Event()
        self._stopping = False
        # ``Project.warnings``: asked again after a change (the watcher's, or a new artifact).
        self._warnings: tuple[str, ...] | None = None
        self.out = "dist"  # the artifacts' folder, as the last manifest that loaded says

    async def jobs(self) -> list[tuple[str, str, str | None]]:
        """(target, worker, platform) of every job; ``Refused`` while the manifest is broken."""
        jobs = await self._run(self.project.jobs, Fault.BROKEN)
        return [(job.target.name, job.target.worker, job.platform) for job in jobs]

    async def artifact(self, target: str, platform: str | None) -> Served:
        """The artifact as the files are now; the last good one, marked stale, while they do
        not build."""
        try:
            served = await self._current(target, platform)
        except Refused as refused:
            metrics.COMPILES.labels("artifact", "error").inc()
            good = self._good.get((target, platform))
            if refused.fault is not Fault.BROKEN or good is None:
                raise
            return attrs.evolve(good, stale=refused.error)
        metrics.COMPILES.labels("artifact", "ok").inc()
        return served

    async def _current(self, target: str, platform: str | None) -> Served:
        """The base artifact as the files are now, kept as the last good one (whichever route
        compiled it: every process that answered for a job has one to serve stale)."""
        artifact = await self._run(functools.partial(self._base, target, platform), Fault.BROKEN)
        good = self._good.get((target, platform))
        if good is None or good.artifact is not artifact:
            self._warnings = None
        warnings = await self._project_warnings()
        if good is not None and good.artifact is artifact and good.warnings == warnings:
            return good
        served = Served(artifact, set_digest(artifact.files), warnings=warnings)
        if good is not None and good.digest != served.digest:
            metrics.RELOADS.inc()
        self._good[(target, platform)] = served
        return served

    async def _project_warnings(self) -> tuple[str, ...]:
        """What ``hotplex build`` warns of the project (files no artifact reads, days that are
        no day), found again only after a change: it compiles every job."""
        if self._warnings is None:
            self._warnings = await self._run(self.project.warnings, Fault.BROKEN)
        return self._warnings

    async def compile(
        self,
        target: str,
        platform: str | None,
        overlay: Mapping[str, str],
        on_finding: str | None,
    ) -> Served:
        """A per-user compile. The base artifact is compiled first, so that an error in the
        project's own files is told apart from one in the request's; and again when the
        overlay's compile fails, as the project may have been saved broken in between (its
        error is then no fault of the request: 503, not 400 or 422)."""
        await self._current(target, platform)
        compile_ = functools.partial(
            self.project.compile, target, platform, overlay, on_finding=on_finding
        )
        try:
            artifact = await self._run(compile_, Fault.REQUEST)
        except Refused:
            metrics.COMPILES.labels("overlay", "error").inc()
            await self._current(target, platform)
            raise
        metrics.COMPILES.labels("overlay", "ok").inc()
        warnings = await self._project_warnings()
        return Served(artifact, set_digest(artifact.files), warnings=warnings)

    async def check(
        self,
        files: Mapping[str, str],
        target: str | None,
        platform: str | None,
        on_finding: str | None,
    ) -> CheckReport:
        """Every finding in ``files`` and what the budgets would cut (``Project.check``), once
        the project's own files are known to build (else their error is not the request's);
        known again when the check fails, as for ``compile``."""

        async def builds() -> None:
            if target is not None:
                await self._run(functools.partial(self._base_of, target, platform), Fault.BROKEN)
            else:
                await self.ready()

        await builds()
        check = functools.partial(
            self.project.check, files, target, platform, on_finding=on_finding
        )
        try:
            return await self._run(check, Fault.REQUEST)
        except Refused:
            await builds()
            raise

    async def learn(
        self, facts: object, date: str, text: str, file: str, source: str | None
    ) -> LearnReport:
        """``Project.learn`` on the request's text: stateless, nothing written. The manifest
        must load first (its budget and the guard's allowances are the project's)."""
        await self.jobs()
        learn = functools.partial(
            self.project.learn, facts, date=date, text=text, file=file, source=source
        )
        return await self._run(learn, Fault.REQUEST)

    async def learn_request(
        self, transcript: str, target: str, platform: str | None, text: str | None, file: str
    ) -> LearnRequest:
        """``Project.learn_request``; an unknown target or platform is a 404, as a compile's."""
        await self._known(target, platform)
        request = functools.partial(
            self.project.learn_request, transcript, target, platform, text=text, file=file
        )
        return await self._run(request, Fault.REQUEST)

    async def compact_days(self, days: object, answer: str | None):
        """``Project.compact_days``: stateless, nothing written; the manifest loads first."""
        await self.jobs()
        compact = functools.partial(self.project.compact_days, days, answer)
        return await self._run(compact, Fault.REQUEST)

    async def compaction_request(self, days: object, target: str, platform: str | None):
        """``Project.compaction_request`` for the request's days; an unknown target is a 404."""
        await self._known(target, platform)
        request = functools.partial(self.project.compaction_request, target, platform, days=days)
        return await self._run(request, Fault.REQUEST)

    async def _known(self, target: str, platform: str | None) -> None:
        """Nothing, when the project builds ``target`` at ``platform``; else a 404's refusal."""
        jobs = await self.jobs()
        if not any(t == target and p == platform for t, _w, p in jobs):
            from hotplex.manifest.jobs import find

            try:
                find(self.project.model, self.project.jobs(), target, platform)
            except HotplexError as exc:
                raise Refused(Fault.UNKNOWN, exc) from None

    async def ready(self) -> int:
        """How many jobs build now, each kept as its last good artifact; ``Refused`` with the
        first error while one does not."""
        jobs = await self.jobs()
        for target, _worker, platform in jobs:
            await self._current(target, platform)
        return len(jobs)

    async def changed(
        self, target: str, platform: str | None, etag: str, seconds: float
    ) -> Served | None:
        """The artifact once its digest is not ``etag``; when ``seconds`` pass (or the server
        stops) first, the artifact as it was last seen (its digest ``etag``: stale or not), or
        None when none was. Woken by the watcher, never by polling the disk."""
        served = None
        with anyio.move_on_after(seconds):
            while not self._stopping:
                woken = self._changed  # taken before the compile: a change during it wakes us
                served = await self.artifact(target, platform)
                if served.digest != etag:
                    return served
                await woken.wait()
        return served

    def stop_waiting(self) -> None:
        """Shutting down: every waiting request answers now (as on its timeout)."""
        self._stopping = True
        self._wake()

    def _wake(self) -> None:
        self._warnings = None
        self._changed.set()
        self._changed = asyncio.Event()

    async def watch(self) -> None:
        """Wake the waiters after every burst of changes in the project folder (not in the
        build state or the artifacts' folder), and in the manifest's when ``-f`` names one
        outside it; runs until cancelled."""
        import watchfiles

        ignore = _Ignore(self)
        folders = {self.root.resolve(), self.manifest.resolve().parent}
        try:
            async for _batch in watchfiles.awatch(
                *sorted(folders), watch_filter=ignore, step=QUIET_MS, debounce=1600
            ):
                self._wake()
        except (OSError, RuntimeError) as exc:  # inotify limits, a folder removed
            log.warning(
                "hotplex serve: no longer watching %s (%s); ?wait= answers only on its timeout",
                self.root,
                exc,
            )

    def _base_of(self, target: str, platform: str | None) -> None:
        """The base artifact ``Project.check`` measures against: of ``platform``, or with none
        the target's base artifact, else its first platform (as ``check`` picks)."""
        if platform is None:
            jobs = [j for j in self.project.jobs() if j.target.name == target]
            if jobs and all(j.platform is not None for j in jobs):
                platform = jobs[0].platform
        self._base(target, platform)

    def _base(self, target: str, platform: str | None) -> Artifact:
        """The base artifact; an unknown target or platform is the request's fault, but only
        once the manifest is known to load (a broken one names no target at all)."""
        jobs = self.project.jobs()
        self.out = self.project.model.out_dir
        if not any(j.target.name == target and j.platform == platform for j in jobs):
            from hotplex.manifest.jobs import find

            try:
                find(self.project.model, jobs, target, platform)
            except HotplexError as exc:
                raise Refused(Fault.UNKNOWN, exc) from None
        return self.project.compile(target, platform)

    async def _run(self, call, fault: Fault):
        """``call`` in a worker thread; a ``HotplexError`` leaves as ``Refused(fault)``, or as
        a finding when it is one (``BuildFailed``) and the fault is the request's. The
        project's own error in a file written a moment ago (an editor still writing it in
        place: cut in a UTF-8 character, a frontmatter not closed yet) is tried again once the
        file has settled, a few times at most, before it counts as a broken project; in a
        per-user compile too, whose error would otherwise be taken for the request's (400)."""
        tries = 1
        while True:
            try:
                return await anyio.to_thread.run_sync(call)
            except Refused:
                raise
            except HotplexError as exc:
                if tries < SETTLE_TRIES and self._settling(exc):
                    tries += 1
                    await anyio.sleep(RACY_NS / 1e9)
                    continue
                if fault is Fault.REQUEST and exc.exit_status == EXIT_FAILED:
                    raise Refused(Fault.FINDING, exc) from None
                raise Refused(fault, exc) from None

    def _settling(self, error: HotplexError) -> bool:
        """Whether a file an error names was modified too recently to be taken as saved."""
        now = time.time_ns()
        for problem in error.problems:
            if problem.span is not None:
                found = stamp(self.root / problem.span.file)
                if found is not None and not settled(found, now):
                    return True
        return False


class _Ignore:
    """Changes that cannot change an artifact: watchfiles' defaults (VCS folders, editor swap
    files), the build state and the artifacts' folder (``hotplex build`` beside the server),
    and, outside the project, anything but the manifest."""

    def __init__(self, service: Service) -> None:
        from watchfiles import DefaultFilter

        self.default = DefaultFilter()
        self.root = service.root.resolve()
        self.manifest = service.manifest.resolve()
        self.service = service

    def __call__(self, change, path: str) -> bool:
        if not self.default(change, path):
            return False
        found = Path(path).resolve()
        try:
            rel = found.relative_to(self.root).as_posix()
        except ValueError:
            return found == self.manifest
        return not any(
            rel == folder or rel.startswith(f"{folder}/")
            for folder in (STATE_DIR, self.service.out)
        )
