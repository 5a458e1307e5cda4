"""Neutralise reserved tags inside injected text, so content can never open or close the prompt's
structure.

A reserved tag is any structural tag name the worker emits (the wrapper, the channel groups, the
meta-cognition block and every source's tag). Every spelling counts: any letter case, opening,
closing or self-closing, with attributes, with blanks or a newline inside (``</PERSONA >``,
``<directives/>``, ``<Rules x="1">``, ``< /memory>``). Only the ``<`` of such a tag is escaped (as
``&lt;``, the seed's "targeted HTML escaping"); other Markdown and HTML passes unchanged.

Disguised spellings count too: a model reads ``</mem\\u200bory>`` or ``＜／ｍｅｍｏｒｙ＞`` as the
tag an XML parser does not see. So the text is also matched as its *skeleton*: each character
replaced by its compatibility decomposition (NFKD: fullwidth ``＜`` is ``<``, ``ｍ`` is ``m``) and
default-ignorable characters (zero-width, joiners, variation selectors, tags) removed; the
character that plays the ``<`` of a tag there is escaped in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from hotplex.scanning import as_read, role_lines
from hotplex.scanning.confusables import reading_as, skeleton

ESCAPED_LT = "&lt;"


@lru_cache(maxsize=64)
def reserved_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """A pattern matching the start of any spelling of any of ``names`` as a tag."""
    # The name must end the tag name: followed by a blank, '/', '>' or the end of the text.
    return re.compile(rf"<(?=\s*/?\s*(?:{_alternatives(names)})(?:[\s/>]|$))", re.IGNORECASE)


@lru_cache(maxsize=64)
def _loose_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """Any '<' before a name, ended or not: what an ASCII-only view of a skeleton is searched
    for, to know cheaply that no disguised tag can be there."""
    return re.compile(rf"<\s*/?\s*(?:{_alternatives(names)})|<[\s/]*\Z", re.IGNORECASE)


def _alternatives(names: frozenset[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))


# A '<' left open at the very end of a text, past its last '>': harmless alone, but the document
# writes its own text after it. A note is followed by its section's text on the next line, so
# the note "see <" before a body starting "/persona>" would spell "</persona>" across the line
# break; and a tag opened there ("<system", '<img alt="x') would run on over the wrapper's
# "</user>" and close at its '>', a tag the scans of the text alone never saw (adversary18 D6).
_LEFT_OPEN = re.compile(r"<(?=/?[A-Za-z]|\s*/?\s*\Z)")
# Any tag name opened at the very end of a text ("</memory"): a cut must not end there, since the
# line break after it would end the name and make it a tag.
_OPEN_TAG_TAIL = re.compile(r"<[\s/]*[A-Za-z_][A-Za-z0-9_.-]*\Z")


def sanitize(text: str, names: Iterable[str]) -> str:
    starts = _tag_starts(text, frozenset(names), dangling=True)
    if not starts:
        return text
    pieces, last = [], 0
    for at in starts:
        pieces += [text[last:at], ESCAPED_LT]
        last = at + 1
    pieces.append(text[last:])
    return "".join(pieces)


def count_tags(text: str, names: Iterable[str]) -> int:
    """How many reserved tags (in any spelling) ``text`` holds; the property tests count with it."""
    return len(tag_offsets(text, names))


def tag_offsets(text: str, names: Iterable[str]) -> list[int]:
    """Where each reserved tag (in any spelling) of ``text`` starts: what ``sanitize`` escapes."""
    return _tag_starts(text, frozenset(names), dangling=False)


def open_tag_tail(text: str) -> int:
    """Where a tag name opened at the end of ``text`` starts (``len(text)`` when none is)."""
    if text.isascii():
        found = _OPEN_TAG_TAIL.search(text)
        return found.start() if found else len(text)
    folded, origin = skeleton(text)
    found = _OPEN_TAG_TAIL.search(folded)
    return origin[found.start()] if found else len(text)


def _tag_starts(text: str, names: frozenset[str], dangling: bool) -> list[int]:
    """The offsets of the characters that open a reserved tag (or, with ``dangling``, a '<'
    left open at the end: ``_dangling``), in order."""
    pattern = reserved_pattern(names)

    def starts(view: str) -> set[int]:
        return {m.start() for m in pattern.finditer(view)} | (
            _dangling(view) if dangling else set()
        )

    plain = starts(text)
    if _may_be_disguised(text):
        plain |= _as_read_starts(text, names)
    if text.isascii():
        return sorted(plain)
    cheap = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    if not _loose_pattern(names).search(cheap):
        return sorted(plain)
    folded, origin = skeleton(text)
    return sorted(plain | {origin[at] for at in starts(folded)})


# A '<' whose name holds a reference, markup, an escape, an emphasis mark or a character
# beyond ASCII before a blank or a '>': where a tag can be spelt in disguise that only its
# reading as read finds.
_DISGUISED_NAME = re.compile(r"<[\s/]*[^\s>]*?[&<*\[\\_\x80-\U0010ffff]")


def _may_be_disguised(text: str) -> bool:
    """Whether ``text`` may hold a tag only its reading as read finds: a disguised name after a
    '<', or a character read as '<' (``‹``; one look for each, cheaper than a class's)."""
    if "<" in text and _DISGUISED_NAME.search(text):
        return True
    return not text.isascii() and any(char in text for char in reading_as("<"))


@lru_cache(maxsize=64)
def _read_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """``reserved_pattern`` with emphasis marks, which render as nothing of what they mark,
    anywhere in the tag (``</mem**o**ry>``, ``</_memory_>`` render as ``</memory>``)."""
    marks = r"[\s*]*+/?[\s*]*+[*_]{0,6}"
    split = "|".join(
        r"\*{0,6}+".join(re.escape(c) for c in name)
        for name in sorted(names, key=lambda n: (-len(n), n))
    )
    return re.compile(rf"<(?={marks}(?:{split})[*_]{{0,6}}(?:[\s/>]|$))", re.IGNORECASE)


def _as_read_starts(text: str, names: frozenset[str]) -> set[int]:
    """Where a tag of ``text`` as a model reads it starts, emphasis marks in it read as nothing
    (``_read_pattern``): as it renders (``as_read``: escapes and character references decoded,
    tags, comments and empty links dropped: ``</mem&#111;ry>``, ``</memory&gt;``,
    ``<\\/memory>``, ``</mem<!---->ory>``, ``</mem[](x)ory>``), then its letters as read
    (``role_lines.lettered``: ``</memоry>`` with a Cyrillic о, ``</ᴍᴇᴍᴏʀʏ>``); and its letters
    as read with all markup as a renderer shows it (``role_lines.unmarked``: a processing
    instruction, a CDATA section), read on the text itself: markup read on a reading that
    dropped tags already would join what the tags kept apart. A tag whose '<' is a reference
    (``&lt;/memory&gt;``) is a tag escaped, as this module escapes one: it is left as written;
    one written escaped (``\\<``) is escaped at its '<'."""
    pattern = _read_pattern(names)
    reading = as_read.read(text)
    letters, origin = role_lines.lettered(reading.text, decode=False)
    read = {m.start() for m in pattern.finditer(letters)}
    places = {reading.written_start(at if origin is None else origin[at]) for at in read}
    letters, origin = role_lines.lettered(text)
    shown = role_lines.unmarked(letters)
    if shown is not None:
        marked = {shown[1][m.start()] for m in pattern.finditer(shown[0])}
        places |= marked if origin is None else {origin[at] for at in marked}
    return {at + (text[at] == "\\") for at in places if text[at] != "&"}


def _dangling(text: str) -> set[int]:
    """Each '<' past the last '>' of ``text`` that opens a tag, or is left with nothing but
    blanks and a '/' after it (``_LEFT_OPEN``): each escaped, none is left to open one."""
    first = _LEFT_OPEN.search(text)  # a text with none costs one search, as the '<' alone did
    if first is None:
        return set()
    tail = max(text.rfind(">") + 1, first.start())
    return {m.start() for m in _LEFT_OPEN.finditer(text, tail)}
