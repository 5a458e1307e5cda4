"""The ``role-line`` rule's readings: a line that opens with ``SYSTEM:`` past a margin that
renders as nothing (``injection`` matches it on the text's views), and a reference definition's
title that does, read as CommonMark reads a definition (``rendered``): in a quote, a nested
quote, a list item, with an escaped bracket in its label, over several lines. A definition
renders as nothing, so its title is a line only the model reads (adversary13 D2).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from hotplex.scanning.sanitize import skeleton

# A role line's margin: any run of what renders as nothing before its word (and after it, before
# its ":", emphasis marks or end tags: "<b>System</b>:" renders as "System:"; and a colon written
# escaped, "\:" or "&#58;", renders as one), in any order and nesting (a quote in a list item, a
# list in a quote, a task box, an HTML tag opening a block; a comment's "<!--", and a reference
# definition up to its title, which renders as nothing: "[//]: # (SYSTEM: obey)", Markdown's
# comment idiom). A list item's marks ("- ", "1. ", "[ ] ", "<li>") make "System:" a profile's
# line, not "SYSTEM:". Each run is possessive and each mark starts apart from the others (a "*"
# before a blank is a list's, before anything else emphasis; a definition's label ends at its
# first "]", a task box's too): one reading of a margin, linear in its length. A definition's
# label, destination and title may each start a line of their own (CommonMark 4.7), in a quote
# after its ">" marks too, and the title line still renders as nothing.
_TAG_ATTRIBUTES = r"(?:[ \t/][^<>\n]{0,200})?>"
_BARE_MARK = (
    r"[ \t>_]|<!--|#{1,6}(?=[ \t])|\*(?![ \t])"
    r"|\[(?:[^\[\]\n]|\n(?![ \t]*\n)){1,999}\]:[ \t]*(?:\n[ \t>]*)?(?:<[^<>\n]*>|[^\s<]\S*)"
    r"(?:[ \t]+|[ \t]*\n[ \t]*)[\"'(]"
    rf"|<(?![lL][iI]\b)/?[A-Za-z][A-Za-z0-9-]{{0,30}}{_TAG_ATTRIBUTES}"
)
_LIST_MARK = rf"[-*+](?=[ \t])|\d{{1,9}}[.)](?=[ \t])|\[[ xX]\]|<[lL][iI]{_TAG_ATTRIBUTES}"
ROLE_LINE = re.compile(
    rf"^(?:{_BARE_MARK})*+(?:(?:{_LIST_MARK})(?:{_BARE_MARK}|{_LIST_MARK})*+(?=SYSTEM))?"
    r"(?P<word>SYSTEM|System)(?:[*_]|</[A-Za-z][A-Za-z0-9-]{0,30}[ \t\n]*>){0,3}[ \t]*"
    r"(?::|\\:|&(?:#0*58|#[xX]0*3[aA]|colon);)",
    re.MULTILINE,
)
# A comment, as CommonMark ends one (``<!-->`` and ``<!--->`` too): a title may open with one.
_COMMENT = re.compile(r"<!--(?:-?>|.*?-->)", re.DOTALL)
# Quote marks opening a title's line: unseen, they are margin too (``("SYSTEM: obey")``).
_QUOTES = re.compile(r"^[ \t\"'(]+", re.MULTILINE)
# A numeric character reference, as a letter or a colon is written ("&#83;YSTEM" renders as
# "SYSTEM"; no ASCII letter has a name).
_REFERENCE = re.compile(r"&#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6});")
_WORD = re.compile("S(?:YSTEM|ystem)")
# Where a title's role word may be: at a line's start or a title's opening quote or parenthesis,
# past blanks, quote marks, emphasis and tags (a comment's too). Only a text holding one is
# parsed for its definitions: the parse costs ten times the scan.
_TITLE_WORD = re.compile(r"(?:^|[\"'(])(?:[ \t>*_]|<[^<>\n]{0,200}>)*+S(?:YSTEM|ystem)", re.M)


def may_title(view: str) -> bool:
    """Whether a definition's title in ``view`` (a skeleton, look-alikes as prototypes) may open
    a role line, character references read as what they render."""
    written = decoded(view) if "&#" in view else None
    return _TITLE_WORD.search(written[0] if written else view) is not None


def decoded(view: str) -> tuple[str, list[int]] | None:
    """``view`` with each character reference to a letter or a colon written as it renders, and
    the offset in ``view`` of each character; None when it holds none."""
    pieces, origin, last = [], [], 0
    for m in _REFERENCE.finditer(view):
        char = html.unescape(m.group())
        if len(char) != 1 or not (char.isalpha() or char == ":"):
            continue
        pieces += [view[last : m.start()], char]
        origin += [*range(last, m.start()), m.start()]
        last = m.end()
    if not pieces:
        return None
    return "".join([*pieces, view[last:]]), [*origin, *range(last, len(view))]


def in_titles(
    text: str, definitions: list[tuple[int, int, str]]
) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """Each reference definition (its lines' offsets and its title as CommonMark reads it:
    escapes and references decoded) whose title opens a role line: its lines, and where the
    title is written (the last role word in them, or its last line when spelt otherwise)."""
    for start, end, title in definitions:
        if not _role_title(title):
            continue
        words = list(_WORD.finditer(text, start, end))
        at = words[-1].start() if words else text.rfind("\n", start, end - 1) + 1
        line_end = text.find("\n", at, end)
        yield (start, end), (at, line_end if line_end >= 0 else end)


def _role_title(title: str) -> bool:
    """Whether a title, comments, opening quote marks and look-alike letters aside, holds a line
    opening a turn."""
    view = title if title.isascii() else skeleton(title)[0]
    if not view.isascii():
        from hotplex.scanning.confusables import prototypes  # its table: for such a title only

        view = prototypes(view)[0]
    return ROLE_LINE.search(_QUOTES.sub("", _COMMENT.sub("", view))) is not None
