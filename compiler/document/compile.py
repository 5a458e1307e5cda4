"""Compile one job in memory: resolve its sources, then hand them to its worker. A per-user
compile of a job compiled before resolves through its overlay plan (``plan.py``)."""

from __future__ import annotations

from typing import NamedTuple

from hotplex.document import plan as plans
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.records import Emitted, Section
from hotplex.sources import resolve as sources
from hotplex.sources.inputs import Inputs


class Compiled(NamedTuple):
    job: Job
    emitted: Emitted
    inputs: dict[str, str | None]  # every path consulted -> content digest, None when absent
    variables: dict[str, str | None]  # every template variable read -> its value
    sections: tuple[Section, ...]  # what the worker was given, before its budgets
    resolution: sources.Resolution  # what an overlay plan is made of (``plan.made``)


def compile_job(model: Model, job: Job, inputs: Inputs, plan: plans.Plan | None = None) -> Compiled:
    """``plan``: the job's overlay plan, for ``inputs`` that overlay the files it was made for."""
    if plan is None:
        resolution = sources.resolve(model, job, inputs)
    else:
        resolution = plans.resolve(plan, inputs)
    emitted = job.worker.emit_with_skills(job, resolution.sections, resolution.skills, model)
    if resolution.truncations:
        emitted = attrs.evolve(emitted, truncations=(*resolution.truncations, *emitted.truncations))
    digests = {path: inputs.digest(path) for path in resolution.consulted}
    return Compiled(
        job, emitted, digests, resolution.variables, tuple(resolution.sections), resolution
    )
