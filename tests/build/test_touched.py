"""The touched path (``build/touched.py``): after a few inputs were edited and nothing else
moved, a build finds the jobs they reach in the reports line's index and builds those alone,
without loading the log's records or the slow path. What it leaves (artifacts, the closing
lines) must be what the slow path would have left, which a twin project built with ``--json``
(always the slow path) shows; whatever else moved takes the slow path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hotplex.build import Request, run, up_to_date
from hotplex.build import log as state_log
from hotplex.build.touched import APPEND_RATIO
from hotplex_testing import FAKE_SECRETS, settle

SOURCES = {
    "agent-configs/SOUL.md": "I am the base persona.\n",
    "agent-configs/SOUL.slack.md": 'Slack persona.\n{% include "shared/slack-rules.md" %}\n',
    "agent-configs/AGENTS.md": "Follow the rules.\n",
    "agent-configs/USER.md": "The user.\n",
    "agent-configs/shared/slack-rules.md": "Never ping @channel.\n",
    "agent-configs/shared/common.md": "Be kind.\n",
}
SLACK = {"cc/slack", "ocs/slack"}
ALL = {f"{target}/{job}" for target in ("cc", "ocs") for job in ("default", "slack", "feishu")}

# Runs the command in-process and says which of hotplex's build modules it imported.
_PROBE = """
import json, sys
from hotplex.cli import main
status = main(['-C', sys.argv[1], 'build', *sys.argv[2:]])
print(json.dumps([status, [m for m in sys.modules if m.startswith('hotplex.build')]]))
"""


def build(root: Path, *args: str) -> tuple[list[str], set[str]]:
    """A plain build (the path a user's takes): its output lines and the build modules it
    imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.splitlines()
    status, modules = json.loads(last)
    assert status == 0
    return output, set(modules)


def built_sets(output: list[str]) -> set[str]:
    return {line.split()[1].rstrip(":") for line in output if line.startswith("  built ")}


def closing(root: Path) -> tuple[dict, dict]:
    """The reports line and the snapshot, without what differs between two folders (mtimes,
    inodes, hotplex's own files and the approximate length of the live records)."""
    *_, reports, snap = state_log.log_path(root).read_text(encoding="utf-8").splitlines()
    reports, snap = json.loads(reports), json.loads(snap)["snapshot"]
    for report in reports["reports"]:
        report["outputs"] = {p: [s[1], s[3]] for p, s in report["outputs"].items()}
    snap["files"] = {p: rec and [rec[1], rec[3]] for p, rec in snap["files"].items()}
    snap["outputs"] = {t: {p: s[1] for p, s in o.items()} for t, o in snap["outputs"].items()}
    for table in ("dirs", "sources"):
        snap[table] = sorted(p for p, rec in snap[table].items() if rec is not None)
    for key in ("package", "live", "fingerprint"):
        snap.pop(key)
    return reports, snap


def artifacts(root: Path) -> dict[str, bytes]:
    dist = root / "dist"
    return {p.relative_to(dist).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}


@pytest.fixture
def twins(make_project, hotplex):
    """Two copies of one project, each built twice (the second time: no stamp racy)."""
    pair = [make_project(SOURCES, name=name) for name in ("touched", "slow")]
    for root in pair:
        settle(root)
        for _ in range(2):
            assert hotplex("-C", str(root), "build").status == 0
    return pair


def edit(roots: list[Path], rel: str, text: str) -> None:
    for root in roots:
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
        past = time.time_ns() - 10 * 10**9  # not racy, and not the stamp it had
        os.utime(path, ns=(past, past))


def settled_slowly(touched: Path, slow: Path, hotplex, sets: set[str]) -> None:
    """The build leaves the touched path for the slow one, builds ``sets`` and ends as a slow
    build from the same state does."""
    output, modules = build(touched)
    assert built_sets(output) == sets
    assert "hotplex.build.engine" in modules
    same_as_slow(touched, slow, hotplex)


def same_as_slow(touched: Path, slow: Path, hotplex) -> None:
    assert hotplex("-C", str(slow), "build", "--json").status == 0
    assert artifacts(touched) == artifacts(slow)
    assert closing(touched) == closing(slow)
    output, modules = build(touched)
    assert output[-1].startswith("hotplex: 0 rebuilt, 6 up to date")
    assert "hotplex.build.touched" not in modules  # the no-op path: the closing holds
    assert hotplex("-C", str(touched), "check").status == 0


@pytest.mark.parametrize(
    ("rel", "reached"),
    [
        ("agent-configs/SOUL.slack.md", SLACK),
        ("agent-configs/shared/slack-rules.md", SLACK),  # an include is an input too
        ("agent-configs/AGENTS.md", ALL),
    ],
)
def test_an_edited_input_rebuilds_exactly_the_sets_that_read_it(twins, hotplex, rel, reached):
    touched, slow = twins
    edit(twins, rel, "One more line.\n")
    output, modules = build(touched, "--explain")
    assert built_sets(output) == reached
    assert f"      because {rel} changed" in output
    assert output[-1].startswith(f"hotplex: {len(reached)} rebuilt, {6 - len(reached)} up to")
    assert "hotplex.build.touched" in modules and "hotplex.build.engine" not in modules
    same_as_slow(touched, slow, hotplex)


@pytest.mark.parametrize("folders", [0, 200])
def test_edits_in_a_row_each_take_the_touched_path(twins, hotplex, folders):
    """However long the closing lines are beside the job records (hotplex's own files are
    stamped in the snapshot by their paths, longer in a virtual environment's site-packages
    than in a clone; each folder of the sources folder is stamped too), three edits in a row
    take the touched path."""
    touched, slow = twins
    for root in twins if folders else ():
        for n in range(folders):
            (root / "agent-configs/notes" / f"{n:03}-{'long-name-' * 6}").mkdir(parents=True)
        settle(root)
        for _ in range(2):
            assert hotplex("-C", str(root), "build").status == 0
    for n in range(3):
        edit(twins, "agent-configs/SOUL.slack.md", f"Edit {n}.\n")
        output, modules = build(touched)
        assert built_sets(output) == SLACK
        assert "hotplex.build.engine" not in modules
    same_as_slow(touched, slow, hotplex)


def test_a_touched_file_rebuilds_nothing_and_is_stamped_again(twins, hotplex):
    touched, slow = twins
    os.utime(touched / "agent-configs/SOUL.md", ns=(time.time_ns() - 10**10,) * 2)
    output, modules = build(touched)
    assert output[-1].startswith("hotplex: 0 rebuilt, 6 up to date")
    assert "hotplex.build.touched" in modules and "hotplex.build.engine" not in modules
    same_as_slow(touched, slow, hotplex)


def test_a_new_include_is_settled_by_the_slow_path(twins, hotplex):
    """An edit that makes a job read another file changes the snapshot's inputs and the
    unused-file report: the slow path redoes them, and finds the rebuilt sets current."""
    touched, slow = twins
    edit(twins, "agent-configs/SOUL.md", '{% include "shared/common.md" %}\n')
    settled_slowly(touched, slow, hotplex, ALL)


def test_a_moved_manifest_takes_the_slow_path(twins, hotplex):
    touched, slow = twins
    edit(twins, "agent-configs/SOUL.slack.md", "More.\n")
    edit(twins, "hotplex.toml", "# a comment\n")
    settled_slowly(touched, slow, hotplex, SLACK)


def test_hotplex_itself_moving_takes_the_slow_path(twins, hotplex):
    """One of hotplex's own files with another stamp than the snapshot's (as after an upgrade)."""
    touched, slow = twins
    log = state_log.log_path(touched)
    *lines, last = log.read_text(encoding="utf-8").splitlines(keepends=True)
    snap = json.loads(last)
    package = snap["snapshot"]["package"]
    first = next(iter(package))
    package[first] = [1, 1, 1, None]
    log.write_text("".join(lines) + json.dumps(snap) + "\n", encoding="utf-8")
    edit(twins, "agent-configs/SOUL.slack.md", "More.\n")
    settled_slowly(touched, slow, hotplex, SLACK)


def test_a_failing_set_fails_as_in_the_slow_path(twins, hotplex):
    touched, slow = twins
    edit(twins, "agent-configs/SOUL.slack.md", f"key: {FAKE_SECRETS['github-token']}\n")
    failed = hotplex("-C", str(touched), "build")
    assert failed.status != 0
    assert "hotplex.build" not in failed.stdout
    state_log.log_path(slow).unlink()  # the slow path, from nothing
    expected = hotplex("-C", str(slow), "build")
    assert (failed.status, failed.stderr) == (expected.status, expected.stderr)
    again = hotplex("-C", str(touched), "build")  # nothing was recorded as current
    assert (again.status, again.stderr) == (expected.status, expected.stderr)


def test_a_touched_build_killed_at_any_step_leaves_whole_artifacts(make_project, hotplex):
    """SIGKILL at each write step (``fs.crash_point``): every artifact is its old or its new
    version, the log stays readable, and the next build finishes the job."""
    expected = None
    for point in range(1, 20):
        root, slow = (make_project(SOURCES, name=f"{kind}-{point}") for kind in ("a", "b"))
        for each in (root, slow):
            settle(each)
            for _ in range(2):
                assert hotplex("-C", str(each), "build").status == 0
        old = artifacts(root)
        edit([root, slow], "agent-configs/SOUL.slack.md", "Killed.\n")
        assert hotplex("-C", str(slow), "build", "--json").status == 0
        expected = artifacts(slow)
        crashed = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)})
        if crashed.status == 0:
            break  # fewer steps than this: every gap was covered
        assert crashed.status == -9, crashed.stderr
        now = {p: data for p, data in artifacts(root).items() if not p.endswith(".tmp")}
        assert all(now[p] in (old[p], expected[p]) for p in now) and now.keys() == old.keys()
        assert state_log.load(root).warning is None
        assert hotplex("-C", str(root), "build").status == 0
        assert artifacts(root) == expected  # a killed write's temp file deleted too
        assert closing(root) == closing(slow)
    assert expected is not None and point > 3


