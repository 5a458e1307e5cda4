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
from hotplex.build import touched as touched_path
from hotplex.build.closing import load_closing
from hotplex.build.reports import indexed
from hotplex.build.touched import COMPACT_AT
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


def closing(root: Path) -> tuple[list, list, dict]:
    """The reports, the index of their readers and the snapshot the log's closing holds (a
    delta closing merged into the full one it follows), without what differs between two
    folders (mtimes, inodes, ctimes, hotplex's own files, where the records are in the log and the
    length of the live records)."""
    last = load_closing(root)
    assert last is not None
    line = indexed(last)
    assert line is not None
    reports, readers, snap = last.job_reports(), line.readers, dict(last.snapshot)
    for report in reports:
        report["outputs"] = {p: [s[1], s[4]] for p, s in report["outputs"].items()}
    snap["files"] = {p: rec and [rec[1], rec[4]] for p, rec in snap["files"].items()}
    snap["outputs"] = {t: {p: s[1] for p, s in o.items()} for t, o in snap["outputs"].items()}
    for table in ("dirs", "sources"):
        snap[table] = sorted(p for p, rec in snap[table].items() if rec is not None)
    for key in ("package", "live", "fingerprint"):
        snap.pop(key)
    return reports, readers, snap


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
    log = Path(state_log.log_path(touched))
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
    Path(state_log.log_path(slow)).unlink()  # the slow path, from nothing
    expected = hotplex("-C", str(slow), "build")
    assert (failed.status, failed.stderr) == (expected.status, expected.stderr)
    again = hotplex("-C", str(touched), "build")  # nothing was recorded as current
    assert (again.status, again.stderr) == (expected.status, expected.stderr)


@pytest.mark.parametrize(
    ("key", "value", "rebuilt"),
    [
        ("written", '"x"', 2),
        ("records", '{"0":"x"}', 2),
        ("reports", '{"9":{}}', 2),
        ("base", "[5,6,7]", 2),
        # A stamp that is none: the log is corrupt, so every set is rebuilt, with a warning.
        ("snapshot", '{"files":{"agent-configs/AGENTS.md":"x"}}', 6),
    ],
)
def test_a_hand_edited_delta_closing_takes_the_slow_path(twins, hotplex, key, value, rebuilt):
    """A delta closing of unexpected shape is not trusted: the slow path decides, and the
    build ends as a slow build does, without an internal error."""
    touched, slow = twins
    edit(twins, "agent-configs/SOUL.slack.md", "One.\n")
    assert built_sets(build(touched)[0]) == SLACK
    path = Path(state_log.log_path(touched))
    *lines, last = path.read_text(encoding="utf-8").splitlines(keepends=True)
    delta = json.loads(last)
    assert key in delta["delta"]
    delta["delta"][key] = json.loads(value)
    path.write_text("".join(lines) + json.dumps(delta) + "\n", encoding="utf-8")
    edit(twins, "agent-configs/SOUL.slack.md", "Two.\n")
    result = hotplex("-C", str(touched), "build")
    assert result.status == 0 and "internal error" not in result.stderr, result.stderr
    assert f"{rebuilt} rebuilt, {6 - rebuilt} up to date" in result.stdout
    same_as_slow(touched, slow, hotplex)


# A build of the touched path that compacts the log whatever its length.
_COMPACTING = """
import sys
from hotplex.build import log, touched
from hotplex.cli import main
log.COMPACT_SLACK, touched.COMPACT_AT = 0, 0
sys.exit(main(['-C', sys.argv[1], 'build']))
"""


@pytest.mark.parametrize("compacting", [False, True], ids=["delta", "compacting"])
def test_a_touched_build_killed_at_any_step_leaves_whole_artifacts(
    make_project, hotplex, compacting
):
    """SIGKILL at each write step (``fs.crash_point``), closing with a delta closing or
    compacting the log: every artifact is its old or its new version, the log stays readable,
    and the next build finishes the job."""
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
        inode = Path(state_log.log_path(root)).stat().st_ino
        env = {**os.environ, "HOTPLEX_CRASH_AT": str(point)}
        command = [sys.executable, "-c", _COMPACTING, str(root)]
        if compacting:
            status = subprocess.run(command, env=env, capture_output=True).returncode
        else:
            status = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)}).status
        if status == 0:
            assert compacting == (Path(state_log.log_path(root)).stat().st_ino != inode)
            break  # fewer steps than this: every gap was covered
        assert status == -9
        now = {p: data for p, data in artifacts(root).items() if not p.endswith(".tmp")}
        assert all(now[p] in (old[p], expected[p]) for p in now) and now.keys() == old.keys()
        assert state_log.load(root).warning is None
        assert hotplex("-C", str(root), "build").status == 0
        assert artifacts(root) == expected  # a killed write's temp file deleted too
        assert closing(root) == closing(slow)
    assert expected is not None and point > 3 + compacting


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


def touched_edits(twins: list[Path], count: int, rel: str, reached: set[str]) -> list[str]:
    """``count`` edits of ``rel`` in a row, each built in-process on the touched path: how
    each closed (a delta closing, a full one appended, or the log compacted)."""
    path = Path(state_log.log_path(twins[0]))
    closings = []
    for n in range(count):
        edit(twins, f"agent-configs/{rel}", f"Edit {n}.\n")
        inode = path.stat().st_ino
        summary = up_to_date(Request(twins[0]))
        assert summary is not None and {j.id for j in summary.jobs} == reached
        last = path.read_bytes().rsplit(b"\n", 2)[-2]
        kind = "delta" if last.startswith(b'{"delta":') else "full"
        closings.append("compacted" if path.stat().st_ino != inode else kind)
    return closings


def test_edits_in_a_row_compact_the_log_on_the_touched_path(twins, hotplex, monkeypatch):
    """Each touched build appends its records and a delta closing, and compacts the log
    itself once it is ``COMPACT_AT`` times as long as compacted: no edit takes the slow path,
    the log stays bounded, and what it holds is what the slow path leaves. In-process, with no
    slack, so that a few edits reach the bound. How many depends on the full closing's size,
    which stamps hotplex's own files by their installed paths (longer in a site-packages): the
    edits go on until the log compacts, and two more after it."""
    monkeypatch.setattr(state_log, "COMPACT_SLACK", 0)
    touched, slow = twins
    path = Path(state_log.log_path(touched))
    compacted, sizes, closings = path.stat().st_size, [], []
    while "compacted" not in closings[:-2] and len(closings) < 60:
        closings += touched_edits(twins, 1, "SOUL.slack.md", SLACK)
        sizes.append(path.stat().st_size)
    assert closings[0] == "delta" and "compacted" in closings, closings
    assert max(sizes) <= (COMPACT_AT + 1) * compacted
    state = state_log.load(touched)
    assert state.warning is None and set(state.jobs) == ALL
    same_as_slow(touched, slow, hotplex)
    outcome = run(Request(touched), fast=False)  # every record the log kept is current
    assert len(outcome.jobs) == len(ALL) and not any(j.rebuilt for j in outcome.jobs)


def test_a_full_closing_follows_deltas_that_cost_as_much(twins, hotplex, monkeypatch):
    """Delta closings hold every report rebuilt since the last full closing: once the deltas
    written since it are as long as it, the touched path appends a full closing again."""
    monkeypatch.setattr(touched_path, "COMPACT_AT", 1000)
    closings = touched_edits(twins, 12, "AGENTS.md", ALL)
    first = closings.index("full")
    assert first > 0 and set(closings[:first]) == {"delta"}, closings
    assert closings[first + 1] == "delta"
    same_as_slow(*twins, hotplex)
