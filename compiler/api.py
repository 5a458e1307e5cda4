"""The library API for gateways: compile an artifact in memory, per session, without touching disk.

A long-lived gateway compiles thousands of sessions from the same files, so a ``Project`` keeps
what it parsed: the model (reloaded when the manifest's stamp moves), each file's decoded text
(re-read only when its stamp moves) and each compiled artifact (reused while none of the files it
consulted moved). Example::

    from hotplex import Project

    project = Project.load("agent-project")
    prompt = project.compile("cc", platform="slack").text
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import attrs
from hotplex.errors import BuildFailed, HotplexError, Problem, suggest
from hotplex.fs import Stamp, settled, stamp
from hotplex.manifest.read import MANIFEST_NAME

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.records import Emitted, SectionSize, Truncation
    from hotplex.sources.overlay import OverlayFile
    from hotplex.sources.resolve import Inputs


@attrs.frozen
class Artifact:
    """One compiled artifact set, in memory. ``truncations`` and ``sizes`` are typed records
    (``cut.limit``, ``size.injected``); ``Truncation.to_json()`` gives a cut as the ``--json``
    report writes it."""

    target: str
    worker: str
    platform: str | None
    path: str  # where `hotplex build` writes the primary file, relative to the project
    text: str  # the primary file's text: prompt.xml, payload.json or context.md
    files: dict[str, bytes]
    truncations: tuple[Truncation, ...]
    warnings: tuple[str, ...]
    sizes: tuple[SectionSize, ...]

    def file(self, name: str) -> bytes:
        """Another file of the artifact's folder by its name there (``agents/reviewer.md``)."""
        folder = self.path.rpartition("/")[0]
        found = self.files.get(f"{folder}/{name}")
        if found is None:
            names = [p.removeprefix(f"{folder}/") for p in self.files]
            raise HotplexError.single(
                f"target '{self.target}' writes no file '{name}'",
                hint=suggest(name, names) or "files: " + ", ".join(names),
            )
        return found


# How often a compile is run again while the files it read keep changing under it.
COMPILE_TRIES = 5


@dataclass(frozen=True)
class _Cached:
    artifact: Artifact
    stamps: dict[str, Stamp | None]


