"""Whether a bidirectional mark (LRM, RLM, ALM) on a right-to-left line can change what is shown.

A mark is a zero-width strong character: it decides how the punctuation, digits and spaces next
to it are ordered, and nothing else. Between two letters of one direction it changes nothing
shown, so on a line holding one Hebrew word a mark behind each Latin letter (LRM, RLM or none)
would carry a hidden message (adversary13 D7). Nor does it where the neutrals beside it lie
between strong characters of its own direction on both sides (``item3`` + LRM + ``, item4``):
they take that direction with or without it, so a mark behind each word would carry one
(adversary14 D1). Nor touching a letter of its own direction: what lies beyond the mark meets
that direction with or without it. At a line's end behind a letter it has nothing to order; at
a line's start before a letter it is the paragraph's first strong character (UAX #9, P2), and
sets its direction only against that letter's (adversary16 D1). A mark is taken as meant between
letters of two directions, at a number's start or end, or where the nearest strong characters
on either side (a letter, another mark, the line's edge) and the mark are not all of one
direction. Never inside a number, never two in a row (any spaces or tabs between count as a
row): a run of marks encodes bits.
"""

from __future__ import annotations

import unicodedata

MARKS = frozenset("\u200e\u200f\u061c")  # LRM, RLM, ALM
_DIRECTION = {"L": "L", "R": "R", "AL": "R", "\u200e": "L", "\u200f": "R", "\u061c": "R"}
# A strong character's bidi class, a mark's its own: right-to-left letters differ (R, AL) only
# before a number, which an Arabic letter (or ALM) makes an Arabic one.
_STRONG = {"L": "L", "R": "R", "AL": "AL", "\u200e": "L", "\u200f": "R", "\u061c": "AL"}
# Passed over when looking for a mark's neighbour: spaces and tabs (a no-break space too, whose
# bidi class is a separator's), and what takes the class of the character before it (combining
# marks, other invisible characters).
_SKIPPED = frozenset(("WS", "S", "NSM", "BN"))
_LINE_ENDS = "\n\r"
_SEPARATORS = frozenset(("ES", "ET", "CS"))  # plus and minus, currency and percent, "." "," ":"
_DIGITS = frozenset(("EN", "AN"))


def _step(text: str, at: int, step: int) -> int:
    """The index of the nearest character from ``at`` going ``step`` that is not skipped, or -1
    at the line's edge."""
    at += step
    while 0 <= at < len(text) and text[at] not in _LINE_ENDS:
        char = text[at]
        skipped = unicodedata.bidirectional(char) in _SKIPPED or unicodedata.category(char) == "Zs"
        if char in MARKS or not skipped:
            return at
        at += step
    return -1


def _strong(text: str, at: int, step: int) -> str | None:
    """The bidi class of the nearest strong character (a letter or a mark) from ``at`` going
    ``step`` on its line, or None at the line's edge."""
    at += step
    while 0 <= at < len(text) and text[at] not in _LINE_ENDS:
        strong = _STRONG.get(text[at]) or _STRONG.get(unicodedata.bidirectional(text[at]))
        if strong is not None:
            return strong
        at += step
    return None


def shows(text: str, at: int) -> bool:
    """Whether the mark at ``text[at]`` can change how its line is shown."""
    before, after = _step(text, at, -1), _step(text, at, 1)
    if (before >= 0 and text[before] in MARKS) or (after >= 0 and text[after] in MARKS):
        return False
    if _touches_its_own(text, at):
        return False
    letters = [
        _DIRECTION.get(unicodedata.bidirectional(text[i])) if i >= 0 else None
        for i in (before, after)
    ]
    if letters[0] is not None and letters[1] is not None:
        return letters[0] != letters[1]
    if letters[0] is not None and after < 0:
        return False  # at the line's end behind a letter: nothing after it to order
    if before < 0 and letters[1] is not None:
        # the line's first strong character: it sets the paragraph's direction, unless the
        # letter after it would set the same (UAX #9, P2–P3)
        return letters[1] != _DIRECTION[text[at]]
    number_before, number_after = _number(text, before, -1), _number(text, after, 1)
    if number_before and number_after:
        return False  # between two digits of a number, or two numbers: it would carry bits
    left, right, own = _strong(text, at, -1), _strong(text, at, 1), _STRONG[text[at]]
    if not (number_before or number_after):
        left, right, own = (_DIRECTION.get(c) for c in (left, right, own))
    # what lies between strong characters of one direction takes it: the mark's changes nothing
    return not left == right == own


def _touches_its_own(text: str, at: int) -> bool:
    """Whether the mark at ``text[at]`` touches a letter of its own direction (nothing but
    combining marks between): the neutrals beyond it then meet that direction with or without
    it. Behind the letter, where a number follows before the next strong character, of its own
    class: an Arabic letter (or ALM) makes that number an Arabic one, RLM not."""
    for step in (-1, 1):
        near = at + step
        while 0 <= near < len(text) and unicodedata.bidirectional(text[near]) in ("NSM", "BN"):
            near += step
        if not 0 <= near < len(text) or text[near] in MARKS:
            continue
        kind = _STRONG if step < 0 and _digit_ahead(text, at) else _DIRECTION
        if kind.get(unicodedata.bidirectional(text[near])) == kind[text[at]]:
            return True
    return False


def _digit_ahead(text: str, at: int) -> bool:
    """Whether a digit follows ``text[at]`` on its line before the next strong character."""
    for ahead in range(at + 1, len(text)):
        char = text[ahead]
        kind = unicodedata.bidirectional(char)
        if char in _LINE_ENDS or char in MARKS or kind in _STRONG:
            return False
        if kind in _DIGITS:
            return True
    return False


def _number(text: str, at: int, step: int) -> bool:
    """Whether a digit is at ``at``, or past the signs and separators there going ``step``."""
    while 0 <= at < len(text) and unicodedata.bidirectional(text[at]) in _SEPARATORS:
        at += step
    return 0 <= at < len(text) and unicodedata.bidirectional(text[at]) in _DIGITS
