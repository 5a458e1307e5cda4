"""What a gateway asks a ``Project`` (``api.py``) besides an artifact: the memory write guard
(``check``, through ``guard.py``), the warnings a build gives of the project, and learned facts
merged or asked for (``hotplex.learning``)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from hotplex.errors import HotplexError
from hotplex.fs import stamp
from hotplex.text import memo

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from hotplex.learning.report import LearnReport
    from hotplex.learning.request import LearnRequest
    from hotplex.records import CheckReport


class GatewayCalls:
    """``Project.check``, ``warnings``, ``learn`` and ``learn_request`` (a mixin of ``Project``,
    whose lock, model and compiles they use)."""

    def check(
        self,
        files: Mapping[str, str | bytes | os.PathLike[str]],
        target: str | None = None,
        platform: str | None = None,
        *,
        on_finding: str | None = None,
    ) -> CheckReport:
        """Every finding in ``files`` (overlay keys and values, as ``compile`` takes them)
        without compiling an artifact for the caller: the guard a gateway calls before it saves
        a user's file. Each file's body is scanned whole (secrets, hidden text, the injection
        rules, reserved tags the sanitizer would escape), whether or not an artifact reads all
        of it now (a day too old for the budget today is scanned too); each finding's
        ``action`` is what a compile would do with it under ``on_finding`` (default: the
        manifest's ``[overlay] on_finding``). The report's ``jobs`` say, for ``target`` at
        ``platform`` (None: the base artifact, or the target's first platform without one) or,
        with no target, for every target of the project, what the budgets would cut of the
        sections these files feed, their entries blocked as "block" would. A key no source
        reads is a ``HotplexError``, as in ``compile``.

        .. versionadded:: issue 25
        """
        with self._lock, memo.uncached():
            from hotplex import guard
            from hotplex.records import CheckReport
            from hotplex.sources import overlay as overlays
            from hotplex.sources.unused import overlay_slips

            self._refresh()
            policy = self._policy(on_finding)
            model, jobs = self._model, self._jobs
            prepared = overlays.prepare(
                model, files, None, self._read_cap, jobs, self._read_by_jobs
            )
            action = "blocked" if policy == "block" else "error"
            base = self._inputs
            if base is None or not self._base_current(base):
                base = self._fresh_inputs()
            found = guard.findings(model, jobs, prepared, action, base)
            labels = {file.label for file in prepared.values()}
            checked = []
            for job in guard.jobs_of(model, jobs, target, platform):
                artifact, _read = self._compile_overlay(job, job.platform, prepared, True)
                cuts, sizes = artifact.truncations, artifact.sizes
                checked.append(guard.checked_job(job, cuts, sizes, labels))
            return CheckReport(
                tuple(found),
                tuple(guard.checked_files(model, prepared)),
                tuple(checked),
                tuple(overlay_slips(model)),
            )

    def warnings(self) -> tuple[str, ...]:
        """What ``hotplex build`` warns of the project beyond each artifact's own warnings:
        files of the sources folder no artifact reads, names the ``[memory] logs`` glob
        matches that are no day or no regular file, raw copies a program reads by itself. It
        compiles every job (a cache hit while its files stay put) and walks the sources
        folder only when an artifact or a folder moved. Like ``hotplex build``, it says none
        of the unread files while a job was not compiled from settled files.
        """
        with self._lock:
            from hotplex.sources import build_warnings

            jobs = self.jobs()
            own: set[str] = set()
            for job in jobs:
                try:
                    own.update(self.compile(job.target.name, job.platform).files)
                except HotplexError:  # compiling it says why; what it would read is unknown
                    continue
            cached = tuple(self._artifacts.get(job.id) for job in jobs)
            memo = self._warned
            if (
                memo is not None
                and len(memo[0]) == len(cached)
                and all(a is b for a, b in zip(memo[0], cached, strict=True))
                and all(stamp(self.root / f) == s for f, s in memo[1].items())
            ):
                return memo[2]
            read = {
                job.id: {p: None if s is None else "" for p, s in found.stamps.items()}
                for job, found in zip(jobs, cached, strict=True)
                if found is not None
            }
            unread, folders = build_warnings.after_build(self._model, jobs, read, own)
            warnings = tuple(unread)
            if None not in cached:
                self._warned = (cached, {f: stamp(self.root / f) for f in folders}, warnings)
            return warnings

    def learn(
        self,
        facts: object,
        *,
        date: str,
        text: str | None = None,
        file: str = "USER.md",
        source: str | None = None,
    ) -> LearnReport:
        """``facts`` (a list of ``{"key", "value", "source"?}`` objects, or a mapping of key to
        value) merged on ``date`` (YYYY-MM-DD: hotplex never reads the clock) into the learned
        block of ``text``, or of ``file`` of the sources folder as it is on disk. Returns the
        report with the new text and the facts it retired; writes nothing
        (``hotplex.learning``).

        .. versionadded:: issue 37
        """
        with self._lock:
            from hotplex.learning import calls

            self._refresh()
            return calls.learn(self._model, facts, date, text, file, source)

    def learn_request(
        self,
        transcript: str,
        target: str,
        platform: str | None = None,
        *,
        text: str | None = None,
        file: str = "USER.md",
    ) -> LearnRequest:
        """What ``target``'s worker needs to extract facts from ``transcript``, in its own
        form (``hotplex.learning.request``): run it on the gateway's worker and give the
        answer to ``learn``. Refused for a worker with no headless program.

        .. versionadded:: issue 37
        """
        with self._lock:
            from hotplex.learning import request

            job = self._job(target, platform)
            return request.compile_request(self._model, job, transcript, text, file)
