"""A compacted month's headings, as a build demotes them under the month's heading."""

from __future__ import annotations

from hotplex.sources.compacted import demoted, section_headings
from hypothesis import given
from hypothesis import strategies as st

LINES = st.sampled_from(
    [
        "# 2026-11-04",
        "## 2026-11-05",
        "  ## x ##",
        "##",
        "### kept",
        "2026-11-06",
        "===",
        "---",
        "- an entry",
        "> ## quoted",
        "```",
        "",
        "text",
        "  - ## in a list",
        "####### seven",
    ]
)


@given(st.lists(LINES, max_size=12))
def test_no_line_of_a_demoted_month_reads_as_a_day_or_month_heading(lines: list[str]) -> None:
    text = "\n".join(lines)
    once = demoted(text)
    assert section_headings(once) == []
    assert demoted(once) == once  # byte-deterministic, and a second read changes nothing


def test_each_form_of_heading_is_an_h3_and_code_is_left_as_written() -> None:
    text = "# a\n\n## b ##\n\nc\nd\n---\n\n```\n## e\n```\n- ## f\n"
    assert demoted(text) == "### a\n\n### b ##\n\n### c d\n\n```\n## e\n```\n- ## f\n"
    assert section_headings("## b\n") == [(0, 1)]
    assert section_headings("- a\n- b\n") == []
