"""What the server does, without HTTP: one ``Project`` per process, the last good artifact of
each job (served, marked stale, while the project on disk does not build), per-user compiles and
checks. Its calls run in a worker thread (``threaded.py``), its watcher wakes the requests
waiting for an artifact to change (``watching.py``), and its learning calls are
``learning_calls.py``; what a call answers, or why it was refused, is ``answers.py``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import anyio
from hotplex.api import Artifact, Project
from hotplex.errors import HotplexError
from hotplex.fs import RACY_NS
from hotplex.generated import attrs
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.records import CheckReport
from hotplex.serve import metrics
from hotplex.serve.answers import Abandoned, Fault, Refused, Served
from hotplex.serve.learning_calls import LearningCalls
from hotplex.serve.threaded import SETTLE_TRIES, ThreadedCalls, first, refusal
from hotplex.serve.watching import Watching

TYPE_CHECKING = False
if TYPE_CHECKING:  # the learning modules load on the first learn call, not at start-up
    pass

log = logging.getLogger("hotplex.serve")


class Service(ThreadedCalls, LearningCalls, Watching):
    """The server's one project: its jobs, each job's last good artifact, per-user compiles
    and checks (the learning calls are ``LearningCalls``, the waiting on changes ``Watching``)."""

    def __init__(self, root: Path, manifest: Path | None) -> None:
        self.project = Project(root, manifest)
        self.root = root
        self.manifest = manifest or root / MANIFEST_NAME
        self._good: dict[tuple[str, str | None], Served] = {}
        self._changed = asyncio.Event()
        self._turn = asyncio.Lock()  # per-user compiles', in the order they came
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
        return await self._served(target, platform, artifact)

    async def _served(self, target: str, platform: str | None, artifact: Artifact) -> Served:
        """``artifact``, the job's base artifact as just compiled, kept as its last good one."""
        good = self._good.get((target, platform))
        if good is None or good.artifact is not artifact:
            self._warnings = None
        warnings = await self._project_warnings()
        if good is not None and good.artifact is artifact and good.warnings == warnings:
            return good
        served = Served.of(artifact, warnings)
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
        gone: Callable[[], Awaitable[None]] | None = None,
    ) -> Served:
        """A per-user compile, and the base artifact of the same files beside it (``_overlaid``:
        one worker-thread call), kept as the last good one. Per-user compiles take turns here,
        so that one whose caller left (``gone``: its client hung up) before its turn is never
        started, and one whose caller left while it ran is not answered (``Abandoned``). When
        the overlay fails, the base artifact is compiled after it, so that an error in the
        project's own files is told apart from one in the request's (503, not 400 or 422); when
        the base artifact has changed since the last call (the project saved broken and fixed
        meanwhile), both are compiled again, a few times at most, before the overlay's error
        counts as the request's."""
        if self._turn.locked():
            metrics.QUEUED.inc()
            try:
                await self._turn_taken(gone)
            finally:
                metrics.QUEUED.dec()
        else:
            await self._turn.acquire()  # at once: a free asyncio lock does not yield
        try:
            return await self._compile(target, platform, overlay, on_finding, gone)
        finally:
            self._turn.release()

    async def _turn_taken(self, gone: Callable[[], Awaitable[None]] | None) -> None:
        """The per-user compiles' turn, once the ones before have had theirs; ``Abandoned`` when
        ``gone`` ends first (the turn is not taken)."""
        if gone is None:
            return await self._turn.acquire()
        waiting = asyncio.ensure_future(self._turn.acquire())
        try:
            if await first(waiting, gone):
                return None
        except BaseException:  # cancelled meanwhile (the server stops): the turn is not kept
            if waiting.done() and not waiting.cancelled():
                self._turn.release()
            raise
        finally:
            if not waiting.done():
                waiting.cancel()
        raise Abandoned()

    async def _compile(
        self,
        target: str,
        platform: str | None,
        overlay: Mapping[str, str],
        on_finding: str | None,
        gone: Callable[[], Awaitable[None]] | None,
    ) -> Served:
        tries = 1
        while True:
            before = self._good.get((target, platform))
            call = functools.partial(self._overlaid, target, platform, overlay, on_finding)
            try:
                base, compiled = await self._run(call, Fault.BROKEN, gone)
            except Abandoned:
                metrics.COMPILES.labels("overlay", "abandoned").inc()
                raise
            served = await self._served(target, platform, base)
            if isinstance(compiled, Artifact):
                break
            metrics.COMPILES.labels("overlay", "error").inc()
            if tries < SETTLE_TRIES and self._settling(compiled):
                tries += 1
                await anyio.sleep(RACY_NS / 1e9)
                continue
            if served is before or tries == SETTLE_TRIES:
                raise refusal(compiled, Fault.REQUEST)
            tries += 1
        metrics.labelled(metrics.COMPILES, "overlay", "ok").inc()
        warnings = await self._project_warnings()
        return Served.of(compiled, warnings, served)

    def _overlaid(
        self,
        target: str,
        platform: str | None,
        overlay: Mapping[str, str],
        on_finding: str | None,
    ) -> tuple[Artifact, Artifact | HotplexError]:
        """The overlay's artifact (or error) and the base artifact of the same files, holding
        the project: no other call moves it between the two. The base artifact is the kept one
        when the overlay compile read every file of it unmoved (``Project.base_as_read``, no
        stat of its own); else it is compiled (its error raised: the project's) and, after an
        overlay that compiled, the overlay again on the files it was compiled from."""
        project = self.project
        with project.lock:
            for _ in range(SETTLE_TRIES):
                try:
                    compiled = project.compile(target, platform, overlay, on_finding=on_finding)
                except HotplexError as error:
                    return self._base(target, platform), error
                base = project.base_as_read(target, platform)
                if base is not None:
                    return base, compiled
                self._base(target, platform)
            return self._base(target, platform), compiled

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

    async def ready(self) -> int:
        """How many jobs build now, each kept as its last good artifact; ``Refused`` with the
        first error while one does not."""
        jobs = await self.jobs()
        for target, _worker, platform in jobs:
            await self._current(target, platform)
        return len(jobs)

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
