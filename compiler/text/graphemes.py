"""Where a cut may fall: between two extended grapheme clusters (UAX #29), the characters a
reader sees as one. A cut inside one leaves half of it: a flag's black flag and some of its tag
letters (which spell text no one sees), an emoji without its skin tone, a letter without its
accent, a trailing zero-width joiner. Only the cut point is segmented (``regex``'s ``\\X``), from
the nearest boundary before it that two neighbouring characters prove, so a cut in a large text
costs a few characters, not a pass over it.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _patterns() -> tuple[Any, Any]:
    """``\\X``, and the positions surely between clusters, searched backwards: after a line feed,
    or between two characters no rule joins (Grapheme_Cluster_Break=Other on both sides)."""
    import regex

    cluster = regex.compile(r"\X", regex.V1)
    sure = regex.compile(
        r"(?r)(?<=\n)|(?<=\p{Grapheme_Cluster_Break=Other})(?=\p{Grapheme_Cluster_Break=Other})",
        regex.V1,
    )
    return cluster, sure


def floor(text: str, at: int) -> int:
    """The last cluster boundary of ``text`` at or before offset ``at``."""
    if at <= 0:
        return 0
    if at >= len(text):
        return len(text)
    before, after = text[at - 1], text[at]
    if before < "\x80" and after < "\x80" and before + after != "\r\n":
        return at  # two ASCII characters other than CR LF: never one cluster
    if before in _FLAG_LETTERS and after in _FLAG_LETTERS:  # flags pair up from the run's start
        run = len(text[:at]) - len(text[:at].rstrip(_FLAG_LETTERS))
        if run % 2 == 0:
            return at
        return at - 1 if run > 1 else floor(text, at - 1)
    found = _patterns()[1].search(text, 0, at)
    boundary = found.start() if found is not None else 0
    while True:
        end = _cluster_end(text, boundary)
        if end > at:
            return boundary
        boundary = end


def _cluster_end(text: str, start: int) -> int:
    """Where the cluster starting at the boundary ``start`` ends. Matched in a slice: ``regex``
    looks back over a run of regional indicators from every match, which a slice cuts short."""
    window = text[start : start + _WINDOW]
    end = _patterns()[0].match(window).end()
    if end < len(window) or start + len(window) >= len(text):
        return start + end
    return _patterns()[0].match(text, start).end()  # a cluster longer than the window


_WINDOW = 64
# The regional indicators, two of which make a flag (Grapheme_Cluster_Break=Regional_Indicator).
_FLAG_LETTERS = "".join(chr(c) for c in range(0x1F1E6, 0x1F200))
