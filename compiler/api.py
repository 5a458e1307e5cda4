"""The library API for gateways: compile an artifact in memory, per session, without touching disk.

A long-lived gateway compiles thousands of sessions from the same files, so a ``Project`` keeps
what it parsed: the model (reloaded when the manifest's stamp moves), each file's decoded text
(re-read only when its stamp moves), the resolved sections (``sources/sections.py``: content-
addressed, so a moved file simply misses; bounded, least recently used first out; never a
section an overlay touched) and each compiled artifact (reused while none of the files it
consulted moved). Example::

    from hotplex import Project

    project = Project.load("agent-project")
    prompt = project.compile("cc", platform="slack").text
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hotplex.artifact import Artifact
from hotplex.errors import BuildFailed, Problem
from hotplex.fs import Stamp, settled
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.memory.calls import MemoryCalls
from hotplex.project_calls import GatewayCalls
from hotplex.project_state import Plans, ProjectState
from hotplex.text import memo

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model
    from hotplex.records import Emitted, Finding
    from hotplex.sources.overlay import OverlayFile


# How often a compile is run again while the files it read keep changing under it.
COMPILE_TRIES = 5


@dataclass(frozen=True)
class _Cached:
    artifact: Artifact
    stamps: dict[str, Stamp | None]


class Project(ProjectState, GatewayCalls, MemoryCalls):
    """A hotplex project loaded for repeated in-memory compiles: the compile here, what it
    keeps between calls in ``ProjectState`` (``project_state.py``), the guard, warnings and
    learning in ``GatewayCalls`` (``project_calls.py``), the daily logs' calls in
    ``MemoryCalls`` (``memory/calls.py``)."""

    def __init__(self, root: Path, manifest: Path | None = None) -> None:
        self.root = root
        self._manifest_path = manifest or root / MANIFEST_NAME
        self._manifest_stamp: Stamp | None = None
        self._model = None
        self._inputs = None
        self._pins_stamp: Stamp | None = None  # hotplex.lock's, as ``_inputs`` read it
        self._artifacts: dict[str, _Cached] = {}
        self._plans = Plans()  # and what every job reads, by model and reader (``Plans``)
        self._jobs: list = []
        self._read_cap = 0  # bytes worth reading of one file (sources.read_cap), with the model
        # ``load.disk_key`` when the on-disk checks last passed (None: ask them every time).
        self._disk_key: tuple | None = None
        # ``warnings()``' last answer: the cached artifacts and folder stamps it was made from.
        self._warned: tuple[tuple, dict[str, Stamp | None], tuple[str, ...]] | None = None
        self._lock = threading.RLock()

    @classmethod
    def load(cls, path: str | Path = ".", manifest: str | Path | None = None) -> Project:
        """Load and validate the project at ``path``; raises ``HotplexError`` for bad input."""
        project = cls(Path(path), Path(manifest) if manifest is not None else None)
        project._refresh()
        return project

    def compile(
        self,
        target: str,
        platform: str | None = None,
        overlay: Mapping[str, str | bytes | os.PathLike[str]] | None = None,
        *,
        overlay_names: Mapping[str, str] | None = None,
        on_finding: str | None = None,
    ) -> Artifact:
        """The artifact ``hotplex build`` would write for ``target`` and ``platform``.

        ``overlay`` maps files of the sources folder (``"USER.md"``, ``"memory/2026-11-29.md"``)
        to the text they hold for this call only (``str``, UTF-8 ``bytes``, or a
        ``pathlib.Path`` to read it from, capped like a source): a gateway's per-user files.
        They get everything a file on disk gets (frontmatter, sanitizer, limits, secret,
        hidden-text and prompt-injection scans, daily-log selection) but templates: their text
        is data, never rendered. Nothing is written or kept for later calls. A key no source
        reads, a key in ``skills/`` (a skill is the project's, every call's), or a value of
        another type, is a ``HotplexError``. ``overlay_names`` says how
        messages name an overlaid file (default ``overlay:USER.md``, or the path read).
        ``on_finding`` (default: the manifest's ``[overlay] on_finding``, itself "error" by
        default) is what a finding in an overlaid file does: "error" raises ``HotplexError``;
        "block" replaces the entry holding it with a ``[blocked by hotplex: <rule>]`` line and
        reports it in ``Artifact.findings``.
        Thread-safe: calls on one ``Project`` run one at a time.

        .. versionchanged:: issue 15 ``overlay``.
        .. versionchanged:: issue 25 ``on_finding``; the injection rules read overlays.
        """
        with self._lock, memo.uncached() if overlay else contextlib.nullcontext():
            # One whole compile: a file saved while the compile read the others (a stamp that
            # moved since it was read, the manifest's too) would mix old and new text, so the
            # compile runs again on what is there now.
            for _ in range(COMPILE_TRIES):
                artifact, read = self._compile(target, platform, overlay, overlay_names, on_finding)
                if read is None or self._unmoved(read):  # None: checked before, nothing read
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
        on_finding: str | None = None,
    ) -> tuple[Artifact, dict[str, Stamp | None] | None]:
        """The artifact and the stamps of the files it was compiled from as they were read
        (None when every one came from memory and its stamp was checked just now, after the
        manifest's: a cached artifact, an overlaid compile that read nothing)."""
        job = self._job(target, platform)
        policy = self._policy(on_finding)
        if overlay is not None or labels is not None:
            from hotplex.sources import overlay as overlays

            files = overlays.prepare(
                self._model, overlay, labels, self._read_cap, self._jobs, self._read_by_jobs
            )
            if files:
                return self._compile_overlay(job, platform, files, policy == "block")
        cached = self._artifacts.get(job.id)
        if cached is not None and all(self._stat(p) == s for p, s in cached.stamps.items()):
            return cached.artifact, None
        from hotplex.document.compile import compile_job

        inputs = self._fresh_inputs()
        compiled = compile_job(self._model, job, inputs)
        artifact = _artifact(job, self._model, platform, compiled.emitted)
        stamps = {p: inputs.stamps.get(p) for p in compiled.inputs}
        if all(s is None or settled(s, inputs.started_ns) for s in stamps.values()):
            self._artifacts[job.id] = _Cached(artifact, stamps)
        else:  # a file written just before it was read: its stamp cannot vouch for it yet
            self._artifacts.pop(job.id, None)
        return artifact, stamps

    def _compile_overlay(
        self, job: Job, platform: str | None, files: dict[str, OverlayFile], block: bool = False
    ) -> tuple[Artifact, dict[str, Stamp | None] | None]:
        """One call's compile through its overlay; the base files come from (and stay in) the
        shared reader, read again only when their stamps move. ``block``: an entry of an
        overlaid file holding a finding is replaced (``sources/blocking.py``)."""
        from hotplex.document import plan as plans
        from hotplex.document.compile import compile_job
        from hotplex.sources import overlay as overlays

        base = self._inputs
        current = base is not None and self._base_current(base)
        if not current:
            base = self._fresh_inputs()
        reads = base.reads
        key = (job.id, frozenset(files))
        plan = self._plans.valid(key, self._model, base)
        order = plan.order if plan else None  # what an earlier call with these keys found
        inputs = overlays.OverlayInputs(base, files, self._model, job, block, order)
        compiled = compile_job(self._model, job, inputs, plan)
        if plan is None:
            # A plan's calls read what the call making it read: its keys' check holds for them.
            consulted = list(compiled.inputs)
            overlays.check_used(files, consulted, self._model, self._jobs, self._read_by_jobs)
            self._plans.keep(key, plans.made(self._model, job, inputs, compiled.resolution))
        names = {display: file.label for display, file in files.items()}
        blocked = inputs.blocked_read()
        if current and base.reads == reads:
            # Every file came from memory whose stamps were all checked, after the manifest's,
            # just before: the files were that one state at the manifest's stat, so no second
            # stat of them can say more (``compile``'s check after is for files read now).
            return _artifact(job, self._model, platform, compiled.emitted, names, blocked), None
        read = {p: base.stamps.get(p) for p in compiled.inputs if p not in files}
        return _artifact(job, self._model, platform, compiled.emitted, names, blocked), read


def _artifact(
    job: Job,
    model: Model,
    platform: str | None,
    emitted: Emitted,
    names: Mapping[str, str] | None = None,
    findings: tuple[Finding, ...] = (),
) -> Artifact:
    """The call's answer; an overlaid file is named by its label (``overlay_names``, the path
    it was read from, or ``overlay:USER.md``), never by the project file it stands in for."""
    if names:  # a record naming no overlaid file is kept as it is (they are frozen)
        truncations = tuple(_renamed(t, names) for t in emitted.truncations)
        sizes = tuple(_renamed(s, names) for s in emitted.sizes)
    else:
        truncations, sizes = tuple(emitted.truncations), tuple(emitted.sizes)
    return Artifact(
        target=job.target.name,
        worker=job.target.worker,
        platform=platform,
        path=emitted.primary,
        text=emitted.primary_text
        if emitted.primary_text is not None
        else emitted.files[emitted.primary].decode("utf-8"),
        files=dict(emitted.files),
        truncations=truncations,
        warnings=emitted.warnings,
        sizes=sizes,
        notes=emitted.notes,
        findings=findings,
        documents=tuple(path for path, _ in emitted.documents),
        skills=emitted.skills,
        folder=job.out_dir(model),
    )


def _renamed(record, names: Mapping[str, str]):
    """``record`` (a ``Truncation`` or ``SectionSize``) with its overlaid files named by their
    labels."""
    files = record.files
    if names.keys().isdisjoint(files):
        return record
    return record.evolved(files=tuple([names.get(f, f) for f in files]))
