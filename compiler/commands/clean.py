"""``hotplex clean``: delete every artifact hotplex wrote and its build state, nothing else."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from hotplex.build import log as state_log
from hotplex.build import orphans
from hotplex.build.orphans import earlier_outs, prune_empty, unlink
from hotplex.changes import ProjectLock, lock_wait_seconds
from hotplex.errors import EXIT_OK, HotplexError
from hotplex.fs import STATE_DIR
from hotplex.manifest.cache import CACHE_NAME
from hotplex.manifest.model import ProjectSettings
from hotplex.manifest.read import DEFAULT_OUT, MANIFEST_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    left: list[str] = []
    removed = clean(root, manifest, left)
    for path in removed:
        print(f"  removed {path}")
    for warning in left:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"hotplex: removed {len(removed)} file(s)")
    return EXIT_OK


def clean(root: Path, manifest: Path | None, warnings: list[str] | None = None) -> list[str]:
    """Delete; ``warnings`` gets the placed files left in place (edited since hotplex wrote
    them)."""
    with ProjectLock(root / STATE_DIR, lock_wait_seconds()):
        state = state_log.load(root)
        owner = state_log.owner(state, root, manifest or root / MANIFEST_NAME)
        state_log.refuse_other_manifest(state, owner)
        outs, paths, sources, places = _planned(root, manifest)
        manifest_name = (manifest or root / MANIFEST_NAME).name
        # An `out` the manifest named before: the log's files there are hotplex's too.
        earlier = earlier_outs(state.jobs, next(iter(outs)), sources)
        outs.update(earlier)
        for record in state.jobs.values():
            paths.update(record.outputs)
        removed = []
        for path in sorted(paths):
            # Never outside an artifact folder, whatever the log says or a symlink points at.
            if any(_deletable(root, out, path) for out in outs) and (root / path).is_file():
                unlink(root / path)
                removed.append(path)
        # Outside `out`, only the files the log says hotplex placed, and only while still its own.
        scope = orphans.Scope(root, "", None)
        placed, left = orphans.placed(scope, set(), state.jobs, cleaning=True)
        for path in placed:
            unlink(root / path)
            orphans.prune_upward((root / path).parent, root)
            removed.append(path)
        left.update(orphans.unlogged_placed(scope, places, state.jobs, manifest_name, True))
        if warnings is not None:
            warnings += left.values()
        for out in outs:
            if _within(os.path.realpath(root / out), os.path.realpath(root)):
                prune_empty(root / out)
        for out in earlier:  # gone once empty, as a build leaves it
            with contextlib.suppress(OSError):
                os.rmdir(root / out)
        unlink(state_log.log_path(root))
        unlink(root / STATE_DIR / CACHE_NAME)
        unlink(root / STATE_DIR / state_log.SNAPSHOT_CACHE)
        return removed


def _within(inner: str, outer: str) -> bool:
    return inner != outer and os.path.commonpath([inner, outer]) == outer


def _deletable(root: Path, out: str, path: str) -> bool:
    """``path`` names a file under ``out``, and its folder really is there: a symlinked folder
    (``dist/cc -> /elsewhere``) must not let ``clean`` reach outside the project."""
    if not path.startswith(f"{out}/") or ".." in path.split("/"):
        return False
    real_out = os.path.realpath(root / out)
    folder = os.path.realpath((root / path).parent)
    inside = _within(real_out, os.path.realpath(root))
    return inside and (folder == real_out or _within(folder, real_out))


def _planned(root: Path, manifest: Path | None) -> tuple[set[str], set[str], str, set[str]]:
    """The artifact folder, every file under the folders of the jobs the manifest plans, the
    sources folder, and the files the jobs place.

    A broken manifest still lets ``clean`` remove what the log recorded under the default folder.
    """
    from hotplex.api import Project

    try:
        project = Project.load(root, manifest)
    except HotplexError:
        return {DEFAULT_OUT}, set(), ProjectSettings().sources, set()
    model = project.model
    out = model.out_dir
    found: set[str] = set()
    places: set[str] = set()
    for job in project.jobs():
        places.update(p for p in (job.worker.placed(job.target),) if p is not None)
        folder = root / job.out_dir(model)
        for current, _dirs, names in os.walk(folder):
            found.update((Path(current).relative_to(root) / n).as_posix() for n in names)
    return {out}, found, model.sources_dir, places
