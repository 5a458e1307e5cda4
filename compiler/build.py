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
import posixpath
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from . import __version__
from . import state as state_log
from .errors import BuildFailed, HotplexError, Problem, Span, suggest
from .fs import (
    ProjectLock,
    Stamp,
    check_relative,
    confine,
    crash_point,
    is_temp_of,
    settled,
    sha256,
    stamp,
    write_atomic,
)

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from hotplex.targets.base import Job

    from .compile import Compiled

def _lock_wait(default: float = 60.0) -> float:
    """Seconds a build waits for another one (HOTPLEX_LOCK_TIMEOUT); a bad value is ignored."""
    try:
        return float(os.environ.get("HOTPLEX_LOCK_TIMEOUT") or default)
    except ValueError:
        return default


LOCK_WAIT_SECONDS = _lock_wait()

# Job folders are out/<target>/<platform or default>/; artifacts sit directly in them.
JOB_DEPTH = 2


@dataclass
class FileReport:
    path: str
    sha256: str
    bytes: int


@dataclass
class JobReport:
    id: str
    target: str
    worker: str
    platform: str | None
    primary: str
    files: list[FileReport]
    truncations: list[dict[str, Any]]
    warnings: list[str]
    sizes: list[list[Any]]  # per section: [name, files, raw size, injected size, unit]
    status: str  # current | rebuilt | stale | missing | edited
    reasons: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    diff: str = ""

    @property
    def rebuilt(self) -> bool:
        return self.status == "rebuilt"


@dataclass
class Outcome:
    jobs: list[JobReport]
    orphans: list[str]  # deleted by build, or that a build would delete (check)
    warnings: list[str]
    fast: bool

    @property
    def stale(self) -> list[JobReport]:
        return [j for j in self.jobs if j.status in ("stale", "missing", "edited")]


@dataclass(frozen=True)
class Request:
    root: Path
    manifest: Path | None = None
    targets: tuple[str, ...] = ()
    check: bool = False
    diff: bool = False
    # Called after each job as (done, total): the CLI draws its progress line; a library
    # caller gets no output unless it asks.
    on_progress: Callable[[int, int], None] | None = None


def run(request: Request) -> Outcome:
    """Build (or check) the project; raises HotplexError for bad input, BuildFailed for I/O."""
    if request.check:
        return _run(request)
    with ProjectLock(request.root / state_log.STATE_DIR, LOCK_WAIT_SECONDS):
        return _run(request)


def _run(request: Request) -> Outcome:
    manifest_path = request.manifest or request.root / "hotplex.toml"
    fast = _fast_path(request, manifest_path, state_log.load_closing(request.root))
    if fast is not None:
        return fast
    with _no_cyclic_gc():
        return _Builder(request, manifest_path, state_log.load(request.root)).run()


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


# --- the fast path ---------------------------------------------------------------------------


def _fast_path(
    request: Request, manifest_path: Path, closing: state_log.Closing | None
) -> Outcome | None:
    snap = closing.snapshot if closing is not None else None
    if closing is None or snap.get("version") != __version__:
        return None
    if snap.get("manifest") != os.path.relpath(manifest_path, request.root):
        return None  # another manifest (-f): the snapshot says nothing about it
    try:
        return _fast_outcome(request, closing)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError):
        return None  # a snapshot of unexpected shape, or a stat that failed: decide slowly


def _fast_outcome(request: Request, closing: state_log.Closing) -> Outcome | None:
    snap = closing.snapshot
    if any(t not in snap["targets"] for t in request.targets):
        return None  # the slow path names the unknown target
    root = os.fspath(request.root)  # plain strings: Path objects cost more than the stats
    checks = [
        *((f"{root}/{p}", rec) for p, rec in snap["files"].items()),
        *((f"{root}/{p}", rec) for p, rec in snap["dirs"].items()),
        *(snap["package"].items()),
    ]
    if not all(_stamp_matches(path, rec) for path, rec in checks):
        return None  # checked before the reports are even parsed
    reports = closing.jobs()
    if reports is None:
        return None
    wanted = set(request.targets)
    jobs = [j for j in reports if not wanted or j["target"] in wanted]
    outputs = ((f"{root}/{p}", _output_stamp(rec)) for j in jobs for p, rec in j["outputs"].items())
    if not all(_stamp_matches(path, rec) for path, rec in outputs):
        return None
    warnings = list(snap.get("warnings", ()))  # the unused-file report of the last slow build
    return Outcome([_report_from_record(j, "current") for j in jobs], [], warnings, fast=True)