def test_a_cut_the_touched_path_changes_is_what_a_no_op_build_repeats(make_project, hotplex):
    """The snapshot keeps the lines a no-op build repeats: the touched path writes them anew for
    the sets it rebuilt."""
    manifest = '[limits]\nper_file = 1000\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    root = make_project({"agent-configs/SOUL.md": "s" * 1500}, manifest=manifest)
    settle(root)
    for _ in range(2):
        assert hotplex("-C", str(root), "build").status == 0
    (root / "agent-configs/SOUL.md").write_text("t" * 2500, encoding="utf-8")
    past = time.time_ns() - 10 * 10**9
    os.utime(root / "agent-configs/SOUL.md", ns=(past, past))
    done = subprocess.run([sys.executable, "-c", _PROBE, str(root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "hotplex.build.touched" in done.stdout and "hotplex.build.engine" not in done.stdout
    assert "agent-configs/SOUL.md: truncated 2500 → 1000 chars" in done.stderr
    again = hotplex("-C", str(root), "build")
    assert again.stdout.startswith("hotplex: 0 rebuilt, 1 up to date")
    assert again.stderr == done.stderr


def test_the_slow_path_compacts_the_log_once_it_is_a_few_times_as_long(make_project, monkeypatch):
    """Each touched build appends its records and a closing: edits in a row take the touched
    path until the log is ``APPEND_RATIO`` times as long as compacted, then the slow path
    compacts it. In-process, with no slack, so that a few edits reach the bound."""
    monkeypatch.setattr(state_log, "COMPACT_SLACK", 0)
    root = make_project(SOURCES)
    settle(root)
    for _ in range(2):
        run(Request(root))
    path = state_log.log_path(root)
    compacted = path.stat().st_size
    paths, sizes = [], []
    for n in range(8):
        edit([root], "agent-configs/SOUL.slack.md", f"Edit {n}.\n")
        touched = up_to_date(Request(root)) is not None
        if not touched:
            run(Request(root), fast=False)
        paths.append("touched" if touched else "slow")
        sizes.append(path.stat().st_size)
    first = paths.index("slow")
    assert first >= APPEND_RATIO - 1, paths
    assert sizes[first] < sizes[first - 1]  # compacted
    assert max(sizes) < (APPEND_RATIO + 1) * compacted
