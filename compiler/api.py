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

import attrs
from hotplex.errors import BuildFailed, HotplexError, Problem, suggest
from hotplex.fs import LOCK_WAIT_SECONDS, STATE_DIR, FileLock, Stamp, settled, stamp
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.text import memo

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from hotplex.learning.report import LearnReport
    from hotplex.learning.request import LearnRequest
    from hotplex.manifest.jobs import Job
    from hotplex.records import CheckReport, Emitted, Finding, SectionSize, Truncation
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
    notes: tuple[str, ...] = ()  # what reaches whom (``stats`` prints them; Aider: user level)
    # What ``on_finding = "block"`` blocked in the overlay: ``Finding`` records, action "blocked".
    findings: tuple[Finding, ...] = ()

    def file(self, name: str) -> bytes:
        """Another file of the artifact's folder by its name there (``agents/reviewer.md``), or
        a file outside it by its project path (a placed ``.rules``): the names ``files`` lists."""
        folder = self.path.rpartition("/")[0]
        by_name = {p.removeprefix(f"{folder}/"): data for p, data in self.files.items()}
        found = by_name.get(name)
        if found is None:
            names = list(by_name)
            raise HotplexError.single(
                f"target '{self.target}' writes no file '{name}'",
                hint=suggest(name, names) or "files: " + ", ".join(names),
            )
        return found


# How often a compile is run again while the files it read keep changing under it.
COMPILE_TRIES = 5

