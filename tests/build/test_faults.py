"""Builds that die or fail: SIGKILL at every step, concurrent builds, a full disk, read-only output.

The promise under test: every artifact on disk is always a whole version (the old one or the new
one), the log stays loadable, and the next build repairs the rest. Kill points come from the
fault-injection hook ``HOTPLEX_CRASH_AT=N`` (see ``hotplex.writes.crash_point``): the build SIGKILLs
itself at its N-th write step, so every gap between two steps is hit without timing luck. A
slower variant kills a large build from outside after a random delay.

Disk-full and read-only cases use a real tmpfs when this process may mount one (root, as in CI),
and otherwise an in-process ENOSPC or file modes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hotplex.build import Request, run
from hotplex.build import log as state_log
from hotplex.errors import BuildFailed
from hotplex_testing import HOTPLEX, REPO

KILLED = -signal.SIGKILL


# --- helpers ----------------------------------------------------------------------------------


def artifacts(root: Path) -> dict[str, bytes]:
    """Every file under dist/ (temp files included: the assertions decide what may be there)."""
    dist = root / "dist"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}


def temp_files(root: Path) -> list[str]:
    return [p for p in artifacts(root) if p.rsplit("/", 1)[-1].startswith(".")]


def edit_all(root: Path) -> None:
    soul = root / "agent-configs/SOUL.md"
    soul.write_text(soul.read_text(encoding="utf-8") + "A line every artifact gets.\n", "utf-8")


def drop_feishu(root: Path) -> None:
    manifest = root / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(', "feishu"', ""), encoding="utf-8")
    for variant in root.glob("*/*.feishu.md"):  # read by no artifact now: a build would warn
        variant.unlink()


def expected_after(root: Path, change, tmp_path: Path, hotplex) -> dict[str, bytes]:
    """The artifacts a complete build produces after ``change``, built in a scratch copy."""
    scratch = tmp_path / "reference"
    shutil.copytree(root, scratch)
    change(scratch)
    assert hotplex("-C", str(scratch), "build").status == 0
    return artifacts(scratch)


def assert_whole_versions(now: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes]):
    """Each artifact on disk is byte-for-byte its old or its new version; none vanished early."""
    for path, data in now.items():
        if path.rsplit("/", 1)[-1].startswith("."):
            continue  # a temp file is not an artifact; the next build removes it
        assert data in (old.get(path), new.get(path)), f"{path} is neither old nor new"
    for path in old.keys() & new.keys():
        assert path in now, f"{path} vanished"


def assert_repaired(root: Path, new: dict[str, bytes], hotplex) -> None:
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert "warning" not in result.stderr
    assert artifacts(root) == new  # also: no temp file, no orphan left
    assert hotplex("-C", str(root), "check").status == 0
    assert "0 rebuilt" in hotplex("-C", str(root), "build").stdout


@pytest.fixture
def built(example_copy, hotplex) -> Path:
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    return root


def crash_loop(built: Path, tmp_path: Path, hotplex, change, points) -> int:
    """Kill a build after ``change`` at each of ``points``; returns how many builds died."""
    pristine = tmp_path / "pristine"
    shutil.copytree(built, pristine)
    old = artifacts(built)
    new = expected_after(built, change, tmp_path, hotplex)
    assert new != old
    killed = 0
    for point in points:
        root = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, root, symlinks=True)
        change(root)
        result = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)})
        if result.status == 0:
            break  # the build has fewer steps than this: every gap was covered
        assert result.status == KILLED, result.stderr
        killed += 1
        assert_whole_versions(artifacts(root), old, new)
        assert state_log.load(root).warning is None
        assert_repaired(root, new, hotplex)
        shutil.rmtree(root)
    return killed


# --- SIGKILL ----------------------------------------------------------------------------------


def test_a_build_killed_at_a_few_steps_leaves_whole_artifacts(built, tmp_path, hotplex):
    assert crash_loop(built, tmp_path, hotplex, edit_all, [1, 2, 3, 8]) == 4


def test_a_build_killed_while_deleting_orphans_is_repaired(built, tmp_path, hotplex):
    def change(root: Path) -> None:
        drop_feishu(root)
        edit_all(root)

    # Four jobs rewrite one file each (a temp file renamed, a log line: 3 steps each), then
    # come three deletions and the forget lines.
    assert crash_loop(built, tmp_path, hotplex, change, [13, 14, 16]) == 3


def test_ctrl_c_during_a_build_says_which_sets_it_rebuilt_and_that_the_next_build_finishes(
    built, tmp_path, hotplex
):
    old = artifacts(built)
    new = expected_after(built, edit_all, tmp_path, hotplex)
    edit_all(built)
    # Ctrl-C at the 7th write step: two sets written and recorded (3 steps each), the third's
    # temp file about to be renamed: the build finishes that set, records it and stops.
    crash = {"HOTPLEX_CRASH_AT": "7", "HOTPLEX_CRASH_SIGNAL": "INT"}
    result = hotplex("-C", str(built), "build", env=crash)
    assert result.status == 130
    finished = [line.split()[1].rstrip(":") for line in result.stdout.splitlines()]
    assert finished == ["cc/default", "cc/slack", "cc/feishu"]
    assert result.stderr == (
        "hotplex: interrupted: 3 artifact set(s) rebuilt, 3 of 6 not reached; every file is"
        f" whole (old or new); run hotplex -C {built} build to finish the job\n"
    )
    crash["HOTPLEX_CRASH_AT"] = "4"  # in ocs/slack, the second of the three left
    as_json = hotplex("-C", str(built), "build", "--json", env=crash)
    assert as_json.status == 130
    said = "interrupted: 2 artifact set(s) rebuilt, 1 of 6 not reached"
    assert said in as_json.stderr
    document = json.loads(as_json.stdout)  # still the build's document, of the sets reached
    assert [e["message"] for e in document["errors"]] == [as_json.stderr[9:-1]]
    rebuilt = {a["path"].rpartition("/")[0] for a in document["artifacts"] if a["rebuilt"]}
    assert rebuilt == {"dist/ocs/default", "dist/ocs/slack"}
    assert len({a["path"].rpartition("/")[0] for a in document["artifacts"]}) == 5
    now = artifacts(built)
    assert_whole_versions(now, old, new)
    assert len([p for p in now if now[p] != old[p]]) == 5
    rebuilt = hotplex("-C", str(built), "build")
    assert "1 rebuilt, 5 up to date" in rebuilt.stdout
    assert artifacts(built) == new


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [False, True], ids=["lines", "json"])
def test_ctrl_c_in_a_parallel_build_reports_and_logs_every_set_written(tmp_path, as_json):
    """Ctrl-C reaches the build's whole process group: the pool's processes finish the sets
    they started, the build records them and stops; the closing line, the --json document,
    the log and the disk agree."""
    root = tmp_path / "fleet"
    maker = REPO / "benchmarks/make_fake_project.py"
    subprocess.run([sys.executable, str(maker), str(root), "--artifacts", "600"], check=True)
    command = [str(HOTPLEX), "-C", str(root), "build", "-j2", *(["--json"] * as_json)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        start_new_session=True,
    )
    dist = root / "dist"
    while not (dist.is_dir() and any(dist.iterdir())):  # the first set written
        assert process.poll() is None, process.communicate()
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    on_disk = {p.parent.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file()}
    assert not temp_files(root)
    logged = set(state_log.load(root).jobs)
    count = int(err.split("interrupted: ")[1].split()[0])
    assert 0 < count < 600 and count == len(logged), err
    assert on_disk == logged
    if as_json:
        document = json.loads(out)
        reported = {
            a["path"].split("/")[1] + "/" + a["path"].split("/")[2] for a in document["artifacts"]
        }
        assert reported == logged
        assert document["errors"][0]["message"].startswith(f"interrupted: {count} artifact set")
    else:
        built = {line.split()[1].rstrip(":") for line in out.splitlines() if "built" in line}
        assert built == logged


@pytest.mark.slow
@pytest.mark.parametrize("change", [edit_all, drop_feishu], ids=["edit", "drop-platform"])
def test_a_build_killed_at_every_step_leaves_whole_artifacts(built, tmp_path, hotplex, change):
    assert crash_loop(built, tmp_path, hotplex, change, range(1, 200)) >= 4


@pytest.mark.slow
def test_a_large_build_killed_after_random_delays(tmp_path, hotplex):
    root = tmp_path / "fleet"
    maker = REPO / "benchmarks/make_fake_project.py"
    subprocess.run([sys.executable, str(maker), str(root), "--artifacts", "200"], check=True)
    assert hotplex("-C", str(root), "build").status == 0
    old = artifacts(root)
    new = expected_after(root, edit_all, tmp_path, hotplex)
    rng = random.Random(4)
    edit_all(root)
    for _ in range(8):
        process = subprocess.Popen([str(HOTPLEX), "-C", str(root), "build"], env=_env())
        time.sleep(rng.uniform(0.05, 1.0))
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert _no_build_left(root), "a pool process outlived the killed build (-j)"
        assert_whole_versions(artifacts(root), old, new)
        assert state_log.load(root).warning is None
    assert_repaired(root, new, hotplex)


def _no_build_left(root: Path, seconds: float = 5.0) -> bool:
    """No process still runs a build of ``root`` (a worker forked by a killed build)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = []
        for proc in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
                if str(root).encode() in cmdline and b"build" in cmdline:
                    alive.append(proc.name)
        if not alive:
            return True
        time.sleep(0.05)
    return False


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", **extra}


