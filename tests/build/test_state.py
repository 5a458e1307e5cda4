"""The build log (.hotplex/log): its format, and that a damaged one costs a rebuild, never a crash.

The format: a versioned header line, then one JSON object per line: a job record (appended after
the job's files are in place), a ``forget`` line (a job the manifest no longer plans), and a
``reports`` line and a ``snapshot`` line closing each finished build.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hotplex.build import Request, run
from hotplex.build import log as state_log
from hotplex.build.closing import load_closing
from hotplex.build.record_json import record_to_json
from hotplex.records import Stamped

JOBS = {"cc/default", "cc/slack", "cc/feishu", "ocs/default", "ocs/slack", "ocs/feishu"}


@pytest.fixture
def built(example_copy, hotplex) -> Path:
    root = example_copy("basic")
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    return root


def log_lines(root: Path) -> list[str]:
    return Path(state_log.log_path(root)).read_text(encoding="utf-8").split("\n")


def build_json(hotplex, root: Path) -> tuple[dict, str]:
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr + result.stdout
    return json.loads(result.stdout), result.stderr


def rebuilt(report: dict) -> set[str]:
    return {
        f"{a['target']}/{a['platform'] or 'default'}" for a in report["artifacts"] if a["rebuilt"]
    }


def mtimes(root: Path) -> dict[str, int]:
    return {p.as_posix(): p.stat().st_mtime_ns for p in (root / "dist").rglob("*") if p.is_file()}


def test_the_log_is_a_versioned_header_then_json_lines(built):
    lines = log_lines(built)
    assert lines[0] == f"# hotplex log v{state_log.VERSION}"
    assert lines[-1] == ""  # every line is terminated
    records = [json.loads(line) for line in lines[1:-1]]
    assert {r["job"] for r in records if "job" in r} == JOBS
    assert list(records[-2]) == ["at", "readers", "records", "reports"]
    assert list(records[-1]) == ["snapshot"]
    assert {r["job"] for r in records[-2]["reports"]} == JOBS
    data = Path(state_log.log_path(built)).read_bytes()  # each job's record line, where it is
    at = [json.loads(data[o : o + n]) for o, n in records[-2]["records"]]
    assert [r["job"] for r in at] == [r["job"] for r in records[-2]["reports"]]
    job = next(r for r in records if r.get("job") == "cc/slack")
    assert set(job["keys"]) == {"compiler", "profile", "target", "layout", "limits"}
    assert isinstance(job["variables"], dict)
    assert job["inputs"]["agent-configs/SOUL.slack.md"] is not None
    assert job["inputs"]["agent-configs/AGENTS.slack.md"] is None  # an absent input is recorded
    assert set(job["outputs"]) == {
        "dist/cc/slack/prompt.xml",
        "dist/cc/slack/subagent.xml",
        "dist/cc/slack/launch.json",
    }
    assert (built / ".hotplex/.gitignore").read_text() == "*\n"


def test_a_second_manifest_in_the_folder_never_deletes_what_the_first_built(make_project, hotplex):
    """``-f a.toml`` and ``-f b.toml`` share ``.hotplex/``: the log records whose it is, and
    build, check and clean of the other manifest stop (exit 2) with the way out, deleting
    nothing, instead of taking the first one's files for orphans."""
    a = '[project]\nname = "a"\n[[target]]\nname = "cur"\nworker = "cursor"\n'
    b = '[project]\nname = "b"\nout = "distb"\n[[target]]\nname = "pi"\nworker = "pi"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n", "a.toml": a, "b.toml": b}, None)
    assert hotplex("-C", str(root), "-f", "a.toml", "build").status == 0
    assert json.loads(log_lines(root)[1]) == {"manifest": "a.toml"}
    built = ("dist/cur/default/rule.mdc", ".cursor/rules/cur.mdc")
    for command in ("build", "check", "clean"):
        result = hotplex("-C", str(root), "-f", "b.toml", command)
        assert result.status == 2, result.stdout
        assert (
            "b.toml: '.hotplex/' holds the build state of a.toml, not of b.toml: a build of"
            " b.toml here would take the files a.toml built for its own orphans" in result.stderr
        )
        assert "hint: give each manifest a folder of its own" in result.stderr
        assert all((root / path).is_file() for path in built)
    assert hotplex("-C", str(root), "-f", "a.toml", "check").status == 0
    (root / ".hotplex/log").unlink()  # the way out: this folder becomes b.toml's
    assert hotplex("-C", str(root), "-f", "b.toml", "build").status == 0
    assert all((root / path).is_file() for path in built)
    assert hotplex("-C", str(root), "-f", "a.toml", "build").status == 2


