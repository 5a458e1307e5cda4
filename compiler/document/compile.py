"""Compile one job in memory: resolve its sources, then hand them to its worker."""

from __future__ import annotations

from typing import NamedTuple

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


def compile_job(model: Model, job: Job, inputs: Inputs) -> Compiled:
    resolution = sources.resolve(model, job, inputs)
    emitted = job.worker.emit_with_skills(job, resolution.sections, resolution.skills, model)
    if resolution.truncations:
        emitted = attrs.evolve(emitted, truncations=(*resolution.truncations, *emitted.truncations))
    digests = {path: inputs.digest(path) for path in resolution.consulted}
    return Compiled(job, emitted, digests, resolution.variables, tuple(resolution.sections))
