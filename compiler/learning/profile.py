"""A profile's text split into the person's lines and the learned block's facts, and joined
back: the lines outside the block come back byte for byte, the block is written from its facts
alone (sorted by key), so its bytes depend on nothing but the facts and their dates.

A block edited by hand is read as strictly as it is written, by the reader a build uses
(``learned.read_block``): what one refuses, the other does, with the same message and line.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hotplex.learning.report import Fact
from hotplex.sources import learned

# A line ends where Markdown ends it: at a CRLF, a lone CR or a lone LF.
_LINE_END = re.compile(r"(\r\n|\r|\n)")


class Profile(NamedTuple):
    before: str  # the text before the block, its line ends as written (all of it: no block)
    facts: dict[str, Fact]  # the block's facts by key
    after: str | None  # the text after the block's last line, from its line end; None: no block
    # The file's line end (its first one's: CRLF, CR or LF): the block's lines are written so,
    # and every other line keeps its own ending, as written.
    eol: str = "\n"


def parse(text: str, file: str) -> Profile:
    parts = _LINE_END.split(text)
    lines, ends = parts[0::2], [*parts[1::2], ""]
    eol = ends[0] or "\n"
    found = learned.read_block(lines, file)
    if found is None:
        return Profile(text, {}, None, eol)
    start, end = found.start, found.end
    facts = {
        key: Fact(key, line.value, line.learned, line.source, line.confirmed, line.key)
        for key, line in found.facts.items()
    }
    after = ends[end] + _text(lines[end + 1 :], ends[end + 1 :])
    return Profile(_text(lines[:start], ends[:start]), facts, after, eol)


def _text(lines: list[str], ends: list[str]) -> str:
    return "".join(line + ending for line, ending in zip(lines, ends, strict=True))


def block(facts: dict[str, Fact]) -> list[str]:
    """The block's lines for these facts, without their line ends."""
    items = [
        learned.fact_line(f.spelled, f.value, f.learned, f.source, f.confirmed)
        for _key, f in sorted(facts.items())
    ]
    return [learned.START, learned.HEADING, *(["", *items] if items else []), learned.END]


def join(profile: Profile, facts: dict[str, Fact]) -> str:
    """The profile's text with its block holding ``facts``; a file without one gets it at its
    end, after a blank line."""
    eol = profile.eol
    lines = eol.join(block(facts))
    if profile.after is not None:
        return profile.before + lines + profile.after
    before = profile.before
    if before and not before.endswith(("\n", "\r")):
        before += eol  # the last line had no ending: it gets the file's
    spacer = eol if before else ""
    return before + spacer + lines + eol


def worker_size(fact: Fact) -> int:
    """What a fact costs the budget: its line as the worker reads it, with its line end."""
    return len(f"- {fact.spelled}: {fact.value}\n")
