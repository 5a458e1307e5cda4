"""The one document every worker that sends HotPlex's sections receives: sanitize -> limit ->
assemble.

One program gets it as a file, another as the ``system`` string of every message; all must see
the same bytes, so each of those workers calls ``build`` and only wraps its result differently.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable
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
    cleaned = [_cleaned(s, reserved, as_sent) for s in sections]
    kept, cuts = limits.apply(cleaned, model.manifest.limits)
    by_name = {k.name: k.text for k in kept}
    placed = [s for s in sections if s.name in by_name]
    parts = [
        assemble.Part(s.tag, s.channel, _note(s.note, reserved), by_name[s.name]) for s in placed
    ]
    channels = model.manifest.channels
    assembled = assemble.document(
        parts,
        {name: c.tag for name, c in channels.items()},
        {name: _note(c.note, reserved) for name, c in channels.items()},
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


# Each section's sanitized forms (by reserved tags and ``as_sent``), kept beside the section for
# exactly as long as it lives: a section from the cache (``sources/sections.py``) is one object
# that a thousand jobs share, sanitized once; a section of one call's overlay takes its own with
# it when it goes.
_CLEANED: dict[int, tuple[weakref.ref[Section], dict[Hashable, limits.Limited]]] = {}


def _cleaned(
    section: Section, reserved: frozenset[str], as_sent: Callable[[str], str] | None
) -> limits.Limited:
    held = _CLEANED.get(id(section))
    if held is None or held[0]() is not section:
        held = (weakref.ref(section, functools.partial(_forget, id(section))), {})
        _CLEANED[id(section)] = held
    found = held[1].get((reserved, as_sent))
    if found is None:

        def clean(text: str) -> str:
            cleaned = sanitize.sanitize(text, reserved)
            return as_sent(cleaned) if as_sent is not None else cleaned

        logs = memory_logs.mapped(section.logs, clean)
        found = limits.Limited(section.name, section.files, clean(section.text), logs)
        held[1][(reserved, as_sent)] = found
    return found


def _forget(key: int, ref: weakref.ref[Section]) -> None:
    if _CLEANED.get(key, (None,))[0] is ref:
        del _CLEANED[key]


@functools.lru_cache(maxsize=256)
def _note(note: str, reserved: frozenset[str]) -> str:
    """A note of the manifest sanitized: the same few for every job."""
    return sanitize.sanitize(note, reserved)
