"""Look-alike letters, as Unicode's confusables table (UTS #39) names them.

A role marker can be spelt in letters that only look Latin (``SYSTEМ:`` with a Cyrillic М,
``‹sуstem>`` with a Cyrillic у and an angle quotation mark); compatibility folding does not
touch them, as it does fullwidth forms. UTS #39's skeleton maps each such character to its
prototype, and the table is Unicode's own data file, vendored unchanged with its version in its
name (``confusables-17.0.0.txt``, Unicode 17.0.0, 2025-07-22) and read at first use.
A chat token's ``|`` drawn with a vertical line the table reads as ``l`` or lists not at all
(``ǀ``, ``।``) is read as ``|`` on a view of its own (``barred``).
"""

from __future__ import annotations

import functools
import os
import unicodedata
from typing import Any

VERSION = "17.0.0"
_DATA = os.path.join(os.path.dirname(__file__), f"confusables-{VERSION}.txt")


def prototypes(text: str) -> tuple[str, list[int]]:
    """``text`` with each non-ASCII character replaced by its prototype (ASCII stays as it is,
    so ``m`` is not read as ``rn``), and for each character of the result the offset in ``text``
    of the character it came from."""
    mapped = text.translate(_translation())
    if len(mapped) == len(text):  # each character one (no prototype is empty): all in place
        return mapped, list(range(len(text)))
    table = _table()
    pieces: list[str] = []
    origin: list[int] = []
    for at, char in enumerate(text):
        piece = char if char.isascii() else table.get(char, char)
        pieces.append(piece)
        origin.extend([at] * len(piece))
    return "".join(pieces), origin


def placed_prototypes(view: str, origin: list[int]) -> tuple[str, list[int]]:
    """``view`` (a skeleton) with its look-alike letters as their prototypes, and the offset in
    the text as written of each of its characters (``origin``: of each of ``view``'s)."""
    if view.isascii():
        return view, origin
    marked, places = prototypes(view)
    return marked, [origin[at] for at in places]


def ascii_view(text: str) -> str:
    """What a cheap look needs of a non-ASCII text: compatibility forms folded, look-alike
    letters read as their prototypes, to ASCII."""
    folded = unicodedata.normalize("NFKD", text)
    if not folded.isascii():
        folded = prototype_text(folded)
    return folded.encode("ascii", "ignore").decode("ascii")


# Vertical lines a token's "|" may be drawn with. UTS #39 sends some to "l" ("ǀ", "∣", "׀",
# "ᛁ", "ⵏ", "ꓲ", "⏽", "ߊ", and "|" itself) and has no entry for others ("⏐", "।", "│", "┃",
# "❘", "ꟾ", "¦"): as "l" a token would not match, and "l" read as "|" would find one in
# "<label>". So a special token is read on a view of its own with them as "|", as
# compatibility folding reads "｜" (adversary17 D15, adversary18 D5). Spelt here, not drawn
# from the table's "l": that holds letters of living scripts that, written between angle
# brackets, are words ("ا" Arabic alef, "ו" Hebrew vav, "І" Cyrillic I, "١" Arabic one), and
# lacks half of these. They are as the skeleton has them: "￨" folded is "│", "⼁" is "丨",
# "ㅣ" is "ᅵ".
_BARS = (
    "\u01c0\u2223\u05c0\u23d0\u0964\u2502\u2758\u07ca"  # adversary17 D15
    "\u16c1\u2d4f\ua7fe\ua4f2\u23fd\u00a6\u4e28\u1175"  # ᛁ ⵏ ꟾ ꓲ ⏽ ¦ 丨 ᅵ
    "\u2503\u2506\u2507\u250a\u250b\u254e\u254f\u23b8\u23b9"  # box drawing: ┃ ┆ ┇ ┊ ┋ ╎ ╏ ⎸ ⎹
)
_AS_BAR = str.maketrans(dict.fromkeys(_BARS, "|"))