def test_a_torn_last_line_is_dropped_silently_and_the_log_repaired(built, hotplex):
    """A build killed while appending leaves an unterminated line: not an error."""
    path = Path(state_log.log_path(built))
    with path.open("a", encoding="utf-8") as log:
        log.write('{"job":"cc/slack","keys":{"comp')
    assert state_log.load(built).torn
    before = mtimes(built)
    report, stderr = build_json(hotplex, built)
    assert stderr == "" and report["warnings"] == []
    assert rebuilt(report) == set()
    assert mtimes(built) == before
    # The next build that appends rewrites the log first.
    (built / "agent-configs/MEMORY.slack.md").write_text("Slack memory.\n", encoding="utf-8")
    report, stderr = build_json(hotplex, built)
    assert stderr == "" and rebuilt(report) == {"cc/slack", "ocs/slack"}
    lines = log_lines(built)
    assert lines[-1] == ""
    assert all(json.loads(line) for line in lines[1:-1])  # nothing glued to the torn line
    assert set(state_log.load(built).jobs) == JOBS


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: "# hotplex log v999\n" + text.split("\n", 1)[1], id="foreign"),
        pytest.param(lambda text: "", id="empty"),
        pytest.param(lambda text: text[: text.rindex("{")] + "{}\n", id="bad-snapshot"),
        pytest.param(lambda text: text.replace("\n{", "\n{]", 1), id="bad-json-line"),
        pytest.param(lambda text: text.replace("\n{", "\n[1, 2]\n{", 1), id="not-a-record"),
        pytest.param(lambda text: text.replace('"outputs":{', '"outputs":{"x":7,', 1), id="shape"),
        pytest.param(lambda text: text.replace('"job":', '"job":5,"j":', 1), id="field-type"),
        # Past the JSON parser's depth: a RecursionError was an internal error (adversary14 D6).
        pytest.param(lambda text: text.replace("\n{", "\n" + "[" * 5000 + "\n{", 1), id="deep"),
        pytest.param(lambda text: text + "[" * 100_000 + "\n", id="deep-closing"),
    ],
)
def test_a_foreign_or_corrupt_log_means_a_full_rebuild_with_a_warning(built, hotplex, damage):
    path = Path(state_log.log_path(built))
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    # A no-op build reads only the header and the closing snapshot; touching a source makes the
    # build read the records, where the damage is.
    future = time.time_ns() + 5_000_000_000
    os.utime(built / "agent-configs/SOUL.md", ns=(future, future))
    before = mtimes(built)
    report, _ = build_json(hotplex, built)
    assert len(report["warnings"]) == 1 and "rebuilding everything" in report["warnings"][0]
    assert rebuilt(report) == JOBS
    assert mtimes(built) == before  # rebuilt means recompiled: the same bytes are not rewritten
    assert log_lines(built)[0] == state_log.HEADER.strip()
    assert state_log.load(built).warning is None

    text = hotplex("-C", str(built), "build").stdout
    assert "0 rebuilt" in text


def _without_ctimes(record: dict) -> dict:
    """A log line as hotplex before v6 wrote it: each stamp without its ctime (the fourth value
    of ``[mtime_ns, size, inode, ctime_ns, digest]``; an output's in the snapshot has no digest)."""
    for job in [record, *record.get("reports", [])]:
        for stamp in job.get("outputs", {}).values():
            del stamp[3]
    snap = record.get("snapshot", {})
    for table in ("files", "dirs", "sources", "package", "local"):
        for stamp in snap.get(table, {}).values():
            if stamp is not None:
                del stamp[3]
    for paths in snap.get("outputs", {}).values():
        for stamp in paths.values():
            del stamp[3]
    return record


@pytest.mark.parametrize("version", [5, 4])
def test_a_log_of_a_version_before_is_rewritten_in_this_one_without_a_rebuild(
    built, hotplex, version
):
    """A v5 log (stamps without the ctime) or a v4 one (nor the closing's index of each job's
    record line) holds the same records: the first build reads them, hashes each file once more
    (no stamp of it can vouch), finds every set current and rewrites the log in this version,
    saying nothing; the build after it is a no-op again."""
    path = Path(state_log.log_path(built))
    lines = log_lines(built)
    for number in range(1, len(lines) - 1):
        record = _without_ctimes(json.loads(lines[number]))
        if version == 4:
            record.pop("records", None)
        lines[number] = json.dumps(record, separators=(",", ":"))
    lines[0] = f"# hotplex log v{version}"
    path.write_text("\n".join(lines), encoding="utf-8")
    before = mtimes(built)
    report, stderr = build_json(hotplex, built)
    assert stderr == "" and report["warnings"] == [] and rebuilt(report) == set()
    assert mtimes(built) == before
    assert log_lines(built)[0] == state_log.HEADER.strip()
    assert list(json.loads(log_lines(built)[-3])) == ["at", "readers", "records", "reports"]
    assert load_closing(built) is not None
    assert "0 rebuilt, 6 up to date" in hotplex("-C", str(built), "build").stdout
    assert set(state_log.load(built).jobs) == JOBS
    assert all(
        -1 not in s.to_list()
        for j in state_log.load(built).jobs.values()
        for s in j.outputs.values()
    )


