"""What a style sheet fetches: every ``url()`` and string of it, each with its offset, read with
tinycss2 (escapes, comments and ``url()`` as CSS Syntax 3 reads them). Wider than what a browser
fetches (a string is taken for a URL: ``@import "…"``, ``image-set("…")``), never narrower."""

from __future__ import annotations

import array
import collections
import functools
import re
from collections.abc import Iterator
from typing import Any

_NEWLINE = re.compile("\n")
# The first piece of a style sheet ``Known.read`` tokenizes.
_PIECE = 512
# What tinycss2 costs to tokenize a character, in characters of markup html.parser reads in the
# same time (5.6 µs against 1.25): a reading's budget counts markup, so CSS is charged at this
# rate (adversary14 D9: 20,000 ``url()`` of a ``data:`` style sheet were charged a quarter).
RATE = 4


def urls(css: str) -> list[str]:
    """Every ``url()`` of a piece of CSS and every string in it."""
    if not _has_values(css):
        return []
    tokens = _tokens(tinycss2().parse_component_value_list(css), css)
    return [value for _, value in tokens if value is not None]


class Known:
    """The tokens of the style sheets one piece of HTML already read, so that a style sheet
    that is the tail of one read before (raw text read again) is read only where it differs."""

    def __init__(self) -> None:
        # By where a style sheet ends, where a token of one already read began: read from there
        # on, the CSS tokenizer (which keeps no state between tokens) finds those tokens again.
        self._tokens: dict[int, set[int]] = collections.defaultdict(set)

    def read(self, css: str, base: int) -> tuple[list[tuple[str, int]], int]:
        """Each ``url()`` and string of the style sheet ``css`` (at ``base``) with its offset,
        but those of the tokens a style sheet read before found (ending where it ends), and what
        reading it cost (``RATE`` a character tokenized): it is tokenized from its start in
        pieces growing fourfold until a token begins where one of those began (``urls`` is the
        same reading in one piece)."""
        known = self._tokens[base + len(css)]
        if base in known or not _has_values(css):  # known first: a tail read again is long
            return [], 0
        size = _PIECE
        tokenized = 0
        while True:
            piece = css[:size]
            tokenized += len(piece)
            whole = size >= len(css)
            # A token that ends this far before the piece's end is one the whole text has too:
            # the tokenizer looks at most three characters past a token.
            sure = len(piece) if whole else len(piece) - 8
            offsets, found = _piece_tokens(piece)
            starts = [at for at in offsets if at <= sure]
            meets = next((at for at in starts if base + at in known), None)
            if meets is None and not whole:
                size *= 4
                continue
            stop = len(piece) if meets is None else meets
            known.update(base + at for at in starts if at < stop)
            known.add(base)
            # Charged up to where it meets what was read: a note naming "<style>" a thousand
            # times is read again from each, and a whole piece a time made it unread-markup.
            charged = tokenized - len(piece) + stop
            return [(v, base + at) for at, v in found if at < stop], RATE * charged


@functools.lru_cache(maxsize=8)
def _piece_tokens(piece: str) -> tuple[array.array[int], tuple[tuple[int, str], ...]]:
    """Where each token of a piece of a style sheet begins, and each ``url()`` and string with
    its offset: every reading of one text meets the same style sheet again (the text as written
    and as rendered, an SVG read as HTML and as XML), tokenized once (adversary14 D9: four
    times, most of its cost); offsets kept in an array, a few bytes a token. Still charged to
    each reading, whose budget does not hang on what was read before."""
    tokens = list(_tokens(tinycss2().parse_component_value_list(piece), piece))
    values = tuple((at, value) for at, value in tokens if value is not None)
    return array.array("l", (at for at, _ in tokens)), values


def _has_values(css: str) -> bool:
    return "url" in css.casefold() or '"' in css or "'" in css or "\\" in css


def _tokens(tokens: list[Any], css: str) -> Iterator[tuple[int, str | None]]:
    """Each token of ``tokens`` (those nested in blocks too, in order) by its offset in
    ``css``, with its value when it is a ``url()`` or a string."""
    lines = [0, *(m.end() for m in _NEWLINE.finditer(css))]
    stack = [iter(tokens)]
    while stack:
        token = next(stack[-1], None)
        if token is None:
            stack.pop()
            continue
        value = token.value if token.type in ("url", "string") else None
        yield lines[token.source_line - 1] + token.source_column - 1, value
        for nested in ("arguments", "content"):
            inner = getattr(token, nested, None)
            if isinstance(inner, list):
                stack.append(iter(inner))


@functools.cache
def tinycss2() -> Any:
    import tinycss2  # only HTML with a style attribute or element needs it

    return tinycss2
