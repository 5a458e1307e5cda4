"""Hostile text on one long line (a gateway compiles untrusted overlays) costs its length, not
its square: measured in the characters kept and the Python calls made, never timed."""

from __future__ import annotations

import sys

import pytest
from hotplex.errors import SHOWN, Problem, Span
from hotplex.scanning import secrets
from hotplex.scanning.origins import Origin
from hotplex.text import memo
from hypothesis import given
from hypothesis import strategies as st


def _secrets_of(count: int) -> list[secrets.Finding]:
    """The findings of one line of ``count`` GitHub tokens, scanned afresh."""
    line = " ".join(f"ghp_{i:036d}" for i in range(count))
    with memo.uncached():
        return secrets.find(line, [Origin(line, "MEMORY.md")], secrets.allowance((), ()))


def test_each_secret_of_a_long_line_keeps_a_bounded_part_of_it() -> None:
    """Each finding redacted its secret in a copy of the whole line: 4,000 tokens on one line
    made 4,000 copies of 164 kB (8 s). Each keeps its secret's surroundings now, so twice the
    secrets keep twice the characters."""
    small, large = _secrets_of(500), _secrets_of(1000)
    assert len(small) == 500 and len(large) == 1000

    def kept(found: list[secrets.Finding]) -> int:
        return sum(len(f.span.source_line) for f in found)

    assert kept(large) <= 2.1 * kept(small)  # the square: 4 times
    assert kept(large) <= 1000 * (2 * SHOWN + 3 * 40 + 2)
    for finding in large:
        assert finding.secret not in finding.span.source_line
        assert secrets.redact(finding.secret) in Problem("m", finding.span).render()


@given(
    st.text(alphabet="ab\t", max_size=9000),
    st.integers(1, 9000),
    st.integers(0, 3000),
    st.integers(0, 3000),
)
def test_a_line_kept_around_its_column_shows_the_same_caret_line(line, column, size, cut) -> None:
    """``Span.around`` keeps all the caret line shows: the same text, the same ellipses, the
    caret at the same place, however often it is cut (a place shifted to the body keeps it)."""
    column = min(column, len(line) + 1)
    span = Span("f", 1, column, source_line=line)
    kept = span.around(size)
    assert Problem("m", kept).render() == Problem("m", span).render()
    again = kept.around(min(size, cut))
    assert Problem("m", again).render() == Problem("m", span).render()
    assert len(kept.source_line) <= 2 * SHOWN + 3 * size + 2


def _lines(text: str) -> int:
    """How many lines of Python the injection scan of ``text`` runs, scanned afresh: the
    CommonMark parse (markdown-it-py) is Python, and loops in it are where a square would hide."""
    from hotplex.scanning import injection

    count = 0

    def traced(frame, event, arg):
        nonlocal count
        count += 1
        return traced

    sys.settrace(traced)
    try:
        with memo.uncached():
            list(injection.scan(text))
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    "unit",
    ["![x](", "![x](" + "y" * 10, "[x]("],
    ids=["image-openers", "image-openers-long", "link-openers"],
)
def test_unclosed_openers_on_one_line_cost_their_length(unit) -> None:
    """Each unclosed ``](`` makes markdown-it-py read a destination on to the end of the line,
    unless more than 32 ``(`` are open (its limit): so each costs at most 33 units, and twice
    the units twice the lines (measured: 2.08), not four times (see the gateway guide)."""
    image = "![i](y)\n"  # an image makes the scan parse the text
    small, large = _lines(image + unit * 100), _lines(image + unit * 200)
    assert large <= 2.2 * small


@pytest.mark.parametrize("opener", ["[a](", "![a]("])
def test_a_destination_of_many_open_parens_is_given_up_at_once(opener) -> None:
    """More than 32 ``(`` open and markdown-it-py ends the destination: 20,000 cost what 40 do."""
    image = "![i](y)\n"
    assert _lines(image + opener + "(" * 20000) <= 1.1 * _lines(image + opener + "(" * 40)
