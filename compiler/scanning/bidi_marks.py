"""Whether a bidirectional mark (LRM, RLM, ALM) on a right-to-left line can change what is shown.

A mark is a zero-width strong character: it decides how the punctuation, digits and spaces next
to it are ordered, and nothing else. Between two letters of one direction it changes nothing
shown, so on a line holding one Hebrew word a mark behind each Latin letter (LRM, RLM or none)
would carry a hidden message (adversary13 D7). A mark is taken as meant where it touches what it
orders (adjacent to, or separated only by spaces from, punctuation, a digit or the line's edge,
on one side, with a letter on the other), where it stands between letters of two directions, or,
with neutrals on both sides, at a number's start or end or where the nearest strong characters
on either side differ. Never two in a row (spaces between count as a row): a run of marks
encodes bits.
"""

from __future__ import annotations

import unicodedata

MARKS = frozenset("\u200e\u200f\u061c")  # LRM, RLM, ALM
_DIRECTION = {"L": "L", "R": "R", "AL": "R", "\u200e": "L", "\u200f": "R", "\u061c": "R"}
# Passed over when looking for a mark's neighbour: spaces, and what takes the class of the
# character before it (combining marks, other invisible characters).
_SKIPPED = frozenset(("WS", "NSM", "BN"))
_LINE_ENDS = "\n\r"
_SEPARATORS = frozenset(("ES", "ET", "CS"))  # plus and minus, currency and percent, "." "," ":"
_DIGITS = frozenset(("EN", "AN"))


def _step(text: str, at: int, step: int) -> int:
    """The index of the nearest character from ``at`` going ``step`` that is not skipped, or -1
    at the line's edge."""
    at += step
    while 0 <= at < len(text) and text[at] not in _LINE_ENDS:
        if text[at] in MARKS or unicodedata.bidirectional(text[at]) not in _SKIPPED:
            return at
        at += step
    return -1


def _strong(text: str, at: int, step: int) -> str | None:
    """The direction of the nearest strong character (a letter or a mark) from ``at`` going
    ``step`` on its line, or None at the line's edge."""
    at += step
    while 0 <= at < len(text) and text[at] not in _LINE_ENDS:
        direction = _DIRECTION.get(text[at]) or _DIRECTION.get(unicodedata.bidirectional(text[at]))
        if direction is not None:
            return direction
        at += step
    return None


def shows(text: str, at: int) -> bool:
    """Whether the mark at ``text[at]`` can change how its line is shown."""
    before, after = _step(text, at, -1), _step(text, at, 1)
    if (before >= 0 and text[before] in MARKS) or (after >= 0 and text[after] in MARKS):
        return False
    letters = [
        _DIRECTION.get(unicodedata.bidirectional(text[i])) if i >= 0 else None
        for i in (before, after)
    ]
    if letters[0] is not None and letters[1] is not None:
        return letters[0] != letters[1]
    if letters[0] is not None or letters[1] is not None:
        return True  # a letter on one side, punctuation, a digit or the edge on the other
    if _edges_number(text, before, after):
        return True
    left, right = _strong(text, at, -1), _strong(text, at, 1)
    return left is None or right is None or left != right


def _edges_number(text: str, before: int, after: int) -> bool:
    """Whether the mark between ``text[before]`` and ``text[after]`` starts or ends a number (its
    sign, currency or separators between): it decides how the number is ordered (an ALM before
    "-5" makes it Arabic). Between two numbers, or two digits of one, it would carry bits."""
    return _number(text, before, -1) != _number(text, after, 1)


def _number(text: str, at: int, step: int) -> bool:
    """Whether a digit is at ``at``, or past the signs and separators there going ``step``."""
    while 0 <= at < len(text) and unicodedata.bidirectional(text[at]) in _SEPARATORS:
        at += step
    return 0 <= at < len(text) and unicodedata.bidirectional(text[at]) in _DIGITS
