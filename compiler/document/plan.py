"""A job's overlay plan: what a per-user compile of the same files needs besides its own texts,
prepared once.

A gateway compiles one job thousands of times, each call with one user's USER.md and MEMORY.md over
the same base files. A plain overlaid compile (``compile.compile_job``) resolves every section of
the job again, each looked up in the section cache by its key and the digests of every file it
read, reads and checks the Agent Skills, then emits. The plan keeps, for one job and one set of
overlaid files, each section's resolved product in document order, with **gaps** where a section
reads an overlaid file (``sources.resolve.slots``: a source whose base, variant or daily logs a
call overlays; a file it includes), and what reading the skills did; the products before the first
gap are folded into one (a call replays them at once), and a gap keeps its step. A call then only
resolves the gaps on its own texts (decoded, frontmatter stripped, scanned, blocked, as any compile
does: ``sources.overlay.OverlayInputs``), replays the rest, and emits: the worker's ``emit``
sanitizes only the overlaid sections (a cached section keeps its sanitized form and, where the
limits keep it whole, its part of the document: ``configuration._Held``), cuts every section in
``limits.apply`` (the one place a cut is decided: the gaps move every budget after them), and
assembles. So the bytes are those of the plain compile (``tests/api/test_overlay_plan.py`` compares
the two on random overlays).

A plan is made from a plain overlaid compile's resolution and holds no overlaid text: a gap is
empty, a product is a section no overlaid file reached. It is valid while the base it was made
from is: the same model, the same reader (``Inputs``: a moved base file makes a new one, and the
old plan is dropped) whose files the call has just found unmoved (``Project._base_current``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from hotplex.sources import resolve as sources
from hotplex.sources.sections import Product, isolated, replay

if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model
    from hotplex.records import Section, Skill
    from hotplex.sources.inputs import Inputs
    from hotplex.sources.overlay import OverlayInputs

# A section after the first gap: the product a call replays, or a gap's step (``resolve.
# slot_steps``) that the call's resolver runs on its own texts.
Step = Product | Callable[[sources.Resolver], "Section | None"]


class Plan(NamedTuple):
    """One job's overlay plan for one set of overlaid files (``key``)."""

    model: Model
    job: Job
    base: Inputs  # the reader it was made with: valid while it is the project's, unmoved
    key: frozenset[str]  # the overlaid files' project paths (days: their folders are gaps)
    order: tuple[str, ...] | None  # ``overlay.document_order`` of them (None: not read)
    variables: dict[str, str]  # ``resolve.variables`` of the job, never written to
    # The sections before the first gap, and what they consulted, cut and read folded into one
    # product in their order: what replaying each of them one by one leaves.
    head: tuple[Section, ...]
    head_reads: Product
    rest: tuple[Step, ...]  # by ``resolve.slots`` from the first gap on
    skills: tuple[Skill, ...]
    skill_reads: Product  # what reading the skills consulted and cut, replayed


def made(
    model: Model, job: Job, inputs: OverlayInputs, resolution: sources.Resolution
) -> Plan | None:
    """The plan of a plain overlaid compile's ``resolution`` on ``inputs``; None where none can
    be made (a project with ``imports = "claude"`` sources, whose sections depend on the ones
    before)."""
    products = resolution.products
    if products is None or resolution.skill_reads is None:
        return None
    steps = [step for _key, step in sources.slot_steps(model, job)]
    first = next((i for i, p in enumerate(products) if p is None), len(products))
    before = products[:first]
    consulted: dict[str, None] = {}
    for product in before:
        consulted.update(dict.fromkeys(product.consulted))
    head_reads = Product(
        None,
        tuple(consulted),
        tuple(t for product in before for t in product.truncations),
        frozenset().union(*(product.variables for product in before)),
        (),
        (),
    )
    head = tuple(p.section for p in before if p.section is not None)
    rest = tuple(p if p is not None else s for p, s in zip(products, steps, strict=True))[first:]
    variables = sources.variables(model, job)
    return Plan(
        model,
        job,
        inputs.base,
        frozenset(inputs.files),
        inputs.order,
        variables,
        head,
        head_reads,
        rest,
        resolution.skills,
        resolution.skill_reads,
    )


def resolve(plan: Plan, inputs: Inputs) -> sources.Resolution:
    """``sources.resolve`` of the plan's job on ``inputs`` (the call's ``OverlayInputs``): the
    gaps resolved, the rest replayed in the same order, so the job consults, cuts and reads what
    the plain resolution does."""
    resolver = sources.Resolver(plan.model, plan.job, inputs, plan.variables)
    replay(resolver, plan.head_reads)
    sections = list(plan.head)
    for step in plan.rest:
        if isinstance(step, Product):
            replay(resolver, step)
            section = step.section
        else:
            section = isolated(resolver, functools.partial(step, resolver))[0]
        if section is not None:
            sections.append(section)
    replay(resolver, plan.skill_reads)
    return sources.close(resolver, sections, plan.skills, [])
