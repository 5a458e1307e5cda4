"""The built-in compactor: nothing of a compacted day is lost, and a second run changes nothing."""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

import pytest
from hotplex.api import Project
from hotplex.memory import builtin
from hotplex.sources.frontmatter import strip, trim
from hotplex.sources.logs import entries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MANIFEST = """\
[memory]
logs = "memory/*.md"
compact_after_days = {after}
digest_chars = {budget}

[[target]]
name = "cc"
worker = "claude-code"
"""

_words = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=30).map(str.strip).filter(bool)
_entry = st.one_of(
    _words.map(lambda w: f"- {w}"),
    _words.map(lambda w: f"- [durable] {w}"),
    st.tuples(_words, _words).map(lambda p: f"- {p[0]}\n  {p[1]}"),
    _words.map(lambda w: f"{w} as a paragraph"),
    _words.map(lambda w: f"- {w} " + "long " * 60),  # a shortened line, the entry in the history
)
_day = st.lists(_entry, min_size=0, max_size=6)
_days = st.dictionaries(st.integers(0, 75), _day, min_size=1, max_size=25)


def _project(root: Path, days: dict[int, list[str]], after: int, budget: int) -> None:
    (root / "hotplex.toml").write_text(MANIFEST.format(after=after, budget=budget))
    logs = root / "agent-configs" / "memory"
    logs.mkdir(parents=True)
    (root / "agent-configs" / "MEMORY.md").write_text("# Memory\n")
    start = datetime.date(2026, 8, 20)
    for offset, written in days.items():
        day = start + datetime.timedelta(offset)
        (logs / f"{day}.md").write_text("\n\n".join(written) + "\n")


def _entries_of(path: Path) -> list[str]:
    body = trim(strip(path.read_text(), str(path)).body)
    return [block for block, is_entry, _ in entries(body) if is_entry]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_days, st.integers(1, 40), st.integers(150, 2000))
def test_every_entry_of_a_compacted_day_is_in_its_month_or_its_history(days, after, budget):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _project(root, days, after, budget)
        project = Project.load(root)
        done = project.compact_memory()
        logs = root / "agent-configs" / "memory"
        for month in done.months:
            body = (root / month.path).read_text()
            history = logs / "compacted" / "history" / f"{month.month}.md"
            kept = history.read_text() if history.exists() else ""
            lines = body.split("\n")
            for day in month.days:
                for entry in _entries_of(logs / day):
                    folded = ": " + builtin.fold(entry)
                    in_digest = any(line.endswith(folded) for line in lines)
                    in_month = entry in body if builtin.is_durable(entry) else in_digest
                    assert in_month or entry in kept, (day, entry)
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        again = project.compact_memory()
        assert not again.changed
        assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_an_entry_written_on_several_days_is_one_line_naming_them():
    days = [
        ("2026-10-01", "- sync on Tuesdays\n- a"),
        ("2026-10-02", "- sync on Tuesdays"),
        ("2026-10-03", "- b\n- sync on Tuesdays"),
    ]
    body = builtin.compact("2026-10", days, 2000, "history/2026-10.md").body
    assert body.split("\n").count("- 2026-10-01, 2026-10-02, 2026-10-03: sync on Tuesdays") == 1
    assert body.count("sync on Tuesdays") == 1


def test_the_digest_keeps_the_newest_entries_within_its_budget():
    days = [(f"2026-10-{n:02}", f"- entry number {n} of the month") for n in range(1, 31)]
    folded = builtin.compact("2026-10", days, 400, "history/2026-10.md")
    digest = folded.body.split(builtin.DIGEST_HEADING, 1)[1].strip()
    assert len(digest) <= 400
    assert "entry number 30 " in digest and "entry number 1 " not in digest
    assert ("2026-10-01", "- entry number 1 of the month") in folded.history
    assert digest.endswith(
        f"- {len(folded.history)} more entries of 2026-10 are kept whole in history/2026-10.md"
    )


def test_a_durable_entry_is_kept_whole_even_past_the_budget():
    entry = "- [Durable] the deploy key lives in the vault\n  ask Lin for access\n  (since May)"
    body = builtin.compact("2026-10", [("2026-10-04", entry)], 10, "h").body
    assert body == f"{builtin.KEPT_HEADING}\n\n#### 2026-10-04\n\n{entry}"


def test_a_month_s_header_covers_its_own_days_only():
    from hotplex.errors import HotplexError
    from hotplex.sources.compacted import covered

    meta = {"days": {"2026-11-12.md": "9 ab", "2026-10-01.md": "5 cd"}}
    assert covered(meta, "2026-10", "m.md", str) == {"2026-10-01.md": (5, "cd")}
    text = '---\ndays:\n  "2026-10-02.md": "x"\n---\n'
    with pytest.raises(HotplexError) as wrong:
        covered({"days": {"2026-10-02.md": "x"}}, "2026-10", "m.md", lambda: text)
    assert wrong.value.problems[0].span.location() == "m.md:3:20: days.2026-10-02.md"


def test_compacted_months_left_out_are_folded_into_one_line_as_days_are():
    from hotplex.records import Truncation
    from hotplex.sources.logs import describe_cuts

    cuts = [
        Truncation(
            "memory", (f"m/compacted/2025-{n:02}.md",), "per_file", 900, 0, "chars", "dropped"
        )
        for n in range(12, 0, -1)
    ]
    lines = describe_cuts(cuts)
    assert len(lines) == 3
    assert lines[2] == (
        "10 older compacted months, m/compacted/2025-01.md … m/compacted/2025-10.md: dropped;"
        " no room left in limits.per_file"
    )


@given(st.lists(st.integers(1, 28), min_size=1, max_size=6, unique=True), st.integers(230, 400))
def test_a_digest_line_is_at_most_line_chars_with_its_days_and_the_entry_whole_in_history(
    written_on, length
):
    """The limit held for the entry's text after "- 2026-10-24: ", the docs said the line."""
    entry = "- " + ("word " * length)[: length - 2].rstrip()
    days = [(f"2026-10-{n:02}", entry) for n in sorted(written_on)]
    folded = builtin.compact("2026-10", days, 5000, "h")
    line = folded.body.split(builtin.DIGEST_HEADING, 1)[1].strip().split("\n")[0]
    assert len(line) <= builtin.LINE_CHARS
    assert line.endswith("…")
    assert folded.history == ((days[0][0], entry),)
