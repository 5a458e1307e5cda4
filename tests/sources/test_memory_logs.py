"""Daily memory logs ([memory] logs): each rule through the real command, and the API."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from hotplex import HotplexError, Project
from hotplex.document.limits import TRUNCATION_MARKER
from hotplex_testing import run_hotplex

MANIFEST = """\
[metacognition]
enabled = false

[limits]
per_file = {per_file}
total = 8000

[memory]
logs = "memory/*.md"

[[target]]
name = "cc"
worker = "claude-code"

[[target]]
name = "sub"
worker = "claude-code"
profile = "subagent"
"""


def manifest(per_file: int = 400) -> str:
    return MANIFEST.format(per_file=per_file)


def memory_of(root, job: str = "cc/default") -> str:
    text = (root / f"dist/{job}/prompt.xml").read_text(encoding="utf-8")
    return text.split("<memory>\n", 1)[1].split("\n</memory>", 1)[0]


def build_json(root, *args: str) -> dict:
    result = run_hotplex("-C", str(root), "build", "--json", *args)
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


def cuts_of(report: dict, job: str = "cc/default") -> list[dict]:
    (artifact,) = [a for a in report["artifacts"] if a["path"] == f"dist/{job}/prompt.xml"]
    return artifact["truncations"]


def settled(root):
    """Files old enough for the API to trust their stamps, and so to keep what it made of them
    (a file written in the last few milliseconds is read again on every call)."""
    for file in root.rglob("*"):
        os.utime(file, ns=(time.time_ns() - 10**9,) * 2)
    return root


def day(n: int, *items: str) -> tuple[str, str]:
    return f"agent-configs/memory/2026-11-{n:02d}.md", "".join(f"- {i}\n" for i in items)


def test_curated_first_then_whole_days_newest_first_and_every_left_out_day_reported(
    make_project,
):
    files = dict(
        [
            ("agent-configs/MEMORY.md", "Curated: the user is Lin."),
            day(1, "first day " + "x" * 100),
            day(2, "second day " + "y" * 100),
            day(3, "third day " + "z" * 100),
            day(4, "fourth day"),
        ]
    )
    root = make_project(files, manifest=manifest(per_file=250))
    report = build_json(root)
    memory = memory_of(root)
    assert memory.startswith("Recall relevant past context when applicable.\nCurated: the user")
    assert memory.index("## 2026-11-04") < memory.index("## 2026-11-03")
    assert "## 2026-11-02" not in memory and "second day" not in memory
    assert "first day" not in memory  # an older day never returns after a day did not fit
    dropped = [(c["files"], c["after"], c["style"], c["limit"]) for c in cuts_of(report)]
    assert dropped == [
        (["agent-configs/memory/2026-11-02.md"], 0, "dropped", "per_file"),
        (["agent-configs/memory/2026-11-01.md"], 0, "dropped", "per_file"),
    ]
    assert all(c["before"] > 100 for c in cuts_of(report))  # sizes are reported
    # The same in the human output, stats and show.
    again = run_hotplex("-C", str(root), "build", "--json")
    assert cuts_of(json.loads(again.stdout)) == cuts_of(report)
    stats = json.loads(run_hotplex("-C", str(root), "stats", "--json").stdout)
    assert "2026-11-02" in json.dumps(stats)
    shown = run_hotplex("-C", str(root), "show", "cc")
    assert "memory/2026-11-02.md: dropped" in shown.stderr
    assert shown.stdout == (root / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")


def test_an_entry_repeated_verbatim_is_kept_only_in_the_newest_day(make_project):
    files = dict(
        [
            day(1, "backups run at 02:00 UTC", "old only"),
            day(2, "new only", "backups run at 02:00 UTC"),
            (
                "agent-configs/memory/2026-11-03.md",
                "Paragraph kept.\n\n- backups run at 02:00 UTC\n",
            ),
        ]
    )
    root = make_project(files, manifest=manifest(per_file=4000))
    build_json(root)
    memory = memory_of(root)
    assert memory.count("backups run at 02:00 UTC") == 1
    newest = memory.split("## 2026-11-02")[0]
    assert "- backups run at 02:00 UTC" in newest and "Paragraph kept." in newest
    assert "- old only" in memory and "- new only" in memory


def test_a_day_whose_every_entry_is_newer_is_left_out_without_a_heading(make_project):
    files = dict([day(1, "same"), day(2, "same")])
    root = make_project(files, manifest=manifest(per_file=4000))
    build_json(root)
    assert "2026-11-01" not in memory_of(root)


def test_a_newest_day_larger_than_the_budget_keeps_its_newest_entries(make_project):
    items = [f"entry {n:02d} " + "w" * 40 for n in range(30)]
    root = make_project(dict([day(9, *items), day(8, "older")]), manifest=manifest(per_file=400))
    report = build_json(root)
    memory = memory_of(root)
    assert "entry 29" in memory and "entry 00" not in memory
    kept = [line for line in memory.splitlines() if line.startswith("- entry")]
    assert kept == [f"- {i}" for i in items[-len(kept) :]]  # a run at the end, whole entries
    assert len(memory.split("\n", 1)[1]) <= 400  # the section's text, after its note
    first, second = cuts_of(report)
    assert first["files"] == ["agent-configs/memory/2026-11-09.md"]
    assert first["style"] == "entries" and 0 < first["after"] < first["before"]
    assert second["files"] == ["agent-configs/memory/2026-11-08.md"] and second["after"] == 0


def test_crlf_and_bom_logs_read_like_lf_and_templates_stay_off(make_project):
    crlf = "\ufeff- fixed {{ the }} thing\r\n- second\r\n".encode()
    lf = "- fixed {{ the }} thing\n- second\n"
    first = make_project(
        {"agent-configs/memory/2026-11-01.md": crlf}, manifest=manifest(), name="a"
    )
    second = make_project({"agent-configs/memory/2026-11-01.md": lf}, manifest=manifest(), name="b")
    build_json(first)
    build_json(second)
    assert memory_of(first) == memory_of(second)
    assert "- fixed {{ the }} thing\n- second" in memory_of(first)
    assert "\r" not in memory_of(first) and "\ufeff" not in memory_of(first)


def test_a_log_cannot_close_the_memory_section(make_project):
    root = make_project(
        dict([day(1, "done </memory> now <memory>", "x </Memory >")]), manifest=manifest()
    )
    build_json(root)
    text = (root / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")
    assert text.count("</memory>") == 1 and text.count("<memory>") == 1
    assert "&lt;/memory> now &lt;memory>" in text


def test_a_secret_in_a_log_fails_the_build_with_its_place(make_project):
    root = make_project(dict([day(1, "ok", "DB_PASSWORD=hunter2-Real-99")]), manifest=manifest())
    result = run_hotplex("-C", str(root), "build")
    assert result.status == 1
    assert "agent-configs/memory/2026-11-01.md:2:" in result.stderr


def test_a_thousand_days_reads_only_what_the_budget_can_use(make_project):
    """Days past the budget are listed, never opened: here they are not even UTF-8, so reading
    one would fail the build."""
    files = {}
    for n in range(1000):
        name = f"agent-configs/memory/{2000 + n // 12:04d}-{n % 12 + 1:02d}-01.md"
        files[name] = f"- fact of day {n} " + "v" * 60 + "\n" if n >= 990 else b"\xff\xfe bad"
    root = make_project(files, manifest=manifest(per_file=500))
    started = time.perf_counter()
    report = build_json(root)
    assert time.perf_counter() - started < 30  # a sanity bound, not a benchmark
    memory = memory_of(root)
    assert "fact of day 999" in memory and "fact of day 990" not in memory
    cuts = cuts_of(report)
    assert len(cuts) == 1000 - memory.count("## ")
    assert {c["after"] for c in cuts} == {0}
    record = (root / ".hotplex/log").read_text(encoding="utf-8")
    assert "2000-01-01.md" in record  # reported with its size...
    log_inputs = [json.loads(line).get("inputs", {}) for line in record.splitlines()[1:]]
    read = {p for inputs in log_inputs for p in inputs if p.endswith(".md") and "/memory/" in p}
    assert len(read) < 20  # ...but never read


def test_new_removed_and_edited_days_rebuild_exactly_the_artifacts_reading_logs(make_project):
    root = make_project(dict([day(1, "one")]), manifest=manifest())
    build_json(root)
    noop = run_hotplex("-C", str(root), "build", "--explain")
    assert "0 rebuilt" in noop.stdout
    newest = root / "agent-configs/memory/2026-11-02.md"
    newest.write_text("- two\n", encoding="utf-8")  # the no-op fast path must notice it
    report = build_json(root)
    rebuilt = {a["path"].split("/")[2] for a in report["artifacts"] if a["rebuilt"]}
    assert {a["path"] for a in report["artifacts"] if a["rebuilt"]} == {
        "dist/cc/default/prompt.xml",
        "dist/cc/default/launch.json",
    }, rebuilt  # the sub-agent keeps no memory: it reads no logs
    assert "- two" in memory_of(root)
    time.sleep(0.05)
    newest.write_text("- two, edited\n", encoding="utf-8")
    report = build_json(root)
    assert any("2026-11-02.md changed" in str(a["reason"]) for a in report["artifacts"])
    assert "- two, edited" in memory_of(root)
    newest.unlink()
    build_json(root)
    assert "two" not in memory_of(root)
    assert "0 rebuilt" in run_hotplex("-C", str(root), "build").stdout


def test_openclaw_deploys_every_day_and_keeps_memory_md_curated(make_project):
    text = manifest().replace(
        'name = "sub"\nworker = "claude-code"\nprofile = "subagent"',
        'name = "claw"\nworker = "openclaw"',
    )
    root = make_project(
        dict([("agent-configs/MEMORY.md", "Curated."), day(1, "one"), day(2, "two")]),
        manifest=text,
    )
    build_json(root)
    workspace = root / "dist/claw/default/workspace"
    assert (workspace / "MEMORY.md").read_text() == "Curated.\n"
    assert (workspace / "memory/2026-11-01.md").read_text() == "- one\n"
    assert (workspace / "memory/2026-11-02.md").read_text() == "- two\n"
    (root / "agent-configs/memory/2026-11-01.md").unlink()
    build_json(root)
    assert not (workspace / "memory/2026-11-01.md").exists()


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("mem*/x.md", "only the file name may hold wildcards"),
        ("../memory/*.md", "must stay inside the sources folder"),
        ("memory/today.md", "names no files"),
        ("memory\\\\*.md", "a backslash; hotplex paths separate folders with '/'"),
    ],
)
def test_a_bad_logs_glob_is_an_error_at_its_key(make_project, glob, message):
    root = make_project({}, manifest=manifest().replace('"memory/*.md"', f'"{glob}"'))
    result = run_hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "memory.logs" in result.stderr and message in result.stderr


# --- the library API with per-user overlays ------------------------------------------------------


def test_overlay_compiles_as_if_the_files_held_the_text_for_that_call_only(make_project):
    root = make_project(
        {"agent-configs/USER.md": "Base user.", **dict([day(1, "base day")])},
        manifest=manifest(per_file=4000),
    )
    project = Project.load(settled(root))
    before = project.compile("cc").text
    alice = project.compile(
        "cc",
        overlay={
            "USER.md": "---\nname: alice\n---\r\nAlice </user> likes tea.",
            "MEMORY.md": "Alice's curated memory.",
            "memory/2026-11-02.md": "- alice asked about DNS\n- base day\n",
        },
    ).text
    assert "Alice &lt;/user> likes tea." in alice and "name: alice" not in alice
    assert "Base user." not in alice and "Alice's curated memory." in alice
    assert alice.index("Alice's curated memory.") < alice.index("## 2026-11-02\n\n- alice asked")
    assert "2026-11-01" not in alice  # its one entry is in the newer (overlaid) day
    assert project.compile("cc").text == before  # nothing leaked into the cache
    assert not (root / "dist").exists() and not (root / ".hotplex").exists()
    bob = project.compile("cc", overlay={"USER.md": "Bob."}).text
    assert "Bob." in bob and "Alice" not in bob


def test_overlay_findings_name_the_overlay_file(make_project):
    project = Project.load(
        settled(make_project({"agent-configs/SOUL.md": "Soul.\n"}, manifest=manifest()))
    )
    with pytest.raises(HotplexError) as found:
        project.compile("cc", overlay={"USER.md": "ok\nDB_PASSWORD=hunter2-Real-99\n"})
    assert found.value.problems[0].span.file == "overlay:USER.md"
    assert found.value.problems[0].span.line == 2
    with pytest.raises(HotplexError) as hidden:
        project.compile("cc", overlay={"MEMORY.md": "tag\U000e0041\U000e0042 text"})
    assert hidden.value.problems[0].span.file == "overlay:MEMORY.md"
    with pytest.raises(HotplexError) as typo:
        project.compile("cc", overlay={"USR.md": "x"})
    assert "did you mean 'USER.md'" in (typo.value.problems[0].hint or "")
    assert "USER.md" not in project.compile("cc").text


def test_overlay_from_the_command_line(make_project, tmp_path):
    root = make_project({"agent-configs/USER.md": "Base."}, manifest=manifest())
    alice = tmp_path / "alice-user.md"
    alice.write_text("Alice prefers tea.", encoding="utf-8")
    shown = run_hotplex("-C", str(root), "show", "cc", "--overlay", f"USER.md={alice}")
    assert shown.status == 0, shown.stderr
    assert "Alice prefers tea." in shown.stdout and "Base." not in shown.stdout
    assert Project.load(root).compile("cc", overlay={"USER.md": "Alice prefers tea."}).text == (
        shown.stdout
    )
    alice.write_text("DB_PASSWORD=hunter2-Real-99", encoding="utf-8")
    bad = run_hotplex("-C", str(root), "show", "cc", "--overlay", f"USER.md={alice}")
    assert bad.status == 1 and f"{alice}:1:" in bad.stderr
    assert not (root / "dist").exists()


def test_overlay_calls_from_many_threads_give_each_their_own_artifact(make_project):
    from concurrent.futures import ThreadPoolExecutor

    project = Project.load(settled(make_project(dict([day(1, "shared")]), manifest=manifest())))
    users = [f"User number {n}." for n in range(40)]
    expected = [project.compile("cc", overlay={"USER.md": u}).text for u in users]
    with ThreadPoolExecutor(8) as pool:
        got = list(
            pool.map(lambda u: project.compile("cc", overlay={"USER.md": u}).text, users * 3)
        )
    assert got == expected * 3


def test_overlay_sees_an_edited_base_file(make_project):
    root = make_project({"agent-configs/SOUL.md": "Soul one."}, manifest=manifest())
    project = Project.load(root)
    assert "Soul one." in project.compile("cc", overlay={"USER.md": "u"}).text
    soul = root / "agent-configs/SOUL.md"
    soul.write_text("Soul two, longer.", encoding="utf-8")
    os.utime(soul, ns=(time.time_ns() - 10**9, time.time_ns() - 10**9))
    assert "Soul two, longer." in project.compile("cc", overlay={"USER.md": "u"}).text


def test_overlay_of_an_included_file_recompiles_the_sections_that_include_it(make_project):
    root = make_project(
        {
            "agent-configs/SOUL.md": 'Soul.\n{% include "shared/tone.md" %}\n',
            "agent-configs/shared/tone.md": "Base tone.",
            "agent-configs/AGENTS.md": "Rules.",
        },
        manifest=manifest(),
    )
    project = Project.load(settled(root))
    base = project.compile("cc").text
    assert "Base tone." in base
    warm = project.compile("cc", overlay={"USER.md": "u"}).text  # sections now reused
    assert "Base tone." in warm
    changed = project.compile("cc", overlay={"shared/tone.md": "Overlaid tone."}).text
    assert "Overlaid tone." in changed and "Base tone." not in changed
    assert project.compile("cc", overlay={"USER.md": "u"}).text == warm
    assert project.compile("cc").text == base


def test_overlay_compiles_claude_import_sources_as_the_build_does(make_project):
    manifest_text = """\
