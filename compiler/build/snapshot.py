"""The fast path: a finished build ends with a snapshot of every stamp it depended on, and the
next build that finds them all unmoved is a no-op that parses neither the manifest nor a record.

The snapshot names the manifest, every input (absent variant and include candidates too), the
artifact folders (a stray folder moves their stamp) and hotplex's own files; each job's report
sits in the line before it and is parsed only once those stamps have held, then its outputs'
stamps are checked too.
"""

from __future__ import annotations

import os

from hotplex.build.orphans import entries
from hotplex.fs import Stamp, settled, stamp

TYPE_CHECKING = False  # not typing's: this module is the no-op path
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from hotplex.build.closing import Closing
    from hotplex.manifest.model import Model
    from hotplex.records import JobRecord, JobReport, Outcome
    from hotplex.sources.inputs import Inputs


def fast_current(
    root: Path, manifest: Path, targets: tuple[str, ...], closing: Closing | None
) -> tuple[int, list[str], list[str]] | None:
    """When nothing can have changed: how many sets are current, the lines their cuts and
    warnings repeat (``told``: as shown), and the warnings; else None. Reads the snapshot alone
    (every stamp, the outputs' too, is in it): no job report is parsed, no record made."""
    from hotplex import __version__

    snap = closing.snapshot if closing is not None else None
    if closing is None or snap.get("version") != __version__ or snap.get("frozen"):
        return None  # ``[project] frozen``: every cached package file is hashed again
    if snap.get("manifest") != os.path.relpath(manifest, root):
        return None  # another manifest (-f): the snapshot says nothing about it
    try:
        return _current(os.fspath(root), targets, snap)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError):
        return None  # a snapshot of unexpected shape, or a stat that failed: decide slowly


def fast_reports(
    root: Path, manifest: Path, targets: tuple[str, ...], closing: Closing | None
) -> tuple[list[dict[str, Any]], list[str]] | None:
    """``fast_current``, with the job reports as the log holds them (parsed only now)."""
    found = fast_current(root, manifest, targets, closing)
    reports = closing.job_reports() if found is not None else None
    if reports is None:
        return None
    try:
        chosen = [r for r in reports if not targets or r["target"] in targets]
    except (KeyError, TypeError):
        return None
    return (chosen, found[2]) if len(chosen) == found[0] else None


def _current(
    root: str, targets: tuple[str, ...], snap: dict[str, Any]
) -> tuple[int, list[str], list[str]] | None:
    if any(t not in snap["targets"] for t in targets):
        return None  # the slow path names the unknown target
    chosen = targets or snap["targets"]
    if not _all_hold([(f"{root}/", snap["files"]), *_others(root, snap, chosen)]):
        return None
    count = sum(snap["sets"][t] for t in chosen)
    told = [line for target, _job, lines in snap["told"] if target in chosen for line in lines]
    warnings = list(snap.get("warnings", ()))  # the unused-file report of the last slow build
    return count, told, warnings


def _others(
    root: str, snap: dict[str, Any], chosen: list[str], sources: bool = True
) -> list[tuple[str, dict[str, Any]]]:
    """Every stamp of the snapshot but the inputs', as ``_all_hold`` takes them: folders,
    hotplex's files (their paths whole), outputs, and (``sources``) what the unused-file and
    raw-copy reports depend on."""
    inside = f"{root}/"
    outputs = snap["outputs"]
    return [
        (inside, snap["dirs"]),
        (inside, snap.get("sources", {}) if sources else {}),
        ("", snap["package"]),
        (inside, snap.get("local", {})),
        *((inside, outputs[t]) for t in chosen),
    ]


