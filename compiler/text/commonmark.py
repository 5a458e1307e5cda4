"""Markdown as CommonMark reads it: markdown-it-py's parser, HTML blocks and inline HTML on, as
the chat clients that show an agent's answer parse it. One for the process: building one costs
about 0.2 ms, as much as a whole compile, and a parse keeps its state in the call, not in it.

Two of its link helpers are given the same answers for less work (adversary10 D5): a text of
image openers cost 50-100 µs a byte, one 850 KB memory 100 CPU-seconds. A label that no ``]``
after it can close is no label, answered before its walk token by token; a destination is
walked from one parenthesis, space or escape to the next, not a character at a time, through up
to 32 parentheses each, and read once for the image rule and the link rule both."""

from __future__ import annotations

import functools
import re
import types
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@functools.cache
def parser(tables: bool = False) -> MarkdownIt:
    """``tables``: with GFM's tables too, whose rows are split into cells at each ``|`` before
    their text is read (a code span does not run across one), as GitHub and most chat clients
    show them."""
    from markdown_it import (
        MarkdownIt,  # only a text that needs the parse imports it
        helpers,
    )

    made = MarkdownIt("commonmark").enable("table") if tables else MarkdownIt("commonmark")
    made.helpers = types.SimpleNamespace(
        parseLinkLabel=_label_end(helpers.parseLinkLabel),
        parseLinkDestination=_destination,
        parseLinkTitle=helpers.parseLinkTitle,
    )
    made.validateLink = _shown_link
    return made


_REFUSED_SCHEME = re.compile(r"(?:vbscript|javascript|file|data):")


def _shown_link(url: str) -> bool:
    """Whether a link or image keeps its destination: markdown-it's rule, but a ``data:`` image
    of any type, SVG too, which clients show in ``<img>`` as they do ``<img src>``'s
    (adversary13 D8: markdown-it keeps only GIF, PNG, JPEG and WebP)."""
    url = url.strip().lower()
    return url.startswith("data:image/") or _REFUSED_SCHEME.match(url) is None


def _label_end(walk: Any) -> Any:
    """markdown-it's ``parseLinkLabel``, answering -1 at once when no ``]`` follows: its walk
    can only end at one."""

    def label_end(state: Any, start: int, disable_nested: bool = False) -> int:
        if state.src.find("]", start + 1, state.posMax) < 0:
            return -1
        return walk(state, start, disable_nested)

    return label_end


_SPECIAL = re.compile(r"[\x00-\x20\x7f\\()]")
_MAX_PARENTHESES = 32  # markdown-it's (and cmark's) bound on a destination's open parentheses


# The last destination read, (text, pos, maximum, answer): the image rule and then the link rule
# read the same one at every ``![a](`` that is no image.
_last: tuple[str, int, int, Any] = ("", -1, -1, None)


def _destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's ``parseLinkDestination``, the same answer for every input."""
    global _last
    last = _last
    if last[0] is string and last[1] == pos and last[2] == maximum:
        return last[3]
    result = _walked(string, pos, maximum)
    _last = (string, pos, maximum, result)
    return result


@functools.cache
def _stock() -> tuple[Any, Any, Any]:
    """The pieces of markdown-it ``_walked`` uses, imported once: an import statement in it cost
    a fifth of each destination read."""
    from markdown_it.common.utils import unescapeAll
    from markdown_it.helpers import parseLinkDestination
    from markdown_it.helpers.parse_link_destination import _Result

    return unescapeAll, parseLinkDestination, _Result


def _walked(string: str, pos: int, maximum: int) -> Any:
    unescapeAll, parseLinkDestination, _Result = _stock()
    if string.startswith("<", pos):
        return parseLinkDestination(string, pos, maximum)  # no parentheses counted: linear
    result, start, level, end = _Result(), pos, 0, maximum
    for special in _SPECIAL.finditer(string, pos, maximum):
        at = special.start()
        if at < pos:  # the character an escape took
            continue
        char = special.group()
        if char == "\\":
            if at + 1 < maximum:
                if string[at + 1] == " ":
                    end = at
                    break
                pos = at + 2
            continue  # a backslash last is a character like any other
        if char == "(":
            level += 1
            if level > _MAX_PARENTHESES:
                return result
        elif char == ")" and level > 0:
            level -= 1
        else:  # a space, a control character or a ``)`` closing nothing ends it
            end = at
            break
        pos = at + 1
    if start == end or level != 0:
        return result
    result.str, result.pos, result.ok = unescapeAll(string[start:end]), end, True
    return result