def test_a_log_that_is_not_utf8_is_a_warning_too(built, hotplex):
    Path(state_log.log_path(built)).write_bytes(state_log.HEADER.encode() + b"\xff\xfe\x00garbage")
    result = hotplex("-C", str(built), "build")
    assert result.status == 0
    assert "warning: ignoring unreadable build log" in result.stderr


def test_a_log_that_cannot_be_written_is_a_clear_failure(built, hotplex):
    path = Path(state_log.log_path(built))
    path.unlink()
    path.mkdir()
    result = hotplex("-C", str(built), "build")
    assert result.status == 1
    assert "cannot write" in result.stderr and "internal error" not in result.stderr


def test_the_log_is_compacted_when_superseded_records_pile_up(built, monkeypatch):
    """In-process, with no slack, so a few builds suffice to trigger compaction."""
    monkeypatch.setattr(state_log, "COMPACT_SLACK", 0)
    path = Path(state_log.log_path(built))
    soul = built / "agent-configs/SOUL.md"
    sizes, rewrites = [], 0
    for round_ in range(6):
        inode = path.stat().st_ino
        soul.write_text(soul.read_text(encoding="utf-8") + f"Round {round_}.\n", encoding="utf-8")
        assert {j.id for j in run(Request(built)).jobs if j.rebuilt} == JOBS
        sizes.append(len(path.read_text(encoding="utf-8")))
        rewrites += path.stat().st_ino != inode  # a compaction replaces the file; appends do not
    state = state_log.load(built)
    closing = sum(len(line) + 1 for line in path.read_text(encoding="utf-8").split("\n")[-3:-1])
    assert rewrites >= 2
    # Appending only, six builds would leave six generations of records, reports and snapshots.
    assert max(sizes) <= (state_log.COMPACT_RATIO + 1) * state.live + closing
    assert set(state.jobs) == JOBS and state.snapshot is not None
    assert "Round 5." in (built / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")
    past = time.time_ns() - 5_000_000_000  # no longer "just modified": its stamp is trusted
    os.utime(soul, ns=(past, past))
    assert not run(Request(built)).fast
    assert run(Request(built)).fast


def test_a_removed_target_is_forgotten(built, hotplex):
    manifest = built / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text[: text.index('[[target]]\nname = "ocs"')], encoding="utf-8")
    build_json(hotplex, built)
    forgotten = [json.loads(line)["forget"] for line in log_lines(built) if '"forget"' in line]
    assert sorted(forgotten) == ["ocs/default", "ocs/feishu", "ocs/slack"]
    assert set(state_log.load(built).jobs) == {"cc/default", "cc/slack", "cc/feishu"}


def test_check_never_writes_the_log(built, hotplex):
    soul = built / "agent-configs/SOUL.md"
    soul.write_text(soul.read_text(encoding="utf-8") + "Changed.\n", encoding="utf-8")
    path = Path(state_log.log_path(built))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    assert hotplex("-C", str(built), "check").status == 1
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_temp_file_of_a_killed_compaction_is_removed(built, hotplex):
    leftover = built / ".hotplex/.log.31337.2.tmp"
    leftover.write_text(state_log.HEADER + "{", encoding="utf-8")
    soul = built / "agent-configs/SOUL.md"
    soul.write_text(soul.read_text(encoding="utf-8") + "Changed.\n", encoding="utf-8")
    build_json(hotplex, built)
    assert not leftover.exists()


# --- load() on hand-written logs ---------------------------------------------------------------


def write_log(root: Path, *records: dict) -> None:
    path = Path(state_log.log_path(root))
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r) + "\n" for r in records)
    path.write_text(state_log.HEADER + body, encoding="utf-8")


def job(name: str) -> dict:
    return {
        "job": name,
        "target": name.split("/")[0],
        "worker": "claude-code",
        "platform": None,
        "primary": f"dist/{name}/prompt.xml",
        "keys": {},
        "inputs": {},
        "variables": {},
        # mtime, size, inode, ctime, sha256
        "outputs": {f"dist/{name}/prompt.xml": [2, 10, 1, 4, "ab" * 32]},
        "truncations": [],
        "warnings": [],
        "sizes": [],
    }


def test_load_without_a_log_is_an_empty_state(tmp_path):
    state = state_log.load(tmp_path)
    assert state.jobs == {} and state.snapshot is None and state.warning is None


