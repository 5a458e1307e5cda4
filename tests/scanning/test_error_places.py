"""An error places each finding where it is written (adversary10 D1): a key or a hidden character
repeated on many lines is a finding on each line, and the error shows the same first findings of
a file, in place, as ``check`` and ``block``, the others counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotplex import HotplexError, Project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
KEY = "AKIAQWERTYUIOPASDFGH"


def _error(text: str) -> HotplexError:
    with pytest.raises(HotplexError) as caught:
        Project.load(EXAMPLE).compile("cc", overlay={"MEMORY.md": text})
    return caught.value


def test_a_repeated_key_is_a_finding_on_each_line() -> None:
    problems = _error(f"- key {KEY} here\n" * 150).problems
    assert [p.span.line for p in problems[:100]] == list(range(1, 101))
    assert problems[-1].message.startswith("and 50 more findings of these kinds, not shown:")
    assert len(problems) == 101


def test_equal_lines_each_keep_their_place() -> None:
    problems = _error("- a\u200b\n- b\u200b\n- a\u200b\n").problems
    assert [p.span.line for p in problems] == [1, 2, 3]


def test_the_error_shows_what_check_shows_in_place() -> None:
    lines = []
    for i in range(60):
        lines += [
            f"- {KEY[:-1]}{i % 10}",
            "- z\u200bw",
            "- <|im_start|> x",
            f"- ![x](http://e/{i})",
        ]
    text = "\n".join(lines) + "\n"
    problems = _error(text).problems
    checked = Project.load(EXAMPLE).check({"MEMORY.md": text}).to_json()
    assert [p.span.line for p in problems[:100]] == [f["line"] for f in checked["findings"]]
    assert [p.span.line for p in problems[:100]] == sorted(p.span.line for p in problems[:100])
    (more,) = checked["findings_not_shown"]
    kinds = ", ".join(f"{count} {rule}" for rule, count in more["rules"].items())
    assert (
        problems[-1].message
        == f"and {more['count']} more findings of these kinds, not shown: {kinds}"
    )