class Project:
    """A hotplex project loaded for repeated in-memory compiles."""

    def __init__(self, root: Path, manifest: Path | None = None) -> None:
        self.root = root
        self._manifest_path = manifest or root / MANIFEST_NAME
        self._manifest_stamp: Stamp | None = None
        self._model = None
        self._inputs = None
        self._artifacts: dict[str, _Cached] = {}
        self._jobs: list = []
        self._read_cap = 0  # bytes worth reading of one file (sources.read_cap), with the model
        self._lock = threading.RLock()

    @classmethod
    def load(cls, path: str | Path = ".", manifest: str | Path | None = None) -> Project:
        """Load and validate the project at ``path``; raises ``HotplexError`` for bad input."""
        project = cls(Path(path), Path(manifest) if manifest is not None else None)
        project._refresh()
        return project

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

    def compile(
        self,
        target: str,
        platform: str | None = None,
        overlay: Mapping[str, str | bytes | os.PathLike[str]] | None = None,
        *,
        overlay_names: Mapping[str, str] | None = None,
    ) -> Artifact:
        """The artifact ``hotplex build`` would write for ``target`` and ``platform``.

        ``overlay`` maps files of the sources folder (``"USER.md"``, ``"memory/2026-11-29.md"``)
        to the text they hold for this call only (``str``, UTF-8 ``bytes``, or a
        ``pathlib.Path`` to read it from, capped like a source): a gateway's per-user files.
        They get everything a file on disk gets (frontmatter, templates, sanitizer, limits,
        secret and hidden-text scans, daily-log selection); nothing is written or kept for
        later calls. A key no source reads, or a value of another type, is a ``HotplexError``.
        ``overlay_names`` says how messages name an overlaid file (default ``overlay:USER.md``,
        or the path read). Thread-safe: calls on one ``Project`` run one at a time.

        .. versionchanged:: issue 15 ``overlay``.
        """
        with self._lock:
            # One whole compile: a file saved while the compile read the others (a stamp that
            # moved since it was read, the manifest's too) would mix old and new text, so the
            # compile runs again on what is there now.
            for _ in range(COMPILE_TRIES):
                artifact, read = self._compile(target, platform, overlay, overlay_names)
                if self._unmoved(read):
                    return artifact
            raise BuildFailed(
                [
                    Problem(
                        f"the files of target '{target}' kept changing while they were compiled"
                        f" ({COMPILE_TRIES} tries)",
                        hint="compile again once the files are saved",
                    )
                ]
            )

    def _compile(
        self,
        target: str,
        platform: str | None,
        overlay: Mapping[str, str | bytes | os.PathLike[str]] | None,
        labels: Mapping[str, str] | None,
    ) -> tuple[Artifact, dict[str, Stamp | None]]:
        """The artifact and the stamps of the files it was compiled from as they were read
        (none for a cached one: its stamps were checked just now)."""
        job = self._job(target, platform)
        if overlay is not None or labels is not None:
            from hotplex.sources import overlay as overlays

            files = overlays.prepare(self._model, overlay, labels, self._read_cap, self._jobs)
            if files:
                return self._compile_overlay(job, platform, files)
        cached = self._artifacts.get(job.id)
        if cached is not None and all(stamp(self.root / p) == s for p, s in cached.stamps.items()):
            return cached.artifact, {}
        from hotplex.document.compile import compile_job

        inputs = self._fresh_inputs()
        compiled = compile_job(self._model, job, inputs)
        artifact = _artifact(job, platform, compiled.emitted)
        stamps = {p: inputs.stamps.get(p) for p in compiled.inputs}
        if all(s is None or settled(s, inputs.started_ns) for s in stamps.values()):
            self._artifacts[job.id] = _Cached(artifact, stamps)
        else:  # a file written just before it was read: its stamp cannot vouch for it yet
            self._artifacts.pop(job.id, None)
        return artifact, stamps

    def _compile_overlay(
        self, job: Job, platform: str | None, files: dict[str, OverlayFile]
    ) -> tuple[Artifact, dict[str, Stamp | None]]:
        """One call's compile through its overlay; the base files come from (and stay in) the
        shared reader, read again only when their stamps move."""
        from hotplex.document.compile import compile_job
        from hotplex.sources import overlay as overlays

        base = self._inputs
        if base is None or not self._base_current(base):
            base = self._fresh_inputs()
        compiled = compile_job(self._model, job, overlays.OverlayInputs(base, files))
        overlays.check_used(files, list(compiled.inputs), self._model, self._jobs)
        names = {display: file.label for display, file in files.items()}
        read = {p: base.stamps.get(p) for p in compiled.inputs if p not in files}
        return _artifact(job, platform, compiled.emitted, names), read

    def _unmoved(self, read: Mapping[str, Stamp | None]) -> bool:
        """Whether the manifest and every file in ``read`` still have the stamps they were read
        with: then the compile saw one state of the files, as a build would."""
        root = f"{self.root}/"
        return stamp(self._manifest_path) == self._manifest_stamp and all(
            stamp(root + p) == s for p, s in read.items()
        )

    def _base_current(self, inputs: Inputs) -> bool:
        """Whether every file the shared reader holds still has the stamp it was read with."""
        root = f"{self.root}/"  # string paths: a pathlib join per file costs more than its stat
        stamps = list(inputs.stamps.items())
        return all(s is None or stamp(root + p) == s for p, s in stamps) and all(
            settled(s, inputs.started_ns) for _, s in stamps if s is not None
        )

    def _job(self, target: str, platform: str | None) -> Job:
        from hotplex.manifest.jobs import find

        self._refresh()
        return find(self._model, self._jobs, target, platform)

    def _refresh(self) -> None:
        """Reload the model when the manifest moved; forget everything compiled from the old one."""
        current = stamp(self._manifest_path)
        if self._model is not None and current == self._manifest_stamp:
            return
        from hotplex.manifest import load as loading
        from hotplex.manifest.jobs import plan
        from hotplex.sources.resolve import read_cap

        self._model = loading.load(self.root, self._manifest_path)
        self._jobs = plan(self._model)
        self._read_cap = read_cap(self._model)
        self._manifest_stamp = current
        self._inputs = None
        self._artifacts.clear()

    def _fresh_inputs(self):
        """A reader that reuses every file the last one read, unless its stamp moved."""
        from hotplex.sources.logs import days_glob
        from hotplex.sources.resolve import Inputs

        previous = self._inputs
        inputs = Inputs(self.root, self._read_cap, days_glob(self._model), sections={})
        if previous is not None:
            inputs.adopt(previous)
        self._inputs = inputs
        return inputs


def _artifact(
    job: Job, platform: str | None, emitted: Emitted, names: Mapping[str, str] | None = None
) -> Artifact:
    """The call's answer; an overlaid file is named by its label (``overlay_names``, the path
    it was read from, or ``overlay:USER.md``), never by the project file it stands in for."""
    names = names or {}
    truncations = tuple(
        attrs.evolve(t, files=tuple(names.get(f, f) for f in t.files)) for t in emitted.truncations
    )
    sizes = tuple(
        attrs.evolve(s, files=tuple(names.get(f, f) for f in s.files)) for s in emitted.sizes
    )
    return Artifact(
        target=job.target.name,
        worker=job.target.worker,
        platform=platform,
        path=emitted.primary,
        text=emitted.files[emitted.primary].decode("utf-8"),
        files=dict(emitted.files),
        truncations=truncations,
        warnings=emitted.warnings,
        sizes=sizes,
    )
