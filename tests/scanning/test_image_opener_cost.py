"""Image openers cost a few calls a byte (adversary10 D5): ``![`` and ``![a](`` runs cost 50-100
µs of CPU a byte in markdown-it's link helpers, one 850 KB memory 100 CPU-seconds. The parser's
helpers now answer as markdown-it's do, for less work: checked against them on any text, and
counted in Python calls at n and 2n, never timed."""

from __future__ import annotations

import sys

import pytest
from hotplex.text import commonmark
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt


def _calls(text: str) -> int:
    """How many Python calls parsing ``text`` makes."""
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        count += event == "call"

    parser = commonmark.parser()
    sys.setprofile(profile)
    try:
        parser.parse(text)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("unit", ["![a](", "![", "\\![a](", "[a](", "![a](()"])
def test_image_openers_cost_a_few_calls_a_byte(unit) -> None:
    """``![a](`` made 166 calls a byte (each destination walked 32 parentheses a character at a
    time, twice), ``![`` 80 (each label walked to the end token by token)."""
    small, large = "- " + unit * 2000, "- " + unit * 4000
    assert _calls(large) <= 2.2 * _calls(small)
    assert _calls(large) <= 16 * len(large)


def _tokens(parser: MarkdownIt, text: str) -> list:
    return [
        (t.type, t.content, t.attrs, [(c.type, c.content, c.attrs) for c in t.children or []])
        for t in parser.parse(text)
    ]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="![]()<>\\ a\n\t\"'`*_-:/x", max_size=80))
def test_the_helpers_answer_as_markdown_its_do(text) -> None:
    assert _tokens(commonmark.parser(), text) == _tokens(MarkdownIt("commonmark"), text)


@pytest.mark.parametrize(
    "text",
    [
        "![a](" + "(" * 32 + "x" + ")" * 32 + ")",
        "![a](" + "(" * 33 + "x" + ")" * 33 + ")",
        "[a](b\\ c) [a](b\\) [a](\\(x) [a](x\\",
        "[a](<b c>) [a](<b\nc>) [a](b\x7fc) [a]: (x)\n\n[a]",
        "![[[[[[[[[[[[[[[[[[[[[[[foo]()",
    ],
)
def test_the_edges_answer_as_markdown_its_do(text) -> None:
    assert _tokens(commonmark.parser(), text) == _tokens(MarkdownIt("commonmark"), text)
