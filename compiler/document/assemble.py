"""The ``<agent-configuration>`` document (HotPlex's prompt layout: one tag per source, grouped
by channel), shared by the XML workers.

Layout: the wrapper, then one group per channel in B, C order (``<directives>``, ``<context>``),
each opening with its one-line note, then its sections in source order, each opening with its
one-line note. Empty sections and empty groups are omitted; with nothing at all the document is
empty. Line ends are ``\\n``; the document ends with one newline.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

from hotplex.manifest.vocabulary import WRAPPER_TAG

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
    lines: tuple[str, ...] = ()  # ``text`` is these, each followed by a line end


def document(
    parts: list[Part], channel_tags: dict[str, str], channel_notes: dict[str, str]
) -> Assembled:
    groups = []
    for channel in CHANNEL_ORDER:
        placed = [i for i, p in enumerate(parts) if p.channel == channel and p.body.strip()]
        if placed:
            groups.append((channel, placed))
    if not groups:
        return Assembled("", ())
    lines = [f"<{WRAPPER_TAG}>"]
    body_lines = []  # (index in the parts, index of its body's line)
    for channel, placed in groups:
        lines.append(f"<{channel_tags[channel]}>")
        if channel_notes[channel]:
            lines.append(channel_notes[channel])
        for index in placed:
            part = parts[index]
            lines.append(f"<{part.tag}>")
            if part.note:
                lines.append(part.note)
            body_lines.append((index, len(lines)))
            lines += (part.body, f"</{part.tag}>")
        lines.append(f"</{channel_tags[channel]}>")
    lines.append(f"</{WRAPPER_TAG}>")
    # A line starts after every line before it and its line end.
    ends = list(itertools.accumulate(map(len, lines)))
    bodies = []
    for index, line in body_lines:
        start = ends[line - 1] + line
        bodies.append((index, start, start + len(parts[index].body)))
    return Assembled("\n".join(lines) + "\n", tuple(bodies), tuple(lines))
