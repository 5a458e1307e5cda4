"""A text as a CommonMark renderer shows it: what its HTML fetches, which links it shows, and
which parts of the text are code.

The chat client that shows an agent's answer renders its Markdown (markdown-it-py's CommonMark,
HTML blocks and inline HTML on, as those clients parse it) and a browser fetches what that HTML
asks for. Reading the text any other way disagrees with them somewhere: a hand-written pairing of
fences and backticks hid every entry after a fence opened in a list item (CommonMark closes it
with the item) and paired code spans across blocks. So code is what the parse renders as code,
and each fetch is found in the HTML the parse renders (``fetched.read``), then placed at the
block of the text that rendered it: its line range, narrowed to the URL as written when the
block holds it, so that blocking the entry at that place removes the fetch.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from hotplex.scanning import fetched, urls
from hotplex.text import commonmark
from hotplex.text.memo import cached_for_short_texts


class Placed(NamedTuple):
    """A URL the rendered text fetches (or links to), and the part of the text that wrote it."""

    start: int
    end: int
    url: str  # resolved against urls.PAGE
    host: str
    exact: bool  # the URL as written, not the whole block that rendered it


class Code:
    """Where a text is code wherever it lands: in the artifact it follows whatever the text
    before it left open, which a text read alone cannot know. Its first lines, up to a blank
    line, may continue a paragraph before (an unpaired backtick there pairs with its first) or
    an HTML block (``<div>`` runs to a blank line), so nothing starting there is code; and
    since the fences they took in no longer pair as they did, nor a fence a list item left
    open takes in (``- x`` then ``  ```…``), the rest is code only where it is after each of
    those too (``_LEFT_OPEN``). Asked of the few texts with a marker in code alone: each asks
    three parses more. A fence or an HTML comment left open before is the joined reading's
    (``sources.blocking.composed``): the texts of one user are read together too."""

    __slots__ = ("_alone", "_landed", "_text")

    def __init__(self, text: str, alone: list[tuple[int, int]]) -> None:
        self._text, self._alone = text, alone
        self._landed: list[tuple[int, int]] | None = None

    def holds(self, at: int) -> bool:
        if not _within(self._alone, at):
            return False
        if self._landed is None:
            self._landed = _landed(self._text, self._alone)
        return _within(self._landed, at)


# What a text before may leave open, of what changes where a text is code after it.
_LEFT_OPEN = ("<div>\n", "- x\n", "1. x\n")
# A line end then a blank line (a line end or the text's end after blanks).
_BLANK_LINE = re.compile(r"(?:\r\n?|\n)[ \t]*(?:\r|\n|\Z)")


def _landed(text: str, alone: list[tuple[int, int]]) -> list[tuple[int, int]]:
    # The first blank line after the first that is not (the artifact may drop leading ones).
    blank = _BLANK_LINE.search(text, len(text) - len(text.lstrip(" \t\r\n")))
    lead = blank.start() if blank is not None else len(text)
    code = [(start, end) for start, end in alone if start >= lead]
    parser = commonmark.parser()
    for before in _LEFT_OPEN:
        landed = before + text
        starts = [0, *(m.end() for m in _NEWLINE.finditer(landed))]
        shift = len(before)
        after = [(s - shift, e - shift) for s, e in _code(landed, starts, parser.parse(landed, {}))]
        code = _common(code, sorted(r for r in after if r[0] >= 0))
    if "|" in text:  # a table's row is cells before it is text (adversary17 D17)
        starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        code = _common(code, sorted(_code(text, starts, commonmark.parser(True).parse(text, {}))))
    return code


def _common(one: list[tuple[int, int]], other: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The offsets both sorted lists of disjoint regions hold, as such a list."""
    found, i, j = [], 0, 0
    while i < len(one) and j < len(other):
        start, end = max(one[i][0], other[j][0]), min(one[i][1], other[j][1])
        if start < end:
            found.append((start, end))
        if one[i][1] < other[j][1]:
            i += 1
        else:
            j += 1
    return found


def _within(regions: list[tuple[int, int]], at: int) -> bool:
    index = bisect.bisect_right(regions, (at, float("inf"))) - 1
    return index >= 0 and regions[index][0] <= at < regions[index][1]


class Rendering(NamedTuple):
    fetches: list[Placed]  # URLs fetched without a click
    links: list[Placed]  # link targets (a link preview fetches them too)
    code: Code  # where the text is code wherever it lands
    definitions: list[tuple[int, int, str]]  # each reference definition's lines and its title
    unread: int | None = None  # where the parse stopped reading, nested past its depth limit


@cached_for_short_texts
def read(text: str) -> Rendering:
    """``text`` as markdown-it-py's CommonMark renders it: parsed once for the scans that each
    ask it of one text (injection, hidden text)."""
    parser = commonmark.parser()
    env: dict[str, Any] = {}
    tokens = parser.parse(text, env)
    html, places = _render_placed(parser, tokens, env)
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
    seen = fetched.read(html)
    cursors = (fetched.Cursor(text), fetched.Cursor(text))  # a tag's own URLs, a nested one's
    defined = _defined(env)
    found = [
        _placed(cursors[f.nested], starts, places, f.at, f.written, f.url, f.host, defined)
        for f in seen.fetches
    ]
    shown = []
    cursor = fetched.Cursor(text)  # links are placed in their own order
    for written, at in seen.links:
        resolved = urls.resolve(written)
        if resolved is not None:
            shown.append(_placed(cursor, starts, places, at, written, *resolved, defined))
    code = Code(text, sorted(_code(text, starts, tokens)))
    deep = _past_nesting(tokens, parser.options.maxNesting)
    unread = None if deep is None else starts[deep]
    return Rendering(found, shown, code, _definitions(env, starts, len(text)), unread)


def _past_nesting(tokens: list[Any], limit: int) -> int | None:
    """The first line of a block opened at markdown-it's depth limit (``maxNesting``: a quote
    twenty levels deep, a list ten) and closed at once: the parse skips what it holds, which
    other CommonMark renderers read (adversary14 D7: a definition there fetched its image).
    Reading deeper would cost the square of the depth a line, and the stack with it; so what
    lies past the limit is refused as unread, as markup tangled past the budget is."""
    pairs = itertools.pairwise(tokens)
    return next(
        (
            opened.map[0]
            for opened, after in pairs
            if opened.nesting == 1 and opened.level >= limit - 1 and after.nesting == -1
        ),
        None,
    )


def _defined(env: dict[str, Any]) -> dict[str, list[tuple[int, int]]]:
    """The lines of each reference definition the parse read, by the URL it defines."""
    defined: dict[str, list[tuple[int, int]]] = {}
    for found in env.get("references", {}).values():
        defined.setdefault(found["href"], []).append(tuple(found["map"]))
    return defined


def _definitions(env: dict[str, Any], starts: list[int], size: int) -> list[tuple[int, int, str]]:
    """Each reference definition the parse read (a label's second one too, which is as unseen),
    as the offsets of its lines and its title."""
    read = [*env.get("references", {}).values(), *env.get("duplicate_refs", ())]
    return [
        (starts[first], starts[last] if last < len(starts) else size, found["title"])
        for found in read
        for first, last in [found["map"]]
        if found["title"]
    ]


_NEWLINE = re.compile("\r\n?|\n")  # where markdown-it ends a line


def _render_placed(
    parser: Any, tokens: list[Any], env: dict[str, Any]
) -> tuple[str, list[tuple[int, tuple[int, int]]]]:
    """The HTML ``parser`` renders of ``tokens`` (its own renderer's loop, token by token), and
    for each token's piece the offset it starts at in the HTML and the source lines of the
    innermost block it came from."""
    renderer, options = parser.renderer, parser.options
    out: list[str] = []
    places: list[tuple[int, tuple[int, int]]] = []
    size, lines = 0, (0, 1)
    for index, token in enumerate(tokens):
        if token.map:
            lines = (token.map[0], token.map[1])
        if token.type == "inline":
            piece = renderer.renderInline(token.children or [], options, env)
        elif token.type in renderer.rules:
            piece = renderer.rules[token.type](tokens, index, options, env)
        else:
            piece = renderer.renderToken(tokens, index, options, env)
        places.append((size, lines))
        out.append(piece)
        size += len(piece)
    return "".join(out), places


def _placed(
    cursor: fetched.Cursor,
    starts: list[int],
    places: list[tuple[int, tuple[int, int]]],
    at: int,
    written: str,
    url: str,
    host: str,
    defined: dict[str, list[tuple[int, int]]],
) -> Placed:
    """Where in ``text`` the HTML at offset ``at`` was written: the URL as written, if the block
    holds it past the URL placed before it (``fetched.Cursor``) or a definition of it does
    (a reference's), else the whole block."""
    text = cursor.text
    index = bisect.bisect_right(places, (at, (len(starts) + 1, 0))) - 1
    first, last = places[max(index, 0)][1]
    start, end = starts[min(first, len(starts) - 1)], _line_end(text, starts, last)
    needles = dict.fromkeys((written, commonmark.parser().normalizeLinkText(written)))
    found = cursor.find(needles, start, end)
    for lines in () if found is not None else defined.get(written, ()):
        found = cursor.find(needles, starts[lines[0]], _line_end(text, starts, lines[1]))
        if found is not None:
            break
    if found is not None:
        return Placed(*found, url, host, True)
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    return Placed(start, max(end, start + 1), url, host, False)


def _line_end(text: str, starts: list[int], line: int) -> int:
    """The offset where line ``line`` (counted from 0) starts, or the text's end."""
    return starts[line] if line < len(starts) else len(text)


def _code(text: str, starts: list[int], tokens: list[Any]) -> Iterator[tuple[int, int]]:
    """What is code wherever the text lands: a fenced block by its lines, code spans where
    their backtick runs are, each found again in its block's lines and checked (its content
    read back must be the span's), so a span not found is no code. A text lands after other
    text (a section's intro paragraph, a list item another file left open), so a block whose
    reading that can change is no code: an indented block (after a paragraph it continues it;
    in a list item or a GFM footnote it is their text), and a fence in a list item or a quote
    or indented at all (an item left open before the text takes it in, and the item's end
    ends the fence). A fence at a line's start is read alike after any paragraph or item."""
    for token in tokens:
        if token.type == "fence" and token.map and token.level == 0:
            start = starts[token.map[0]]
            if text.startswith(token.markup, start):  # the fence not indented
                yield start, _line_end(text, starts, token.map[1])
        elif token.type == "inline" and token.map and token.children:
            spans = [c for c in token.children if c.type == "code_inline"]
            if spans:
                begin, end = starts[token.map[0]], _line_end(text, starts, token.map[1])
                yield from _spans(text, begin, end, spans)


_BACKTICKS = re.compile(r"`+")


def _spans(text: str, begin: int, end: int, spans: list[Any]) -> Iterator[tuple[int, int]]:
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, begin, end)]
    cursor = 0  # index of the first run a later span may open at
    for span in spans:
        width = len(span.markup)
        for opening in range(cursor, len(runs)):
            open_start, open_end = runs[opening]
            if open_end - open_start != width or _escaped(text, open_start):
                continue
            closing = next(
                (k for k in range(opening + 1, len(runs)) if runs[k][1] - runs[k][0] == width),
                None,
            )
            if closing is not None and _content(text[open_end : runs[closing][0]]) == span.content:
                yield open_start, runs[closing][1]
                cursor = closing + 1
                break


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` is escaped: an odd run of backslashes before it (``\\\\``
    is an escaped backslash, and the backtick after it opens a span: adversary17 D8)."""
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


def _content(inside: str) -> str:
    """A code span's content as CommonMark reads it from between its backtick runs."""
    inside = inside.replace("\r\n", " ").replace("\n", " ")
    if len(inside) >= 2 and inside[0] == inside[-1] == " " and inside.strip(" "):
        return inside[1:-1]
    return inside
