"""A text as a model or a renderer reads it, where it reads otherwise than as written.

A scan of the text as written misses what it spells read: a key written with a Markdown escape
(``ghp\\_…``, as editors export every ``_``), a character reference or markup that renders as
nothing inside it (adversary16 D8, adversary17 D1), an invisible character written as a reference
(``&#x202E;``, ``&zwnj;``: adversary17 D11), a marker spelt so (``<|im\\_start|>``: D15). The
secret scan (``secrets.py``), the hidden-text scan (``hidden.py``) and the marker rules
(``markers.py``) each search this reading too, and place what they find where it is written.
"""

from __future__ import annotations

import bisect
import functools
import html
import re
from collections.abc import Iterator

from hotplex.text.memo import cached_for_short_texts


def may_differ(text: str) -> bool:
    """Whether ``text`` holds a mark of what may be read otherwise (a quick look)."""
    return any(mark in text for mark in MARKS)


# The characters a renderer shows as nothing inside a word, besides a soft hyphen: the
# zero-width space, joiners and word joiner, a byte-order mark past the start. A key spelt with
# one (allowed by ``[unicode] allow``, or not) reads as the key (adversary21 D1); the hidden-text
# scan, which judges these characters themselves, reads them as written (``invisible``).
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
# The first characters of what a reader reads other than as written: a Markdown escape, a
# character reference, a tag, a comment or an empty link (markup that renders as nothing), a
# soft hyphen. An empty link's text may be markup (``[<b></b>](x)``): "[<" starts one too, a
# place to look at (``_STARTS``) that the quick look needs not ask of a text, holding "<".
MARKS = ("\\", "&", "<", "[]", "\u00ad", *_INVISIBLE)
_STARTS = (*MARKS, "[<")
_TAG = r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:[\s/][^<>]{0,200})?>"
# Markup inside a link's text that renders as nothing: a tag, a comment (``<!-->`` too).
_UNSEEN = rf"(?:{_TAG}|<!--(?:-?>|(?:[^-]|-(?!->)){{0,200}}+-->))"
# An empty link or image, whose text is blanks and markup that renders as nothing (``[](x)``,
# ``[<b></b>](x)``, ``[<!-- -->](x)``, ``![](x.png)``): inline (its destination and title over
# lines, not a blank one) or by reference (``[][r]``). It renders as nothing, or as a blank when
# its text holds one (``empty_link_shown``). The one pattern of it: this reading's, and the
# role-line rule's (``role_lines``), which reads each line as it renders.
EMPTY_LINK = re.compile(
    rf"!?\[(?P<inside>(?:[ \t]|{_UNSEEN})*+)\]"
    r"(?:\((?:[^()\n]|\n(?![ \t]*\n)|\([^()\n]*\))*+\)|\[[^\[\]\n]{1,999}\])"
)
_READ_OTHERWISE = re.compile(
    r"\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<reference>&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};))"
    r"|(?P<comment><!--)"
    rf"|(?P<link>{EMPTY_LINK.pattern})"
    rf"|{_TAG}"
    r"|\u00ad|(?P<invisible>[\u200b-\u200d\u2060\ufeff])"
)
_UNSEEN_MARKUP = re.compile(_UNSEEN)


def empty_link_shown(found: re.Match[str]) -> str:
    """What an ``EMPTY_LINK`` match renders as: nothing, or a blank when its text holds one."""
    inside = found["inside"]
    return " " if inside and _UNSEEN_MARKUP.sub("", inside) else ""


_KEY_BLOCK = "-----BEGIN"  # the secret rule whose match runs over lines: the key block's