def _all_hold(groups: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether every stamp of ``groups`` (each a prefix of its paths, and their stamps) holds,
    up to the first that moved: one stat a path, no pair or list made for it (a no-op build at
    10,000 sets checks 31,000)."""
    for prefix, stamps in groups:
        for path, rec in stamps.items():
            if not _matches(prefix + path, rec):
                return False
    return True


def moved_inputs(root: Path, snap: dict[str, Any]) -> list[str] | None:
    """The input files whose stamps moved since the snapshot, when nothing else did: not the
    manifest, a folder, hotplex's own files nor an output (None then, as for a snapshot of
    unexpected shape). Each stamp is taken once. The reports' stamps may move with an input's:
    a compiled source is there because raw copies of it depend on its presence alone."""
    base = os.fspath(root)
    if snap.get("frozen"):
        return None  # as in ``fast_current``
    try:
        moved = [p for p, rec in snap["files"].items() if not _matches(f"{base}/{p}", rec)]
        if snap["manifest"] in moved:
            return None
        if not _all_hold(_others(base, snap, snap["targets"], sources=False)):
            return None
        for path, rec in snap.get("sources", {}).items():
            full = f"{base}/{path}"
            if not _matches(full, rec) and (path not in moved or not os.path.isfile(full)):
                return None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError):
        return None
    return moved


def repeated(job: JobRecord | JobReport) -> list[str]:
    """What every build says of a set while it holds: each cut (the days left out past the
    first two folded into one line), then each warning."""
    from hotplex.sources.logs import describe_cuts

    return [*describe_cuts(job.truncations), *job.warnings]


def told(record: JobRecord) -> list[str]:
    """``repeated``, each line after the set's id and as a message shows it (``errors.shown``):
    the snapshot keeps these, so a no-op build prints them without parsing the set's report
    (1,000 days dropped are 1,000 cuts in it) or loading the secret rules."""
    from hotplex.errors import shown

    return [shown(f"{record.job}: {line}") for line in repeated(record)]


def current_outcome(reports: list[dict[str, Any]], warnings: list[str]) -> Outcome | None:
    """The outcome of a no-op build, as records (None: a report of unexpected shape)."""
    from hotplex.build.log import report_records
    from hotplex.records import JobReport, Outcome

    try:
        records = report_records(reports)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return Outcome([JobReport.of(r, "current") for r in records], [], warnings, fast=True)


def _matches(path: str, recorded: list[Any] | None) -> bool:
    """Whether the file's stamp is the one recorded (None: the file must not exist)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return recorded is None
    return (
        recorded is not None
        and st.st_mtime_ns == recorded[0]
        and st.st_size == recorded[1]
        and st.st_ino == recorded[2]
        and st.st_ctime_ns == recorded[3]
    )


def take(
    model: Model,
    manifest_stamp: Stamp,
    records: list[JobRecord],
    inputs: Inputs,
    started_ns: int,
) -> dict[str, Any]:
    """The stamps under which every job of ``records`` is current."""
    from hotplex import __version__, fingerprint

    root = model.root
    manifest = os.path.relpath(model.manifest_path, root)
    files: dict[str, list[Any] | None] = {manifest: trusted(manifest_stamp, None, started_ns)}
    if inputs.packages is not None:
        files.update(_package_stamps(root, inputs, started_ns))
    for record in records:
        for path in record.inputs:
            if path not in files:
                digest = inputs.digest(path)
                files[path] = trusted(inputs.stamps.get(path), digest, started_ns)
    package = fingerprint.package_state()[0]
    outputs: dict[str, dict[str, list[int]]] = {t.name: {} for t in model.manifest.target}
    sets = dict.fromkeys(outputs, 0)
    for record in records:
        sets[record.target] += 1
        for path, stamped in record.outputs.items():
            outputs[record.target][path] = stamped.to_list()[: Stamp.WIDTH]
    return {
        "version": __version__,
        "manifest": manifest,
        "targets": [t.name for t in model.manifest.target],
        "files": files,
        "dirs": _dir_stamps(root, model.out_dir, records),
        # Each target's outputs and sets, and the sets with something a no-op build repeats:
        # the no-op path reads these instead of the job reports.
        "outputs": outputs,
        "sets": sets,
        "told": [[r.target, r.job, told(r)] for r in records if r.truncations or r.warnings],
        "package": {p: trusted(s, None, started_ns) for p, s in package.items()},
        "fingerprint": fingerprint.recorded(),
        "local": _local_stamps(root, inputs, started_ns),
        # ``[project] frozen``: no stamp vouches for a cached package file, each is hashed again
        "frozen": inputs.packages is not None and model.manifest.project.frozen,
    }


def _package_stamps(root: Path, inputs: Inputs, started_ns: int) -> dict[str, list[Any] | None]:
    """A package file is never on disk where the build names it: the lock and the cached files
    it pins vouch for it, each cache file named from the project (``../.cache/hotplex/…``)."""
    from hotplex.manifest.read import LOCK_NAME
    from hotplex.sources.packages import blob_path

    pinned = inputs.packages
    assert pinned is not None
    stamps: dict[str, list[Any] | None] = {
        LOCK_NAME: trusted(stamp(root / LOCK_NAME), None, started_ns)
    }
    for display, digest in pinned.files.items():
        stamps[display] = None
        blob = blob_path(digest)
        stamps[os.path.relpath(blob, root)] = trusted(stamp(blob), None, started_ns)
    return stamps


