"""Bidirectional marks: on a right-to-left line a mark is fine only where it can change what is
shown (next to punctuation, a digit or the line's edge, or between letters of two directions),
never two in a row; between two letters of one direction it would carry bits (adversary13 D7)."""

from __future__ import annotations

import pytest
from hotplex.scanning import hidden
from hypothesis import given
from hypothesis import strategies as st

MARKS = "\u200e\u200f\u061c"
HEBREW = "שלום עולם"


def marks_found(text: str) -> list[int]:
    return [m.start for m in hidden.scan(text) if m.rule == "bidi-mark"]


@given(
    word=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=30),
    chosen=st.data(),
)
def test_a_mark_between_two_latin_letters_is_found_whatever_the_line_holds(word, chosen):
    """A message one mark (or none) behind each letter of a Latin word on a Hebrew line: every
    mark is found, whichever marks and wherever they are."""
    marks = chosen.draw(st.lists(st.sampled_from(["", *MARKS]), min_size=len(word) - 1))
    hidden_word = word[0] + "".join(m + c for m, c in zip(marks, word[1:], strict=False))
    text = f"- {HEBREW} {hidden_word} {HEBREW}\n"
    expected = [i for i, c in enumerate(text) if c in MARKS]
    assert marks_found(text) == expected


@given(run=st.text(alphabet=MARKS, min_size=2, max_size=8), spaces=st.sampled_from(["", " ", "  "]))
def test_two_marks_in_a_row_are_found_even_at_a_direction_change(run, spaces):
    text = f"{HEBREW} hello{spaces.join(run)} world"
    assert len(marks_found(text)) >= 1
    assert "".join(m.chars for m in hidden.scan(text)).count("\u200e") == run.count("\u200e")


@pytest.mark.parametrize(
    "text",
    [
        "שלום (hello)\u200f",  # after a parenthesis closing Latin text, at the line's end
        "\u200fשלום עולם",  # a line's first character: the paragraph's direction
        "- \u200fשלום עולם",
        "מספר 5\u200e abc",  # after a number at an RTL/LTR edge
        "טלפון: \u200e03-1234567\u200e",  # a phone number held left to right
        "אני משתמש ב-Windows\u200f ואוהב אותו",  # after a Latin product name
        "אני משתמש ב-Windows\u200e ואוהב אותו",
        "مرحبا بالعالم\u200f (نسخة 2) \u061cوالسلام",
        "قیمت: \u061c-5٪ تخفیف",  # ALM before a signed number
        "کتاب\u200cها را\u200f (PDF) دانلود کنید",
        "یہ کتاب Python\u200f میں ہے۔",
        "שלום עולם\u200e 2026 — ברוכים הבאים",
        "ש\u05b8\u05c1לוֹם\u200f (hello)",  # niqqud before the mark
    ],
)
def test_marks_as_people_write_them_are_fine(text):
    assert hidden.scan(text) == ()


def direction(letters: str) -> str | None:
    """Of the first letter of ``letters``: Latin is left to right, Hebrew and Arabic not."""
    first = next((c for c in letters if c.isalpha()), None)
    return None if first is None else "L" if first.isascii() else "R"


@given(
    before=st.sampled_from(["שלום", "مرحبا", "hello", "2026", "(x)", "", "שלום.", "x 2"]),
    after=st.sampled_from(["עולם", "بالعالم", "world", "42", "(y)", "", ".שלום", "-5 y"]),
    mark=st.sampled_from(MARKS),
)
def test_one_mark_is_found_only_where_it_orders_nothing(before, after, mark):
    """Found between letters of one direction, or between punctuation with letters of one
    direction beyond; fine by a letter of the other direction, a number's edge, the line's."""
    text = f"{before}{mark}{after} | עברית"
    at = len(before)
    near = [text[:at].rstrip()[-1:], text[at + 1 :].lstrip()[:1]]
    far = [direction(text[:at][::-1]), direction(text[at + 1 :])]
    if all(c.isalpha() for c in near):
        expected = direction(near[0]) == direction(near[1])
    elif any(c.isalpha() or not c for c in near) or (near[0].isdigit() != (near[1] in "-42")):
        expected = False
    else:
        expected = far[0] == far[1]
    assert bool(marks_found(text)) == expected