# --- concurrency ------------------------------------------------------------------------------


def test_concurrent_builds_never_interleave(built, tmp_path, hotplex):
    new = expected_after(built, edit_all, tmp_path, hotplex)
    edit_all(built)
    command = [str(HOTPLEX), "-C", str(built), "build", "--json"]
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=_env()) for _ in range(3)
    ]
    reports = [json.loads(p.communicate(timeout=60)[0]) for p in processes]
    assert all(p.returncode == 0 for p in processes)
    rebuilt = [a["path"] for r in reports for a in r["artifacts"] if a["rebuilt"]]
    assert sorted(rebuilt) == sorted(new)  # each artifact built once, by whichever came first
    assert artifacts(built) == new
    state = state_log.load(built)
    assert state.warning is None and state.snapshot is not None
    assert hotplex("-C", str(built), "check").status == 0


@contextlib.contextmanager
def held_lock(root: Path) -> Iterator[None]:
    path = root / ".hotplex/lock"
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write("4242\n")
        handle.flush()
        yield


def test_a_build_that_cannot_get_the_lock_fails_clearly(built, hotplex):
    edit_all(built)
    before = artifacts(built)
    with held_lock(built):
        started = time.monotonic()
        result = hotplex("-C", str(built), "build", env={"HOTPLEX_LOCK_TIMEOUT": "0.3"})
        assert time.monotonic() - started < 10
        assert result.status == 1
        assert "another hotplex build (pid 4242) holds" in result.stderr
        assert "HOTPLEX_LOCK_TIMEOUT" in result.stderr
        assert hotplex("-C", str(built), "check").status == 1  # check needs no lock
    assert artifacts(built) == before
    assert hotplex("-C", str(built), "build").status == 0