# The lock `memory compact` holds while it writes: in the state folder (the build's is
# STATE_DIR/lock), so that no run adds a file to the sources folder.
MEMORY_LOCK = f"{STATE_DIR}/memory.lock"


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
        on_finding: str | None = None,
    ) -> Artifact:
        """The artifact ``hotplex build`` would write for ``target`` and ``platform``.

        ``overlay`` maps files of the sources folder (``"USER.md"``, ``"memory/2026-11-29.md"``)
        to the text they hold for this call only (``str``, UTF-8 ``bytes``, or a
        ``pathlib.Path`` to read it from, capped like a source): a gateway's per-user files.
        They get everything a file on disk gets (frontmatter, sanitizer, limits, secret,
        hidden-text and prompt-injection scans, daily-log selection) but templates: their text
        is data, never rendered. Nothing is written or kept for later calls. A key no source
        reads, or a value of another type, is a ``HotplexError``. ``overlay_names`` says how
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

    def check(
        self,
        files: Mapping[str, str | bytes | os.PathLike[str]],
        target: str | None = None,
        platform: str | None = None,
        *,
        on_finding: str | None = None,
    ) -> CheckReport:
        """Every finding in ``files`` (overlay keys and values, as ``compile`` takes them)
        without compiling an artifact for the caller: the guard a gateway calls before it saves
        a user's file. Each file's body is scanned whole (secrets, hidden text, the injection
        rules, reserved tags the sanitizer would escape), whether or not an artifact reads all
        of it now (a day too old for the budget today is scanned too); each finding's
        ``action`` is what a compile would do with it under ``on_finding`` (default: the
        manifest's ``[overlay] on_finding``). The report's ``jobs`` say, for ``target`` at
        ``platform`` (None: the base artifact, or the target's first platform without one) or,
        with no target, for every target of the project, what the budgets would cut of the
        sections these files feed, their entries blocked as "block" would. A key no source
        reads is a ``HotplexError``, as in ``compile``.

        .. versionadded:: issue 25
        """
        with self._lock, memo.uncached():
            from hotplex import guard
            from hotplex.records import CheckReport
            from hotplex.sources import overlay as overlays

            self._refresh()
            policy = self._policy(on_finding)
            model, jobs = self._model, self._jobs
            prepared = overlays.prepare(model, files, None, self._read_cap, jobs)
            action = "blocked" if policy == "block" else "error"
            found = guard.findings(model, jobs, prepared, action)
            labels = {file.label for file in prepared.values()}
            checked = []
            for job in guard.jobs_of(model, jobs, target, platform):
                artifact, _read = self._compile_overlay(job, job.platform, prepared, True)
                cuts, sizes = artifact.truncations, artifact.sizes
                checked.append(guard.checked_job(job, cuts, sizes, labels))
            return CheckReport(
                tuple(found), tuple(guard.checked_files(model, prepared)), tuple(checked)
            )

    def compact_memory(
        self,
        *,
        dry_run: bool = False,
        archive: bool = False,
        answer: str | bytes | None = None,
        month: str | None = None,
        label: str = "answer",
    ):
        """Fold the daily logs older than ``[memory] compact_after_days`` into one file per
        month with the built-in compactor (``hotplex memory compact``), and return the
        ``memory.local.Compaction`` it made; ``dry_run``: write nothing. ``archive``: move
        the covered days into ``archive/`` beside them, where no artifact reads them.
        ``answer``: a worker's summary of ``month`` (default: the oldest with days to
        compact), answering ``compaction_request``: guarded, then filed as that month's file
        (``label`` names it in errors). A run that writes holds ``MEMORY_LOCK`` throughout.

        .. versionadded:: issue 38
        """
        from hotplex.memory import local

        writing = contextlib.nullcontext() if dry_run else self._memory_lock()
        with self._lock, writing:
            if answer is None:
                done = local.plan(self.model, archive)
            else:
                done = local.plan_answer(self.model, answer, label, month)
            if not dry_run:
                local.apply(self.root, done)
            return done

    def _memory_lock(self) -> FileLock:
        """The lock a compaction holds from its first read of the days to its last write, so
        that two at once never file a month from days the other has moved (``MEMORY_LOCK``)."""
        return FileLock(self.root / MEMORY_LOCK, LOCK_WAIT_SECONDS, "hotplex memory compact")

    def compaction_request(
        self,
        target: str,
        platform: str | None = None,
        month: str | None = None,
        *,
        days: Mapping[str, str] | None = None,
    ):
        """What ``target``'s worker needs to summarise ``month`` of the daily logs (default: the
        oldest with days to compact), in its own form (``memory.request``); give its answer to
        ``compact_memory(answer=...)``, which covers the days this request held as they were
        (recorded in the state folder: ``memory.local.record_request``). ``days`` (file name
        -> text, one month's): those days instead of the project's, as ``POST
        /v1/memory/compact/request`` sends them (nothing recorded). Refused for a worker with no
        headless program.

        .. versionadded:: issue 38
        """
        from hotplex.memory import local, stateless
        from hotplex.memory.request import compile_request

        with self._lock:
            job = self._job(target, platform)
            if days is not None:
                return stateless.request(self._model, job, days)
            with self._memory_lock():
                _found, chosen, texts, covers = local.month_days(self._model, month)
                made = compile_request(self._model, job, chosen, texts, covers)
                local.record_request(self.root, made)
            return made

    def compact_days(self, days: Mapping[str, str], answer: str | None = None):
        """``days`` (file name -> text) compacted by the built-in compactor, a file per month,
        or, with ``answer`` (a worker's summary of their one month), that answer guarded and
        filed; nothing is read but the manifest, nothing written (``memory.stateless``).

        .. versionadded:: issue 38
        """
        from hotplex.memory import stateless

        with self._lock:
            self._refresh()
            return stateless.compact(self._model, days, answer)

    def learn(
        self,
        facts: object,
        *,
        date: str,
        text: str | None = None,
        file: str = "USER.md",
        source: str | None = None,
    ) -> LearnReport:
        """``facts`` (a list of ``{"key", "value", "source"?}`` objects, or a mapping of key to
        value) merged on ``date`` (YYYY-MM-DD: hotplex never reads the clock) into the learned
        block of ``text``, or of ``file`` of the sources folder as it is on disk. Returns the
        report with the new text and the facts it retired; writes nothing
        (``hotplex.learning``).

        .. versionadded:: issue 37
        """
        with self._lock:
            from hotplex.learning import calls

            self._refresh()
            return calls.learn(self._model, facts, date, text, file, source)

    def learn_request(
        self,
        transcript: str,
        target: str,
        platform: str | None = None,
        *,
        text: str | None = None,
        file: str = "USER.md",
    ) -> LearnRequest:
        """What ``target``'s worker needs to extract facts from ``transcript``, in its own
        form (``hotplex.learning.request``): run it on the gateway's worker and give the
        answer to ``learn``. Refused for a worker with no headless program.

        .. versionadded:: issue 37
        """
        with self._lock:
            from hotplex.learning import request

            job = self._job(target, platform)
            return request.compile_request(self._model, job, transcript, text, file)

    def warnings(self) -> tuple[str, ...]:
        """What ``hotplex build`` warns of the project beyond each artifact's own warnings:
        files of the sources folder no artifact reads, names the ``[memory] logs`` glob
        matches that are no day or no regular file, raw copies a program reads by itself. It
        compiles every job (a cache hit while its files stay put) and walks the sources
        folder only when an artifact or a folder moved. Like ``hotplex build``, it says none
        of the unread files while a job was not compiled from settled files.
        """
        with self._lock:
            from hotplex.sources import build_warnings

            jobs = self.jobs()
            own: set[str] = set()
            for job in jobs:
                try:
                    own.update(self.compile(job.target.name, job.platform).files)
                except HotplexError:  # compiling it says why; what it would read is unknown
                    continue
            cached = tuple(self._artifacts.get(job.id) for job in jobs)
            memo = self._warned
            if (
                memo is not None
                and len(memo[0]) == len(cached)
                and all(a is b for a, b in zip(memo[0], cached, strict=True))
                and all(stamp(self.root / f) == s for f, s in memo[1].items())
            ):
                return memo[2]
            read = {
                job.id: {p: None if s is None else "" for p, s in found.stamps.items()}
                for job, found in zip(jobs, cached, strict=True)
                if found is not None
            }
            unread, folders = build_warnings.after_build(self._model, jobs, read, own)
            warnings = tuple(unread)
            if None not in cached:
                self._warned = (cached, {f: stamp(self.root / f) for f in folders}, warnings)
            return warnings

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

            files = overlays.prepare(self._model, overlay, labels, self._read_cap, self._jobs)
            if files:
                return self._compile_overlay(job, platform, files, policy == "block")
        cached = self._artifacts.get(job.id)
        if cached is not None and all(stamp(self.root / p) == s for p, s in cached.stamps.items()):
            return cached.artifact, None
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
        self, job: Job, platform: str | None, files: dict[str, OverlayFile], block: bool = False
    ) -> tuple[Artifact, dict[str, Stamp | None] | None]:
        """One call's compile through its overlay; the base files come from (and stay in) the
        shared reader, read again only when their stamps move. ``block``: an entry of an
        overlaid file holding a finding is replaced (``sources/blocking.py``)."""
        from hotplex.document.compile import compile_job
        from hotplex.sources import overlay as overlays

        base = self._inputs
        current = base is not None and self._base_current(base)
        if not current:
            base = self._fresh_inputs()
        reads = base.reads
        inputs = overlays.OverlayInputs(base, files, self._model, job, block)
        compiled = compile_job(self._model, job, inputs)
        overlays.check_used(files, list(compiled.inputs), self._model, self._jobs)
        names = {display: file.label for display, file in files.items()}
        blocked = tuple(f for found in inputs.blocked.values() for f in found)
        if current and base.reads == reads:
            # Every file came from memory whose stamps were all checked, after the manifest's,
            # just before: the files were that one state at the manifest's stat, so no second
            # stat of them can say more (``compile``'s check after is for files read now).
            return _artifact(job, platform, compiled.emitted, names, blocked), None
        read = {p: base.stamps.get(p) for p in compiled.inputs if p not in files}
        return _artifact(job, platform, compiled.emitted, names, blocked), read

    def _unmoved(self, read: Mapping[str, Stamp | None]) -> bool:
        """Whether the manifest and every file in ``read`` still have the stamps they were read
        with: then the compile saw one state of the files, as a build would."""
        root = f"{self.root}/"
        return stamp(self._manifest_path) == self._manifest_stamp and all(
            stamp(root + p) == s for p, s in read.items()
        )

    def _base_current(self, inputs: Inputs) -> bool:
        """Whether every file the shared reader holds still has the stamp it was read with, one
        stat each: an absent file (a variant looked for) still absent too, or a variant saved
        since would never be read by an overlaid compile."""
        root = f"{self.root}/"  # string paths: a pathlib join per file costs more than its stat
        started = inputs.started_ns
        for p, s in list(inputs.stamps.items()):
            if s is None:
                if stamp(root + p) is not None:
                    return False
            elif stamp(root + p) != s or not settled(s, started):
                return False
        return True

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
        from hotplex.sources.resolve import read_cap

        self._disk_key = None  # the load's checks ran before any key: the next call keys them
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
        inputs = Inputs(self.root, self._read_cap, days_glob(self._model))
        if previous is not None:
            inputs.adopt(previous)
            inputs.sections = previous.sections  # content-addressed: a moved file misses
        self._inputs = inputs
        return inputs


def _artifact(
    job: Job,
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
        text=emitted.files[emitted.primary].decode("utf-8"),
        files=dict(emitted.files),
        truncations=truncations,
        warnings=emitted.warnings,
        sizes=sizes,
        notes=emitted.notes,
        findings=findings,
    )


def _renamed(record, names: Mapping[str, str]):
    """``record`` (a ``Truncation`` or ``SectionSize``) with its overlaid files named by their
    labels."""
    files = record.files
    if names.keys().isdisjoint(files):
        return record
    return attrs.evolve(record, files=tuple([names.get(f, f) for f in files]))
