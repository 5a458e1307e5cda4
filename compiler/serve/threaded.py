"""How the service runs a call into its ``Project``: in a worker thread (the ``Project``
serialises them), so a long compile never stops the event loop from answering ``/healthz`` or
waking waiters; an error leaves as ``Refused``, with whose fault it is."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import anyio
from hotplex.errors import EXIT_FAILED, HotplexError
from hotplex.fs import RACY_NS, settled, stamp
from hotplex.serve.answers import Fault, Refused

# A broken file modified this recently is tried again this many times (RACY_NS apart) first.
SETTLE_TRIES = 5


class ThreadedCalls:
    """``_run``: a base of ``service.Service`` and the calls its mixins make."""

    root: Path

    async def _run(self, call, fault: Fault):
        """``call`` in a worker thread, the event loop's executor's (anyio's ``to_thread``
        cost a per-user compile 30 to 50 µs more, on its limiter, cancel scope and context
        copy; the ``Project`` serialises its calls itself); a ``HotplexError`` leaves as
        ``Refused(fault)``, or as a finding when it is one (``BuildFailed``) and the fault is
        the request's. The project's own error in a file written a moment ago (an editor still
        writing it in place: cut in a UTF-8 character, a frontmatter not closed yet) is tried
        again once the file has settled, a few times at most, before it counts as a broken
        project; in a per-user compile too, whose error would otherwise be taken for the
        request's (400)."""
        tries = 1
        while True:
            try:
                return await asyncio.get_running_loop().run_in_executor(None, call)
            except Refused:
                raise
            except HotplexError as exc:
                if tries < SETTLE_TRIES and self._settling(exc):
                    tries += 1
                    await anyio.sleep(RACY_NS / 1e9)
                    continue
                raise refusal(exc, fault) from None

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