def test_a_build_waits_for_the_lock(built, hotplex):
    edit_all(built)
    with held_lock(built):
        process = subprocess.Popen(
            [str(HOTPLEX), "-C", str(built), "build"], env=_env(), stdout=subprocess.PIPE
        )
        time.sleep(0.5)
        assert process.poll() is None  # waiting
    assert process.wait(timeout=60) == 0
    assert hotplex("-C", str(built), "check").status == 0


# --- a full disk --------------------------------------------------------------------------------


def _full_disk(real_write):
    """``os.write`` as on a full disk: half the bytes land, then ENOSPC."""

    def write(fd: int, data) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def test_enospc_while_writing_an_artifact_loses_nothing(built, monkeypatch, hotplex, tmp_path):
    new = expected_after(built, edit_all, tmp_path, hotplex)
    old = artifacts(built)
    edit_all(built)
    monkeypatch.setattr(os, "write", _full_disk(os.write))
    with pytest.raises(BuildFailed) as failure:
        run(Request(built))
    monkeypatch.undo()
    assert "No space left on device" in failure.value.render()
    assert artifacts(built) == old  # untouched, and no temp file left behind
    assert state_log.load(built).warning is None
    assert_repaired(built, new, hotplex)


def _can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)])
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True)


@pytest.mark.skipif(not _can_mount(), reason="mounting a tmpfs needs root")
def test_a_full_output_disk_fails_clearly_and_the_next_build_repairs(tmp_path, hotplex):
    root = tmp_path / "fleet"
    maker = REPO / "benchmarks/make_fake_project.py"
    subprocess.run([sys.executable, str(maker), str(root), "--artifacts", "40"], check=True)
    new = expected_after(root, lambda _: None, tmp_path, hotplex)
    with tmpfs(root / "dist", "64k"):
        result = hotplex("-C", str(root), "build")
        assert result.status == 1
        assert "No space left on device" in result.stderr
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
        partial = artifacts(root)
        assert partial and all(new[p] == data for p, data in partial.items())  # whole or absent
        assert state_log.load(root).warning is None
        remount(root / "dist", "size=4m")
        assert_repaired(root, new, hotplex)


