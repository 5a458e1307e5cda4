"""Executing a decision: what becomes of a compiled job's files. Two strategies share the
comparison with the disk: ``Write`` replaces what changed (atomically), ``Check`` only says
what a build would do, so ``check`` writes nothing and needs no lock."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from hotplex.build.decide import check_verdict
from hotplex.build.outputs import Outputs
from hotplex.errors import HotplexError, Span
from hotplex.fs import Stamp, sha256
from hotplex.records import Emitted, JobRecord, Stamped
from hotplex.values import value

if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model
    from hotplex.sources.inputs import Inputs


@value
class Result:
    FIELDS = ("status", "reasons", "written", "digests", "diff", "changes")
    status: str
    reasons: list[str]
    written: list[str]
    digests: dict[str, str]  # path -> sha256 of the bytes the job produces
    diff: str
    changes: dict[str, str]  # check: see ``JobReport.changes``

    def __init__(
        self,
        status: str,
        reasons: list[str],
        written: list[str],
        digests: dict[str, str],
        diff: str = "",
        changes: dict[str, str] | None = None,
    ) -> None:
        self.__dict__.update(
            status=status,
            reasons=reasons,
            written=written,
            digests=digests,
            diff=diff,
            changes={} if changes is None else changes,
        )


class Done(NamedTuple):
    """A dirty job, executed: its new log record, what was done, and the stamps of its inputs
    as read (a pool process's reads, for the parent's snapshot)."""

    record: JobRecord
    result: Result
    stamps: dict[str, Stamp | None]


class Strategy:
    logs: bool  # whether the build log records what was done

    def __init__(self, outputs: Outputs, diff: bool = False) -> None:
        self.outputs = outputs
        self.diff = diff
        self._places: tuple[Model, dict[str, int]] | None = None

    def places(self, model: Model) -> dict[str, int]:
        """Each file a target places -> the index of the first target placing it; worked out
        once per model, not once per job (a job of a thousand would ask every target)."""
        if self._places is None or self._places[0] is not model:
            found: dict[str, int] = {}
            for index, target in enumerate(model.manifest.target):
                place = model.worker_of(target).placed(target)
                if place is not None:
                    found.setdefault(place, index)
            self._places = (model, found)
        return self._places[1]

    def execute(
        self,
        model: Model,
        inputs: Inputs,
        decided: tuple[Job, dict[str, str], JobRecord | None, list[str]],
    ) -> Done | HotplexError:
        """Compile one dirty job and apply this strategy to its files (in a pool process
        with ``-j``); bad input comes back as a value, to be raised in job order."""
        from hotplex.document.compile import compile_job

        job, keys, record, reasons = decided
        recorded = record.outputs if record else {}
        placed = tuple(p for p in (job.worker.placed(job.target),) if p is not None)
        try:
            compiled = compile_job(model, job, inputs)
            emitted = compiled.emitted
            _refuse_reading_placed(model, job, compiled.inputs, self.places(model))
            _refuse_foreign_placed(model, job, emitted, recorded)
            result = self.apply(emitted, recorded, reasons)
        except HotplexError as error:
            return error
        files = sorted(emitted.files.items())
        new = JobRecord(
            job=job.id,
            target=job.target.name,
            worker=job.target.worker,
            platform=job.platform,
            primary=emitted.primary,
            keys=keys,
            inputs=compiled.inputs,
            variables=compiled.variables,
            outputs={p: self.outputs.stamped(p, result.digests[p], len(d)) for p, d in files},
            truncations=emitted.truncations,
            warnings=emitted.warnings,
            sizes=emitted.sizes,
            placed=(*placed, *emitted.placed),
        )
        return Done(new, result, {p: inputs.stamps.get(p) for p in compiled.inputs})

    def apply(self, emitted: Emitted, recorded: dict[str, Stamped], reasons: list[str]) -> Result:
        digests = {path: sha256(data) for path, data in emitted.files.items()}
        on_disk = {path: self.outputs.digest(path, recorded.get(path)) for path in emitted.files}
        changed = [path for path in emitted.files if on_disk[path] != digests[path]]
        diff = self.outputs.diff(emitted.files, changed) if self.diff else ""
        return self.finish(emitted, digests, on_disk, changed, recorded, reasons, diff)

    def finish(
        self,
        emitted: Emitted,
        digests: dict[str, str],
        on_disk: dict[str, str | None],
        changed: list[str],
        recorded: dict[str, Stamped],
        reasons: list[str],
        diff: str,
    ) -> Result:
        raise NotImplementedError


def _refuse_reading_placed(
    model: Model, job: Job, inputs: dict[str, str | None], places: dict[str, int]
) -> None:
    """A job that reads a placed file (an include, a CLAUDE.md import of ``.rules``) would feed
    hotplex's output back in at every build: what validation cannot see before reading."""
    for place, index in places.items():
        if place in inputs:
            target = model.manifest.target[index]
            raise HotplexError.single(
                f"{job.id} reads '{place}', the file target '{target.name}' places: hotplex"
                " would read its own output back",
                Span(model.manifest_display, key=f"target[{index}].place"),
                hint="remove the include or import of it, or set place elsewhere",
            )


