"""Orphans: artifacts hotplex wrote that no planned job produces any more, and their deletion.

Found from the build log (outputs of removed targets, platforms or workers) and in the job
folders ``out/<target>/<platform>/`` (files carrying an artifact's name, temp files of a killed
write, and files matching an output the target's worker declares, ``agents/*.md`` or
``workspace/memory/*.md``: found with or without the log, so a fresh clone's ``check`` sees a
stale sub-agent; for a target no longer in the manifest, the outputs of the workers whose
primary output its job folder holds). Never anything outside ``out``, nor a file that is not in
a job folder: a README in ``out`` or a ``notes.txt`` beside an artifact stays. ``clean`` deletes
with the same helpers.
"""

from __future__ import annotations

import contextlib
import os
import posixpath

from hotplex.errors import BuildFailed, Problem
from hotplex.fs import declared_match, folded, sha256
from hotplex.values import value
from hotplex.writes import crash_point, is_temp_of, temp_for

TYPE_CHECKING = False  # not typing's: the no-op path imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from hotplex.build.log import Log
    from hotplex.records import JobRecord

# Job folders are out/<target>/<platform or default>/; artifacts sit directly in them.
JOB_DEPTH = 2


@value
class Scope:
    """What one run answers for: the artifact folder (and the ones the log recorded outputs in
    before ``[project] out`` changed), and all targets (None) or some."""

    FIELDS = ("root", "out", "targets", "earlier", "declared", "primaries", "job_names")
    root: Path
    out: str
    targets: frozenset[str] | None
    earlier: tuple[str, ...]
    # Target name -> the output patterns its worker declares (``Worker.outputs``).
    declared: dict[str, tuple[str, ...]]
    # Every registered worker's primary output -> the output patterns of the workers with it:
    # a job folder of a target no longer in the manifest is known by holding one.
    primaries: dict[str, tuple[str, ...]]
    # The job folder names a target can have: "default" and every platform.
    job_names: frozenset[str]

    def __init__(
        self,
        root: Path,
        out: str,
        targets: frozenset[str] | None,
        earlier: tuple[str, ...] = (),
        declared: dict[str, tuple[str, ...]] | None = None,
        primaries: dict[str, tuple[str, ...]] | None = None,
        job_names: frozenset[str] = frozenset(),
    ) -> None:
        self.__dict__.update(
            root=root,
            out=out,
            targets=targets,
            earlier=earlier,
            declared={} if declared is None else declared,
            primaries={} if primaries is None else primaries,
            job_names=job_names,
        )

    def covers(self, path: str) -> bool:
        """``path`` is in a job folder of a target in scope, really inside its ``out``."""
        out = self.out_of(path)
        if out is None:
            return False
        inside = path.split("/")[len(out.split("/")) :]
        if len(inside) <= JOB_DEPTH or (self.targets is not None and inside[0] not in self.targets):
            return False
        real_out = os.path.realpath(self.root / out)
        real_parent = os.path.realpath((self.root / path).parent)
        return real_parent.startswith(real_out + os.sep)

    def out_of(self, path: str) -> str | None:
        """The artifact folder, current or earlier, that ``path`` is in."""
        parts = path.split("/")
        if ".." in parts or path.startswith("/"):
            return None
        for out in (self.out, *self.earlier):
            if parts[: len(out.split("/"))] == out.split("/"):
                return out
        return None


def find(scope: Scope, kept: set[str], records: dict[str, JobRecord], names: set[str]) -> list[str]:
    """Files a build deletes in ``scope``: recorded outputs and artifact-like strays that are
    not ``kept`` (produced by a planned job, or read by one)."""
    found = {posixpath.normpath(p) for record in records.values() for p in record.outputs}
    found.update(_strays(scope, names))
    is_kept = kept_file(scope.root, kept)
    return sorted(
        p
        for p in found - kept
        if scope.covers(p) and os.path.lexists(scope.root / p) and not is_kept(p)
    )