def _stamp_matches(path: str, recorded: list[Any] | None) -> bool:
    current = stamp(path)
    if recorded is None:
        return current is None
    return current is not None and current.as_list() == recorded[:3]


# What the closing reports keep of each job record: enough to report it without the record.
_REPORT_FIELDS = (
    "job",
    "target",
    "worker",
    "platform",
    "primary",
    "outputs",
    "truncations",
    "warnings",
    "sizes",
)


def _report_from_record(record: dict[str, Any], status: str) -> JobReport:
    return JobReport(
        id=record["job"],
        target=record["target"],
        worker=record["worker"],
        platform=record["platform"],
        primary=record["primary"],
        files=[FileReport(p, rec[0], rec[1]) for p, rec in sorted(record["outputs"].items())],
        truncations=record["truncations"],
        warnings=record["warnings"],
        sizes=record["sizes"],
        status=status,
    )


# --- the slow path ---------------------------------------------------------------------------


class _Builder:
    def __init__(self, request: Request, manifest_path: Path, state: state_log.State) -> None:
        from . import model as model_module
        from .sources import Inputs, read_cap

        self.request = request
        self.root = request.root
        self.state = state
        # Every stamp this build records was taken after this instant (see _trusted).
        self.started = time.time_ns()
        self.manifest_stamp = stamp(manifest_path)
        self.model = model_module.load(request.root, manifest_path)
        self.out = self.model.out_dir
        known = {
            path: (Stamp(*rec[:3]), rec[3])
            for path, rec in state.files.items()
            if rec[3] is not None
        }
        self.inputs = Inputs(request.root, read_cap(self.model), known=known)
        self.warnings = [state.warning] if state.warning else []
        self.decided: set[str] = set()  # jobs whose record this build checked or wrote
        self._root = os.fspath(request.root)
        self._disk: dict[str, str | None] = {}  # output path -> sha256 on disk (disk_digest)
        self._stamps: dict[str, Stamp | None] = {}  # output path -> stamp (_stamp)
        self._confined: set[PurePosixPath] = set()  # output folders known to stay inside
        self._target_digests: dict[str, str] = {}
        self.outs = [self.out]  # artifact folders orphans may be in: `out`, then earlier ones
        self.read: dict[str, list[str]] = {}  # job id -> the inputs it consulted (unused files)
        self.unused: list[str] = []
        self.source_folders: tuple[str, ...] = ()

    # planning

    def plan(self) -> list[Job]:
        from hotplex.targets.base import plan

        return plan(self.model)

    def select(self, jobs: list[Job]) -> list[Job]:
        if not self.request.targets:
            return jobs
        names = [t.name for t in self.model.manifest.target]
        for wanted in self.request.targets:
            if wanted not in names:
                raise HotplexError.single(
                    f"no target named '{wanted}' in {self.model.manifest_display}",
                    hint=suggest(wanted, names) or "targets: " + ", ".join(names),
                )
        return [j for j in jobs if j.target.name in self.request.targets]

    # keys

    @cached_property
    def _shared_keys(self) -> dict[str, str]:
        """The key parts every job shares, computed once per build."""
        from . import fingerprint

        manifest = self.model.manifest
        layout = [
            _plain(manifest.project),
            _plain(manifest.channels),
            _plain(self.model.sources),
            _plain(manifest.variants, drop=("platforms",)),
            _plain(manifest.metacognition),
            _plain(manifest.secrets),
        ]
        return {
            "compiler": fingerprint.compiler_digest(),
            "layout": fingerprint.digest(layout),
            "limits": fingerprint.digest(_plain(manifest.limits)),
        }

    def keys(self, job: Job) -> dict[str, str]:
        from hotplex.targets import WORKERS

        from . import fingerprint

        target = job.target
        if target.name not in self._target_digests:
            plain = _plain(target, drop=("platforms", "vars", "base"))
            self._target_digests[target.name] = fingerprint.digest(plain)
        shared = self._shared_keys
        return {
            "compiler": shared["compiler"],
            "profile": fingerprint.profile_digest(WORKERS[target.worker].__file__),
            "target": self._target_digests[target.name],
            "layout": shared["layout"],
            "limits": shared["limits"],
        }

    # deciding

    def reasons(self, job: Job, keys: dict[str, str], record: dict[str, Any] | None) -> list[str]:
        if record is None:
            return ["not built before"]
        reasons = [_KEY_REASONS[k] for k in keys if record["keys"].get(k) != keys[k]]
        reasons += [f"variable '{name}' changed" for name in self.changed_variables(job, record)]
        for path, old in record["inputs"].items():
            new = self.inputs.digest(path)
            if new != old:
                reasons.append(
                    f"new input {path}"
                    if old is None
                    else f"{path} removed"
                    if new is None
                    else f"{path} changed"
                )
        for path, recorded in record["outputs"].items():
            current = self.disk_digest(path, recorded)
            if current is None:
                reasons.append(f"output missing: {path}")
            elif current != recorded[0]:
                reasons.append(f"output edited by hand: {path}")
        return reasons

    def disk_digest(self, path: str, recorded: list[Any] | None) -> str | None:
        """The sha256 of an output on disk (None when absent), read and hashed only when its
        stamp moved since the log recorded it; each file is looked at once per build."""
        if path not in self._disk:
            current = self._stamp(path)
            if current is None:
                digest = None
            elif recorded is not None and current.as_list() == _output_stamp(recorded):
                digest = recorded[0]
            else:
                data = self._read_output(path)
                digest = None if data is None else sha256(data)
            self._disk[path] = digest
        return self._disk[path]

    # running

    def run(self) -> Outcome:
        planned = self.plan()
        jobs = self.select(planned)
        before = dict(self.state.jobs)  # records are replaced, never mutated, by Log.append
        log = None if self.request.check else state_log.Log(self.root, self.state)
        try:
            reports = []
            for index, job in enumerate(jobs, 1):
                reports.append(self.run_job(job, log))
                if self.request.on_progress is not None:
                    self.request.on_progress(index, len(jobs))
            self.report_unused(planned)
            produced = {posixpath.normpath(f.path) for r in reports for f in r.files}
            names = _artifact_names(produced, before)
            self.outs = [self.out, *_earlier_outs(before, self.out, self.model.sources_dir)]
            orphans = self.orphans(produced, names, before, self._scope())
            closing = None
            if log is not None:
                self.delete(orphans, planned, log)
                closing = self.snapshot(planned, produced, names)
        except BaseException:
            if log is not None:
                with contextlib.suppress(HotplexError):
                    log.close(None)
            raise
        if log is not None:
            log.close(closing)
        return Outcome(reports, orphans, self.warnings, fast=False)

    def run_job(self, job: Job, log: state_log.Log | None) -> JobReport:
        from .compile import compile_job

        keys = self.keys(job)
        record = self.state.jobs.get(job.id)
        reasons = self.reasons(job, keys, record)
        self.decided.add(job.id)
        if record is not None and not reasons:
            if log is not None:
                self.restat(record, log)
            self.read[job.id] = record["inputs"]
            return _report_from_record(record, "current")
        compiled = compile_job(self.model, job, self.inputs)
        self.read[job.id] = compiled.inputs
        emitted = compiled.emitted
        digests = {path: sha256(data) for path, data in emitted.files.items()}
        recorded = record["outputs"] if record else {}
        on_disk = {path: self.disk_digest(path, recorded.get(path)) for path in emitted.files}
        changed = [path for path in emitted.files if on_disk[path] != digests[path]]
        diff = self._diff(emitted.files, changed) if self.request.diff else ""
        if self.request.check:
            status, reasons = _check_verdict(on_disk, changed, recorded, reasons)
        else:
            for path in changed:
                write_atomic(self._output_path(path), emitted.files[path])
                self._disk[path] = digests[path]
                self._stamps.pop(path, None)
            status = "rebuilt"
        report = JobReport(
            id=job.id,
            target=job.target.name,
            worker=job.target.worker,
            platform=job.platform,
            primary=emitted.primary,
            files=[FileReport(p, digests[p], len(d)) for p, d in sorted(emitted.files.items())],
            truncations=[t.to_json() for t in emitted.truncations],
            warnings=list(emitted.warnings),
            sizes=[list(s) for s in emitted.sizes],
            status=status,
            reasons=reasons,
            written=[] if self.request.check else changed,
            diff=diff,
        )
        if log is not None:
            log.append(self.record(job, keys, compiled, report))
        return report

    def record(
        self, job: Job, keys: dict[str, str], compiled: Compiled, report: JobReport
    ) -> dict[str, Any]:
        return {
            "job": job.id,
            "target": report.target,
            "worker": report.worker,
            "platform": report.platform,
            "primary": report.primary,
            "keys": keys,
            "inputs": compiled.inputs,
            "variables": compiled.variables,
            "outputs": {
                f.path: self._output_record(f.path, f.sha256, f.bytes) for f in report.files
            },
            "truncations": report.truncations,
            "warnings": report.warnings,
            "sizes": report.sizes,
        }

    def restat(self, record: dict[str, Any], log: state_log.Log) -> None:
        """Record new stamps of outputs whose bytes are verified unchanged (a `touch`, a
        checkout), as ninja's restat does: otherwise the fast path would miss forever."""
        recorded = record["outputs"]
        outputs = {p: self._output_record(p, rec[0], rec[1]) for p, rec in recorded.items()}
        if outputs != recorded:
            log.append({**record, "outputs": outputs})

    def _output_record(self, path: str, digest: str, size: int) -> list[Any]:
        current = self._stamp(path) or Stamp(-1, -1, -1)
        return [digest, size, current.mtime_ns, current.ino]

    def _stamp(self, path: str) -> Stamp | None:
        """An output's stamp, taken once per build unless hotplex writes the file meanwhile."""
        if path not in self._stamps:
            self._stamps[path] = stamp(f"{self._root}/{path}")
        return self._stamps[path]

    def _output_path(self, path: str) -> Path:
        """``root/path``, refused when it leads out of the project (a symlinked folder or file).

        Folders are resolved once per build: a thousand artifacts share a hundred folders."""
        span = Span(self.model.manifest_display, key="project.out")
        rel = check_relative(path, span)
        if rel.parent not in self._confined:
            confine(self.root, rel.parent, span)
            self._confined.add(rel.parent)
        full = self.root / path
        if os.path.islink(full):
            confine(self.root, rel, span)
        return full

    def _read_output(self, path: str) -> bytes | None:
        try:
            return self._output_path(path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as exc:
            raise BuildFailed([Problem(f"cannot read '{path}': {exc.strerror or exc}")]) from None

    def _diff(self, new: dict[str, bytes], changed: list[str]) -> str:
        import difflib

        chunks = []
        for path in changed:
            old = self._read_output(path) or b""
            before = old.decode("utf-8", "replace").splitlines(keepends=True)
            after = new[path].decode("utf-8", "replace").splitlines(keepends=True)
            chunks.extend(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}"))
        return "".join(chunks)

    # files no artifact reads (compiler/unused.py)

    def report_unused(self, planned: list[Job]) -> None:
        """Warn of the files under the sources folder that no planned job read; said nothing
        when some planned job was never built (`build TARGET`), so what it reads is unknown."""
        from . import unused

        read: set[str] = set()
        for job in planned:
            inputs = self.read.get(job.id)
            record = self.state.jobs.get(job.id)
            if inputs is None and record is None:
                return
            read.update(inputs if inputs is not None else record["inputs"])
        found = unused.listing(self.model)
        self.source_folders = found.folders
        self.unused = unused.report(self.model, found, read)
        self.warnings += self.unused

    # orphans

    def _scope(self) -> set[str] | None:
        """Target folders this run answers for: all (None), or those of `build TARGET…`."""
        return set(self.request.targets) or None

    def orphans(
        self,
        produced: set[str],
        names: set[str],
        before: dict[str, dict[str, Any]],
        scope: set[str] | None,
    ) -> list[str]:
        """Files a build deletes, in `scope`: what the log says hotplex wrote that no planned
        artifact is any more (outputs of removed targets, platforms or workers), and files in a
        job folder that carry an artifact's name or are the temp file of a killed write.

        Never outside `out`; nothing that is not in a job folder (a README in `out` stays).
        """
        found = {posixpath.normpath(p) for record in before.values() for p in record["outputs"]}
        found.update(self._strays(names, scope))
        return sorted(
            p
            for p in found - produced
            if self._in_scope(p, scope) and os.path.lexists(self.root / p)
        )

    def _strays(self, names: set[str], scope: set[str] | None) -> set[str]:
        """Artifact-like files in the job folders out/<target>/<platform>/, recorded or not."""
        found = set()
        for target in _entries(os.path.join(self.root, self.out), folders=True):
            if scope is not None and target.name not in scope:
                continue
            for job in _entries(target.path, folders=True):
                found.update(
                    f"{self.out}/{target.name}/{job.name}/{entry.name}"
                    for entry in _entries(job.path, folders=False)
                    if _artifact_like(entry.name, names)
                )
        return found

    def _in_scope(self, path: str, scope: set[str] | None) -> bool:
        out = self._out_of(path)
        if out is None:
            return False
        inside = path.split("/")[len(out.split("/")) :]
        if len(inside) <= JOB_DEPTH or (scope is not None and inside[0] not in scope):
            return False
        real_out = os.path.realpath(self.root / out)
        real_parent = os.path.realpath((self.root / path).parent)
        return real_parent.startswith(real_out + os.sep)

    def _out_of(self, path: str) -> str | None:
        """The artifact folder (``out`` or one the log recorded before) that ``path`` is in."""
        parts = path.split("/")
        if ".." in parts or path.startswith("/"):
            return None
        for out in self.outs:
            if parts[: len(out.split("/"))] == out.split("/"):
                return out
        return None

    def delete(self, orphans: list[str], planned: list[Job], log: state_log.Log) -> None:
        """Delete orphans, then forget the records of jobs no longer planned (in that order, so
        a killed build still knows what to delete next time)."""
        out = self.root / self.out
        for path in orphans:
            try:
                _unlink(self.root / path)
            except OSError as exc:
                problem = Problem(f"cannot delete orphaned '{path}': {exc.strerror or exc}")
                raise BuildFailed([problem]) from None
            crash_point()
            _prune_upward((self.root / path).parent, self.root / (self._out_of(path) or out))
        for earlier in self.outs[1:]:  # a folder `out` named before: gone once it is empty
            with contextlib.suppress(OSError):
                os.rmdir(self.root / earlier)
        scope = self._scope()
        planned_ids = {j.id for j in planned}
        for job_id in list(self.state.jobs):
            if job_id not in planned_ids and (scope is None or job_id.split("/")[0] in scope):
                log.append({"forget": job_id})

    # the snapshot that enables the next fast path

    def snapshot(
        self, planned: list[Job], produced: set[str], names: set[str]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The stamps under which every planned job is current, and the report of each, or None
        when some job is not (a `build TARGET` left others stale, or left orphans elsewhere)."""
        if self.manifest_stamp is None:
            return None
        records = []
        for job in planned:
            record = self.state.jobs.get(job.id)
            if record is None:
                return None
            if job.id not in self.decided and not self.still_current(job, record):
                return None
            records.append(record)
        if self._scope() is not None:
            recorded = {posixpath.normpath(p) for r in records for p in r["outputs"]}
            everything = produced | recorded
            if self.orphans(everything, names, self.state.jobs, None):
                return None
        manifest = os.path.relpath(self.model.manifest_path, self.root)
        files: dict[str, list[Any] | None] = {manifest: self._trusted(self.manifest_stamp, None)}
        for record in records:
            for path in record["inputs"]:
                if path not in files:
                    digest = self.inputs.digest(path)
                    files[path] = self._trusted(self.inputs.stamps.get(path), digest)
        from . import fingerprint

        package_stamps = fingerprint.package_state()[0]
        snapshot = {
            "version": __version__,
            "manifest": manifest,
            "targets": [t.name for t in self.model.manifest.target],
            "files": files,
            "dirs": {**self._dir_stamps(), **self._source_folder_stamps()},
            "warnings": self.unused,
            "package": {p: self._trusted(s, None) for p, s in package_stamps.items()},
        }
        return snapshot, [{k: r[k] for k in _REPORT_FIELDS} for r in records]

    def still_current(self, job: Job, record: dict[str, Any]) -> bool:
        """A job this build did not select: are its record's keys and inputs still true?"""
        if record["keys"] != self.keys(job) or self.changed_variables(job, record):
            return False
        return all(self.inputs.digest(p) == d for p, d in record["inputs"].items())

    def changed_variables(self, job: Job, record: dict[str, Any]) -> list[str]:
        """The template variables the job's files read last time whose values moved since: a
        variable no file reads can change without rebuilding anything."""
        from .sources import variables

        current = variables(self.model, job)
        return [name for name, old in record["variables"].items() if current.get(name) != old]

    def _dir_stamps(self) -> dict[str, list[Any] | None]:
        """`out` and each target folder: an entry added to or removed from them (a stray
        artifact folder) moves their stamp, so the fast path stays exact about orphans."""
        out = os.path.join(self.root, self.out)
        folders = [self.out, *(f"{self.out}/{e.name}" for e in _entries(out, folders=True))]
        stamps = {}
        for folder in folders:
            current = stamp(self.root / folder)
            stamps[folder] = None if current is None else [*current.as_list(), None]
        return stamps

    def _source_folder_stamps(self) -> dict[str, list[Any] | None]:
        """Every folder of the sources folder: a file added to one moves its stamp, so a no-op
        build still reports a new file that no artifact reads."""
        return {f: self._trusted(stamp(self.root / f), None) for f in self.source_folders}

    def _trusted(self, current: Stamp | None, digest: str | None) -> list[Any] | None:
        """A stamp to record: its mtime is replaced by -1 (never matches) when the file was
        modified so shortly before this build read it that a same-tick change could hide."""
        if current is None:
            return None
        mtime = current.mtime_ns if settled(current, self.started) else -1
        return [mtime, current.size, current.ino, digest]


_KEY_REASONS = {
    "compiler": "hotplex itself changed",
    "profile": "worker profile changed",
    "target": "target settings changed",
    "layout": "sources, channels or variants settings changed",
    "limits": "limits changed",
}


def _output_stamp(recorded: list[Any]) -> list[Any]:
    """[mtime, size, ino] of an output record [sha256, bytes, mtime, ino]."""
    return [recorded[2], recorded[1], recorded[3]]


def _earlier_outs(before: dict[str, dict[str, Any]], out: str, sources: str) -> list[str]:
    """Artifact folders the log recorded outputs in, other than ``out`` (``[project] out`` was
    changed): their recorded files are orphans like any other. A folder that is, holds or lies
    in the sources folder, or is the project itself, is never one."""
    from .model import same_or_inside

    found = set()
    for record in before.values():
        marker = f"/{record['job']}/"
        for path in record["outputs"]:
            earlier = posixpath.normpath(path).partition(marker)[0]
            if marker in path and earlier not in (out, ".", ""):
                found.add(earlier)
    return sorted(
        e for e in found if not (same_or_inside(e, sources) or same_or_inside(sources, e))
    )


def _artifact_names(produced: set[str], before: dict[str, dict[str, Any]]) -> set[str]:
    """The file names hotplex gives artifacts (prompt.xml, payload.json…), from this build and
    the log: in a job folder, only files with such a name are taken for hotplex's own."""
    recorded = (p for record in before.values() for p in record["outputs"])
    return {posixpath.basename(p) for p in (*produced, *recorded)}


def _artifact_like(name: str, names: set[str]) -> bool:
    return name in names or any(is_temp_of(name, n) for n in names)


def _entries(folder: str, folders: bool) -> list[os.DirEntry[str]]:
    """The sub-folders (or the other entries) of ``folder``; none when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return [e for e in entries if e.is_dir(follow_symlinks=False) == folders]
    except OSError:
        return []


def _plain(value: Any, drop: tuple[str, ...] = ()) -> Any:
    import attrs

    if attrs.has(type(value)):
        return {
            k: _plain(v) for k, v in attrs.asdict(value, recurse=False).items() if k not in drop
        }
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_verdict(
    on_disk: dict[str, str | None],
    changed: list[str],
    recorded: dict[str, list[Any]],
    reasons: list[str],
) -> tuple[str, list[str]]:
    """What `check` says of a job it compiled: current when the bytes on disk are already
    right; else missing, else edited (the bytes on disk are not the ones hotplex last wrote),
    else stale. Without a record (a fresh clone) the reasons are the differing files."""
    if not changed:
        return "current", []
    if not recorded:
        reasons = [
            f"output missing: {p}" if on_disk[p] is None else f"{p} differs from a fresh build"
            for p in changed
        ]
    if any(on_disk[p] is None for p in changed):
        return "missing", reasons
    if any(p in recorded and on_disk[p] != recorded[p][0] for p in changed):
        return "edited", reasons
    return "stale", reasons


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _prune_upward(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents while they are empty, up to (not including) ``stop``."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (or not ours to remove): its parents are not empty either
        folder = folder.parent


def _prune_empty(folder: Path) -> None:
    """Remove every empty folder under ``folder`` (not ``folder`` itself), deepest first."""
    for current, _dirs, _files in os.walk(folder, topdown=False):
        if Path(current) != folder:
            with contextlib.suppress(OSError):
                os.rmdir(current)  # fails, harmlessly, when the folder is not empty
