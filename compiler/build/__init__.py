"""The build: plan jobs, decide which are dirty and why, compile those, write what changed, record.

Three paths. The fast path reads only the build log's header and last line: when that is a
snapshot covering the request and every file it names (manifest, inputs, absent variant
candidates, outputs, the artifact folders, hotplex's own files) has the same stamp, nothing can
have changed, and the snapshot holds the report. When only inputs moved, the touched path
(``touched.py``) builds the jobs that read them, found in the index of the reports line before
the snapshot, without reading the log's records. Otherwise the slow path loads the manifest and
checks each job against its log record: key parts, each input's content hash, each output's
bytes; it writes a new snapshot only when every planned job is then current. ``check`` runs the
same decision but writes nothing: it compiles a dirty job in memory and calls the artifact
current when the bytes on disk are already what a build would write (so a fresh clone with
committed artifacts and no ``.hotplex/`` passes).

Safety: an artifact is replaced by rename (``writes.write_atomic``) and its log record is appended
only after that, so a build killed at any instant leaves every artifact whole (old or new) and a
log that is at worst behind; the next build compares bytes and repairs. Deletion never leaves the
``out`` folder and only touches files hotplex recorded or that carry an artifact's name in a job
folder (``out/<target>/<platform>/``).
"""

from __future__ import annotations

import os

from hotplex.build.closing import load_closing
from hotplex.build.request import Request, Summary
from hotplex.build.snapshot import current_outcome, fast_current, fast_reports
from hotplex.changes import ProjectLock, lock_wait_seconds
from hotplex.fs import STATE_DIR
from hotplex.manifest.read import MANIFEST_NAME

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from pathlib import Path

    from hotplex.records import Outcome

__all__ = ["Request", "Summary", "current", "run", "up_to_date"]


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
    with ProjectLock(os.path.join(request.root, STATE_DIR), lock_wait_seconds()):
        return _run(request, fast)


def up_to_date(request: Request) -> Summary | None:
    """A build that need not decide every job, under the project's lock: a no-op (it parses no
    report: the lines of the sets with a cut or a warning to repeat are in the snapshot, so it
    loads neither the records nor attrs), or the touched path (``touched.py``: a few
    inputs were edited, and only the jobs reading them are built). None: run the build with
    ``fast=False``."""
    root, targets = request.root, request.targets
    with ProjectLock(os.path.join(request.root, STATE_DIR), lock_wait_seconds()):
        closing = load_closing(request.root)
        manifest = _manifest(request)
        found = None if request.frozen else fast_current(root, manifest, targets, closing)
        if found is None:
            if closing is None or request.check or request.frozen:
                return None
            from hotplex.build import touched

            return touched.build(_with_paths(request), _path(manifest), closing)
        if not request.check:  # a no-op build: the snapshot's cache, under the lock
            closing.keep()
    count, told, warnings = found
    return Summary([], count, [], warnings, told)


def current(request: Request) -> tuple[int, list[str], list[str]] | None:
    """The no-op path alone: how many sets are current, the lines their cuts and warnings
    repeat, and the warnings, when nothing can have changed since the last build, else None.
    It parses no job report, so an up-to-date ``hotplex check`` stays a few stat calls."""
    if request.frozen:
        return None  # every cached package file is hashed again
    closing = load_closing(request.root)
    return fast_current(request.root, _manifest(request), request.targets, closing)


def _manifest(request: Request) -> str | Path:
    return request.manifest or os.path.join(request.root, MANIFEST_NAME)


def _with_paths(request: Request) -> Request:
    """The request as the engine takes it, its paths ``Path``s: the command line's are ``str``,
    so that an up-to-date run, which only joins them, imports no ``pathlib``."""
    manifest = request.manifest
    return request.replace(root=_path(request.root), manifest=manifest and _path(manifest))


def _path(path: str | Path) -> Path:
    from pathlib import Path

    return Path(path)


def _run(request: Request, fast: bool) -> Outcome:
    manifest = _manifest(request)
    if fast and not request.frozen:
        closing = load_closing(request.root)
        reports = fast_reports(request.root, manifest, request.targets, closing)
        outcome = current_outcome(*reports) if reports is not None else None
        if outcome is not None:
            return outcome
    from hotplex.build.engine import slow

    return slow(_with_paths(request), _path(manifest))
