"""The ``<agent-configuration>`` document (HotPlex's prompt layout: one tag per source, grouped
by channel), shared by the XML workers.

Layout: the wrapper, then one group per channel in B, C order (``<directives>``, ``<context>``),
each opening with its one-line note, then its sections in source order, each opening with its
one-line note. Empty sections and empty groups are omitted; with nothing at all the document is
empty. Line ends are ``\\n``; the document ends with one newline.
"""

from __future__ import annotations

from typing import NamedTuple

WRAPPER_TAG = "agent-configuration"
METACOGNITION_TAG = "hotplex"  # the built-in META-COGNITION section, first in <directives>
# Tags no source may take: the document's own (the channels' are the manifest's).
BUILT_IN_TAGS = frozenset({WRAPPER_TAG, METACOGNITION_TAG})
CHANNEL_ORDER = ("B", "C")


class Part(NamedTuple):
    tag: str
    channel: str
    note: str
    body: str


class Assembled(NamedTuple):
    text: str
    # Where each placed part's body lies in ``text``: (index in the parts, start, end). A worker
    # that changes the text on the way (Gemini CLI) measures each section by it.
    bodies: tuple[tuple[int, int, int], ...]


def _block(tag: str, note: str, inner: list[str | int]) -> list[str | int]:
    return [f"<{tag}>", *([note] if note else []), *inner, f"</{tag}>"]


def document(
    parts: list[Part], channel_tags: dict[str, str], channel_notes: dict[str, str]
) -> Assembled:
    groups: list[str | int] = []
    for channel in CHANNEL_ORDER:
        sections: list[str | int] = []
        for index, part in enumerate(parts):
            if part.channel == channel and part.body.strip():
                sections += _block(part.tag, part.note, [index])  # the body, by its index
        if sections:
            groups += _block(channel_tags[channel], channel_notes[channel], sections)
    if not groups:
        return Assembled("", ())
    lines, bodies, at = [], [], 0
    for line in _block(WRAPPER_TAG, "", groups):
        if isinstance(line, int):
            bodies.append((line, at, at + len(parts[line].body)))
            line = parts[line].body
        lines.append(line)
        at += len(line) + 1
    return Assembled("\n".join(lines) + "\n", tuple(bodies))