@pytest.mark.skipif(not _can_mount(), reason="mounting a tmpfs needs root")
def test_a_full_state_disk_fails_clearly_and_the_next_build_repairs(built, tmp_path, hotplex):
    new = expected_after(built, edit_all, tmp_path, hotplex)
    old = artifacts(built)
    shutil.rmtree(built / ".hotplex")
    with tmpfs(built / ".hotplex", "12k"):
        edit_all(built)
        result = hotplex("-C", str(built), "build")
        assert result.status == 1
        assert "cannot write the build log" in result.stderr
        assert "No space left on device" in result.stderr
        assert_whole_versions(artifacts(built), old, new)
        remount(built / ".hotplex", "size=1m")
        assert_repaired(built, new, hotplex)


# --- read-only output -------------------------------------------------------------------------


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make ``folder`` read-only: a read-only remount of a tmpfs as root, file modes otherwise."""
    if _can_mount():
        saved = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        shutil.rmtree(folder)
        with tmpfs(folder, "1m"):
            for rel, data in saved.items():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_bytes(data)
            remount(folder, "ro")
            yield
            remount(folder, "rw")
            return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")] if p.is_dir()}
    for path in modes:
        path.chmod(0o555)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def test_a_read_only_output_folder_fails_clearly_and_loses_nothing(built, tmp_path, hotplex):
    new = expected_after(built, edit_all, tmp_path, hotplex)
    with read_only(built / "dist"):
        old = artifacts(built)
        edit_all(built)
        result = hotplex("-C", str(built), "build")
        assert result.status == 1, result.stdout
        assert "cannot write" in result.stderr
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
        assert artifacts(built) == old
        assert state_log.load(built).warning is None
        check = hotplex("-C", str(built), "check")  # check writes nothing, so it still works
        assert check.status == 1 and "stale:" in check.stdout
    assert_repaired(built, new, hotplex)


def test_a_read_only_rule_folder_fails_clearly_and_loses_nothing(make_project, hotplex):
    """A placed rule file (``targets/placed.py``) whose folder cannot be written: exit 1 naming
    it, the old file whole; the next build, with the folder writable again, places the new one."""
    manifest = '[[target]]\nname = "cursor"\nworker = "cursor"\n'
    root = make_project({"agent-configs/SOUL.md": "Be brief.\n"}, manifest=manifest)
    assert hotplex("-C", str(root), "build").status == 0
    rule = root / ".cursor/rules/cursor.mdc"
    old = rule.read_bytes()
    with read_only(rule.parent):
        edit_all(root)
        result = hotplex("-C", str(root), "build")
        assert result.status == 1, result.stdout
        assert "cannot write" in result.stderr and ".cursor/rules/cursor.mdc" in result.stderr
        assert "Traceback" not in result.stderr
        assert rule.read_bytes() == old
    assert hotplex("-C", str(root), "build").status == 0
    assert rule.read_bytes() == (root / "dist/cursor/default/rule.mdc").read_bytes() != old


@pytest.mark.parametrize(
    "value",
    [
        *("nan", "inf", "-inf", "-1", "1e999", "soon", "", " "),
        # float() takes these too: other scripts' digits, '_', a sign, blanks (adversary17 D7)
        *("1_000", "\uff15", "\u0665", " 5", "5 ", "+5", "-0", "0x10"),
        # a wait of years is a typo (1e30 for 1e3), waited out as forever
        *("9e99", "1e300", "86401"),
    ],
)
def test_a_lock_wait_that_is_no_count_of_seconds_is_an_error_at_the_variable(
    monkeypatch, value
) -> None:
    """HOTPLEX_LOCK_TIMEOUT=nan or inf waited forever on a held lock (adversary3); then a bad
    value meant the default without a word (adversary16 D11): a CI job's typo waited 60 s."""
    from hotplex import changes
    from hotplex.errors import HotplexError

    monkeypatch.setenv("HOTPLEX_LOCK_TIMEOUT", value)
    with pytest.raises(HotplexError) as raised:
        changes.lock_wait_seconds()
    problem = raised.value.problems[0]
    assert problem.span.key == "HOTPLEX_LOCK_TIMEOUT" and repr(value) in problem.message


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("0.5", 0.5), ("0", 0.0), ("120", 120.0), ("1e3", 1000.0), (".5", 0.5), ("86400", 86400.0)],
)
def test_a_lock_wait_is_a_count_of_seconds_and_60_unset(monkeypatch, value, seconds) -> None:
    from hotplex import changes

    monkeypatch.setenv("HOTPLEX_LOCK_TIMEOUT", value)
    assert changes.lock_wait_seconds() == seconds
    monkeypatch.delenv("HOTPLEX_LOCK_TIMEOUT")
    assert changes.lock_wait_seconds() == 60.0


