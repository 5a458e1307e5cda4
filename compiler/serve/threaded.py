"""How the service runs a call into its ``Project``: in a worker thread (the ``Project``
serialises them), so a long compile never stops the event loop from answering ``/healthz`` or
waking waiters; an error leaves as ``Refused``, with whose fault it is, and a call whose caller
left while it ran as ``Abandoned``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from hotplex.errors import EXIT_FAILED, HotplexError
from hotplex.fs import RACY_NS, settled, stamp
from hotplex.serve.answers import Abandoned, Fault, Refused

# A broken file modified this recently is tried again this many times (RACY_NS apart) first.
SETTLE_TRIES = 5


class ThreadedCalls:
    """``_run``: a base of ``service.Service`` and the calls its mixins make."""

    root: Path

    async def _run(
        self,
        call,
        fault: Fault,
        gone: Callable[[], Awaitable[None]] | None = None,
    ):
        """``call`` in a worker thread, the event loop's executor's (anyio's ``to_thread``
        cost a per-user compile 30 to 50 µs more, on its limiter, cancel scope and context
        copy; the ``Project`` serialises its calls itself); ``Abandoned`` when ``gone`` (the
        caller's hang-up) ends before the thread's call, which runs on to its end (a thread
        cannot be stopped) and is waited for, unanswered. A ``HotplexError`` leaves as
        ``Refused(fault)``, or as a finding when it is one (``BuildFailed``) and the fault is
        the request's. The project's own error in a file written a moment ago (an editor still
        writing it in place: cut in a UTF-8 character, a frontmatter not closed yet) is tried
        again once the file has settled, a few times at most, before it counts as a broken
        project; in a per-user compile too, whose error would otherwise be taken for the
        request's (400)."""
        tries = 1
        while True:
            try:
                return await self._called(call, gone)
            except (Refused, Abandoned):
                raise
            except HotplexError as exc:
                if tries < SETTLE_TRIES and self._settling(exc):
                    tries += 1
                    await anyio.sleep(RACY_NS / 1e9)
                    continue
                raise refusal(exc, fault) from None

    async def _called(self, call, gone: Callable[[], Awaitable[None]] | None):
        future = asyncio.get_running_loop().run_in_executor(None, call)
        if gone is not None and not await first(future, gone):
            with contextlib.suppress(Exception):  # its error too is answered to no one
                await future
            raise Abandoned()
        return await future

    def _settling(self, error: HotplexError) -> bool:
        """Whether a file an error names was modified too recently to be taken as saved."""
        now = time.time_ns()
        for problem in error.problems:
            if problem.span is not None:
                found = stamp(self.root / problem.span.file)
                if found is not None and not settled(found, now):
                    return True
        return False


def refusal(error: HotplexError, fault: Fault) -> Refused:
    """``error`` as a refusal with whose fault it is: the request's is a finding when the error
    is one (``BuildFailed``)."""
    if fault is Fault.REQUEST and error.exit_status == EXIT_FAILED:
        return Refused(Fault.FINDING, error)
    return Refused(fault, error)


async def first(work: asyncio.Future, gone: Callable[[], Awaitable[None]]) -> bool:
    """Whether ``work`` ended before ``gone`` did (``work`` is left as it is either way). Woken
    by a callback of each, not by ``asyncio.wait`` (its sets and its own callbacks cost every
    per-user compile more than the watch itself)."""
    watcher = asyncio.ensure_future(gone())
    ended = asyncio.get_running_loop().create_future()

    def wake(_: object) -> None:
        if not ended.done():
            ended.set_result(None)

    work.add_done_callback(wake)
    watcher.add_done_callback(wake)
    try:
        await ended
    finally:
        work.remove_done_callback(wake)
        watcher.cancel()
    if watcher.done() and not watcher.cancelled():
        watcher.exception()  # taken, not logged as never retrieved: a failed watch is gone too
    return work.done()
