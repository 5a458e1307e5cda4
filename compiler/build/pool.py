"""Running independent jobs in a pool of processes (``-j N``).

Jobs share nothing but what they read, so a build hands them to forked processes that inherit
the loaded model and every file already read (copy-on-write: nothing is read or imported twice),
once per build. Results come back in job order, and an error is a value like any result, so the
report, the log (appended by the parent alone) and the first error shown are the same whatever
``N`` is. A process that dies (killed, out of memory) fails the build; it never hangs.

Ctrl-C, the same: SIGINT reaches every process of the terminal's group, so the processes ignore
it and the parent only takes note while a pool is open. Between two results it stops: the work
not started is dropped, what the processes have started (and written) is finished and handed
back, then KeyboardInterrupt is raised, so that every set written is reported and logged. A
second Ctrl-C stops at once.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from hotplex.errors import BuildFailed, Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many jobs per process, starting the processes costs more than it saves: a job is
# about 1 ms here, and importing multiprocessing, forking and sending the records back some
# 40 ms (100 jobs of the fleet benchmark: 233 ms in one process, 272 ms in two; 200 jobs: 480
# and 333 ms).
JOBS_PER_PROCESS = 64

_PR_SET_PDEATHSIG = 1  # prctl(2)

# What the forked processes run: set before the fork, read-only after it.
_WORK: Callable[[Any], Any] | None = None


class Pool:
    """Applies ``work`` to items, in order: here, or in up to ``processes`` forked processes
    started the first time a batch is large enough to pay for them."""

    def __init__(self, work: Callable[[Any], Any], processes: int) -> None:
        self.work = work
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self._interrupted = False
        self._previous: Any = None
        # Not where Ctrl-C is ignored: a shell starts a script's background job (``cmd &``) so,
        # and the job must go on ignoring it (adversary22 D16: it obeyed once a batch began).
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._note_interrupt)

    def map(self, items: list[Any]) -> Iterator[Any]:
        """Multiprocessing is imported only when the processes start (a third of the imports
        of a build that compiles a hundred jobs here)."""
        wanted = min(self.processes, len(items) // JOBS_PER_PROCESS)
        if self._executor is None and wanted < 2:
            return self._here(items)
        import multiprocessing

        if self._executor is None and "fork" not in multiprocessing.get_all_start_methods():
            return self._here(items)
        if self._executor is None:
            from concurrent.futures import ProcessPoolExecutor

            global _WORK
            _WORK = self.work
            # The forked processes would otherwise copy the pages of every object the
            # collector walks (each collection writes to the objects' headers): a full build
            # of 1,000 sets at -j2 ran 7-10% longer.
            gc.freeze()
            context = multiprocessing.get_context("fork")
            self._executor = ProcessPoolExecutor(
                self.processes, mp_context=context, initializer=_started, initargs=(os.getpid(),)
            )
        chunk = max(1, len(items) // (self.processes * 8))
        chunks = (items[start : start + chunk] for start in range(0, len(items), chunk))
        return self._gathered([self._executor.submit(_call, part) for part in chunks])

    def close(self) -> None:
        """Stop the processes; a Ctrl-C noted since the last result is raised now."""
        global _WORK
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None
            gc.unfreeze()  # a long-running caller (serve, watch) collects them again
        _WORK = None
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
            self._stop_if_interrupted()

    def _note_interrupt(self, number: int, frame: Any) -> None:
        if self._interrupted:
            raise KeyboardInterrupt
        self._interrupted = True

    def _stop_if_interrupted(self) -> None:
        if self._interrupted:
            self._interrupted = False  # raised once
            raise KeyboardInterrupt

    def _here(self, items: list[Any]) -> Iterator[Any]:
        for item in items:
            self._stop_if_interrupted()
            yield self.work(item)

    def _gathered(self, futures: list[Any]) -> Iterator[Any]:
        """The chunks' results in order; after a Ctrl-C, those of the chunks already started."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            for future in futures:
                if self._interrupted:
                    for waiting in futures:
                        waiting.cancel()  # not started: dropped; started: finished
                    if future.cancelled():
                        self._stop_if_interrupted()
                yield from future.result()
        except BrokenProcessPool:
            raise BuildFailed(
                [Problem("a process of the build died (killed, or out of memory)")]
            ) from None


def _started(parent: int) -> None:
    """A pool process leaves Ctrl-C to the build (which finishes what it was given), and ends
    when the build that forked it ends, even by SIGKILL: it must not linger (Linux's
    parent-death signal)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the signal was armed
        os._exit(1)


def _call(items: list[Any]) -> list[Any]:
    assert _WORK is not None
    return [_WORK(item) for item in items]
