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
from collections.abc import Mapping
from pathlib import Path

from hotplex.api import Artifact, Project
from hotplex.errors import HotplexError
from hotplex.generated import attrs
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.records import CheckReport
from hotplex.serve import metrics
from hotplex.serve.answers import Fault, Refused, Served, set_digest
from hotplex.serve.learning_calls import LearningCalls
from hotplex.serve.threaded import SETTLE_TRIES, ThreadedCalls
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
        error is then no fault of the request: 503, not 400 or 422). When the files changed
        during the overlay's compile but build now (broken and fixed meanwhile), the overlay is
        compiled again on them, a few times at most, before its error counts as the request's."""
        served = await self._current(target, platform)
        compile_ = functools.partial(
            self.project.compile, target, platform, overlay, on_finding=on_finding
        )
        tries = 1
        while True:
            try:
                artifact = await self._run(compile_, Fault.REQUEST)
                break
            except Refused:
                metrics.COMPILES.labels("overlay", "error").inc()
                now = await self._current(target, platform)  # the project's fault raises here
                if now is served or tries == SETTLE_TRIES:
                    raise
                tries += 1
                served = now
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