def kept_file(root: Path, kept: set[str]) -> Callable[[str], bool]:
    """Whether a path is one file with a ``kept`` one under another name: on a file system that
    ignores case (macOS, Windows), the old name of a target renamed in case only (``ed2`` to
    ``ED2``) is the file just written. Only names that ``fs.folded`` makes equal are compared,
    by ``os.path.samefile``: on Linux they are two files, and the old one goes."""
    by_name: dict[str, list[str]] = {}

    def is_kept(path: str) -> bool:
        if not by_name and kept:
            for other in kept:
                by_name.setdefault(folded(other), []).append(other)
        return any(_same_file(root / path, root / k) for k in by_name.get(folded(path), ()))

    return is_kept


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def placed(
    scope: Scope,
    kept: set[str],
    records: dict[str, JobRecord],
    places: set[str] = frozenset(),
    cleaning: bool = False,
) -> tuple[list[str], dict[str, str]]:
    """Placed files the log recorded that no planned job produces any more (a removed target,
    a changed ``place``; ``cleaning``: every one): those still hotplex's, to delete, and a
    warning for each other one by its path, which is left where it is (edited since hotplex
    wrote it; once its record is gone, ``unlogged_placed`` names it by its marker). Also the
    temp files of a killed write beside any placed file, recorded or planned (``places``)."""
    from hotplex.placement import is_hotplex_file, read_regular

    found: set[str] = set()
    warnings: dict[str, str] = {}
    is_kept = kept_file(scope.root, kept)
    recorded = {p for record in records.values() for p in record.placed}
    for path in recorded | places:
        folder, _, name = path.rpartition("/")
        found.update(
            f"{folder}/{e.name}".lstrip("/")
            for e in entries(str(scope.root / folder), folders=False)
            if is_temp_of(e.name, name)
        )
    for record in records.values():
        if scope.targets is not None and record.target not in scope.targets:
            continue
        for path in record.placed:
            full = scope.root / path
            if path in kept or path in found or not os.path.lexists(full) or is_kept(path):
                continue
            data = read_regular(full)
            digest = record.outputs[path].digest
            if data is not None and (sha256(data) == digest or is_hotplex_file(data)):
                found.add(path)
            else:
                warnings[path] = _left_in_place(path, record.target, cleaning)
    return sorted(found), warnings


def _left_in_place(path: str, target: str, cleaning: bool) -> str:
    why = "clean removes it" if cleaning else "which no longer places it"
    return (
        f"{path} is left in place: hotplex placed it for target '{target}', {why}, but it was"
        " edited since (delete it yourself if it is no longer wanted)"
    )


def unlogged_placed(
    scope: Scope,
    kept: set[str],
    records: dict[str, JobRecord],
    manifest: str,
    cleaning: bool = False,
) -> dict[str, str]:
    """Warnings, by path, for files at the places the workers' tools read that carry hotplex's
    marker for this manifest but that no planned job produces and the log does not know (a
    fresh clone after a target was removed; an orphan left in place as edited, after the build
    that left it forgot its record). Only named: without the log's record hotplex deletes
    nothing outside ``out`` (the file may have been copied from elsewhere on purpose)."""
    import glob
    from pathlib import Path

    from hotplex import fingerprint
    from hotplex.placement import origin, read_regular

    logged = {p for record in records.values() for p in record.placed}
    warnings = {}
    for pattern in fingerprint.registered()["places"]:
        for full in sorted(glob.glob(pattern, root_dir=scope.root, recursive=True)):
            path = Path(full).as_posix()
            if path in kept or path in logged:
                continue
            data = read_regular(scope.root / path)
            named = origin(data) if data is not None else None
            if named is None or named[0] != manifest:
                continue
            if scope.targets is not None and named[1] not in scope.targets:
                continue
            if not named[2]:
                warnings[path] = _left_in_place(path, named[1], cleaning)
            else:
                warnings[path] = (
                    f"{path} carries hotplex's marker for target '{named[1]}' of {manifest},"
                    " which places nothing there now: delete it if it is stale (hotplex deletes"
                    " a placed file only when its build log recorded writing it)"
                )
    return warnings


def artifact_names(produced: set[str], records: dict[str, JobRecord]) -> set[str]:
    """The file names hotplex gives artifacts (prompt.xml, payload.json…), from this build and
    the log: in a job folder, only files with such a name are taken for hotplex's own."""
    recorded = (p for record in records.values() for p in record.outputs)
    return {posixpath.basename(p) for p in (*produced, *recorded)}


def _strays(scope: Scope, names: set[str]) -> set[str]:
    found = set()
    for target in entries(os.path.join(scope.root, scope.out), folders=True):
        if scope.targets is not None and target.name not in scope.targets:
            continue
        for job in entries(target.path, folders=True):
            patterns = scope.declared.get(target.name) or _gone_target_outputs(scope, job)
            found.update(
                f"{scope.out}/{target.name}/{job.name}/{inside}"
                for inside in _files_below(job.path)
                if _artifact_like(inside, names, patterns)
            )
    return found


