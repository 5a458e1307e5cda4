"""``Project``'s daily-log calls (``api.py``): compact the logs of the project or of a
request, and the request a worker answers with a month's summary; the lock a compaction that
writes holds."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from hotplex.changes import FileLock, lock_wait_seconds
from hotplex.fs import STATE_DIR

# The lock `memory compact` holds while it writes: in the state folder (the build's is
# STATE_DIR/lock), so that no run adds a file to the sources folder.
MEMORY_LOCK = f"{STATE_DIR}/memory.lock"


class MemoryCalls:
    """``Project.compact_memory``, ``compaction_request`` and ``compact_days`` (a mixin of
    ``Project``, whose lock and model they use)."""

    def compact_memory(
        self,
        *,
        dry_run: bool = False,
        archive: bool = False,
        answer: str | bytes | None = None,
        month: str | None = None,
        label: str = "answer",
    ):
        """Fold the daily logs older than ``[memory] compact_after_days`` into one file per
        month with the built-in compactor (``hotplex memory compact``), and return the
        ``memory.local.Compaction`` it made; ``dry_run``: write nothing. ``archive``: move
        the covered days into ``archive/`` beside them, where no artifact reads them.
        ``answer``: a worker's summary of ``month`` (default: the oldest with days to
        compact), answering ``compaction_request``: guarded, then filed as that month's file
        (``label`` names it in errors). A run that writes holds ``MEMORY_LOCK`` throughout.

        .. versionadded:: issue 38
        """
        from hotplex.memory import local

        writing = contextlib.nullcontext() if dry_run else self._memory_lock()
        with self._lock, writing:
            if answer is None:
                done = local.plan(self.model, archive)
            else:
                done = local.plan_answer(self.model, answer, label, month)
            if not dry_run:
                local.apply(self.root, done)
            return done

    def _memory_lock(self) -> FileLock:
        """The lock a compaction holds from its first read of the days to its last write, so
        that two at once never file a month from days the other has moved (``MEMORY_LOCK``)."""
        return FileLock(self.root / MEMORY_LOCK, lock_wait_seconds(), "hotplex memory compact")

    def compaction_request(
        self,
        target: str,
        platform: str | None = None,
        month: str | None = None,
        *,
        days: Mapping[str, str] | None = None,
    ):
        """What ``target``'s worker needs to summarise ``month`` of the daily logs (default: the
        oldest with days to compact), in its own form (``memory.request``); give its answer to
        ``compact_memory(answer=...)``, which covers the days this request held as they were
        (recorded in the state folder: ``memory.local.record_request``). ``days`` (file name
        -> text, one month's): those days instead of the project's, as ``POST
        /v1/memory/compact/request`` sends them (nothing recorded). Refused for a worker with no
        headless program.

        .. versionadded:: issue 38
        """
        from hotplex.memory import local, stateless
        from hotplex.memory.request import compile_request

        with self._lock:
            job = self._job(target, platform)
            if days is not None:
                return stateless.request(self._model, job, days)
            with self._memory_lock():
                _found, chosen, texts, covers = local.month_days(self._model, month)
                made = compile_request(self._model, job, chosen, texts, covers)
                local.record_request(self.root, made)
            return made

    def compact_days(self, days: Mapping[str, str], answer: str | None = None):
        """``days`` (file name -> text) compacted by the built-in compactor, a file per month,
        or, with ``answer`` (a worker's summary of their one month), that answer guarded and
        filed; nothing is read but the manifest, nothing written (``memory.stateless``).

        .. versionadded:: issue 38
        """
        from hotplex.memory import stateless

        with self._lock:
            self._refresh()
            return stateless.compact(self._model, days, answer)
