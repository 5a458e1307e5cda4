"""The merge's semantics (``hotplex.learning.merge``): properties over generated facts and
profiles, and the cases the issue names one by one."""

from __future__ import annotations

import attrs
import pytest
from hotplex.errors import HotplexError
from hotplex.learning import facts as given_facts
from hotplex.learning import merge, profile
from hotplex.manifest.model import Learn, Manifest
from hotplex.sources import learned as learned_block
from hypothesis import given, settings
from hypothesis import strategies as st

MANIFEST = Manifest()
DATES = st.dates().map(lambda d: d.isoformat()).filter(lambda d: len(d) == 10)
WORDS = st.text("abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12).filter(str.strip)
VALUES = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "Zs"), exclude_characters="\u00a0"),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() and "<!--" not in v and "-->" not in v)
FACTS = st.dictionaries(WORDS, VALUES, max_size=6)
# Lines a person writes around the block: anything but the block's own markers.
HAND_LINES = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=40).filter(
        lambda line: "hotplex:learned" not in line
    ),
    max_size=8,
)


def learned(text: str, facts: dict[str, str], date: str, source: str | None = None):
    return merge.learn(MANIFEST, text, "USER.md", given_facts.read(facts, source), date)


def canonical(facts: dict[str, str]) -> dict[str, str]:
    """The facts as the merge keys them (keys folded), the last of two spellings winning."""
    return {" ".join(k.split()): v.strip() for k, v in facts.items()}


@settings(max_examples=60, deadline=None)
@given(FACTS, DATES, HAND_LINES)
def test_the_same_facts_on_the_same_date_twice_are_once(facts, date, lines) -> None:
    facts = canonical(facts)
    once = learned("\n".join(lines), facts, date)
    twice = learned(once.text, facts, date)
    assert twice.text == once.text
    assert not twice.changed
    # what the guard refused (a key and value that read as a password) it refuses again
    again = ["refused" if o.status == "refused" else "unchanged" for o in once.outcomes]
    assert [o.status for o in twice.outcomes] == again


@settings(max_examples=60, deadline=None)
@given(st.lists(FACTS, min_size=1, max_size=4), DATES)
def test_a_supersede_keeps_exactly_one_value_per_key(rounds, date) -> None:
    text = ""
    latest: dict[str, str] = {}
    for facts in rounds:
        report = learned(text, canonical(facts), date)
        text = report.text
        # what the guard refuses (a key and value that read as a password) is not learned
        latest.update({o.key: o.value for o in report.outcomes if o.status != "refused"})
    parsed = profile.parse(text, "USER.md").facts
    assert {k: f.value for k, f in parsed.items()} == latest
    keys = [line.split(":")[0] for line in text.splitlines() if line.startswith("- ")]
    assert len(keys) == len(set(keys)) == len(latest)


@settings(max_examples=60, deadline=None)
@given(HAND_LINES, HAND_LINES, FACTS, FACTS, DATES)
def test_hand_written_lines_never_change(before, after, first, second, date) -> None:
    block = profile.block({})
    text = "\n".join([*before, *block, *after])
    once = learned(text, canonical(first), date).text
    again = learned(once, canonical(second), date).text
    lines = again.split("\n")
    start, end = lines.index(block[0]), lines.index(block[-1])
    assert lines[:start] == before
    assert lines[end + 1 :] == after


