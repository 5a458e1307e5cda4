"""The build: plan jobs, decide which are dirty and why, compile those, write what changed, record.

Two paths. The fast path reads only the build log: when its last snapshot covers the request and
every file it names (manifest, inputs, absent variant candidates, outputs, hotplex's own files)
has the same stamp, nothing can have changed. Otherwise the slow path loads the manifest and
checks each job against its log record: key parts, each input's content hash, each output's
bytes. ``check`` runs the same decision but writes nothing: it compiles a dirty job in memory and
calls the artifact current when the bytes on disk are already what a build would write.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, fingerprint
from . import state as state_log
from .errors import HotplexError, Span, suggest
from .fs import ProjectLock, Stamp, check_relative, confine, sha256, stamp, write_atomic

if TYPE_CHECKING:
    from hotplex.targets.base import Job

# A file modified this close to when it was read may change again within the same timestamp
# tick; its stamp is not trusted next time (git's "racily clean" rule).
RACY_NS = 20_000_000
COARSE_RACY_NS = 2_000_000_000
LOCK_WAIT_SECONDS = float(os.environ.get("HOTPLEX_LOCK_TIMEOUT", "60"))
# Files at least this deep under `out` (out/<target>/<platform>/<file>) belong to hotplex.
JOB_DEPTH = 3


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
    sizes: list[list[Any]]
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


def run(request: Request) -> Outcome:
    """Build (or check) the project; raises HotplexError for bad input."""
    if request.check:
        return _run(request, state_log.load(request.root))
    with ProjectLock(request.root / state_log.STATE_DIR, LOCK_WAIT_SECONDS):
        return _run(request, state_log.load(request.root))


def _run(request: Request, state: state_log.State) -> Outcome:
    manifest_path = request.manifest or request.root / "hotplex.toml"
    fast = _fast_path(request, manifest_path, state)
    if fast is not None:
        return fast
    return _Builder(request, manifest_path, state).run()


# --- the fast path ---------------------------------------------------------------------------


def _stamp_matches(path: Path, recorded: list[Any] | None) -> bool:
    current = stamp(path)
    if recorded is None:
        return current is None
    return current is not None and current.as_list() == recorded[:3]


def _fast_path(request: Request, manifest_path: Path, state: state_log.State) -> Outcome | None:
    snap = state.snapshot
    if snap is None or state.warning or snap.get("version") != __version__:
        return None
    if snap.get("manifest") != str(manifest_path) or snap.get("diff_requested"):
        return None
    jobs = snap.get("jobs", [])
    selected = [j for j in jobs if not request.targets or j.split("/", 1)[0] in request.targets]
    if request.targets and not set(request.targets) <= {j.split("/", 1)[0] for j in jobs}:
        return None
    root = request.root
    if not all(j in state.jobs for j in selected):
        return None
    checks = [
        *((root / p, rec) for p, rec in snap.get("files", {}).items()),
        *((Path(p), rec) for p, rec in snap.get("package", {}).items()),
        *(
            (root / p, _output_stamp(rec))
            for j in selected
            for p, rec in state.jobs[j]["outputs"].items()
        ),
    ]
    if not all(_stamp_matches(path, rec) for path, rec in checks):
        return None
    reports = [_report_from_record(state.jobs[j], "current") for j in selected]
    return Outcome(reports, [], [], fast=True)


def _report_from_record(record: dict[str, Any], status: str) -> JobReport:
    return JobReport(
        id=record["job"],
        target=record["target"],
        worker=record["worker"],
        platform=record["platform"],
        primary=record["primary"],
        files=[FileReport(p, rec[0], rec[1]) for p, rec in record["outputs"].items()],
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
        self.state = state
        self.model = model_module.load(request.root, manifest_path)
        known = {
            path: (Stamp(*rec[:3]), rec[3])
            for path, rec in state.files.items()
            if rec is not None and rec[3] is not None
        }
        self.inputs = Inputs(request.root, read_cap(self.model), known=known)
        self.warnings = [state.warning] if state.warning else []

    # planning

    def plan(self) -> list[Job]:
        from hotplex.targets.base import Job

        jobs = []
        for target in self.model.manifest.target:
            if target.base:
                jobs.append(Job(target, None))
            jobs.extend(Job(target, p) for p in self.model.platforms_of(target))
        return jobs

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

    def keys(self, job: Job) -> dict[str, str]:
        from hotplex.targets import WORKERS

        from .sources import variables

        manifest = self.model.manifest
        layout = [
            _plain(manifest.project),
            _plain(manifest.channels),
            _plain(manifest.source),
            _plain(manifest.variants, drop=("platforms",)),
            _plain(manifest.metacognition),
            _plain(manifest.secrets),
        ]
        return {
            "compiler": fingerprint.compiler_digest(),
            "profile": fingerprint.profile_digest(WORKERS[job.target.worker].__file__),
            "target": fingerprint.digest(_plain(job.target, drop=("platforms", "vars", "base"))),
            "layout": fingerprint.digest(layout),
            "limits": fingerprint.digest(_plain(manifest.limits)),
            "vars": fingerprint.digest(variables(self.model, job)),
        }

    # deciding

    def reasons(self, job: Job, keys: dict[str, str]) -> list[str]:
        record = self.state.jobs.get(job.id)
        if record is None:
            return ["not built before"]
        reasons = [_KEY_REASONS[k] for k in keys if record["keys"].get(k) != keys[k]]
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
            current = self.output_digest(path, recorded)
            if current is None:
                reasons.append(f"output missing: {path}")
            elif current != recorded[0]:
                reasons.append(f"output edited by hand: {path}")
        return reasons

    def output_digest(self, path: str, recorded: list[Any]) -> str | None:
        full = self.request.root / path
        current = stamp(full)
        if current is None:
            return None
        if current.as_list() == _output_stamp(recorded):
            return recorded[0]
        return sha256(full.read_bytes())

    # running

    def run(self) -> Outcome:
        jobs = self.select(self.plan())
        log = None if self.request.check else state_log.Log(self.request.root, self.state)
        reports: list[JobReport] = []
        try:
            for index, job in enumerate(jobs, 1):
                reports.append(self.run_job(job, log))
                _progress(index, len(jobs))
            orphans = self.orphans(jobs, reports)
            if log is not None:
                self.delete(orphans, log)
        except BaseException:
            if log is not None:
                log.close(None)
            raise
        if log is not None:
            log.close(self.snapshot())
        return Outcome(reports, orphans, self.warnings, fast=False)

    def run_job(self, job: Job, log: state_log.Log | None) -> JobReport:
        from .compile import compile_job

        keys = self.keys(job)
        reasons = self.reasons(job, keys)
        record = self.state.jobs.get(job.id)
        if not reasons and record is not None:
            return _report_from_record(record, "current")
        compiled = compile_job(self.model, job, self.inputs)
        emitted = compiled.emitted
        on_disk = {path: self._read_output(path) for path in emitted.files}
        changed = [path for path, data in emitted.files.items() if on_disk[path] != data]
        if self.request.check:
            status = "current" if not changed else _check_status(on_disk, changed)
        else:
            for path in changed:
                write_atomic(self._output_path(path), emitted.files[path])
            old_outputs = (record or {}).get("outputs", {})
            for path in [p for p in old_outputs if p not in emitted.files]:
                _unlink(self._output_path(path))
            status = "rebuilt"
        report = JobReport(
            id=job.id,
            target=job.target.name,
            worker=job.target.worker,
            platform=job.platform,
            primary=emitted.primary,
            files=[FileReport(p, sha256(d), len(d)) for p, d in emitted.files.items()],
            truncations=[t.to_json() for t in emitted.truncations],
            warnings=list(emitted.warnings),
            sizes=[list(s) for s in emitted.sizes],
            status=status,
            reasons=reasons,
            written=[] if self.request.check else changed,
            diff=_diff(on_disk, emitted.files, changed) if self.request.diff else "",
        )
        if log is not None:
            log.append(self.record(job, keys, compiled.inputs, report))
        return report

    def record(
        self, job: Job, keys: dict[str, str], inputs: dict[str, str | None], report: JobReport
    ) -> dict[str, Any]:
        outputs = {}
        for file in report.files:
            current = stamp(self.request.root / file.path) or Stamp(-1, -1, -1)
            outputs[file.path] = [file.sha256, file.bytes, current.mtime_ns, current.ino]
        return {
            "job": job.id,
            "target": report.target,
            "worker": report.worker,
            "platform": report.platform,
            "primary": report.primary,
            "keys": keys,
            "inputs": inputs,
            "outputs": outputs,
            "truncations": report.truncations,
            "warnings": report.warnings,
            "sizes": report.sizes,
        }

    def _output_path(self, path: str) -> Path:
        span = Span(self.model.manifest_display, key="project.out")
        return confine(self.request.root, check_relative(path, span), span)

    def _read_output(self, path: str) -> bytes | None:
        try:
            return self._output_path(path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None

    # orphans

    def orphans(self, jobs: list[Job], reports: list[JobReport]) -> list[str]:
        """Files a build deletes: outputs of jobs no longer planned, and unowned job-folder files.

        Only whole builds decide this, and only inside `out`: a file directly in `out` or one
        folder down (a README, say) is never a job's, so it is left alone.
        """
        if self.request.targets:
            return []
        produced = {f.path for r in reports for f in r.files}
        planned_ids = {j.id for j in jobs}
        found = {
            path
            for job_id, record in self.state.jobs.items()
            if job_id not in planned_ids
            for path in record["outputs"]
        }
        out_rel = Path(self.model.manifest.project.out)
        out = self.request.root / out_rel
        for folder, _dirs, names in os.walk(out):
            inside = Path(folder).relative_to(out)
            if len(inside.parts) + 1 >= JOB_DEPTH:
                found.update(
                    (out_rel / inside / n).as_posix() for n in names if not n.startswith(".")
                )
        return sorted(p for p in found if p not in produced and (self.request.root / p).exists())

    def delete(self, orphans: list[str], log: state_log.Log) -> None:
        gone = set(orphans)
        for path in orphans:
            _unlink(self._output_path(path))
        for job_id in [j for j, r in self.state.jobs.items() if gone & set(r["outputs"])]:
            log.append({"forget": job_id})
        _prune_empty(self.request.root / self.model.manifest.project.out)

    # the snapshot that enables the next fast path

    def snapshot(self) -> dict[str, Any] | None:
        planned = self.plan()
        if any(j.id not in self.state.jobs for j in planned):
            return None  # some job was never built (a partial `build TARGET`)
        manifest_stamp = stamp(self.model.manifest_path)
        if manifest_stamp is None:
            return None
        now = time.time_ns()
        files: dict[str, list[Any] | None] = {
            os.path.relpath(self.model.manifest_path, self.request.root): _trusted(
                manifest_stamp, None, now
            )
        }
        for record in self.state.jobs.values():
            for path in record["inputs"]:
                if path not in files:
                    current = self.inputs.stamps.get(path) or stamp(self.request.root / path)
                    digest = self.inputs.digests.get(path)
                    files[path] = None if current is None else _trusted(current, digest, now)
        package = {str(f): s.as_list() for f in fingerprint.package_files() if (s := stamp(f))}
        return {
            "version": __version__,
            "manifest": str(self.model.manifest_path),
            "jobs": [j.id for j in planned],
            "files": files,
            "package": package,
        }


_KEY_REASONS = {
    "compiler": "hotplex itself changed",
    "profile": "worker profile changed",
    "target": "target settings changed",
    "layout": "sources, channels or variants settings changed",
    "limits": "limits changed",
    "vars": "vars changed",
}


def _output_stamp(recorded: list[Any]) -> list[Any]:
    """[mtime, size, ino] of an output record [sha256, bytes, mtime, ino]."""
    return [recorded[2], recorded[1], recorded[3]]


def _trusted(current: Stamp, digest: str | None, now: int) -> list[Any]:
    window = COARSE_RACY_NS if current.mtime_ns % 1_000_000_000 == 0 else RACY_NS
    mtime = current.mtime_ns if current.mtime_ns < now - window else -1
    return [mtime, current.size, current.ino, digest]


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


def _check_status(on_disk: dict[str, bytes | None], changed: list[str]) -> str:
    return "missing" if any(on_disk[p] is None for p in changed) else "stale"


def _diff(old: dict[str, bytes | None], new: dict[str, bytes], changed: list[str]) -> str:
    import difflib

    chunks = []
    for path in changed:
        before = (old[path] or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = new[path].decode("utf-8", "replace").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}"))
    return "".join(chunks)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _prune_empty(folder: Path) -> None:
    if not folder.is_dir():
        return
    for current, dirs, files in os.walk(folder, topdown=False):
        if not dirs and not files and Path(current) != folder:
            with contextlib.suppress(OSError):
                os.rmdir(current)
        elif Path(current) != folder and not os.listdir(current):
            os.rmdir(current)


def _progress(index: int, total: int) -> None:
    from . import console

    console.progress(index, total)
