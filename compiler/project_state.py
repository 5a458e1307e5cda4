"""What a ``Project`` (``api.py``) keeps between calls and how it knows it is still current:
the model, reloaded when the manifest's stamp moves (and the on-disk checks asked again when a
folder on the way moved), the jobs, the shared reader of the source files (``sources.resolve.
Inputs``, each file re-read only when its stamp moves), and the stamp checks a compile's answer
is given on."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from hotplex.errors import HotplexError, suggest
from hotplex.fs import Stamp, settled, stamp

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from threading import RLock

    from hotplex.artifact import Artifact
    from hotplex.document.plan import Plan
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model
    from hotplex.sources.inputs import Inputs


class ProjectState:
    """The model, the jobs and the shared reader of a ``Project``, kept current (a mixin: the
    fields are ``Project.__init__``'s)."""

    @property
    def lock(self) -> RLock:
        """Held by every call: a caller holding it runs several calls on one state of the
        project (the server's base artifact and a per-user compile on the same files)."""
        return self._lock

    @property
    def model(self):
        with self._lock:  # a reload by one thread while another compiles would mix models
            self._refresh()
            return self._model

    def targets(self) -> list[str]:
        return [t.name for t in self.model.manifest.target]

    def jobs(self) -> list:
        """Every (target, platform) this project builds, in manifest order."""
        with self._lock:
            self._refresh()
            return list(self._jobs)

    def _policy(self, on_finding: str | None) -> str:
        """``on_finding`` checked, or the manifest's (loaded: called after ``_refresh``)."""
        if on_finding is None:
            return self._model.manifest.overlay.on_finding
        if on_finding not in ("error", "block"):
            raise HotplexError.single(
                f"on_finding must be 'error' or 'block', not {on_finding!r}",
                hint=suggest(str(on_finding), ["error", "block"]),
            )
        return on_finding

    def _unmoved(self, read: Mapping[str, Stamp | None]) -> bool:
        """Whether the manifest and every file in ``read`` still have the stamps they were read
        with: then the compile saw one state of the files, as a build would."""
        return stamp(self._manifest_path) == self._manifest_stamp and all(
            self._stat(p) == s for p, s in read.items()
        )

    def _stat(self, display: str) -> Stamp | None:
        """The stamp that vouches for ``display``: a package file's is its cached copy's (the
        project holds no such file), while hotplex.lock is the one the reader pinned it from."""
        pinned = self._inputs.packages if self._inputs is not None else None
        if pinned is None or display not in pinned.files:
            return stamp(f"{self.root}/{display}")
        from hotplex.manifest.read import LOCK_NAME
        from hotplex.sources.packages import blob_path

        if stamp(self.root / LOCK_NAME) != self._pins_stamp:
            return None
        return stamp(blob_path(pinned.files[display]))

    def _base_current(self, inputs: Inputs) -> bool:
        """Whether every file the shared reader holds still has the stamp it was read with, one
        stat each: an absent file (a variant looked for) still absent too, or a variant saved
        since would never be read by an overlaid compile."""
        started = inputs.started_ns
        for p, s in list(inputs.stamps.items()):
            if s is None:
                if self._stat(p) is not None:
                    return False
            elif self._stat(p) != s or not settled(s, started):
                return False
        return True

    def base_as_read(self, target: str, platform: str | None) -> Artifact | None:
        """The base artifact of ``target`` at ``platform`` when the last call's shared reader
        holds every file it was compiled from at the stamp it was compiled from: the files a
        per-user compile just read (and checked) are those of this artifact, with no stat of
        its own. None when one differs, or no such artifact is kept (compile it to know).
        Call it holding ``lock``, right after that compile."""
        with self._lock:
            from hotplex.manifest.jobs import find

            inputs = self._inputs
            if inputs is None or self._model is None:
                return None
            cached = self._artifacts.get(find(self._model, self._jobs, target, platform).id)
            if cached is None:
                return None
            stamps = inputs.stamps
            if all(p in stamps and stamps[p] == s for p, s in cached.stamps.items()):
                return cached.artifact
            return None

    def _job(self, target: str, platform: str | None) -> Job:
        from hotplex.manifest.jobs import find

        self._refresh()
        return find(self._model, self._jobs, target, platform)

    def _refresh(self) -> None:
        """Reload the model when the manifest moved; forget everything compiled from the old one."""
        current = stamp(self._manifest_path)
        if self._model is not None and current == self._manifest_stamp:
            # The sources folder moved away, deleted or replaced since (by a symlink to the same
            # folder, which no stamp tells): what a load says of it, asked again whenever the
            # lstat of a folder on the way moved (``disk_key``).
            from hotplex.manifest.load import check_on_disk, disk_key

            manifest = self._model.manifest
            key = disk_key(self.root, manifest)
            if key is None or key != self._disk_key:
                self._disk_key = None
                check_on_disk(self.root, manifest, self._model.manifest_display)
                # Only a key that held all through the checks vouches for their answer.
                self._disk_key = key if key == disk_key(self.root, manifest) else None
            return
        from hotplex.manifest import load as loading
        from hotplex.manifest.jobs import plan
        from hotplex.sources.inputs import read_cap

        self._disk_key = None  # the load's checks ran before any key: the next call keys them
        self._model = loading.load(self.root, self._manifest_path)
        self._jobs = plan(self._model)
        self._read_cap = read_cap(self._model)
        self._manifest_stamp = current
        self._inputs = None
        self._artifacts.clear()
        self._plans.clear()

    def _read_by_jobs(self) -> frozenset[str]:
        """What every job's base compile reads (``Plans.read_by_jobs``), with a current reader."""
        kept = self._plans.jobs_read(self._model, self._inputs)
        if kept is not None:
            return kept
        base = self._inputs
        if base is None or not self._base_current(base):
            base = self._fresh_inputs()
        return self._plans.read_by_jobs(self._model, self._jobs, base)

    def _fresh_inputs(self):
        """A reader that reuses every file the last one read, unless its stamp moved."""
        from hotplex.manifest.read import LOCK_NAME
        from hotplex.sources.inputs import Inputs

        previous = self._inputs
        self._pins_stamp = stamp(self.root / LOCK_NAME)  # before the reader reads it
        inputs = Inputs.of(self._model)[0]
        self._plans.clear()  # each made with the reader this one replaces (``document/plan.py``)
        if previous is not None:
            inputs.adopt(previous)
            inputs.sections = previous.sections  # content-addressed: a moved file misses
        self._inputs = inputs
        return inputs


class Plans:
    """A project's overlay plans (``document/plan.py``), one per job and set of overlaid files
    (``key``): at most ``KEPT``, the oldest first out; and what every job's base compile reads,
    which an overlay's keys are checked against. Each is kept with the model and the reader it
    was made with, and holds for them alone."""

    KEPT = 256

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, frozenset[str]], Plan] = {}
        self._job_reads: tuple[Model, Inputs, frozenset[str]] | None = None

    def valid(self, key: tuple[str, frozenset[str]], model: Model, base: Inputs) -> Plan | None:
        """The plan kept for ``key`` when it was made with ``model`` and ``base``; one made with
        a reader or a model since replaced (a base file or the manifest moved) is not."""
        plan = self._by_key.get(key)
        if plan is None or plan.base is not base or plan.model is not model:
            return None
        return plan

    def keep(self, key: tuple[str, frozenset[str]], plan: Plan | None) -> None:
        """``plan`` kept for ``key`` (None: none could be made, ``plan.made``)."""
        if plan is None:
            return
        if len(self._by_key) >= self.KEPT and key not in self._by_key:
            self._by_key.pop(next(iter(self._by_key)))
        self._by_key[key] = plan

    def values(self) -> Iterator[Plan]:
        return iter(list(self._by_key.values()))

    def jobs_read(self, model: Model | None, base: Inputs | None) -> frozenset[str] | None:
        """What ``read_by_jobs`` found with ``model`` and ``base``, if it was asked of them."""
        kept = self._job_reads
        if kept is not None and kept[0] is model and kept[1] is base:
            return kept[2]
        return None

    def read_by_jobs(self, model: Model, jobs: list[Job], base: Inputs) -> frozenset[str]:
        """Every file some job's compile of the base files reads, its includes and Claude
        ``@path`` imports too: the overlay keys a gateway may pass to every call
        (``sources.overlay.check_used``). Resolved once per model and shared reader (a moved
        base file makes a new reader, which may include other files); a job whose base files
        fail to compile adds nothing (its compile says why)."""
        from hotplex.sources.resolve import resolve

        read: set[str] = set()
        for job in jobs:
            try:
                read.update(resolve(model, job, base).consulted)
            except HotplexError:
                continue
        self._job_reads = (model, base, frozenset(read))
        return self._job_reads[2]

    def clear(self) -> None:
        self._by_key.clear()
        self._job_reads = None
