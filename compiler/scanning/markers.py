"""The ``special-token`` and ``role-tag`` rules' patterns (``injection`` names the rules), read
on a text as written and as it reads (adversary17 D15): a Markdown escape, a character
reference or markup that renders as nothing inside a marker renders the marker all the same
(``<|im\\_start|>``, ``\\[INST\\]``, ``&lt;system&gt;``, ``<|eot<b></b>_id|>``), as the secret
scan reads a key (``as_read.Reading``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator

from hotplex.scanning import as_read
from hotplex.scanning.confusables import barred, placed_prototypes, skeleton

Candidate = tuple[str, int, int, str | None]  # a rule, where it matched, a URL's host

TOKEN = re.compile(r"<\|/?[\w.:\u2581-]{1,48}\|>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>")
# HTML's white space (line breaks too) separates a tag's name from its attributes and its ">".
ROLE_TAG = re.compile(
    r"<[ \t\n\r\f]*/?[ \t\n\r\f]*"
    r"(?:system(?:[-_](?:prompt|reminder))?|assistant|human|developer)"
    r"(?:[ \t\n\r\f/][^<>]{0,200})?>",
    re.IGNORECASE,
)


def tokens_and_tags(
    view: str, bars: str, windows: Iterable[tuple[int, int]]
) -> Iterator[Candidate]:
    """The special tokens (in ``bars``, as long) and role tags in each window of ``view``,
    searched on past its end as far as a tag may run, windows that near joined: each character
    is searched once."""
    joined: list[list[int]] = []
    for start, end in windows:
        if joined and start <= joined[-1][1]:
            joined[-1][1] = min(len(view), end + _TAG_MAX)
        else:
            joined.append([start, min(len(view), end + _TAG_MAX)])
    for start, stop in joined:
        for pattern, rule, seen in (
            (TOKEN, "special-token", bars),
            (ROLE_TAG, "role-tag", view),
        ):
            for m in pattern.finditer(seen, start, stop):
                yield rule, m.start(), m.end(), None


_TAG_MAX = 256  # longer than any match of TOKEN and ROLE_TAG


# Where a tag or comment inside a token or a role tag may split it (``<|eot<b></b>_id|>``,
# ``<sys<!---->tem>``, ``<|im_st[<b></b>](x)art|>``), and where an empty link may
# (``<|im_st[](x)art|>``): a text holding none is read as written, as a text without "\\" or
# "&". Each is searched for only in a text holding its "<" or "[]" (a pattern of a literal is
# looked for at memchr's speed: twice as fast as ``"[]" in text``, ten times the patterns here).
_SPLIT_BY_TAG = re.compile(r"(?:<\|?|\[)/?[\w.:-]{0,48}<[!/A-Za-z]")
_SPLIT_BY_LINK = re.compile(r"(?:<\|?|\[)/?[\w.:-]{0,48}!?\[\]")
_EMPTY_BRACKETS = re.compile(r"\[\]")


def _may_read(text: str) -> bool:
    """Whether ``text`` may read, rendered, otherwise than as written where a marker is."""
    return (
        "\\" in text
        or "&" in text
        or ("<" in text and _SPLIT_BY_TAG.search(text) is not None)
        or (
            "]" in text
            and _EMPTY_BRACKETS.search(text) is not None
            and _SPLIT_BY_LINK.search(text) is not None
        )
    )


def unread(
    markers: Iterable[Candidate], places: list[int] | None, read: list[Candidate]
) -> Iterator[Candidate]:
    """The markers as written that no marker as read holds (``\\<system>`` is one finding)."""
    spans = sorted((start, end) for _, start, end, _ in read)
    for marker in markers:
        at = places[marker[1]] if places is not None else marker[1]
        index = bisect.bisect_right(spans, (at, float("inf"))) - 1
        if index < 0 or not spans[index][0] <= at < spans[index][1]:
            yield marker


def read(text: str, looked: str) -> list[Candidate]:
    """The special tokens and role tags of ``text`` as it reads (``as_read.Reading``: Markdown
    escapes and character references decoded, markup that renders as nothing dropped), each
    placed where it is written: ``<|im\\_start|>``, ``\\[INST\\]``, ``&lt;system&gt;``. Built
    only for a text that may read otherwise (``_may_read``, asked of ``looked``, its ASCII view,
    ``confusables.ascii_view``: ``＜｜im_st<b></b>art｜＞`` is split as ``<|im_st<b></b>art|>``
    is), and searched only on the lines where it does: a plain text costs what it did, one with
    an ``&amp;`` little more."""
    if not _may_read(looked):
        return []
    reading = as_read.read(text)
    if not reading.changes:
        return []
    view, origin = (reading.text, None) if reading.text.isascii() else skeleton(reading.text)
    marked, marked_origin = (view, origin) if origin is None else placed_prototypes(view, origin)
    # A skeleton's offsets are not the text read's: a non-ASCII text read is searched whole.
    windows = reading.windows() if marked_origin is None else [(0, len(marked))]
    found = []
    for rule, start, end, _ in tokens_and_tags(marked, barred(view, origin, marked), windows):
        if marked_origin is not None:
            start, end = marked_origin[start], marked_origin[end - 1] + 1
        found.append((rule, reading.written_start(start), reading.written_end(end), None))
    return found
