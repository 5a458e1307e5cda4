"""Running independent jobs in a pool of processes (``-j N``).

Jobs share nothing but what they read, so a build hands them to forked processes that inherit
the loaded model and every file already read (copy-on-write: nothing is read or imported twice),
once per build. Results come back in job order, and an error is a value like any result, so the
report, the log (appended by the parent alone) and the first error shown are the same whatever
``N`` is. A process that dies (killed, out of memory) fails the build; it never hangs.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
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

    def map(self, items: list[Any]) -> Iterator[Any]:
        """Multiprocessing is imported only when the processes start (a third of the imports
        of a build that compiles a hundred jobs here)."""
        wanted = min(self.processes, len(items) // JOBS_PER_PROCESS)
        if self._executor is None and wanted < 2:
            return map(self.work, items)
        import multiprocessing

        if self._executor is None and "fork" not in multiprocessing.get_all_start_methods():
            return map(self.work, items)
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
                self.processes, mp_context=context, initializer=_die_with, initargs=(os.getpid(),)
            )
        chunk = max(1, len(items) // (self.processes * 8))
        return _guarded(self._executor.map(_call, items, chunksize=chunk))

    def close(self) -> None:
        global _WORK
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None
            gc.unfreeze()  # a long-running caller (serve, watch) collects them again
        _WORK = None


def _die_with(parent: int) -> None:
    """A pool process ends when the build that forked it ends, even by SIGKILL: it must not linger
    (Linux's parent-death signal)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the signal was armed
        os._exit(1)


def _call(item: Any) -> Any:
    assert _WORK is not None
    return _WORK(item)


def _guarded(results: Iterator[Any]) -> Iterator[Any]:
    from concurrent.futures.process import BrokenProcessPool

    try:
        yield from results
    except BrokenProcessPool:
        raise BuildFailed(
            [Problem("a process of the build died (killed, or out of memory)")]
        ) from None