class Reading:
    """``text`` as a model or a renderer reads it: Markdown escapes and character references
    as the characters they stand for, tags, comments, empty links and invisible characters
    (``_INVISIBLE``) dropped (each renders as nothing, so ``ghp\\_…``, ``AKIA<b></b>…``,
    ``sk-ant-…<!-- -->…`` read as the key). Each change is kept as (where it starts in the
    text read, where it is written, where that ends, how many characters it reads as): between
    two changes the texts run side by side."""

    def __init__(self, text: str, invisible: bool = False) -> None:
        """``invisible``: the characters of ``_INVISIBLE`` are read as written."""
        self.changes: list[tuple[int, int, int, int]] = []
        pieces: list[str] = []
        size = last = 0
        closed = True  # a comment may still end: once none does, none later does either
        starts = [m for m in _STARTS if m not in _INVISIBLE] if invisible else _STARTS
        nexts = {mark: text.find(mark) for mark in starts}
        at = _next_mark(text, 0, nexts)
        while at >= 0:
            found = _READ_OTHERWISE.match(text, at)
            if found is None:
                at = _next_mark(text, at + 1, nexts)
                continue
            start, end = found.span()
            chars: str | None = ""  # what it reads as; None: as written
            if found["invisible"] is not None:
                chars = None if invisible else ""
            elif found["escaped"] is not None:
                chars = found["escaped"]
            elif found["reference"] is not None:
                chars = _unescaped(found["reference"])
                chars = None if chars == found.group() else chars  # no such name
            elif found["link"] is not None:
                chars = empty_link_shown(found)
                if start > last and text[start - 1] == "!":
                    start -= 1  # an image: its ``!`` not written otherwise itself (``\\!``)
            elif found["comment"] is not None:
                close = text.find("-->", start + 2) if closed else -1
                closed = close >= 0
                chars, end = ("", close + 3) if closed else (None, end)
            if chars is not None:
                pieces += [text[last:start], chars]
                size += start - last
                self.changes.append((size, start, end, len(chars)))
                size += len(chars)
                last = end
            at = _next_mark(text, end, nexts)
        pieces.append(text[last:])
        self.text = "".join(pieces)
        self._starts = [change[0] for change in self.changes]
        self._written = [change[1] for change in self.changes]

    def windows(self) -> Iterator[tuple[int, int]]:
        """The stretches of the text read to search: each run of lines holding a change, and
        from a key block's first line to the end (its body follows on lines of its own)."""
        view, begun, end = self.text, -1, -1
        for at, *_ in self.changes:
            if begun >= 0 and at <= end:
                continue  # on a line taken already
            start = view.rfind("\n", 0, at) + 1
            if begun >= 0 and start > end + 1:
                yield begun, end
                begun = -1
            begun = start if begun < 0 else begun
            line_end = view.find("\n", at)
            end = len(view) if line_end < 0 or _KEY_BLOCK in view[start:line_end] else line_end
        if begun >= 0:
            yield begun, end

    def dropped(self, at: int) -> bool:
        """Whether the character written at ``at`` is read otherwise (decoded or dropped)."""
        i = bisect.bisect_right(self._written, at) - 1
        return i >= 0 and at < self.changes[i][2]

    def written_start(self, at: int) -> int:
        """Where the character at ``at`` of the text read is written."""
        i = bisect.bisect_right(self._starts, at) - 1
        if i < 0:
            return at
        start, written, written_end, size = self.changes[i]
        return written if at < start + size else written_end + at - start - size

    def written_end(self, at: int) -> int:
        """Where what the text read holds up to ``at`` ends as written."""
        i = bisect.bisect_right(self._starts, at - 1) - 1
        if i < 0:
            return at
        start, _, written_end, size = self.changes[i]
        return written_end if at <= start + size else written_end + at - start - size


@cached_for_short_texts
def read(text: str) -> Reading:
    """``text``'s reading, built once for the scans that each search it (secrets, hidden text,
    markers) of one text."""
    return Reading(text)


def _next_mark(text: str, at: int, nexts: dict[str, int]) -> int:
    """The first offset at or past ``at`` of one of ``_STARTS`` (-1: none), ``nexts`` holding
    where each was found last: ``str.find`` (memchr) for each, where a search for a class of
    characters looks at every character in turn, ten times slower."""
    first = -1
    for mark, found in nexts.items():
        if 0 <= found < at:
            found = nexts[mark] = text.find(mark, at)
        if found >= 0 and (first < 0 or found < first):
            first = found
    return first


@functools.lru_cache(maxsize=1024)
def _unescaped(reference: str) -> str:
    return html.unescape(reference)
