"""Jobs: one artifact folder each, a target built for one platform or for the base.

The planner is the one place that decides which jobs a manifest asks for, in which order; the
build, the library API, ``stats``, ``graph`` and ``clean`` all ask it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from hotplex.errors import HotplexError, suggest

if TYPE_CHECKING:
    from hotplex.manifest.model import Model, Target

BASE_FOLDER = "default"  # the folder of a target's artifact without a platform


class Job(NamedTuple):
    """One artifact folder: a target, built for one platform or for the base (None)."""

    target: Target
    platform: str | None
    worker: Any  # the target's ``hotplex.worker.Worker``, resolved once (``Model.workers``)

    @property
    def id(self) -> str:
        return f"{self.target.name}/{self.platform or BASE_FOLDER}"

    def out_dir(self, model: Model) -> str:
        return f"{model.out_dir}/{self.id}"


def plan(model: Model) -> list[Job]:
    """Every job the manifest asks for, in manifest order: each target's base artifact (unless
    ``base = false``), then one per platform; a target whose worker places its file in the
    repository (``Worker.placed``) has the base job alone."""
    jobs = []
    for target in model.manifest.target:
        worker = model.worker_of(target)
        if target.base:
            jobs.append(Job(target, None, worker))
        if worker.placed(target) is None:
            jobs.extend(Job(target, p, worker) for p in model.platforms_of(target))
    return jobs


def select(model: Model, jobs: list[Job], names: tuple[str, ...]) -> list[Job]:
    """The jobs of the targets ``names`` (all when empty); a name no target has is an error."""
    if not names:
        return jobs
    known = [t.name for t in model.manifest.target]
    for wanted in names:
        if wanted not in known:
            raise HotplexError.single(
                f"no target named '{wanted}' in {model.manifest_display}",
                hint=suggest(wanted, known) or "targets: " + ", ".join(known),
            )
    return [j for j in jobs if j.target.name in names]


def find(model: Model, jobs: list[Job], target: str, platform: str | None) -> Job:
    """The job of ``target`` for ``platform`` (None: the base artifact), or why there is none."""
    for job in jobs:
        if job.target.name == target and job.platform == platform:
            return job
    select(model, jobs, (target,))  # an unknown target: says so, with a "did you mean"
    platforms = [j.platform for j in jobs if j.target.name == target and j.platform]
    raise HotplexError.single(
        f"target '{target}' has no platform '{platform}'"
        if platform
        else f"target '{target}' builds no base artifact (base = false)",
        hint=(suggest(platform or "", platforms) if platform else None)
        or "platforms: " + (", ".join(platforms) or "none"),
    )