def barred(view: str, origin: list[int] | None, marked: str) -> str:
    """``marked`` (``view`` with its prototypes) with the vertical lines of ``view`` as ``|``."""
    if origin is None or not any(bar in view for bar in _BARS):
        return marked
    return placed_prototypes(view.translate(_AS_BAR), origin)[0]


def prototype_text(text: str) -> str:
    """``text`` with each non-ASCII character replaced by its prototype: ``prototypes`` without
    the offsets, for a look that needs none (one ``str.translate``)."""
    return text.translate(_translation())


@functools.cache
def reading_as(part: str) -> frozenset[str]:
    """Each character whose prototype holds ``part`` (``‹`` and ``ᐸ`` for ``<``)."""
    return frozenset(source for source, prototype in _table().items() if part in prototype)


@functools.cache
def _translation() -> dict[int, int | str]:
    """The table for ``str.translate``: ASCII stays, each as an entry of its own (a character
    not in the table costs ``str.translate`` an exception: half its time on 8 KB)."""
    kept: dict[int, int | str] = {code: code for code in range(128)}
    return kept | {
        ord(source): prototype for source, prototype in _table().items() if ord(source) > 127
    }


@functools.cache
def _table() -> dict[str, str]:
    """Source character -> prototype, from the data file's lines ``XXXX ; YYYY ZZZZ ; MA``, and
    the small capitals' letters."""
    table: dict[str, str] = {}
    with open(_DATA, encoding="utf-8-sig") as data:
        for line in data:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) >= 2 and fields[0].strip():
                source = chr(int(fields[0], 16))
                table[source] = "".join(chr(int(code, 16)) for code in fields[1].split())
    return table | _SMALL_CAPITALS


# Latin small capitals (``</ᴍᴇᴍᴏʀʏ>``) read as the letters they are: UTS #39 gives few of them
# an ASCII prototype (``ᴏ`` is ``o``, ``ᴍ`` is ``ʍ``), NFKD none. Spelt here, not drawn from
# ``unicodedata``'s names, so the reading does not move with Python's Unicode version.
_SMALL_CAPITALS = dict(
    zip(
        "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d"
        "\u0274\u1d0f\u1d18\ua7af\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22",
        "abcdefghijklmnopqrstuvwyz",
        strict=True,
    )
)


def skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` folded (NFKD per character, default-ignorables dropped), and for each character
    of the result the offset in ``text`` of the character it came from.

    Worked out a run at a time (ASCII, default-ignorable, other): a run that NFKD folds to as many
    characters (fullwidth forms, most CJK) maps one to one, and one that folds to no ASCII at all
    (Hangul, whose syllables fold to jamo) cannot be part of a tag, so it stands as it is."""
    pieces: list[str] = []
    origin: list[int] = []
    for run in _runs().finditer(text):
        start, chars = run.start(), run.group()
        if run.lastgroup == "ignorable":
            continue
        piece = chars if run.lastgroup == "ascii" else _run_folded(chars)
        if piece is not None:
            pieces.append(piece)
            origin.extend(range(start, start + len(chars)))
            continue
        for at, char in enumerate(chars, start):
            one = _decomposed(char)
            pieces.append(one)
            origin.extend([at] * len(one))
    return "".join(pieces), origin


def _run_folded(chars: str) -> str | None:
    """A run of non-ASCII characters folded one to one, or None to fold it one by one."""
    folded = unicodedata.normalize("NFKD", chars)
    if len(folded) == len(chars):
        return folded
    return chars if not folded.encode("ascii", "ignore") else None


@functools.lru_cache(maxsize=4096)
def _decomposed(char: str) -> str:
    return unicodedata.normalize("NFKD", char)


@functools.cache
def _runs() -> Any:
    import regex  # the Unicode property is not in unicodedata; only disguised-looking text needs it

    return regex.compile(
        r"(?P<ascii>[\x00-\x7f]+)|(?P<ignorable>\p{Default_Ignorable_Code_Point}+)"
        r"|[^\x00-\x7f\p{Default_Ignorable_Code_Point}]+",
        regex.V1,
    )