@pytest.mark.parametrize("command", [["build"], ["clean"]])
def test_a_bad_lock_wait_stops_the_command_with_exit_2(built, hotplex, command) -> None:
    before = artifacts(built)
    result = hotplex("-C", str(built), *command, env={"HOTPLEX_LOCK_TIMEOUT": "9e99"})
    assert result.status == 2, result.stderr
    assert "HOTPLEX_LOCK_TIMEOUT" in result.stderr and "'9e99'" in result.stderr
    assert "Traceback" not in result.stderr
    assert artifacts(built) == before


def test_ctrl_c_after_the_last_set_does_not_say_sets_are_left(built, hotplex):
    """Stopped as its last record was appended, a build said "0 of 6 not reached … to finish
    the job" (adversary21 D13): every set was reached, only the recording may be left."""
    edit_all(built)
    # 6 sets of 3 write steps each: the 18th is the last set's log line.
    crash = {"HOTPLEX_CRASH_AT": "18", "HOTPLEX_CRASH_SIGNAL": "INT"}
    result = hotplex("-C", str(built), "build", "--json", env=crash)
    assert result.status == 130
    assert result.stderr == (
        "hotplex: interrupted as the build was being recorded, every one of its 6 artifact"
        " set(s) reached (6 rebuilt); every file is whole (old or new); run"
        f" hotplex -C {built} build to record what may not be\n"
    )
    assert json.loads(result.stdout)["errors"] == [{"message": result.stderr[9:-1]}]
    assert "0 rebuilt, 6 up to date" in hotplex("-C", str(built), "build").stdout


def test_a_build_started_with_ctrl_c_ignored_goes_on_ignoring_it(built):
    """A shell starts a script's background job (``cmd &``) with SIGINT ignored: the build must
    not take the keyboard's Ctrl-C back (adversary22 D16: from its first batch on it stopped)."""
    edit_all(built)
    crash = {"HOTPLEX_CRASH_AT": "7", "HOTPLEX_CRASH_SIGNAL": "INT", "NO_COLOR": "1"}
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(built), "build"],
        env={**os.environ, **crash},
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert done.returncode == 0, done.stderr
    assert "6 rebuilt, 0 up to date" in done.stdout