@settings(max_examples=60, deadline=None)
@given(HAND_LINES, HAND_LINES, FACTS.filter(bool), DATES, st.permutations(range(6)))
def test_the_block_depends_only_on_the_facts_and_their_dates(
    before, after, facts, date, order
) -> None:
    """Other hand-written lines, the facts given in another order, in two calls or one: the
    block's bytes are the same."""
    facts = canonical(facts)
    items = list(facts.items())
    shuffled = dict(items[i] for i in order if i < len(items))
    one = learned("\n".join(before), facts, date).text
    other = learned("\n".join(after), shuffled, date).text
    halves = learned(learned("", dict(items[: len(items) // 2]), date).text, facts, date).text

    def block(text: str) -> str:
        lines = text.split("\n")
        return "\n".join(lines[lines.index(profile.block({})[0]) :])

    assert block(one) == block(other) == block(halves)


def test_an_identical_fact_re_confirms_it_and_moves_nothing_else() -> None:
    first = learned("# Me\n", {"editor": "tabs"}, "2026-11-30", "session-1")
    again = learned(first.text, {"editor": "tabs"}, "2026-12-02", "session-9")
    assert [o.status for o in again.outcomes] == ["unchanged"]
    fact = again.facts[0]
    assert (fact.learned, fact.source, fact.confirmed) == ("2026-11-30", "session-1", "2026-12-02")
    earlier = learned(again.text, {"editor": "tabs"}, "2026-12-01")  # never moves back
    assert not earlier.changed and earlier.facts[0].confirmed == "2026-12-02"


def test_a_new_value_supersedes_and_is_retired() -> None:
    first = learned("", {"editor": "tabs"}, "2026-11-30")
    second = learned(first.text, {"Editor": "spaces"}, "2026-12-01")
    assert [(o.status, o.previous) for o in second.outcomes] == [("superseded", "tabs")]
    assert [(r.fact.value, r.why, r.until) for r in second.retired] == [
        ("tabs", "superseded", "2026-12-01")
    ]
    assert "- Editor: spaces <!-- learned 2026-12-01 -->" in second.text  # the new spelling


def test_the_budget_evicts_the_least_recently_confirmed_first() -> None:
    manifest = attrs.evolve(MANIFEST, learn=Learn(budget=40))
    text = ""
    for key, date in (("aa", "2026-01-01"), ("bb", "2026-01-03"), ("cc", "2026-01-02")):
        text = merge.learn(manifest, text, "U", given_facts.read({key: "x" * 5}, None), date).text
    # each line costs len("- aa: xxxxx\n") == 12; the fourth does not fit with three
    report = merge.learn(manifest, text, "U", given_facts.read({"dd": "y" * 5}, None), "2026-01-04")
    assert [(o.key, o.status) for o in report.outcomes] == [("dd", "added"), ("aa", "evicted")]
    assert [r.fact.key for r in report.retired] == ["aa"]
    assert [f.key for f in report.facts] == ["bb", "cc", "dd"]


def test_a_fact_larger_than_the_whole_budget_is_refused_and_evicts_nothing() -> None:
    manifest = attrs.evolve(MANIFEST, learn=Learn(budget=100))
    text = merge.learn(manifest, "", "U", given_facts.read({"a": "b"}, None), "2026-01-01").text
    huge = given_facts.read({"essay": "z" * 5000}, None)
    report = merge.learn(manifest, text, "U", huge, "2026-01-02")
    assert [o.status for o in report.outcomes] == ["refused"]
    assert "[learn] budget is 100" in (report.outcomes[0].reason or "")
    assert not report.changed and report.text == text


@pytest.mark.parametrize(
    ("facts", "key"),
    [
        ({"edi\u200btor": "x"}, "facts[0].key"),  # a zero-width space
        ({"editor\ufe0f": "x"}, "facts[0].key"),  # a variation selector
        ({"edi\u00adtor": "x"}, "facts[0].key"),  # a soft hyphen
        ([{"key": "Editor", "value": "a"}, {"key": "ＥＤＩＴＯＲ", "value": "b"}], "facts[1].key"),
        ([{"key": "ﬁle", "value": "a"}, {"key": "FILE", "value": "b"}], "facts[1].key"),
        ({"a:b": "x"}, "facts[0].key"),
        ({"k": "two\nlines"}, "facts[0].value"),
        ({"k": "a\u2028b"}, "facts[0].value"),
        ({"k": "a --> b"}, "facts[0].value"),
        ([{"key": "k", "value": "v", "sauce": "s"}], "facts[0].sauce"),
    ],
)
def test_keys_that_collide_or_hide_and_values_that_break_the_line_are_errors(facts, key):
    with pytest.raises(HotplexError) as caught:
        given_facts.read(facts, None)
    assert caught.value.problems[0].span.key == key


def test_keys_compare_after_nfkc_and_case_folding() -> None:
    first = learned("", {"Ｅditor": "tabs"}, "2026-01-01")
    second = learned(first.text, {"EDITOR": "spaces"}, "2026-01-02")
    assert [o.status for o in second.outcomes] == ["superseded"]
    assert [f.key for f in second.facts] == ["editor"]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("- editor tabs", "no fact"),
        ("- a: b <!-- learned 2026-02-30 -->", "no day"),
        ("- a: b <!-- learned 2026-01-01 -->\n- A: c <!-- learned 2026-01-01 -->", "twice"),
        ("- a\u200b: b <!-- learned 2026-01-01 -->", "invisible"),
    ],
)
def test_a_block_edited_into_nonsense_is_an_error_with_its_line(block, message) -> None:
    text = f"# Me\n<!-- hotplex:learned -->\n## Learned facts\n{block}\n<!-- /hotplex:learned -->\n"
    with pytest.raises(HotplexError) as caught:
        learned(text, {"x": "y"}, "2026-01-01")
    problem = caught.value.problems[0]
    assert message in problem.message and problem.span.line is not None
    assert problem.span.line >= 4


def test_a_block_never_closed_is_an_error() -> None:
    with pytest.raises(HotplexError, match="never closed"):
        learned("<!-- hotplex:learned -->\n- a: b <!-- learned 2026-01-01 -->\n", {}, "2026-01-01")


@pytest.mark.parametrize("date", ["2026-13-01", "2026-1-1", "yesterday", None, "2026-02-29"])
def test_the_date_is_the_callers_and_must_be_a_day(date) -> None:
    with pytest.raises(HotplexError):
        given_facts.checked_date(date, None)


def test_a_crlf_profile_keeps_its_line_ends_and_reads_back() -> None:
    text = "# Me\r\n- Name: Ada\r\n"
    first = learned(text, {"editor": "tabs"}, "2026-01-01")
    assert first.text.startswith(text)
    assert all(line.endswith("\r") for line in first.text.split("\n")[:-1])
    again = learned(first.text, {"editor": "tabs", "shell": "zsh"}, "2026-01-01")
    assert [o.status for o in again.outcomes] == ["unchanged", "added"]
    assert (
        again.text.startswith(text)
        and "\r\n- shell: zsh <!-- learned 2026-01-01 -->\r\n" in again.text
    )


def test_keys_differing_in_composition_or_blanks_are_one_key() -> None:
    first = learned("", {"cafe\u0301 order": "flat white"}, "2026-01-01")  # e + combining acute
    second = learned(first.text, {"café   ORDER": "espresso"}, "2026-01-02")
    assert [o.status for o in second.outcomes] == ["superseded"]
    assert len(second.facts) == 1


def test_a_call_takes_a_bounded_number_of_facts() -> None:
    many = {f"k{n}": "v" for n in range(given_facts.MOST_FACTS + 1)}
    with pytest.raises(HotplexError, match="at most"):
        given_facts.read(many, None)
    report = learned("", dict(list(many.items())[:-1]), "2026-01-01")
    assert {o.status for o in report.outcomes} <= {"added", "evicted"}
    assert sum(profile.worker_size(f) for f in report.facts) <= MANIFEST.learn.budget


def test_a_cr_profile_keeps_its_line_ends_and_its_one_block() -> None:
    """A lone CR ends a line, as Markdown reads it: the block of a CR-ended file is found
    again, not appended a second time."""
    text = "# Me\r- Name: Ada\r"
    first = learned(text, {"editor": "tabs"}, "2026-01-01")
    assert first.text.startswith(text) and "\n" not in first.text
    again = learned(first.text, {"editor": "spaces", "shell": "zsh"}, "2026-01-02")
    assert [o.status for o in again.outcomes] == ["superseded", "added"]
    assert again.text.count(learned_block.START) == 1
    assert "\r- shell: zsh <!-- learned 2026-01-02 -->\r" in again.text


@pytest.mark.parametrize(
    ("smuggled", "line_of_error"),
    [("\r", 5), ("\x85", 4), ("\u2028", 4), ("\u2029", 4), ("\v", 4)],
)
def test_a_block_line_holding_a_line_break_is_no_one_fact(smuggled: str, line_of_error) -> None:
    """A CR in a fact line is two lines to Markdown, the second (line 5) no fact; U+0085,
    U+2028 and U+2029 (line breaks to other readers) are refused inside a value as a caller's
    are."""
    line = f"- a: b <!-- learned 2026-01-01 -->{smuggled}<img src=x> <!-- learned 2026-01-01 -->"
    text = f"{learned_block.START}\n{learned_block.HEADING}\n\n{line}\n{learned_block.END}\n"
    with pytest.raises(HotplexError) as raised:
        learned(text, {"c": "d"}, "2026-01-02")
    assert [p.span.line for p in raised.value.problems] == [line_of_error]


@settings(max_examples=60, deadline=None)
@given(FACTS, FACTS, DATES, st.integers(10, 120))
def test_the_same_facts_twice_over_the_budget_retire_nothing_again(before, facts, date, budget):
    """Learned twice on one day, facts over the budget change nothing the second time: not the
    text, and not the retired facts a gateway appends to its history."""
    manifest = attrs.evolve(MANIFEST, learn=Learn(budget=budget))
    earlier = merge.learn(
        manifest, "", "U", given_facts.read(canonical(before), None), "2000-01-01"
    )
    given = given_facts.read(canonical(facts), None)
    once = merge.learn(manifest, earlier.text, "U", given, date)
    twice = merge.learn(manifest, once.text, "U", given, date)
    assert (twice.text, twice.changed, twice.retired) == (once.text, False, ())
    # what leaves the block was in it: a fact given and over the budget at once is refused
    assert {r.fact.key for r in once.retired} <= {f.key for f in earlier.facts}


def test_facts_over_the_budget_on_arrival_are_refused_not_retired() -> None:
    manifest = attrs.evolve(MANIFEST, learn=Learn(budget=600))
    facts = [{"key": f"k{n:03}", "value": "v" * 40} for n in range(30)]
    first = merge.learn(manifest, "# A\n", "U", given_facts.read(facts, None), "2026-12-01")
    statuses = [o.status for o in first.outcomes]
    assert statuses == ["refused"] * 18 + ["added"] * 12 and first.retired == ()  # by key
    assert "[learn] budget" in (first.outcomes[0].reason or "")
    again = merge.learn(manifest, first.text, "U", given_facts.read(facts, None), "2026-12-01")
    assert again.text == first.text and again.retired == () and not again.changed


def test_a_key_keeps_the_spelling_it_was_given_and_is_compared_folded() -> None:
    first = learned("", {"GitHub": "octocat", "\ufb01le  Format": "md"}, "2026-01-01")
    assert [o.key for o in first.outcomes] == ["GitHub", "\ufb01le Format"]
    assert "- GitHub: octocat <!--" in first.text and "- \ufb01le Format: md <!--" in first.text
    same = learned(first.text, {"GITHUB": "octocat"}, "2026-01-02")  # re-confirmed: as it was
    assert [o.status for o in same.outcomes] == ["unchanged"]
    assert "- GitHub: octocat <!-- learned 2026-01-01, confirmed 2026-01-02 -->" in same.text
    new = learned(same.text, {"github": "monalisa"}, "2026-01-03")  # a new value: as given
    assert [(o.key, o.status) for o in new.outcomes] == [("github", "superseded")]
    assert "- github: monalisa <!--" in new.text and "GitHub" not in new.text
    assert [r.to_json()["key"] for r in new.retired] == ["GitHub"]
    assert [f.key for f in new.facts] == ["file format", "github"]  # compared folded


@pytest.mark.parametrize(
    ("first", "second"),
    [("editor", "\u0435ditor"), ("system", "SYSTE\u041c"), ("\u0435ditor", "Editor")],
)
def test_a_look_alike_of_a_key_is_an_error_naming_both(first: str, second: str) -> None:
    """A key one of whose letters is another script's look-alike (UTS #39 confusables) is
    neither a second key that looks like the first nor silently the first."""
    block = learned("", {first: "vim"}, "2026-12-01")
    with pytest.raises(HotplexError) as error:
        learned(block.text, {second: "emacs"}, "2026-12-02")
    said = error.value.render()
    assert repr(second) in said and repr(first) in said and "look-alike" in said
    with pytest.raises(HotplexError, match="look-alike"):
        given_facts.read({first: "vim", second: "emacs"}, None)


def test_keys_that_only_differ_by_script_and_do_not_look_alike_are_two() -> None:
    both = learned(
        "", {"editor": "vim", "\u0440\u0435\u0434\u0430\u043a\u0442\u043e\u0440": "x"}, "2026-12-01"
    )
    assert [o.status for o in both.outcomes] == ["added", "added"]
