"""Where a browser ends an element's raw text in one piece of HTML, and what reading raw text
costs, each known once for the whole piece however often ``fetched.py`` reads it again.

Raw text read again opens raw text again: a note naming ``<style>`` a thousand times is a
thousand readings, each in a ``<style>``'s text to the HTML's end. Each searched that tail for
its end tag and was charged a sixty-fourth of it: k·n/128 in all, a false ``unread-markup`` on
about 120 KB of prose. Every reading reads a stretch of the one HTML (offsets in it), so the end
found from an offset is the end from any offset before it up to there, and a stretch of raw text
is charged to the budget the first time it is read, not at each reading again."""

from __future__ import annotations

import bisect
import collections
import functools
import re
from collections.abc import Callable

# Elements whose content a browser reads as raw text (RCDATA) up to their end tag: those that
# html.parser reads as markup, and <script> and <style>, which it ends only at "</name>".
ELEMENTS = frozenset(
    ["title", "textarea", "iframe", "xmp", "noembed", "noframes", "noscript", "script", "style"]
)
# What html.parser costs to look through a character of raw text (one search for its end tag),
# as a part of what it costs to read a character of markup.
RATE = 64
# And what it costs to copy a character of it (what a parser holds, taken again at each reading):
# memcpy, thousands of times cheaper than markup (20,000 readings of a 330 KB tail: 0.9 s); charged
# at more, as its readings grow with the text: past ~30,000 the budget stops them.
COPY_RATE = 1024


class Ends:
    """Where raw text ends in ``html``, found from an offset: the first match there or past it
    of an end tag's pattern (one that begins "</": a browser's, html.parser's) answers every
    offset back to where the search began, so each stretch of the HTML is looked through about
    once a pattern. ``searched``: the characters looked through."""

    def __init__(self, html: str) -> None:
        self.html = html
        self.searched = 0
        # By pattern: the offsets searched from, sorted, and the span each found (none: the end).
        self._known: dict[re.Pattern[str], tuple[list[int], list[tuple[int, int]]]] = (
            collections.defaultdict(lambda: ([], []))
        )

    def end(self, tag: str, at: int, stop: int) -> int | None:
        """Where a browser ends ``tag``'s raw text at ``at``, if it ends by ``stop`` (the end of
        the stretch a reading reads)."""
        start, end = self.first(end_tag(tag), at)
        return start if end <= stop else None

    def first(self, pattern: re.Pattern[str], at: int) -> tuple[int, int]:
        """The span of the first match of ``pattern`` at or past ``at`` ((len, len): none)."""
        starts, spans = self._known[pattern]
        i = bisect.bisect_right(starts, at)
        if i and at <= spans[i - 1][0]:
            return spans[i - 1]
        # Up to the next offset searched from: a match that begins there or past it is known.
        stop = len(self.html) if i == len(starts) else starts[i]
        found = (len(self.html),) * 2 if i == len(starts) else spans[i]
        candidate = self.html.find("</", at, stop)
        while candidate >= 0:
            match = pattern.match(self.html, candidate)
            if match is not None:
                found = match.span()
                break
            candidate = self.html.find("</", candidate + 1, stop)
        self.searched += (stop if candidate < 0 else candidate) - at
        starts.insert(i, at)
        spans.insert(i, found)
        return found


class Searched:
    """html.parser's search for the end of the raw text it reads (its ``interesting``), answered
    from ``Ends``: a reading of raw text again does not look through it again. ``offset``: where
    in the HTML the parser stands (the ``i`` it searches from)."""

    def __init__(self, pattern: re.Pattern[str], ends: Ends, offset: Callable[[], int]) -> None:
        self._pattern = pattern
        self._ends = ends
        self._offset = offset

    def search(self, rawdata: str, i: int) -> re.Match[str] | None:
        at = self._offset()
        start, end = self._ends.first(self._pattern, at)
        if end > at + len(rawdata) - i:  # past what the parser holds so far
            return None
        return self._pattern.match(rawdata, i + start - at)


class Charged:
    """What the raw text the readings of one piece of HTML took costs them: html.parser's search
    for its end, once (raw text runs to its end tag or to the end, so raw texts that end at one
    place are each the tail of the longest), and its copy of what it holds, at each reading."""

    def __init__(self) -> None:
        self._from: dict[int, int] = {}  # by where raw text ends: the first offset charged

    def cost(self, spans: list[tuple[int, int]]) -> int:
        """What reading the raw text ``spans`` costs, in characters of markup."""
        searched = held = 0
        for start, end in spans:
            held += end - start
            charged = self._from.get(end, end)
            if start < charged:
                searched += charged - start
                self._from[end] = start
        return searched // RATE + held // COPY_RATE


@functools.cache
def end_tag(tag: str) -> re.Pattern[str]:
    """The end tag a browser ends ``tag``'s raw text at: "</tag" and a blank, "/" or ">"."""
    return re.compile(rf"</{tag}[\t\n\f\r />]", re.IGNORECASE)
