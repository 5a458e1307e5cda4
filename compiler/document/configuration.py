"""The one document every worker that sends HotPlex's sections receives: sanitize -> limit ->
assemble.

One program gets it as a file, another as the ``system`` string of every message; all must see
the same bytes, so each of those workers calls ``build`` and only wraps its result differently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hotplex.document import assemble, limits, sanitize
from hotplex.document.measure import measure
from hotplex.manifest.model import Model
from hotplex.records import Section, SectionSize, Truncation
from hotplex.sources import logs as memory_logs


@dataclass(frozen=True)
class Document:
    text: str
    truncations: tuple[Truncation, ...]
    sizes: tuple[SectionSize, ...]
    spans: dict[str, tuple[int, int]]  # where each placed section's text lies in ``text``


def reserved_tags(
    sections: list[Section], model: Model, also: frozenset[str] = frozenset()
) -> frozenset[str]:
    """Every tag the configuration can emit, whether this artifact has that section or not: with
    MEMORY.md absent, a ``<memory>`` typed into SOUL.md must not pass for the memory section.
    ``also``: tags of the worker's own wrapper around the document (Gemini CLI has one)."""
    channel_tags = {c.tag for c in model.manifest.channels.values()}
    source_tags = {s.tag for s in model.sources}
    return frozenset(
        {assemble.WRAPPER_TAG, *channel_tags, *source_tags, *(s.tag for s in sections), *also}
    )


def build(
    sections: list[Section],
    model: Model,
    also_reserved: frozenset[str] = frozenset(),
    as_sent: Callable[[str], str] | None = None,
) -> Document:
    """``as_sent``: what the worker's program makes of a text on the way (Gemini CLI's word
    joiners), applied to each section before the limits, so that they hold for what is sent."""
    reserved = reserved_tags(sections, model, also_reserved)
    unit = model.manifest.limits.unit

    def clean(text: str) -> str:
        cleaned = sanitize.sanitize(text, reserved)
        return as_sent(cleaned) if as_sent is not None else cleaned

    cleaned = [
        limits.Limited(s.name, s.files, clean(s.text), memory_logs.mapped(s.logs, clean))
        for s in sections
    ]
    kept, cuts = limits.apply(cleaned, model.manifest.limits)
    by_name = {k.name: k.text for k in kept}
    placed = [s for s in sections if s.name in by_name]
    parts = [
        assemble.Part(s.tag, s.channel, sanitize.sanitize(s.note, reserved), by_name[s.name])
        for s in placed
    ]
    channels = model.manifest.channels
    assembled = assemble.document(
        parts,
        {name: c.tag for name, c in channels.items()},
        {name: sanitize.sanitize(c.note, reserved) for name, c in channels.items()},
    )
    sizes = tuple(
        SectionSize(
            c.name,
            c.files,
            measure(c.text, unit),
            measure(by_name.get(c.name, ""), unit),
            unit,
        )
        for c in cleaned
    )
    spans = {placed[index].name: (start, end) for index, start, end in assembled.bodies}
    return Document(assembled.text, tuple(cuts), sizes, spans)
