"""The service's learning and compaction calls: stateless (nothing is written), each on the
request's text, once the project's manifest loads (a mixin of ``service.Service``, whose
``project``, ``jobs`` and ``_run`` they use)."""

from __future__ import annotations

import functools

from hotplex.errors import HotplexError
from hotplex.serve.answers import Fault, Refused

TYPE_CHECKING = False
if TYPE_CHECKING:  # the learning modules load on the first learn call, not at start-up
    from hotplex.learning.report import LearnReport
    from hotplex.learning.request import LearnRequest


class LearningCalls:
    """``/v1/learn``, ``/v1/learn/request``, ``/v1/compact`` and its request."""

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