def _gone_target_outputs(scope: Scope, job: os.DirEntry[str]) -> tuple[str, ...]:
    """The declared outputs of a job folder of a target the manifest no longer has, once it is
    proven one: named "default" or a platform, and holding a registered worker's primary output
    (payload.json, prompt.xml…). Anything else under ``out`` keeps its files."""
    if job.name not in scope.job_names:
        return ()
    held = (p for name, p in scope.primaries.items() if os.path.isfile(os.path.join(job, name)))
    return tuple(dict.fromkeys(pattern for patterns in held for pattern in patterns))


def _artifact_like(inside: str, names: set[str], patterns: tuple[str, ...]) -> bool:
    """A file at ``inside`` (relative to its job folder) carries an artifact's name, is the temp
    file of one, or matches (or is the temp file of) one of the worker's declared outputs."""
    folder, _, name = inside.rpartition("/")
    if not folder and (name in names or any(is_temp_of(name, n) for n in names)):
        return True
    made_for = temp_for(name)
    of = f"{folder}/{made_for}".lstrip("/") if made_for is not None else None
    return any(declared_match(inside, p) or (of and declared_match(of, p)) for p in patterns)


def _files_below(folder: str, prefix: str = "") -> list[str]:
    """The files under ``folder`` (symlinks not followed), as paths relative to it."""
    found = [f"{prefix}{e.name}" for e in entries(folder, folders=False)]
    for sub in entries(folder, folders=True):
        found += _files_below(sub.path, f"{prefix}{sub.name}/")
    return found


def delete(scope: Scope, orphans: list[str], planned_ids: set[str], log: Log) -> None:
    """Delete orphans, then forget the records of jobs no longer planned (in that order, so a
    killed build still knows what to delete next time)."""
    for path in orphans:
        try:
            unlink(scope.root / path)
        except OSError as exc:
            problem = Problem(f"cannot delete orphaned '{path}': {exc.strerror or exc}")
            raise BuildFailed([problem]) from None
        crash_point()
        out = scope.out_of(path)  # None: a placed file, whose empty folders go up to the root
        prune_upward((scope.root / path).parent, scope.root / out if out else scope.root)
    for earlier in scope.earlier:  # a folder `out` named before: gone once it is empty
        with contextlib.suppress(OSError):
            os.rmdir(scope.root / earlier)
    for job_id in list(log.state.jobs):
        target = job_id.split("/")[0]
        if job_id not in planned_ids and (scope.targets is None or target in scope.targets):
            for path in log.state.jobs[job_id].placed:  # its folders, if a kill left them empty
                if not os.path.lexists(scope.root / path):
                    prune_upward((scope.root / path).parent, scope.root)
            log.forget(job_id)


def earlier_outs(records: dict[str, JobRecord], out: str, sources: str) -> tuple[str, ...]:
    """Artifact folders the log recorded outputs in, other than ``out`` (``[project] out`` was
    changed): their recorded files are orphans like any other. A folder that is or holds the
    sources folder, or is the project itself, is never one; one inside the sources folder is
    (``sources = "."``, as ``import`` writes, holds every ``out``)."""
    from hotplex.manifest.paths import same_or_inside

    found = set()
    for record in records.values():
        marker = f"/{record.job}/"
        for path in record.outputs:
            earlier = posixpath.normpath(path).partition(marker)[0]
            if marker in path and earlier not in (out, ".", ""):
                found.add(earlier)
    return tuple(sorted(e for e in found if not same_or_inside(sources, e)))


def entries(folder: str, folders: bool) -> list[os.DirEntry[str]]:
    """The sub-folders (or the other entries) of ``folder``; none when it cannot be listed."""
    try:
        with os.scandir(folder) as found:
            return [e for e in found if e.is_dir(follow_symlinks=False) == folders]
    except OSError:
        return []


def unlink(path: str | Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def prune_upward(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents while they are empty, up to (not including) ``stop``."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (or not ours to remove): its parents are not empty either
        folder = folder.parent


def prune_empty(folder: Path) -> None:
    """Remove every empty folder under ``folder`` (not ``folder`` itself), deepest first."""
    from pathlib import Path  # not at import: the no-op path takes no pathlib

    for current, _dirs, _files in os.walk(folder, topdown=False):
        if Path(current) != folder:
            with contextlib.suppress(OSError):
                os.rmdir(current)  # fails, harmlessly, when the folder is not empty