def _refuse_foreign_placed(
    model: Model, job: Job, emitted: Emitted, recorded: dict[str, Stamped]
) -> None:
    """Each further file a job places (``Emitted.placed``: an editor's skill files) is absent,
    hotplex's (``placement.refuse_foreign``), or already the bytes it would get: known only once
    the job is compiled, so looked at here, before any of the job's files is written."""
    from hotplex.placement import read_regular, refuse_foreign, unmarked

    problems = []
    for path in emitted.placed:
        known = recorded.get(path)
        digest = known.digest if known else None
        data = read_regular(model.root / path)
        if data is not None and data in (emitted.files[path], unmarked(emitted.files[path])):
            digest = sha256(data)  # nothing is lost: a fresh clone, a skill folder imported
        elif data is not None and known is None and _in_marked_skill(model, job, emitted, path):
            digest = sha256(data)
        try:
            refuse_foreign(
                model.root, path, _span(model, job), digest, model.sources_dir, FOREIGN_SKILL
            )
        except HotplexError as error:
            problems += error.problems
    if problems:
        raise HotplexError(problems)


def _in_marked_skill(model: Model, job: Job, emitted: Emitted, path: str) -> bool:
    """Whether ``path``, a skill's resource file the log has no record of (a fresh clone, a
    deleted ``.hotplex/``), lies in a skill folder whose ``SKILL.md`` on disk is this target's,
    by its marker line: a resource file carries no marker of its own, so the skill's vouches
    for it (a user's file there is refused while the log knows what hotplex wrote)."""
    from hotplex.placement import origin, read_regular
    from hotplex.sources.skill_listing import SKILL_FILE

    skills = [
        p
        for p in emitted.placed
        if p.endswith(f"/{SKILL_FILE}") and path.startswith(p[: -len(SKILL_FILE)]) and p != path
    ]
    if not skills:
        return False
    data = read_regular(model.root / min(skills, key=len))  # the skill's, not a resource's
    return data is not None and origin(data) == (model.manifest_path.name, job.target.name, True)


def _span(model: Model, job: Job) -> Span:
    """The manifest key of a job's further placed files: its target."""
    return Span(model.manifest_display, key=f"target[{model.target_index(job.target)}]")


# The way out when an editor's skill folder holds a file that is not hotplex's.
FOREIGN_SKILL = (
    "keep what it says in the sources' skills/ (edit the skill there; `hotplex import` adopts a"
    " skill folder of your own), then delete or move this one and build again"
)


def refuse_foreign_places(model: Model, jobs: list[Job], records: dict[str, JobRecord]) -> None:
    """Each job's place is absent or hotplex's (``placement.refuse_foreign``), looked at before
    any job is decided or written: every blocked place is named at once, and a symlink there
    at its target's ``place`` (not as a path of ``out``)."""
    from hotplex.placement import refuse_foreign, refuse_symlinked

    problems = []
    for job in jobs:
        place = job.worker.placed(job.target)
        if place is None:
            continue
        record = records.get(job.id)
        for further in record.placed if record else ():  # an editor's placed skills, as logged
            if further != place:
                try:
                    refuse_symlinked(model.root, further, _span(model, job), fixed=True)
                except HotplexError as error:
                    problems += error.problems
        known = record.outputs.get(place) if record else None
        digest = known.digest if known else None
        try:
            refuse_foreign(model.root, place, place_span(model, job), digest, model.sources_dir)
        except HotplexError as error:
            problems += error.problems
    if problems:
        raise HotplexError(problems)


def place_span(model: Model, job: Job) -> Span:
    """The manifest key of a job's placed file: its target's ``place``."""
    index = model.target_index(job.target)
    return Span(model.manifest_display, key=f"target[{index}].place")


class Write(Strategy):
    """Replace each changed file; an unchanged one keeps its bytes and its mtime."""

    logs = True

    def finish(self, emitted, digests, on_disk, changed, recorded, reasons, diff) -> Result:
        for path in changed:
            self.outputs.write(path, emitted.files[path], digests[path])
        return Result("rebuilt", reasons, changed, digests, diff)


class Check(Strategy):
    """Write nothing: current when the bytes on disk are already what a build would write."""

    logs = False

    def finish(self, emitted, digests, on_disk, changed, recorded, reasons, diff) -> Result:
        status, reasons, changes = check_verdict(on_disk, changed, recorded, reasons)
        return Result(status, reasons, [], digests, diff, changes)
