"""The one document both HotPlex workers receive: sanitize -> limit -> assemble.

Claude Code gets it as a file, OpenCode Server as the ``system`` string of every message; both
must see the same bytes, so both workers call ``build`` and only wrap its result differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from hotplex import assemble, limits, sanitize
from hotplex.model import Model, Source

from .base import Section

# HotPlex's five sources (seed 000), the default sources of both workers of this document.
DEFAULT_SOURCES: tuple[Source, ...] = (
    Source("soul", "SOUL.md", "B", "persona", "Embody this persona naturally in all interactions."),
    Source("rules", "AGENTS.md", "B", "rules", "Treat as mandatory workspace constraints."),
    Source("skills", "SKILLS.md", "B", "skills", "Apply these capabilities when relevant."),
    Source(
        "user", "USER.md", "C", "user", "Tailor responses to this user's preferences and expertise."
    ),
    Source("memory", "MEMORY.md", "C", "memory", "Recall relevant past context when applicable."),
)


@dataclass(frozen=True)
class Document:
    text: str
    truncations: tuple[limits.Truncation, ...]
    sizes: tuple[tuple[str, tuple[str, ...], int, int, str], ...]


def reserved_tags(sections: list[Section], model: Model) -> frozenset[str]:
    """Every tag the configuration can emit, whether this artifact has that section or not: with
    MEMORY.md absent, a ``<memory>`` typed into SOUL.md must not pass for the memory section."""
    channel_tags = {c.tag for c in model.manifest.channels.values()}
    source_tags = {s.tag for s in model.sources}
    return frozenset(
        {assemble.WRAPPER_TAG, *channel_tags, *source_tags, *(s.tag for s in sections)}
    )


def build(sections: list[Section], model: Model) -> Document:
    reserved = reserved_tags(sections, model)
    unit = model.manifest.limits.unit
    cleaned = [
        limits.Limited(s.name, s.files, sanitize.sanitize(s.text, reserved)) for s in sections
    ]
    kept, cuts = limits.apply(cleaned, model.manifest.limits)
    by_name = {k.name: k.text for k in kept}
    parts = [
        assemble.Part(s.tag, s.channel, sanitize.sanitize(s.note, reserved), by_name[s.name])
        for s in sections
        if s.name in by_name
    ]
    channels = model.manifest.channels
    text = assemble.document(
        parts,
        {name: c.tag for name, c in channels.items()},
        {name: sanitize.sanitize(c.note, reserved) for name, c in channels.items()},
    )
    sizes = tuple(
        (
            c.name,
            c.files,
            limits.measure(c.text, unit),
            limits.measure(by_name.get(c.name, ""), unit),
            unit,
        )
        for c in cleaned
    )
    return Document(text, tuple(cuts), sizes)