def _local_stamps(root: Path, inputs: Inputs, started_ns: int) -> dict[str, list[Any] | None]:
    """Each folder and file of a local (``path``) package: an edit there after it was locked
    leaves the no-op path, so the build says the lock holds it as it was."""
    from hotplex.sources.packages import folder_entries

    pinned = inputs.packages
    stamps: dict[str, list[Any] | None] = {}
    for folder in pinned.folders if pinned is not None else ():
        for top, _dirs, _files in os.walk(folder):
            stamps[os.path.relpath(top, root)] = trusted(stamp(top), None, started_ns)
        for _rel, path in folder_entries(folder):
            display, now = os.path.relpath(path, root), stamp(path)
            # With the digest the lock's comparison took under the same stamp: the next build
            # hashes the file again only when it moved (``packages.edited``).
            known = pinned.local.get(display)
            digest = known[1] if known is not None and known[0] == now else None
            stamps[display] = trusted(now, digest, started_ns)
    return stamps


def stamp_and_digest(recorded: list[Any]) -> tuple[Stamp, Any]:
    """A snapshot's ``[*stamp, digest]`` as the stamp and the digest."""
    return Stamp(*recorded[: Stamp.WIDTH]), recorded[Stamp.WIDTH]


def local_known(snap: dict[str, Any] | None) -> dict[str, tuple[Stamp, str]]:
    """The stamps and digests of the local packages' files the snapshot holds."""
    known = {}
    for display, rec in (snap or {}).get("local", {}).items():
        if isinstance(rec, list) and len(rec) == Stamp.WIDTH + 1 and isinstance(rec[-1], str):
            known[display] = stamp_and_digest(rec)
    return known


def unread(
    root: Path, folders: tuple[str, ...], warnings: list[str], started_ns: int
) -> dict[str, Any]:
    """What the snapshot adds for the unused-file report: the stamp of every folder of the
    sources folder (a file added to one moves it, so a no-op build still reports a new file
    no artifact reads), and the report itself, which a no-op build repeats."""
    stamps = {f: trusted(stamp(root / f), None, started_ns) for f in folders}
    return {"sources": stamps, "warnings": warnings}


def remember_package(snapshot: dict[str, Any] | None) -> None:
    """What the last build recorded of hotplex's own files, for ``fingerprint`` to take back
    when none has moved (reading and hashing every file of the package is most of the CPU of
    a build that compiles a hundred jobs)."""
    from hotplex import fingerprint

    if snapshot is not None:
        fingerprint.remember({**snapshot.get("fingerprint", {}), "stamps": snapshot.get("package")})


def _dir_stamps(root: Path, out: str, records: list[JobRecord]) -> dict[str, list[Any] | None]:
    """`out` and every folder in it, and the folder of each placed file: an entry added to or
    removed from one (a stray artifact folder, a file matching a declared output such as
    ``agents/x.md``, a killed write's temp file beside a placed rule) moves its stamp, so the
    fast and touched paths stay exact about orphans."""
    folders, pending = [], [out]
    while pending:
        folder = pending.pop()
        folders.append(folder)
        pending += (f"{folder}/{e.name}" for e in entries(os.path.join(root, folder), folders=True))
    folders += (os.path.dirname(place) or "." for r in records for place in r.placed)
    return {folder: folder_stamp(root / folder) for folder in folders}


def folder_stamp(path: Path) -> list[Any] | None:
    """An artifact folder's stamp as the snapshot records it (its entries, not its files'
    bytes, are what it vouches for: no racy window)."""
    current = stamp(path)
    return None if current is None else [*current.as_list(), None]


def trusted(current: Stamp | None, digest: str | None, started_ns: int) -> list[Any] | None:
    """A stamp to record: its mtime is replaced by -1 (never matches) when the file was
    modified so shortly before this build read it that a same-tick change could hide."""
    if current is None:
        return None
    mtime = current.mtime_ns if settled(current, started_ns) else -1
    return [mtime, current.size, current.ino, current.ctime_ns, digest]
