"""Bidirectional marks: on a right-to-left line a mark is fine only where it can change what is
shown (between letters of two directions, at a number's edge, by neutrals whose strong neighbours
and the mark are not all of one direction), never inside a number nor two in a row; elsewhere it
would carry bits (adversary13 D7, adversary14 D1)."""

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


SPACES = ["", " ", "  ", "\t", "\u00a0", "\u202f", "\u3000", " \t"]


@given(run=st.text(alphabet=MARKS, min_size=2, max_size=8), spaces=st.sampled_from(SPACES))
def test_two_marks_in_a_row_are_found_even_at_a_direction_change(run, spaces):
    text = f"{HEBREW} hello{spaces.join(run)} world"
    assert len(marks_found(text)) >= 1
    assert "".join(m.chars for m in hidden.scan(text)).count("\u200e") == run.count("\u200e")


@pytest.mark.parametrize(
    "text",
    [
        "שלום (hello)\u200f",  # after a parenthesis closing Latin text, at the line's end
        "\u200fhello שלום",  # a line's first strong character: the paragraph's direction
        "- \u200e(1) שלום",
        "מספר 5\u200e abc",  # after a number at an RTL/LTR edge
        "טלפון: \u200e03-1234567\u200e",  # a phone number held left to right
        "אני משתמש ב-Windows\u200f ואוהב אותו",  # after a Latin product name
        "مرحبا Python\u200f (نسخة 2) والسلام",
        "מחיר: \u061c-5% הנחה",  # ALM before a signed number: an Arabic one
        "قیمت: 5٪ تخفیف برای Office 365\u200f و Windows",
        "کتاب\u200cها را (PDF)\u200f دانلود کنید",
        "یہ کتاب Python\u200f میں ہے۔",
        "שלום עולם\u200e 2026 — ברוכים הבאים",
        "ש\u05b8\u05c1לוֹם\u200e (hello)",  # niqqud before the mark
    ],
)
def test_marks_as_people_write_them_are_fine(text):
    assert hidden.scan(text) == ()


def direction(letters: str, exact: bool = False) -> str | None:
    """Of the first letter of ``letters``: Latin is left to right, Hebrew and Arabic not; before
    a number (``exact``) an Arabic letter is told from a Hebrew one (it makes the number Arabic)."""
    first = next((c for c in letters if c.isalpha()), None)
    if first is None:
        return None
    return "L" if first.isascii() else "AL" if exact and "\u0600" <= first <= "\u06ff" else "R"


@given(
    before=st.sampled_from(["שלום", "مرحبا", "hello", "2026", "(x)", "", "שלום.", "x 2", "ab,"]),
    after=st.sampled_from(["עולם", "بالعالم", "world", "42", "(y)", "", ".שלום", "-5 y", ", cd"]),
    mark=st.sampled_from(["\u200e", "\u200f"]),
)
def test_one_mark_is_found_only_where_it_orders_nothing(before, after, mark):
    """Found touching a letter of its own direction, between letters of one direction, inside a
    number, or where the strong characters beyond the neutrals on both sides are of the mark's
    direction; fine elsewhere."""
    text = f"{before}{mark}{after} | עברית"
    at = len(before)
    near = [text[:at].rstrip()[-1:], text[at + 1 :].lstrip()[:1]]
    numbers = [near[0].isdigit(), near[1] != "" and near[1] in "0123456789-"]
    far = [direction(text[:at][::-1], any(numbers)), direction(text[at + 1 :], any(numbers))]
    own = "L" if mark == "\u200e" else "R"
    digit_ahead = after[:1] in ("4", "-")
    touching = [direction(text[at - 1 : at], digit_ahead), direction(text[at + 1 : at + 2])]
    if own in touching:
        expected = True  # the neutrals beyond meet its direction with or without it
    elif all(c.isalpha() for c in near):
        expected = direction(near[0]) == direction(near[1])
    elif all(numbers):
        expected = True  # inside a number, or between two
    else:
        expected = far[0] == far[1] == ("L" if mark == "\u200e" else "R")
    assert bool(marks_found(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "- רשימה: item1\u200e, item2\u200e, item3.",  # a mark behind each word: a bit each
        "- מילה\u200f, מילה\u200f, מילה",
        "- שלום 12\u200e34\u200e56",  # inside a number
        "- مرحبا ١\u200e٢",
        "- שלום https\u200e://example.com",
        "- שלום a\u200e-b",
        "hello\u200e.\u200eשלום",  # the second mark orders the "." already
        "אני משתמש ב-Windows\u200e ואוהב אותו",  # touching a letter of its own direction
        "ש\u05b8\u05c1לוֹם\u200f (hello)",
        "- \u200fשלום עולם",
        "hello, \u200fשלום",
    ],
)
def test_the_testers_marks_that_order_nothing_are_found(text):
    assert marks_found(text)


@pytest.mark.parametrize(
    "text",
    [
        "שלום\u200f\n",  # at the line's end behind a letter: nothing after it to order
        "- שלום עולם \u200f\n",
        "- שלום hello\u200e\n",
        "- שלום hello \u200f\n",
        "- مرحبا\u061c\n",
        "- سلام دنیا\u200f\r\n",
        "\u200fשלום עולם\n",  # first, before a letter that sets the same direction
        "\u200e hello שלום\n",
        "\u061cمرحبا 12\n",
    ],
)
def test_a_mark_at_a_line_edge_beside_a_letter_is_found(text):
    """A mark at a line's start or end beside a letter (adversary16 D1): at the end nothing
    follows it to order; at the start it is the first strong character, and sets the paragraph's
    direction only against the letter after it."""
    assert marks_found(text)


@pytest.mark.parametrize(
    "text",
    [
        "\u200fhello שלום\n",  # the paragraph right to left though it starts in Latin
        "\u200f hello, שלום\n",
        "שלום (hello)\u200f\n",  # punctuation at the end: ordered where shown left to right
        "\u200f- שלום\n",
        "מחיר 5\u200e\n",  # at a number's end
        "\u061c12 שלום\n",  # ALM before a number: an Arabic one
    ],
)
def test_a_mark_at_a_line_edge_that_orders_something_is_fine(text):
    assert marks_found(text) == []
