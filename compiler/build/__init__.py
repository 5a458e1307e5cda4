"""The build: plan jobs, decide which are dirty and why, compile those, write what changed, record.

Two paths. The fast path reads only the build log's header and last line: when that is a
snapshot covering the request and every file it names (manifest, inputs, absent variant
candidates, outputs, the artifact folders, hotplex's own files) has the same stamp, nothing can
have changed, and the snapshot holds the report. Otherwise the slow path loads the manifest and
checks each job against its log record: key parts, each input's content hash, each output's
bytes; it writes a new snapshot only when every planned job is then current. ``check`` runs the
same decision but writes nothing: it compiles a dirty job in memory and calls the artifact
current when the bytes on disk are already what a build would write (so a fresh clone with
committed artifacts and no ``.hotplex/`` passes).

Safety: an artifact is replaced by rename (``fs.write_atomic``) and its log record is appended
only after that, so a build killed at any instant leaves every artifact whole (old or new) and a
log that is at worst behind; the next build compares bytes and repairs. Deletion never leaves the
``out`` folder and only touches files hotplex recorded or that carry an artifact's name in a job
folder (``out/<target>/<platform>/``).
"""

from __future__ import annotations

import contextlib
import os

from hotplex.build import log as state_log
from hotplex.build.request import Request
from hotplex.build.snapshot import current_outcome, fast_reports
from hotplex.errors import HotplexError
from hotplex.fs import STATE_DIR, ProjectLock
from hotplex.manifest.read import MANIFEST_NAME

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from hotplex.records import Outcome

__all__ = ["Request", "current", "run"]


def _lock_wait(default: float = 60.0) -> float:
    """Seconds a build waits for another one (HOTPLEX_LOCK_TIMEOUT); a bad value is ignored."""
    try:
        return float(os.environ.get("HOTPLEX_LOCK_TIMEOUT") or default)
    except ValueError:
        return default


LOCK_WAIT_SECONDS = _lock_wait()


def default_processes() -> int:
    """The cores this process may run on: ``-j``'s default."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def run(request: Request, fast: bool = True) -> Outcome:
    """Build (or check) the project; raises HotplexError for bad input, BuildFailed for I/O.
    ``fast=False``: the caller has just found ``current`` None, so it is not asked again."""
    if request.check:
        return _run(request, fast)
    with ProjectLock(request.root / STATE_DIR, LOCK_WAIT_SECONDS):
        return _run(request, fast)


def current(request: Request) -> tuple[list[dict[str, Any]], list[str]] | None:
    """The no-op path alone: the job reports (as the log holds them) and warnings when nothing
    can have changed since the last build, else None. It loads no records, so an up-to-date
    ``hotplex check`` stays a few stat calls."""
    manifest = request.manifest or request.root / MANIFEST_NAME
    closing = state_log.load_closing(request.root)
    return fast_reports(request.root, manifest, request.targets, closing)


def _run(request: Request, fast: bool) -> Outcome:
    reports = current(request) if fast else None
    outcome = current_outcome(*reports) if reports is not None else None
    if outcome is not None:
        return outcome
    manifest = request.manifest or request.root / MANIFEST_NAME
    from hotplex.build.engine import Builder

    with _no_cyclic_gc():
        builder = Builder(request, manifest, state_log.load(request.root))
        if request.check:
            return builder.run(None)
        log = state_log.Log(request.root, builder.state)
        try:
            return builder.run(log)
        except BaseException:
            with contextlib.suppress(HotplexError):
                log.close(None)
            raise


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause Python's cycle collector for the slow path: the log's records are a large heap of
    long-lived, acyclic objects that each full collection would traverse again (a third of a
    10,000-artifact build). Reference counting still frees everything; collection resumes after.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