def test_the_snapshot_counts_only_as_the_last_record(tmp_path):
    snapshot = {"snapshot": {"files": {"a.md": [1, 2, 3, 4, "d"], "b.md": None}}}
    write_log(tmp_path, job("cc/default"), snapshot)
    state = state_log.load(tmp_path)
    assert state.snapshot is not None and state.files == {"a.md": Stamped(1, 2, 3, 4, "d")}
    write_log(tmp_path, job("cc/default"), snapshot, job("cc/slack"))
    assert state_log.load(tmp_path).snapshot is None
    write_log(tmp_path, job("cc/default"), snapshot, {"forget": "cc/default"})
    state = state_log.load(tmp_path)
    assert state.snapshot is None and state.jobs == {}


def test_load_closing_reads_the_snapshot_and_the_reports_only_when_asked(tmp_path):
    reports = {"reports": [job("cc/default")]}
    snapshot = {"snapshot": {"files": {}}}
    write_log(tmp_path, job("cc/default"), reports, snapshot)
    closing = load_closing(tmp_path)
    assert closing is not None and closing.snapshot == snapshot["snapshot"]
    assert [record_to_json(r) for r in closing.jobs()] == reports["reports"]
    write_log(tmp_path, reports, snapshot, job("cc/default"))  # a build ran after it
    assert load_closing(tmp_path) is None
    write_log(tmp_path, job("cc/default"), snapshot)  # no reports before the snapshot
    closing = load_closing(tmp_path)
    assert closing is not None and closing.job_reports() is None and closing.jobs() is None
    path = Path(state_log.log_path(tmp_path))
    write_log(tmp_path, reports, snapshot)
    path.write_text(path.read_text() + '{"job":', encoding="utf-8")  # torn: the slow path decides
    assert load_closing(tmp_path) is None
    lines = json.dumps(reports) + "\n" + json.dumps(snapshot) + "\n"
    path.write_text("# hotplex log v0\n" + lines, encoding="utf-8")
    assert load_closing(tmp_path) is None


def test_load_closing_finds_lines_longer_than_one_read(tmp_path):
    reports = {"reports": [job(f"t{i}/p") for i in range(500)]}
    snapshot = {"snapshot": {"files": {f"f{i}.md": None for i in range(20000)}}}
    write_log(tmp_path, job("cc/default"), reports, snapshot)
    assert len(json.dumps(snapshot)) > 2 * state_log.TAIL_BLOCK
    closing = load_closing(tmp_path)
    assert closing is not None and closing.snapshot == snapshot["snapshot"]
    assert [record_to_json(r) for r in closing.jobs()] == reports["reports"]


def test_the_full_load_skips_reports_lines(tmp_path):
    write_log(tmp_path, job("cc/default"), {"reports": "not parsed"}, {"snapshot": {}})
    state = state_log.load(tmp_path)
    assert state.warning is None and set(state.jobs) == {"cc/default"}


def test_a_later_record_of_a_job_replaces_the_earlier(tmp_path):
    newer = {**job("cc/default"), "keys": {"limits": "new"}}
    write_log(tmp_path, job("cc/default"), newer)
    state = state_log.load(tmp_path)
    assert state.jobs["cc/default"].keys == {"limits": "new"}
    assert state.size > state.live  # the superseded line still counts toward compaction


def test_log_files_are_created_with_ordinary_permissions(built):
    old = os.umask(0o022)
    os.umask(old)
    assert Path(state_log.log_path(built)).stat().st_mode & 0o777 == 0o666 & ~old


def test_check_warns_about_a_log_it_ignores_and_still_judges_by_bytes(built, hotplex):
    Path(state_log.log_path(built)).write_text("# hotplex log v999\n", encoding="utf-8")
    result = hotplex("-C", str(built), "check")
    assert result.status == 0, result.stdout
    assert "warning: ignoring build log" in result.stderr
    assert "of another version ('# hotplex log v999')" in result.stderr


@pytest.mark.parametrize(
    "recorded", ['"x"', "5", '{"hotplex.targets.claude_code.ClaudeCode": [1]}']
)
def test_a_hand_edited_package_record_in_the_snapshot_is_derived_again(built, hotplex, recorded):
    """What the last build recorded of hotplex's files (the workers' modules, the registered
    workers' facts) is only taken back as it was written; anything else is found again."""
    path = Path(state_log.log_path(built))
    lines = path.read_text(encoding="utf-8").split("\n")
    closing = json.loads(lines[-2])
    closing["snapshot"]["fingerprint"]["workers"] = json.loads(recorded)
    closing["snapshot"]["fingerprint"]["registered"] = json.loads(recorded)
    lines[-2] = json.dumps(closing)
    path.write_text("\n".join(lines), encoding="utf-8")
    manifest = built / "hotplex.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    result = hotplex("-C", str(built), "build")
    assert result.status == 0, result.stderr
    assert "internal error" not in result.stderr
