"""Sections a long-lived ``Project`` resolved before, reused while their files hold still.

A gateway compiles the same job for every user, and an overlay changes only the sections whose
files it replaces (USER.md, MEMORY.md, the daily logs); the persona, rules and skills are the
same text, rendered, scanned and checked, every time. The library API's reader (``Inputs``)
carries a ``sections`` dict; a reader is replaced as soon as a file it read changes on disk, so
the dict never outlives the bytes it was made from. A section is reused only when none of the
files it consulted is overlaid in this call, and never when resolving it found a secret or
hidden text, nor in a project with ``imports = "claude"`` sources (whose sections depend on what
the ones before them loaded). The build (one compile per job) passes no dict and reuses nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hotplex.records import Section, Truncation
    from hotplex.sources.reader import Reader


@dataclass(frozen=True)
class Reusable:
    section: Section | None
    consulted: tuple[str, ...]
    truncations: tuple[Truncation, ...]
    variables: frozenset[str]


def section(resolver: Reader, name: str, compute: Callable[[], Section | None]) -> Section | None:
    """``compute()``'s section for source ``name`` of the resolver's job, from the reader's
    ``sections`` when a previous call left one that this call may use."""
    cache = getattr(resolver.inputs, "sections", None)
    if cache is None or any(s.imports for s in resolver.model.sources):
        return compute()  # Claude Code's imports load each file once per job, across sources
    key = (resolver.job.id, name)
    hit = cache.get(key)
    if hit is not None and not resolver.inputs.overlaid(hit.consulted):
        _replay(resolver, hit)
        return hit.section
    outer = (resolver.consulted, resolver.truncations, resolver.read_variables)
    findings = len(resolver.findings)
    resolver.consulted, resolver.truncations, resolver.read_variables = [], [], set()
    try:
        result = compute()
        made = Reusable(
            result,
            tuple(resolver.consulted),
            tuple(resolver.truncations),
            frozenset(resolver.read_variables),
        )
    finally:
        mine = Reusable(None, tuple(resolver.consulted), tuple(resolver.truncations), frozenset())
        variables = resolver.read_variables
        resolver.consulted, resolver.truncations, resolver.read_variables = outer
        _replay(resolver, mine)
        resolver.read_variables |= variables
    if len(resolver.findings) == findings and not resolver.inputs.overlaid(made.consulted):
        cache[key] = made
    return result


def _replay(resolver: Reader, done: Reusable) -> None:
    resolver.consulted.extend(p for p in done.consulted if p not in resolver.consulted)
    resolver.truncations.extend(done.truncations)
    resolver.read_variables |= done.variables