[project]
sources = "."
[metacognition]
enabled = false
[[source]]
name = "a"
file = "CLAUDE.md"
channel = "B"
tag = "a"
imports = "claude"
[[source]]
name = "b"
file = "AGENTS.md"
channel = "B"
tag = "b"
imports = "claude"
[[source]]
name = "user"
file = "USER.md"
channel = "C"
tag = "user"
[[target]]
name = "cc"
worker = "claude-code"
"""
    root = make_project(
        {"CLAUDE.md": "See @notes.md", "AGENTS.md": "Also @notes.md", "notes.md": "N."},
        manifest=manifest_text,
    )
    project = Project.load(settled(root))
    base = project.compile("cc").text
    assert base.count("N.") == 1  # Claude Code loads a file once per session
    for _ in range(3):
        text = project.compile("cc", overlay={"USER.md": "u"}).text
        assert text.count("N.") == 1 and "<user>" in text
    overlaid = project.compile("cc", overlay={"AGENTS.md": "Again @notes.md"}).text
    assert overlaid.count("N.") == 1 and "Again @notes.md" in overlaid


@pytest.mark.parametrize("share", ["order", "fair"])
def test_share_through_the_command(make_project, share):
    text = f"""\
[metacognition]
enabled = false
[limits]
per_file = 3000
total = 2000
share = "{share}"
[memory]
logs = "memory/*.md"
[[target]]
name = "cc"
worker = "claude-code"
"""
    root = make_project(
        {
            "agent-configs/SOUL.md": "s" * 2500,
            "agent-configs/USER.md": "Lin, on call.",
            "agent-configs/MEMORY.md": "m" * 2500,
            **dict([day(1, "today")]),
        },
        manifest=text,
    )
    report = build_json(root)
    cuts = {(c["section"], c["limit"]) for c in cuts_of(report)}
    prompt = (root / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")
    if share == "order":  # SOUL.md, first, takes the whole total: USER.md and memory get nothing
        assert "Lin, on call." not in prompt and "<memory>" not in prompt
        assert {("user", "total"), ("memory", "total")} <= cuts
    else:  # USER.md is small and whole; SOUL.md and memory split the rest evenly
        soul = prompt.split("<persona>")[1].split("</persona>")[0]
        memory = memory_of(root)
        assert "Lin, on call." in prompt
        assert abs(len(soul) - len(memory)) < 80 and "m" * 900 in memory
        assert cuts == {("soul", "share"), ("memory", "share")}
        assert "2026-11-01" not in memory  # the curated part took the memory's share


def test_a_day_keeps_its_own_line_breaks_a_tight_list_stays_tight(make_project):
    text = "# Morning\n- a\n- b\n  more of b\n\nA paragraph.\n\n\n- c\n"
    root = make_project({"agent-configs/memory/2026-11-01.md": text}, manifest=manifest())
    build_json(root)
    assert memory_of(root).endswith("## 2026-11-01\n\n" + text.rstrip())


def test_a_newest_day_past_the_read_cap_keeps_its_last_entries_whole(make_project):
    count = 200_000
    big = "".join(f"- entry {n} of the day, noted\n" for n in range(count))
    root = make_project({"agent-configs/MEMORY.md": "Curated."}, manifest=manifest(5000))
    (root / "agent-configs/memory").mkdir()
    (root / "agent-configs/memory/2026-11-02.md").write_text(big, encoding="utf-8")
    assert len(big) > 6_000_000
    report = build_json(root)
    kept = memory_of(root).split("## 2026-11-02\n\n", 1)[1].split("\n")
    assert kept[-1] == f"- entry {count - 1} of the day, noted"
    numbers = [int(line.split()[2]) for line in kept]
    assert numbers == list(range(numbers[0], count)) and len(numbers) > 100
    (cut,) = [c for c in cuts_of(report) if c["limit"] == "per_file"]
    assert cut["files"] == ["agent-configs/memory/2026-11-02.md"] and cut["style"] == "entries"


def test_only_files_named_by_a_date_are_days(make_project, hotplex):
    files = {
        "agent-configs/MEMORY.md": "Curated.",
        "agent-configs/memory/notes.md": "- not a day",
        "agent-configs/memory/2026-11-31.md": "- no such date",
        "agent-configs/memory/2026-11-01.md": "- day one",
        "agent-configs/memory/2026-11-02-standup.md": "- day two, standup",
    }
    root = make_project(files, manifest=manifest())
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    memory = memory_of(root)
    assert "not a day" not in memory and "no such date" not in memory
    assert memory.index("## 2026-11-02-standup") < memory.index("## 2026-11-01")
    for name in ("notes.md", "2026-11-31.md"):
        assert (
            f"agent-configs/memory/{name} matches memory.logs 'memory/*.md' but is not a day"
            in result.stderr
        )
    assert " is read by no artifact" not in result.stderr


def test_a_logs_glob_that_matches_a_source_is_an_error(make_project, hotplex):
    root = make_project(
        {"agent-configs/MEMORY.md": "Curated.", "agent-configs/SOUL.md": "Soul."},
        manifest=manifest().replace('logs = "memory/*.md"', 'logs = "*.md"'),
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "hotplex.toml: memory.logs: '*.md' matches the files of sources " in result.stderr
    assert "'soul' (SOUL.md)" in result.stderr and "a source is not a day" in result.stderr


def test_days_left_out_for_room_are_reported_once_as_dropped_not_as_unread(make_project, hotplex):
    files = dict(day(n, f"day {n} " + "x" * 300) for n in range(1, 7))
    root = make_project(files, manifest=manifest(per_file=400))
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert "is read by no artifact" not in result.stderr
    lines = result.stderr.splitlines()
    for n in (5, 4):
        assert sum(f"2026-11-{n:02d}.md" in line for line in lines) == 1
    assert (
        "warning: cc/default: 3 older days, agent-configs/memory/2026-11-01.md …"
        " agent-configs/memory/2026-11-03.md: dropped; no room left in limits.per_file"
    ) in lines


def test_the_days_left_out_come_back_from_the_build_log_one_cut_each(make_project, hotplex):
    """The log keeps days left out in a row as one entry of [file, size] pairs; a build that
    reads the records back (``--json`` of an up-to-date set) reports each day as built."""
    files = dict(day(n, f"day {n} " + "x" * (300 + n)) for n in range(1, 9))
    files["agent-configs/SOUL.md"] = "s" * 500  # a cut of another kind, between none of them
    root = make_project(files, manifest=manifest(per_file=400))
    built = build_json(root)
    again = build_json(root)
    assert [a["rebuilt"] for a in again["artifacts"]] == [False] * len(again["artifacts"])
    for job in ("cc/default", "sub/default"):
        assert cuts_of(again, job) == cuts_of(built, job)
    dropped = [c for c in cuts_of(again) if c["style"] == "dropped"]
    assert [c["files"] for c in dropped] == [
        [f"agent-configs/memory/2026-11-{n:02d}.md"] for n in range(7, 0, -1)
    ]
    assert [c["before"] for c in dropped[1:]] == [
        len(f"- day {n} ") + 301 + n for n in range(6, 0, -1)
    ]


def test_three_days_left_out_are_three_lines_and_an_empty_day_is_not_dropped(make_project, hotplex):
    files = dict(day(n, f"day {n} " + "x" * 300) for n in range(1, 5))
    files["agent-configs/memory/2026-10-31.md"] = ""
    root = make_project(files, manifest=manifest(per_file=400))
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    cc = [line for line in result.stderr.splitlines() if line.startswith("warning: cc/default:")]
    assert [line.split(": ")[2] for line in cc] == [
        f"agent-configs/memory/2026-11-0{n}.md" for n in (3, 2, 1)
    ]
    assert "2026-10-31" not in result.stderr and "older days" not in result.stderr


def test_a_logs_folder_that_does_not_exist_is_a_warning_with_a_suggestion(make_project, hotplex):
    root = make_project(
        dict([("agent-configs/MEMORY.md", "Curated."), day(1, "a day")]),
        manifest=manifest().replace('"memory/*.md"', '"memroy/*.md"'),
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert (
        "warning: hotplex.toml: memory.logs: the folder of 'memroy/*.md' (agent-configs/memroy/)"
        " does not"
        " exist — did you mean 'memory/*.md'?"
    ) in result.stderr.splitlines()


def test_days_the_glob_does_not_reach_get_a_hint_naming_memory_logs(make_project, hotplex):
    files = {
        "agent-configs/MEMORY.md": "Curated.",
        "agent-configs/memory/2026-11-01.MD": "- upper case",
        "agent-configs/memory/2025/2025-12-31.md": "- last year",
        "agent-configs/2026-11-02.md": "- beside the sources",
    }
    root = make_project(files, manifest=manifest())
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    unread = [line for line in result.stderr.splitlines() if " is read by no artifact" in line]
    assert len(unread) == 3 and all("memory.logs 'memory/*.md'" in line for line in unread)


def test_a_wildcard_folder_is_one_error_not_two(make_project, hotplex):
    root = make_project(
        {"agent-configs/MEMORY.md": "Curated."},
        manifest=manifest().replace('"memory/*.md"', '"*/x.md"'),
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert result.stderr.count("memory.logs") == 1, result.stderr
    assert "the folder must be literal" in result.stderr


def test_stats_counts_one_older_day_in_the_singular(make_project, hotplex):
    files = dict(day(n, f"day {n} " + "x" * 300) for n in range(1, 4))
    root = make_project(files, manifest=manifest(per_file=400))
    table = hotplex("-C", str(root), "stats").stdout
    memory = next(
        line for line in table.splitlines() if line.split()[:2] == ["cc/default", "memory"]
    )
    assert memory.split("(dropped); ")[1].split("  ")[0] == "1 older day dropped"


def test_a_memory_section_of_one_long_entry_keeps_its_head_rather_than_nothing(
    make_project, hotplex
):
    entry = "- " + "a long entry about the migration " * 20
    root = make_project(
        {"agent-configs/memory/2026-11-01.md": entry, "agent-configs/SOUL.md": "Soul."},
        manifest=manifest(per_file=200),
    )
    report = build_json(root)
    memory = memory_of(root)
    assert memory.startswith(
        "Recall relevant past context when applicable.\n## 2026-11-01\n\n- a long"
    )
    (cut,) = cuts_of(report)
    assert cut["files"] == ["agent-configs/memory/2026-11-01.md"] and 0 < cut["after"] <= 200
    assert cut["style"] == "marker" and memory.endswith(TRUNCATION_MARKER)


def test_a_finding_in_a_day_read_from_its_end_is_placed_on_its_line(make_project, hotplex):
    lines = [f"- entry {n} of the day, noted" for n in range(40_000)]
    lines.append("- deploy key AKIAIOSFODNN7EXAMPLQ for staging")
    root = make_project({"agent-configs/MEMORY.md": "Curated."}, manifest=manifest())
    (root / "agent-configs/memory").mkdir()
    (root / "agent-configs/memory/2026-11-02.md").write_text("\n".join(lines), encoding="utf-8")
    assert len("\n".join(lines)) > 1 << 20  # past the read cap: read from its end
    result = hotplex("-C", str(root), "build")
    assert result.status == 1
    assert result.stderr.startswith(f"agent-configs/memory/2026-11-02.md:{len(lines)}:14: ")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-11-29.md", True),
        ("memory/2026-11-29.md", True),
        ("memory\\2026-11-29.md", True),
        ("2026-11-29-standup.md", True),
        ("2026-11-29_evening.md", True),
        ("2026-11-29.MD", True),
        ("2024-02-29.md", True),
        ("2099-01-01.md", True),  # no clock: a future date is a day
        ("2026-02-29.md", False),
        ("2026-13-01.md", False),
        ("2026-11-29x.md", False),
        ("2026-11-29.md.bak", False),
        ("notes.md", False),
        ("MEMORY.md", False),
        ("\u0662\u0660\u0662\u0666-\u0661\u0661-\u0662\u0669.md", False),  # ASCII digits only
    ],
)
def test_which_file_names_are_days(name, expected):
    from hotplex.sources.logs import is_day

    assert is_day(name) is expected


def test_a_day_read_from_inside_a_code_block_starts_after_it(make_project):
    code = "".join(f"- not an entry {n}, a line of code\n" for n in range(40_000))
    text = f"- a long log:\n\n```\n{code}```\n- after the code\n- the newest\n"
    root = make_project({"agent-configs/MEMORY.md": "Curated."}, manifest=manifest())
    (root / "agent-configs/memory").mkdir()
    (root / "agent-configs/memory/2026-11-02.md").write_text(text, encoding="utf-8")
    assert len(text) > 1 << 20  # past the read cap: read from its end, inside the block
    build_json(root)
    assert memory_of(root).endswith("## 2026-11-02\n\n- after the code\n- the newest")


def test_a_day_of_one_entry_past_the_read_cap_keeps_that_entry_cut_and_says_so(make_project):
    root = make_project({"agent-configs/MEMORY.md": ""}, manifest=manifest(per_file=300))
    (root / "agent-configs/memory").mkdir()
    (root / "agent-configs/memory/2026-11-10.md").write_text("- " + "z" * 2_000_000 + " END\n")
    (root / "agent-configs/memory/2026-11-09.md").write_text("- older\n")
    report = build_json(root)
    memory = memory_of(root)
    assert "## 2026-11-10\n\nzzz" in memory and memory.endswith(TRUNCATION_MARKER)
    cuts = {(c["files"][0].rsplit("/", 1)[1], c["limit"]): c for c in cuts_of(report)}
    assert cuts["2026-11-10.md", "read"]["after"] == 1 << 20  # bytes read, not a count after it
    assert cuts["2026-11-10.md", "per_file"]["style"] == "marker"
    assert cuts["2026-11-09.md", "per_file"]["style"] == "dropped"


def test_a_day_read_from_inside_a_code_block_reports_what_it_skipped(make_project):
    code = "".join(f"    code line {n}\n" for n in range(80_000))
    text = f"- a long log:\n\n```\n{code}```\n- the newest\n"
    root = make_project({"agent-configs/MEMORY.md": "Curated."}, manifest=manifest())
    (root / "agent-configs/memory").mkdir()
    (root / "agent-configs/memory/2026-11-02.md").write_text(text, encoding="utf-8")
    report = build_json(root)
    assert memory_of(root).endswith("## 2026-11-02\n\n- the newest")
    (read,) = [c for c in cuts_of(report) if c["limit"] == "read"]
    assert read["before"] == len(text) and read["after"] == len("- the newest\n")


def test_a_day_whose_every_entry_repeats_a_newer_day_is_reported(make_project, hotplex):
    files = {
        "agent-configs/memory/2026-11-02.md": "- same\r\n- also\n",
        "agent-configs/memory/2026-11-01.md": "## Morning\n\n- same\n\n- also\n",
    }
    root = make_project(files, manifest=manifest())
    result = hotplex("-C", str(root), "build", "--json")
    assert "2026-11-01" not in memory_of(root)
    (cut,) = [c for c in cuts_of(json.loads(result.stdout)) if c["style"] == "repeat"]
    assert cut["files"] == ["agent-configs/memory/2026-11-01.md"] and cut["after"] == 0
    result = hotplex("-C", str(make_project(files, manifest=manifest(), name="again")), "build")
    assert "2026-11-01.md: left out; every entry of it repeats a newer day" in result.stderr


def test_a_day_that_is_no_file_is_reported_and_a_linked_day_counts_its_target_as_read(
    make_project, hotplex
):
    files = dict([day(1, "old"), day(2, "x" * 300), ("agent-configs/memory/notes.txt", "- t\n")])
    root = make_project(files, manifest=manifest(per_file=200))
    logs = root / "agent-configs/memory"
    os.mkfifo(logs / "2026-11-09.md")
    (logs / "2026-11-08.md").mkdir()
    (logs / "2026-11-07.md").symlink_to("nowhere")
    (logs / "2026-10-01.md").symlink_to("notes.txt")  # too old to be read, yet a day
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    for n, what in ((9, "a FIFO (named pipe)"), (8, "a directory"), (7, "a symlink to nothing")):
        assert (
            f"warning: agent-configs/memory/2026-11-0{n}.md: named like a day of memory.logs"
            f" 'memory/*.md' but is {what}, not a regular file: not read"
        ) in result.stderr.splitlines()
    assert "notes.txt" not in result.stderr


def test_a_logs_glob_matching_a_variant_of_a_source_is_an_error(make_project, hotplex):
    text = (
        manifest().replace('"memory/*.md"', '"SOUL.*.md"') + '[variants]\nplatforms = ["slack"]\n'
    )
    root = make_project({"agent-configs/SOUL.slack.md": "Slack soul."}, manifest=text)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "'SOUL.*.md' matches the file of source 'soul' (SOUL.slack.md)" in result.stderr


def test_unreached_days_blame_case_only_when_case_is_the_reason(make_project, hotplex):
    files = {
        "agent-configs/memory/2026-11-01.MD": "- upper case",
        "agent-configs/memory/sub/2026-11-03.md": "- deeper",
    }
    root = make_project(files, manifest=manifest().replace('"memory/*.md"', '"memory/./*.md"'))
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    lines = result.stderr.splitlines()
    assert any("2026-11-01.MD" in line and "(case counts)" in line for line in lines)
    assert any(
        "sub/2026-11-03.md" in line and "reads only 'memory/' itself" in line for line in lines
    )


def test_a_file_that_is_no_day_in_the_logs_folder_rebuilds_nothing(make_project, hotplex):
    root = make_project(dict([day(1, "one")]), manifest=manifest())
    assert hotplex("-C", str(root), "build").status == 0
    (root / "agent-configs/memory/notes.md").write_text("- not a day\n", encoding="utf-8")
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert "0 rebuilt" in result.stderr + result.stdout
    assert "notes.md matches memory.logs 'memory/*.md' but is not a day" in result.stderr
    day_two = root / "agent-configs/memory/2026-11-02.md"
    day_two.write_text("- two\n", encoding="utf-8")
    again = hotplex("-C", str(root), "build")
    assert "1 rebuilt" in again.stdout + again.stderr  # a new day is an input


BAD_DAY_NAMES = [
    pytest.param("2026-11-17-x\n\n- INJECTED\n\n## 2099-01-01.md", "U+000A", id="line-break"),
    pytest.param("2026-11-10-\x1b[8mhidden.md", "U+001B", id="escape"),
    pytest.param("2026-11-10-a\u2028b.md", "U+2028", id="line-separator"),
    pytest.param("2026-11-10-a\udcffb.md", "U+DCFF", id="not-utf8"),  # the byte 0xFF
]


@pytest.mark.parametrize(("name", "shown"), BAD_DAY_NAMES)
def test_a_day_name_that_is_not_one_line_is_refused_with_its_file(make_project, name, shown):
    root = make_project(
        {"agent-configs/MEMORY.md": "curated\n", f"agent-configs/memory/{name}": "- real\n"},
        manifest=manifest(),
    )
    result = run_hotplex("build", cwd=root)
    assert result.status == 2, result.stderr
    assert shown in result.stderr and "heading" in result.stderr
    assert "\x1b" not in result.stderr and "INJECTED\n" not in result.stderr
    assert not (root / "dist").exists()
    stats = run_hotplex("stats", cwd=root)
    assert stats.status == 2 and shown in stats.stderr


@pytest.mark.parametrize(
    ("suffix", "rule"),
    [
        pytest.param("\u202eevil", "bidi-control", id="rlo"),
        pytest.param("a\u200bb", "invisible-character", id="zwsp"),
        pytest.param("x" + "".join(chr(0xE0000 + ord(c)) for c in "ignore"), "spell", id="tags"),
        pytest.param("AKIAABCDEFGHIJKLMNOP", "aws-access-key-id", id="aws-key"),
    ],
)
def test_a_day_name_is_scanned_like_its_text(make_project, suffix, rule):
    name = f"2026-11-10-{suffix}.md"
    root = make_project(
        {"agent-configs/MEMORY.md": "curated\n", f"agent-configs/memory/{name}": "- e\n"},
        manifest=manifest(),
    )
    result = run_hotplex("build", cwd=root)
    assert result.status == 1, result.stderr
    assert rule in result.stderr
    assert "2026-11-10-" in result.stderr  # the place: the day's file
    assert not (root / "dist").exists()


def test_a_secret_in_a_day_name_is_redacted_in_its_place_too(make_project):
    key = "AKIA" + "Z3MHQK4TPL2XWR7N"
    name = f"2026-11-10-{key}.md"
    root = make_project(
        {"agent-configs/MEMORY.md": "curated\n", f"agent-configs/memory/{name}": "- e\n"},
        manifest=manifest(),
    )
    result = run_hotplex("build", cwd=root)
    assert result.status == 1, result.stderr
    assert (
        "aws-access-key-id" in result.stderr and "agent-configs/memory/2026-11-10-" in result.stderr
    )
    assert key not in result.stdout + result.stderr


def test_an_overlay_day_key_is_checked_like_a_day_file(make_project):
    root = make_project({"agent-configs/MEMORY.md": "curated\n"}, manifest=manifest())
    project = Project(root)
    with pytest.raises(HotplexError, match="heading"):
        project.compile("cc", overlay={"memory/2026-11-18-y\n\n- OVERLAY\n\n## 2099.md": "- ov"})
    with pytest.raises(HotplexError, match="U\\+200B"):
        project.compile("cc", overlay={"memory/2026-11-20-\u200b.md": "- ov"})
    allowed = Project(root).compile("cc", overlay={"memory/2026-11-20-standup.md": "- ov"})
    assert "## 2026-11-20-standup" in allowed.text


def test_stats_names_the_day_dropped_for_room_not_a_repeat(make_project, hotplex):
    """Seven days repeating the newest are left out as repeats; the newest, too long for what is
    left, is the one dropped for room, and stats names it."""
    files = {
        "agent-configs/SOUL.md": "s" * 2000,
        "agent-configs/AGENTS.md": "a" * 3000,
        "agent-configs/MEMORY.md": "m" * 10,
        **dict(day(n, "the same entry " + "x" * 270) for n in range(1, 9)),
    }
    fair = '[limits]\ntotal = 777\nshare = "fair"\n[metacognition]\nenabled = false\n'
    tail = '[memory]\nlogs = "memory/*.md"\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    root = make_project(files, manifest=fair + tail)
    memory = next(
        line
        for line in hotplex("-C", str(root), "stats").stdout.splitlines()
        if line.split()[:2] == ["cc/default", "memory"]
    )
    assert re.search(r"2026-11-08\.md share: \d+→0 \(dropped\); 7 days left out as repeats", memory)
    assert "older day" not in memory
    # What the memory section cannot use (its next day is longer) goes to the others, evenly.
    report = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"][0]
    sizes = {section["name"]: section["size"] for section in report["sections"]}
    assert sum(sizes.values()) == 777 and abs(sizes["soul"] - sizes["rules"]) <= 1, sizes


def test_stats_counts_repeats_without_a_day_dropped_for_room(make_project, hotplex):
    files = dict(day(n, "the same entry") for n in range(1, 4))
    root = make_project(files, manifest=manifest())
    memory = next(
        line
        for line in hotplex("-C", str(root), "stats").stdout.splitlines()
        if line.split()[:2] == ["cc/default", "memory"]
    )
    assert "2 days left out as repeats" in memory and "dropped" not in memory
