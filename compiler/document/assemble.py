"""The ``<agent-configuration>`` document (HotPlex's prompt layout: one tag per source, grouped
by channel), shared by the XML workers.

Layout: the wrapper, then one group per channel in B, C order (``<directives>``, ``<context>``),
each opening with its one-line note, then its sections in source order, each opening with its
one-line note. Empty sections and empty groups are omitted; with nothing at all the document is
empty. Line ends are ``\\n``; the document ends with one newline.
"""

from __future__ import annotations

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
    # ``text`` is these joined: the document's own lines and each placed part's ``block``, so a
    # part kept from one document to the next is encoded once (``configuration.utf8``).
    pieces: tuple[str, ...] = ()
    blocks: tuple[int, ...] = ()  # the index in ``pieces`` of each placed part's block


def block(part: Part) -> str:
    """A part's lines in the document, each followed by its line end."""
    note = f"{part.note}\n" if part.note else ""
    return f"<{part.tag}>\n{note}{part.body}\n</{part.tag}>\n"


def document(
    parts: list[Part],
    channel_tags: dict[str, str],
    channel_notes: dict[str, str],
    blocks: list[str | None] | None = None,
) -> Assembled:
    """``blocks``: each part's ``block`` where the caller kept it (None: made here)."""
    groups = []
    for channel in CHANNEL_ORDER:
        placed = [i for i, p in enumerate(parts) if p.channel == channel and p.body.strip()]
        if placed:
            groups.append((channel, placed))
    if not groups:
        return Assembled("", ())
    pieces = [f"<{WRAPPER_TAG}>\n"]
    offset = len(pieces[0])
    bodies, at = [], []
    for channel, placed in groups:
        note = channel_notes[channel]
        pieces.append(
            f"<{channel_tags[channel]}>\n{note}\n" if note else f"<{channel_tags[channel]}>\n"
        )
        offset += len(pieces[-1])
        for index in placed:
            part = parts[index]
            kept = blocks[index] if blocks is not None else None
            # The body starts after "<tag>\n" and the note's line.
            start = offset + len(part.tag) + 3 + (len(part.note) + 1 if part.note else 0)
            bodies.append((index, start, start + len(part.body)))
            at.append(len(pieces))
            pieces.append(kept if kept is not None else block(part))
            offset += len(pieces[-1])
        pieces.append(f"</{channel_tags[channel]}>\n")
        offset += len(pieces[-1])
    pieces.append(f"</{WRAPPER_TAG}>\n")
    return Assembled("".join(pieces), tuple(bodies), tuple(pieces), tuple(at))
