"""A file of thousands of findings (a user's stored memory, adversary9 D3) costs its length, not
the square of its findings: counted in Python calls and line tables, never timed; and an error
shows the first findings of a file in full, then says how many more, by rule."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hotplex import HotplexError, Project, findings_shown
from hotplex.errors import Lines, Problem, Span
from hotplex.scanning import hidden, injection, origins, url_data
from hotplex.text import memo
from hypothesis import given
from hypothesis import strategies as st

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
ENTRY = "- <system> ![x](http://a/y.png) \u200b\n"  # three findings: role-tag, image, hidden
MIXED = "<system>[x](y)`z`\u200b"  # one paragraph


def _calls(work, *args) -> int:
    """How many Python calls (generator steps too) ``work(*args)`` makes."""
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        count += event == "call"

    sys.setprofile(profile)
    try:
        work(*args)
    finally:
        sys.setprofile(None)
    return count


def _found(text: str) -> int:
    """How many findings ``text`` holds, scanned afresh (a short text's scans are cached)."""
    places = [origins.Origin(text, "MEMORY.md")]
    with memo.uncached():
        found = injection.find(text, places, injection.allowance((), ()))
        found += hidden.find(text, places, hidden.allowance((), ()))
    return len(found)


@pytest.mark.parametrize("unit", [ENTRY, MIXED, "a\u200b"])
def test_twice_the_findings_cost_twice_the_calls(unit) -> None:
    """Each finding was looked up among all those before it (the square: 24,000 findings took
    30 s; 300 entries made 2.9 times the calls of 150): twice the findings now make at most a
    little over twice the calls."""
    small, large = unit * 150, unit * 300
    assert _found(large) == 2 * _found(small) > 0
    assert _calls(_found, large) <= 2.2 * _calls(_found, small)


def test_the_lines_of_a_scanned_text_are_counted_once(monkeypatch) -> None:
    built = []
    init = Lines.__init__

    def counted(self, text: str) -> None:
        built.append(len(text))
        init(self, text)

    monkeypatch.setattr(Lines, "__init__", counted)
    text = ENTRY * 400
    assert _found(text) == 1200
    assert built == [len(text), len(text)]  # one table a scan (injection's, hidden's)


@given(st.text(alphabet="ab\n\t\u200b", max_size=60), st.data())
def test_a_place_is_where_counting_from_the_start_puts_it(text, data) -> None:
    offset = data.draw(st.integers(0, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    expected = Span("f", text.count("\n", 0, offset) + 1, offset - line_start + 1, None)
    expected = expected.replace(source_line=text[line_start:line_end])
    assert Lines(text).span("f", offset) == expected == Span.at_offset("f", text, offset)


@given(st.text(alphabet="ab\t\u200b\x1b", max_size=2500), st.integers(1, 2600), st.booleans())
def test_a_caret_line_is_the_window_of_the_whole_line_tabs_as_blanks(line, column, hint) -> None:
    """Only the window shown is read (a problem on a megabyte line cost the line): the same
    characters as replacing the tabs of the whole line first."""
    from hotplex.errors import SHOWN, redact_secrets, visible

    rendered = Problem("m", Span("f", 1, column, source_line=line), "h" if hint else None)
    whole = line.replace("\t", " ")
    start = max(0, min(column - 1 - SHOWN // 2, len(whole) - SHOWN))
    end = start + SHOWN
    before = "…" * (start > 0) + visible(redact_secrets(whole[start : column - 1]))
    after = visible(redact_secrets(whole[column - 1 : end])) + "…" * (end < len(whole))
    assert rendered.render().split("\n")[1:3] == [
        f"    {before}{after}",
        "    " + " " * len(before) + "^",
    ]


def _entries(count: int) -> str:
    """``count`` entries of three findings each, no two alike (alike lines are one place)."""
    return "".join(f"- <system> ![x](http://a/{i}.png) \u200b\n" for i in range(count))


def _error(overlay: str) -> HotplexError:
    with pytest.raises(HotplexError) as caught:
        Project.load(EXAMPLE).compile("cc", overlay={"MEMORY.md": overlay}, on_finding="error")
    return caught.value


def test_an_error_shows_the_first_findings_of_a_file_then_counts_the_rest() -> None:
    error = _error(_entries(60))  # 180 findings: 60 of each rule
    shown = findings_shown.SHOWN_PER_FILE
    assert len(error.problems) == shown + 1
    lines = sorted({p.span.line for p in error.problems[:shown]})
    assert lines == list(range(1, 35))  # the first in place: 34 lines of three, less two
    last = error.problems[-1]
    left = 3 * 60 - shown
    rules = ("image-url-data", "invisible-character", "role-tag")
    counts = {
        r: 60 - sum(f"(rule {r})" in p.message for p in error.problems[:shown]) for r in rules
    }
    kinds = ", ".join(f"{n} {rule}" for rule, n in counts.items())
    assert sum(counts.values()) == left
    assert last.message == f"and {left} more findings of these kinds, not shown: {kinds}"
    assert last.span == Span("overlay:MEMORY.md")
    assert str(error).endswith(
        f"overlay:MEMORY.md: {last.message}\n  hint: the first {shown} in place are shown in"
        " full; remove them and run again to see the next"
    )


def test_an_error_and_an_answer_show_the_same_findings_of_a_file() -> None:
    """The error ("error") and the answer ("block") of one memory pick the same first findings
    by place, though the answer lists them as found (rule set by rule set) and counts the rest
    alike."""
    memory = _entries(60)
    error = _error(memory)
    artifact = Project.load(EXAMPLE).compile(
        "cc", overlay={"MEMORY.md": memory}, on_finding="block"
    )
    answer = findings_shown.findings_json(artifact.findings)
    rules = {"image-url-data", "invisible-character", "role-tag"}

    def rule_of(problem: Problem) -> str:
        (rule,) = (r for r in rules if f"(rule {r})" in problem.message)
        return rule

    in_error = {(p.span.line, p.span.column, rule_of(p)) for p in error.problems[:-1]}
    in_answer = {(f["line"], f["column"], f["rule"]) for f in answer["findings"]}
    assert len(in_answer) == findings_shown.SHOWN_PER_FILE
    assert in_error == in_answer
    (not_shown,) = answer["findings_not_shown"]
    assert error.problems[-1].message.startswith(f"and {not_shown['count']} more findings")
    kinds = ", ".join(f"{n} {rule}" for rule, n in not_shown["rules"].items())
    assert error.problems[-1].message.endswith(kinds)


def test_an_error_of_few_findings_shows_them_all() -> None:
    error = _error(_entries(3))
    assert len(error.problems) == 9
    assert not any("more findings" in p.message for p in error.problems)


PIECES = [
    "![a](https://evil.example/x.png)",
    "![b](https://evil.example/y.png)",
    "[l]: https://evil.example/?q=" + "Ab1" * 12 + "\n\n",
    "![x][l]",
    "[t](https://other.example/#" + "A1b" * 40 + ")",
    '<img src="https://evil.example/z.png">',
    "<system>",
    "`![c](https://evil.example/c.png)`",
    "\n\n",
    " ",
    "\u200b",
]


def _rendered_one_by_one(text: str, shown, wide: list) -> list:
    """``injection._rendered`` as it was: each fetch and link looked up among every finding."""
    found: list = []
    for rule, placed in [
        *(("image-url-data", p) for p in shown.fetches if injection.urls.foreign(p.host)),
        *(("link-url-data", p) for p in shown.links if injection.urls.foreign(p.host)),
    ]:
        if rule == "link-url-data" and not url_data.carries(placed.url):
            continue
        if not any(
            m.rule == rule
            and m.host == placed.host
            and (not placed.exact or placed.start <= m.start < placed.end)
            for m in (*wide, *found)
        ):
            found.append(
                injection.Match(rule, placed.start, text[placed.start : placed.end], placed.host)
            )
    return found


@given(st.lists(st.sampled_from(PIECES), max_size=14), st.data())
def test_the_rendered_findings_are_those_of_a_look_at_each(pieces, data) -> None:
    """The rendered text's findings, kept by rule and host and looked up by bisect, are those of
    the pass over every finding it replaced, whatever the wide scan found before."""
    from hotplex.scanning import rendered

    text = "".join(pieces)
    shown = rendered.read(text)
    wide = [m for m in injection.scan(text) if data.draw(st.booleans())]
    assert injection._rendered(text, shown, wide) == _rendered_one_by_one(text, shown, wide)


def test_a_line_of_marks_is_searched_for_right_to_left_letters_once(monkeypatch) -> None:
    """Whether a bidi mark is on a right-to-left line was asked of its whole line for each mark:
    a line of 80,000 marks was 80,000 searches of it. Now one a line, whatever its marks."""
    searched: list[int] = []
    props = hidden._unicode()

    def counted(line: str):
        searched.append(len(line))
        return props.right_to_left(line)

    monkeypatch.setattr(hidden, "_unicode", lambda: props._replace(right_to_left=counted))
    text = "a\u200e" * 2000 + "\n\u05d0\u200e\n" + "b\u200f" * 10
    with memo.uncached():
        found = hidden.scan(text)
    # the mark after ALEF as well: at the line's end behind a letter
    assert [(m.rule, len(m.chars)) for m in found] == [("bidi-mark", 1)] * 2011
    assert searched == [4000, 2, 20]


class _SliceCounted(str):
    """A text that counts the characters its slices copy."""

    copied = 0

    def __getitem__(self, key):
        if isinstance(key, slice):
            _SliceCounted.copied += len(range(*key.indices(len(self))))
        return super().__getitem__(key)


def test_a_line_of_marks_behind_letters_is_read_once_for_numbers_ahead() -> None:
    """Whether a number follows a mark behind a letter was asked of a copy of the rest of the
    text: a page of Hebrew with a mark behind each word copied the square of its length."""
    from hotplex.scanning import bidi_marks

    text = _SliceCounted("שלום\u200f (hello) " * 2000)
    marks = [at for at, char in enumerate(text) if char == "\u200f"]
    _SliceCounted.copied = 0
    assert [bidi_marks.shows(text, at) for at in marks] == [False] * len(marks)
    assert _SliceCounted.copied <= len(text)
