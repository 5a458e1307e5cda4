"""Incremental builds through the installed command: what is rebuilt, why, and what is left alone.

Every test works on real files in a temporary project and runs the real `hotplex` in a
subprocess; "unchanged" means the same mtime *and* inode (a rewrite by rename changes the inode
even when the clock has not ticked). A few tests drive ``hotplex.build.run`` in-process to see
whether the no-op fast path was taken, which the command line does not report.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hotplex import Project, fs
from hotplex.build import Request, run
from hotplex.build import log as state_log
from hotplex.errors import HotplexError
from hotplex_testing import REPO, settle

SOURCES = {
    "agent-configs/SOUL.md": "I am the base persona.\n",
    "agent-configs/SOUL.slack.md": 'Slack persona.\n{% include "shared/slack-rules.md" %}\n',
    "agent-configs/AGENTS.md": "Follow the rules.\n",
    "agent-configs/USER.md": 'The user.\n{% include "shared/common.md" %}\n',
    "agent-configs/shared/slack-rules.md": "Never ping @channel.\n",
    "agent-configs/shared/common.md": "Be kind.\n",
}
# AGENTS.md reads the variable `tone`, which only the ocs target sets (cc reads its default).
TONE_SOURCES = {**SOURCES, "agent-configs/AGENTS.md": 'Rules, {{ tone | default("plain") }}.\n'}
ALL_JOBS = {"cc/default", "cc/slack", "cc/feishu", "ocs/default", "ocs/slack", "ocs/feishu"}

# cc builds only slack, ocs only feishu, neither a base artifact: a file can belong to one target.
SPLIT_MANIFEST = """\
[variants]
platforms = ["slack", "feishu"]

[[target]]
name = "cc"
worker = "claude-code"
platforms = ["slack"]
base = false

[[target]]
name = "ocs"
worker = "opencode-server"
platforms = ["feishu"]
base = false
vars = { tone = "dry" }
"""


# --- helpers ----------------------------------------------------------------------------------


def build(hotplex, root: Path, *args: str) -> dict:
    result = hotplex("-C", str(root), "build", "--json", *args)
    assert result.status == 0, result.stderr + result.stdout
    return json.loads(result.stdout)


def rebuilt(report: dict) -> set[str]:
    return {_job(a) for a in report["artifacts"] if a["rebuilt"]}


def written(report: dict) -> set[str]:
    return {a["path"] for a in report["artifacts"] if a["written"]}


def _job(artifact: dict) -> str:
    return f"{artifact['target']}/{artifact['platform'] or 'default'}"


def outputs(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under dist/ -> (mtime, inode)."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino)
        for p in sorted((root / "dist").rglob("*"))
        if p.is_file()
    }


def changed(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def edit(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.fixture
def project(make_project):
    root = make_project(SOURCES)
    settle(root)
    return root


@pytest.fixture
def built(project, hotplex):
    report = build(hotplex, project)
    assert rebuilt(report) == ALL_JOBS
    return project


# --- rebuilds ----------------------------------------------------------------------------------


def test_second_build_rebuilds_nothing_and_changes_no_mtime(built, hotplex):
    before = outputs(built)
    report = build(hotplex, built)
    assert rebuilt(report) == set()
    assert {a["status"] for a in report["artifacts"]} == {"current"}
    assert changed(before, outputs(built)) == set()


def test_touching_a_source_rebuilds_nothing(built, hotplex):
    before = outputs(built)
    future = time.time_ns() + 5_000_000_000
    for rel in SOURCES:
        os.utime(built / rel, ns=(future, future))
    assert rebuilt(build(hotplex, built)) == set()
    assert changed(before, outputs(built)) == set()


def test_editing_a_variant_rebuilds_exactly_its_platform(built, hotplex):
    before = outputs(built)
    edit(built / "agent-configs/SOUL.slack.md", "Use threads.\n")
    result = hotplex("-C", str(built), "build", "--explain")
    assert result.status == 0, result.stderr
    assert "agent-configs/SOUL.slack.md changed" in result.stdout
    assert "2 rebuilt, 4 up to date" in result.stdout
    assert changed(before, outputs(built)) == {
        "dist/cc/slack/prompt.xml",
        "dist/ocs/slack/payload.json",
    }
    assert "Use threads." in (built / "dist/cc/slack/prompt.xml").read_text(encoding="utf-8")


def test_creating_a_missing_variant_rebuilds_exactly_its_platform(built, hotplex):
    before = outputs(built)
    (built / "agent-configs/AGENTS.feishu.md").write_text("Feishu rules.\n", encoding="utf-8")
    report = build(hotplex, built)
    assert rebuilt(report) == {"cc/feishu", "ocs/feishu"}
    reasons = {a["reason"] for a in report["artifacts"] if a["rebuilt"]}
    assert reasons == {"new input agent-configs/AGENTS.feishu.md"}
    assert changed(before, outputs(built)) == {
        "dist/cc/feishu/prompt.xml",
        "dist/cc/feishu/subagent.xml",  # the rules reach every sub-agent too
        "dist/ocs/feishu/payload.json",
    }


def test_removing_a_variant_rebuilds_its_platform(built, hotplex):
    (built / "agent-configs/SOUL.slack.md").unlink()
    report = build(hotplex, built)
    assert rebuilt(report) == {"cc/slack", "ocs/slack"}
    assert "agent-configs/SOUL.slack.md removed" in {a["reason"] for a in report["artifacts"]}


def test_editing_an_include_rebuilds_exactly_its_users(built, hotplex):
    edit(built / "agent-configs/shared/slack-rules.md", "Never DM strangers.\n")
    report = build(hotplex, built)
    assert rebuilt(report) == {"cc/slack", "ocs/slack"}
    prompt = (built / "dist/cc/slack/prompt.xml").read_text(encoding="utf-8")
    assert "Never DM strangers." in prompt

    edit(built / "agent-configs/shared/common.md", "Be brief.\n")
    assert rebuilt(build(hotplex, built)) == ALL_JOBS


def test_a_change_that_keeps_the_bytes_rewrites_nothing(built, hotplex):
    """Frontmatter and trailing blank lines do not reach the artifact: recompiled, not written."""
    before = outputs(built)
    soul = built / "agent-configs/SOUL.md"
    soul.write_text("---\nowner: me\n---\n" + soul.read_text(encoding="utf-8") + "\n\n")
    report = build(hotplex, built)
    assert rebuilt(report) == ALL_JOBS
    assert written(report) == set()
    assert changed(before, outputs(built)) == set()


def test_a_variable_change_rebuilds_only_the_artifacts_that_read_it(make_project, hotplex):
    root = make_project(TONE_SOURCES, manifest=SPLIT_MANIFEST)
    build(hotplex, root)
    manifest = root / "hotplex.toml"
    manifest.write_text(manifest.read_text().replace('"dry"', '"warm"'), encoding="utf-8")
    report = build(hotplex, root)
    assert rebuilt(report) == {"ocs/feishu"}  # only ocs sets tone; cc reads its default
    assert {a["reason"] for a in report["artifacts"] if a["rebuilt"]} == {"variable 'tone' changed"}
    assert "Rules, warm." in (root / "dist/ocs/feishu/payload.json").read_text()


def test_a_variable_no_file_reads_rebuilds_nothing(make_project, hotplex):
    root = make_project(SOURCES, manifest=SPLIT_MANIFEST)
    build(hotplex, root)
    manifest = root / "hotplex.toml"
    manifest.write_text(manifest.read_text().replace('"dry"', '"warm"'), encoding="utf-8")
    assert rebuilt(build(hotplex, root)) == set()


def test_missing_and_hand_edited_outputs_are_rebuilt_with_reasons(built, hotplex):
    (built / "dist/cc/slack/prompt.xml").unlink()
    edit(built / "dist/ocs/feishu/payload.json", " ")
    result = hotplex("-C", str(built), "build", "--explain")
    assert result.status == 0, result.stderr
    assert "because output missing: dist/cc/slack/prompt.xml" in result.stdout
    assert "because output edited by hand: dist/ocs/feishu/payload.json" in result.stdout
    assert "2 rebuilt" in result.stdout
    assert hotplex("-C", str(built), "check").status == 0


def test_build_target_limits_the_work_to_that_target(built, hotplex):
    edit(built / "agent-configs/SOUL.md", "More soul.\n")
    before = outputs(built)
    report = build(hotplex, built, "cc")
    assert {_job(a) for a in report["artifacts"]} == {"cc/default", "cc/slack", "cc/feishu"}
    assert rebuilt(report) == {"cc/default", "cc/slack", "cc/feishu"}
    assert all(p.startswith("dist/cc/") for p in changed(before, outputs(built)))
    assert rebuilt(build(hotplex, built)) == {"ocs/default", "ocs/slack", "ocs/feishu"}


def test_build_of_an_unknown_target_is_a_usage_error(built, hotplex):
    result = hotplex("-C", str(built), "build", "ocz")
    assert result.status == 2
    assert "no target named 'ocz'" in result.stderr and "did you mean 'ocs'" in result.stderr


def test_a_targeted_build_does_not_hide_another_targets_changed_input(make_project, hotplex):
    """`build cc` must not record a snapshot claiming ocs is current when ocs's input moved."""
    root = make_project(SOURCES, manifest=SPLIT_MANIFEST)
    settle(root)
    build(hotplex, root)
    edit(root / "agent-configs/AGENTS.md", "")  # same bytes: nothing to do
    (root / "agent-configs/SOUL.feishu.md").write_text("Feishu only.\n", encoding="utf-8")
    assert rebuilt(build(hotplex, root, "cc")) == set()
    assert rebuilt(build(hotplex, root)) == {"ocs/feishu"}


def test_a_targeted_build_does_not_hide_another_targets_manifest_change(make_project, hotplex):
    root = make_project(TONE_SOURCES, manifest=SPLIT_MANIFEST)
    build(hotplex, root)
    manifest = root / "hotplex.toml"
    manifest.write_text(manifest.read_text().replace('"dry"', '"warm"'), encoding="utf-8")
    assert rebuilt(build(hotplex, root, "cc")) == set()
    assert rebuilt(build(hotplex, root)) == {"ocs/feishu"}


def test_a_same_size_edit_in_the_same_clock_tick_is_not_missed(built, hotplex):
    """A file modified as the build reads it may change again within the same clock tick
    without its stamp moving (git's racily-clean case): such a stamp must not be trusted.
    The tick is simulated by giving both versions the same mtime, at the moment of the build."""
    soul = built / "agent-configs/SOUL.md"
    tick = time.time_ns() + 2_000_000_000  # the clock tick in which the build reads the file
    soul.write_text("Persona A.\n", encoding="utf-8")
    os.utime(soul, ns=(tick, tick))
    build(hotplex, built)
    soul.write_text("Persona B.\n", encoding="utf-8")  # same size, same inode
    os.utime(soul, ns=(tick, tick))
    assert rebuilt(build(hotplex, built)) == ALL_JOBS
    assert "Persona B." in (built / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")


def test_racy_means_close_to_the_read_not_to_the_end_of_the_build(built, monkeypatch):
    """The window is measured from when the build started reading, however long it ran."""
    # A window of 2 s, not 20 ms: on a loaded machine the build may start reading more than
    # 20 ms after the write below, and the file would then rightly count as settled.
    monkeypatch.setattr(fs, "RACY_NS", 2_000_000_000)
    # Import everything first (the build engine too: a compile does not load it), so that the
    # build starts reading at once; under load an import can take the whole 20 ms window.
    Project.load(built).compile("cc")
    importlib.import_module("hotplex.build.engine")
    soul = built / "agent-configs/SOUL.md"
    soul.write_text("Persona A.\n", encoding="utf-8")
    tick = time.time_ns()
    os.utime(soul, ns=(tick, tick))
    run(Request(built))
    snapshot = state_log.load(built).snapshot
    assert snapshot is not None
    assert snapshot["files"]["agent-configs/SOUL.md"][0] == -1  # recorded as untrusted
    soul.write_text("Persona B.\n", encoding="utf-8")
    os.utime(soul, ns=(tick, tick))
    assert {j.id for j in run(Request(built)).jobs if j.rebuilt} == ALL_JOBS


def test_artifacts_get_ordinary_file_permissions(built):
    old = os.umask(0o022)
    os.umask(old)
    mode = (built / "dist/cc/slack/prompt.xml").stat().st_mode & 0o777
    assert mode == 0o666 & ~old


# --- the fast path (in-process, to see which path was taken) ----------------------------------


def test_a_no_op_build_and_check_take_the_fast_path(built, monkeypatch):
    assert run(Request(built)).fast
    assert run(Request(built, check=True)).fast
    assert run(Request(built, targets=("ocs",))).fast
    monkeypatch.chdir(built)  # `hotplex build` in the folder, after `hotplex -C DIR build`
    assert run(Request(Path("."))).fast


def test_another_manifest_is_never_judged_by_the_snapshot(built):
    other = built / "other.toml"
    text = (built / "hotplex.toml").read_text(encoding="utf-8")
    other.write_text(text.replace('"feishu"', '"webchat"'), encoding="utf-8")
    with pytest.raises(HotplexError, match=r"holds the build state of hotplex\.toml, not of other"):
        run(Request(built, manifest=other, check=True))  # the log says whose it is
    log = built / ".hotplex/log"
    header, owner, rest = log.read_text(encoding="utf-8").split("\n", 2)
    assert owner == '{"manifest":"hotplex.toml"}'
    log.write_text(f"{header}\n{rest}", encoding="utf-8")  # as an older hotplex wrote it
    outcome = run(Request(built, manifest=other, check=True))
    assert not outcome.fast
    assert {j.id for j in outcome.stale} == {"cc/webchat", "ocs/webchat"}


def test_any_stamp_change_leaves_the_fast_path_and_rebuilds_nothing(built):
    earlier = time.time_ns() - 5_000_000_000
    os.utime(built / "agent-configs/shared/common.md", ns=(earlier, earlier))
    outcome = run(Request(built))
    assert not outcome.fast and not any(j.rebuilt for j in outcome.jobs)
    assert run(Request(built)).fast


def test_a_touched_output_is_restatted_so_the_fast_path_comes_back(built):
    future = time.time_ns() + 5_000_000_000
    os.utime(built / "dist/ocs/slack/payload.json", ns=(future, future))
    assert not run(Request(built)).fast
    assert run(Request(built)).fast


def test_a_stray_artifact_folder_leaves_the_fast_path(built):
    stray = built / "dist/old/slack"
    stray.mkdir(parents=True)
    shutil.copy(built / "dist/cc/slack/prompt.xml", stray / "prompt.xml")
    outcome = run(Request(built, check=True))
    assert not outcome.fast
    assert outcome.orphans == ["dist/old/slack/prompt.xml"]


def test_a_file_matching_a_declared_output_leaves_the_fast_path(make_project, hotplex):
    """A hand-made agents/x.md in a job folder is an orphan on the fast path too, as it is
    without the log: check does not say "up to date" over it."""
    sources = {f"agent-configs/{n}.md": f"{n} text\n" for n in ("SOUL", "AGENTS", "USER")}
    manifest = (
        '[[target]]\nname = "cc"\nworker = "claude-code"\nsubagents = ["reviewer"]\n'
        '[target.agents.reviewer]\ndescription = "Reviews."\n'
    )
    root = make_project(sources, manifest)
    assert hotplex("-C", str(root), "build").status == 0
    (root / "dist/cc/default/agents/extra.md").write_text("mine\n")
    check = hotplex("-C", str(root), "check")
    assert check.status == 1
    assert "orphaned: dist/cc/default/agents/extra.md (a build would delete it)" in check.stdout


# --- check ------------------------------------------------------------------------------------


def snapshot_tree(root: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_check_is_0_when_fresh_and_writes_nothing(built, hotplex):
    edit(built / "agent-configs/SOUL.md", "Changed.\n")  # stale, so check takes the slow path
    hotplex("-C", str(built), "build")
    future = time.time_ns() + 5_000_000_000
    os.utime(built / "agent-configs/SOUL.md", ns=(future, future))
    before = snapshot_tree(built)
    result = hotplex("-C", str(built), "check")
    assert result.status == 0, result.stdout
    assert "up to date" in result.stdout
    assert snapshot_tree(built) == before


def test_check_reports_stale_artifacts_and_the_fixing_command(built, hotplex):
    edit(built / "agent-configs/SOUL.slack.md", "New line.\n")
    before = snapshot_tree(built)
    result = hotplex("-C", str(built), "check")
    assert result.status == 1
    lines = result.stdout.splitlines()
    assert "stale: dist/cc/slack/prompt.xml (agent-configs/SOUL.slack.md changed)" in lines
    assert "stale: dist/ocs/slack/payload.json (agent-configs/SOUL.slack.md changed)" in lines
    assert f"run: hotplex -C {built} build" in lines[-1]
    assert snapshot_tree(built) == before


def test_check_reports_missing_and_hand_edited_artifacts(built, hotplex):
    (built / "dist/ocs/default/payload.json").unlink()
    edit(built / "dist/cc/feishu/prompt.xml", "<!-- mine -->\n")
    result = hotplex("-C", str(built), "check", "--json")
    assert result.status == 1
    statuses = {a["path"]: a["status"] for a in json.loads(result.stdout)["artifacts"]}
    assert statuses["dist/ocs/default/payload.json"] == "missing"
    assert statuses["dist/cc/feishu/prompt.xml"] == "edited"
    assert statuses["dist/cc/slack/prompt.xml"] == "current"
    text = hotplex("-C", str(built), "check").stdout
    assert "missing: dist/ocs/default/payload.json" in text
    assert "edited: dist/cc/feishu/prompt.xml" in text


def test_check_reports_orphans_that_build_then_deletes(built, hotplex):
    manifest = built / "hotplex.toml"
    manifest.write_text(manifest.read_text().replace(', "feishu"', ""), encoding="utf-8")
    (built / "dist/README.md").write_text("not an artifact\n", encoding="utf-8")
    (built / "dist/cc/feishu/notes.txt").write_text("mine\n", encoding="utf-8")
    result = hotplex("-C", str(built), "check")
    assert result.status == 1
    assert "orphaned: dist/cc/feishu/prompt.xml (a build would delete it)" in result.stdout
    assert "orphaned: dist/ocs/feishu/payload.json (a build would delete it)" in result.stdout
    assert (built / "dist/ocs/feishu/payload.json").exists()

    report = build(hotplex, built)
    assert report["deleted"] == [
        "dist/cc/feishu/launch.json",
        "dist/cc/feishu/prompt.xml",
        "dist/cc/feishu/subagent.xml",
        "dist/ocs/feishu/payload.json",
    ]
    assert not (built / "dist/ocs/feishu").exists()  # emptied folders go too
    assert (built / "dist/cc/feishu/notes.txt").exists()  # not hotplex's: kept
    assert (built / "dist/README.md").exists()
    assert hotplex("-C", str(built), "check").status == 0


def test_a_removed_target_is_deleted_by_the_next_whole_build_only(built, hotplex):
    manifest = built / "hotplex.toml"
    text = manifest.read_text()
    manifest.write_text(text[: text.index('[[target]]\nname = "ocs"')], encoding="utf-8")
    assert build(hotplex, built, "cc")["deleted"] == []
    assert (built / "dist/ocs/slack/payload.json").exists()
    assert len(build(hotplex, built)["deleted"]) == 3
    assert not (built / "dist/ocs").exists()


def test_deletion_never_leaves_the_out_folder(built, hotplex):
    """Whatever the log claims, a build deletes nothing outside `out`."""
    outside = built.parent / "outside.txt"
    outside.write_text("precious\n", encoding="utf-8")
    fake = {
        "job": "gone/slack",
        "target": "gone",
        "worker": "claude-code",
        "platform": "slack",
        "primary": "agent-configs/SOUL.md",
        "keys": {},
        "inputs": {},
        "outputs": {
            "agent-configs/SOUL.md": ["0" * 64, 1, 0, 0],
            "../outside.txt": ["0" * 64, 1, 0, 0],
            "dist/x.md": ["0" * 64, 1, 0, 0],
            "hotplex.toml": ["0" * 64, 1, 0, 0],
        },
        "truncations": [],
        "warnings": [],
        "sizes": [],
    }
    (built / "dist/x.md").write_text("loose file directly in out\n", encoding="utf-8")
    with Path(state_log.log_path(built)).open("a", encoding="utf-8") as log:
        log.write(json.dumps(fake) + "\n")
    result = hotplex("-C", str(built), "build")
    assert result.status == 0, result.stderr
    for kept in ("agent-configs/SOUL.md", "hotplex.toml", "dist/x.md"):
        assert (built / kept).exists(), kept
    assert outside.exists()
    assert "gone/slack" not in state_log.load(built).jobs  # the record is forgotten


def test_temp_files_of_a_killed_write_are_cleaned(built, hotplex):
    """A build killed between writing a temp file and renaming it leaves the temp file and a
    stale project: the next check names the temp file, the next build deletes it."""
    temp = built / "dist/cc/slack/.prompt.xml.31337.0.tmp"
    temp.write_text("half a promp", encoding="utf-8")
    edit(built / "agent-configs/SOUL.slack.md", "The edit the killed build was writing.\n")
    result = hotplex("-C", str(built), "check")
    assert result.status == 1
    assert "orphaned: dist/cc/slack/.prompt.xml.31337.0.tmp" in result.stdout
    build(hotplex, built)
    assert not temp.exists()


def test_check_diff_shows_a_unified_diff(built, hotplex):
    edit(built / "agent-configs/SOUL.slack.md", "A brand new line.\n")
    result = hotplex("-C", str(built), "check", "--diff")
    assert result.status == 1
    assert "--- a/dist/cc/slack/prompt.xml" in result.stdout
    assert "+++ b/dist/cc/slack/prompt.xml" in result.stdout
    assert "+A brand new line." in result.stdout


def test_check_on_a_fresh_clone_compares_bytes(built, hotplex, tmp_path):
    """Committed artifacts and no .hotplex/: check compiles in memory and compares."""
    clone = tmp_path / "clone"
    shutil.copytree(built, clone, ignore=shutil.ignore_patterns(".hotplex"))
    result = hotplex("-C", str(clone), "check")
    assert result.status == 0, result.stdout
    assert not (clone / ".hotplex").exists()

    edit(clone / "dist/cc/slack/prompt.xml", "tampered\n")
    (clone / "dist/ocs/feishu/payload.json").unlink()
    result = hotplex("-C", str(clone), "check")
    assert result.status == 1
    assert (
        "stale: dist/cc/slack/prompt.xml (dist/cc/slack/prompt.xml differs from a fresh build)"
        in result.stdout
    )
    assert "missing: dist/ocs/feishu/payload.json" in result.stdout


def test_clean_removes_artifacts_and_state_only(built, hotplex):
    (built / "dist/README.md").write_text("keep\n", encoding="utf-8")
    result = hotplex("-C", str(built), "clean")
    assert result.status == 0, result.stderr
    assert not Path(state_log.log_path(built)).exists()
    assert sorted(p.name for p in (built / "dist").iterdir()) == ["README.md"]
    assert all((built / rel).exists() for rel in SOURCES)
    assert rebuilt(build(hotplex, built)) == ALL_JOBS


def test_the_json_report_lists_files_in_the_same_order_rebuilt_or_not(built, hotplex):
    """A machine reading --json sees one order, whether the set was rebuilt or read from the log."""
    first = json.loads(hotplex("-C", str(built), "build", "--json", "cc").stdout)
    (built / "agent-configs/SOUL.md").write_text("Changed.\n", encoding="utf-8")
    rebuilt_report = json.loads(hotplex("-C", str(built), "build", "--json", "cc").stdout)
    paths = [[a["path"] for a in report["artifacts"]] for report in (first, rebuilt_report)]
    assert paths[0] == paths[1]
    folders = [p.rsplit("/", 1)[0] for p in paths[0]]
    for folder in dict.fromkeys(folders):  # jobs in manifest order, files sorted within a job
        in_folder = [p for p in paths[0] if p.rsplit("/", 1)[0] == folder]
        assert in_folder == sorted(in_folder)


def test_sources_in_the_project_folder_have_one_spelling(make_project, hotplex):
    """With `sources = "."` a file used as a source and as an include is one input, and the
    directory layout names `slack/SOUL.md` inside the project (not `/slack/SOUL.md`)."""
    manifest = (
        '[project]\nsources = "."\nout = "./dist"\n'
        '[variants]\nplatforms = ["slack"]\nlayout = "directory"\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    files = {
        "SOUL.md": "Base persona.\n",
        "slack/SOUL.md": "On Slack.\n",
        "AGENTS.md": 'Rules.\n{% include "SOUL.md" %}\n',
    }
    root = make_project(files, manifest=manifest)
    report = build(hotplex, root)
    assert rebuilt(report) == {"cc/default", "cc/slack"}
    log = (root / ".hotplex/log").read_text(encoding="utf-8")
    assert '"./SOUL.md"' not in log and '"/slack/SOUL.md"' not in log
    assert "On Slack." in (root / "dist/cc/slack/prompt.xml").read_text(encoding="utf-8")
    assert hotplex("-C", str(root), "clean").status == 0
    assert not any((root / "dist").rglob("*.xml")), "clean removes what `./dist` holds"


def test_parallel_builds_give_the_same_bytes_log_and_report(tmp_path, hotplex):
    """-j1 and -j4 over a project large enough to fork: identical artifacts, log and --json."""
    maker = REPO / "benchmarks" / "make_fake_project.py"
    runs = {}
    for jobs in ("1", "4"):
        root = tmp_path / f"j{jobs}" / "fleet"
        subprocess.run([sys.executable, str(maker), str(root), "--artifacts", "200"], check=True)
        result = hotplex("-C", str(root), "build", "--json", f"-j{jobs}")
        assert result.status == 0, result.stderr
        files = {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / "dist").rglob("*"))
            if p.is_file()
        }
        log = (root / ".hotplex" / "log").read_text(encoding="utf-8")
        runs[jobs] = (files, _without_stamps(log), result.stdout)
    assert len(runs["1"][0]) >= 200
    assert runs["1"][0] == runs["4"][0]
    assert runs["1"][1] == runs["4"][1]
    assert runs["1"][2] == runs["4"][2]


def _without_stamps(log: str) -> list:
    """The log's records with mtimes, inodes and ctimes blanked: they differ between any two
    folders."""
    records = []
    for line in log.splitlines()[1:]:
        record = json.loads(line)
        if "snapshot" in record:
            continue
        for job in record.get("reports", [record]):
            for stamp in job.get("outputs", {}).values():
                stamp[0] = stamp[2] = stamp[3] = 0
        records.append(record)
    return records


def test_stale_declared_outputs_are_orphans_without_the_build_log(make_project, hotplex):
    """A sub-agent file or an OpenClaw day the build no longer produces is found in the job
    folder by the worker's declared outputs, once .hotplex/ is gone (a fresh CI clone)."""
    sources = {f"agent-configs/{n}.md": f"{n} text\n" for n in ("SOUL", "AGENTS", "USER")}
    days = {
        "agent-configs/memory/2026-11-01.md": "- a\n",
        "agent-configs/memory/2026-11-02.md": "- b\n",
    }
    manifest = (
        '[memory]\nlogs = "memory/*.md"\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\nsubagents = ["reviewer"]\n'
        '[target.agents.reviewer]\ndescription = "Reviews."\n'
        '[[target]]\nname = "claw"\nworker = "openclaw"\n'
    )
    root = make_project({**sources, **days, "agent-configs/MEMORY.md": "m\n"}, manifest)
    assert hotplex("-C", str(root), "build").status == 0
    stale = [
        "dist/cc/default/agents/reviewer.md",
        "dist/claw/default/workspace/memory/2026-11-02.md",
    ]
    assert all((root / p).is_file() for p in stale)
    (root / "dist/cc/default/agents/notes.txt").write_text("mine\n")  # no declared output
    shutil.rmtree(root / ".hotplex")
    without = manifest.replace('subagents = ["reviewer"]\n', "")
    (root / "hotplex.toml").write_text(
        without.replace('[target.agents.reviewer]\ndescription = "Reviews."\n', "")
    )
    (root / "agent-configs/memory/2026-11-02.md").unlink()

    check = hotplex("-C", str(root), "check")
    assert check.status == 1, check.stdout
    for path in stale:
        assert f"orphaned: {path} (a build would delete it)" in check.stdout
    assert hotplex("-C", str(root), "build").status == 0
    assert not any((root / p).exists() for p in stale)
    assert (root / "dist/cc/default/agents/notes.txt").read_text() == "mine\n"
    assert (root / "dist/claw/default/workspace/memory/2026-11-01.md").is_file()
    assert hotplex("-C", str(root), "check").status == 0


def test_a_removed_targets_whole_job_folder_is_orphaned_without_the_log(make_project, hotplex):
    """With no build log, a target gone from the manifest is found by its job folder holding a
    registered worker's primary output: every declared output goes, not only the names the
    remaining targets share; a folder proving nothing keeps its files."""
    manifest = (
        '[[target]]\nname = "cc"\nworker = "claude-code"\n'
        '[[target]]\nname = "ocs"\nworker = "opencode-server"\nsubagents = ["rev2"]\n'
        '[target.agents.rev2]\ndescription = "x"\n'
    )
    root = make_project(dict(SOURCES), manifest)
    assert hotplex("-C", str(root), "build").status == 0
    gone = [
        f"dist/ocs/default/{name}" for name in ("payload.json", "launch.json", "agents/rev2.md")
    ]
    assert all((root / p).is_file() for p in gone)
    mine = root / "dist/notes/default/agents/plan.md"  # no primary output beside it
    mine.parent.mkdir(parents=True)
    mine.write_text("mine\n")
    shutil.rmtree(root / ".hotplex")
    (root / "hotplex.toml").write_text(manifest.split('[[target]]\nname = "ocs"')[0])

    check = hotplex("-C", str(root), "check")
    assert check.status == 1, check.stdout
    for path in gone:
        assert f"orphaned: {path} (a build would delete it)" in check.stdout
    assert hotplex("-C", str(root), "build").status == 0
    assert not (root / "dist/ocs").exists()
    assert mine.read_text() == "mine\n"
    assert hotplex("-C", str(root), "check").status == 0


def test_check_gives_each_file_of_a_set_its_own_status(make_project, hotplex):
    """Only the file that is gone is missing, only the edited one edited; the set's other files
    are current, and a settings change names the one file a build would rewrite."""
    manifest = (
        '[[target]]\nname = "cc"\nworker = "claude-code"\nsubagents = ["reviewer"]\n'
        '[target.agents.reviewer]\ndescription = "Reviews."\n'
    )
    root = make_project(dict(SOURCES), manifest)
    assert hotplex("-C", str(root), "build").status == 0
    job = "dist/cc/default"
    with (root / job / "prompt.xml").open("a") as prompt:
        prompt.write("mine\n")
    (root / job / "agents/reviewer.md").unlink()

    checked = hotplex("-C", str(root), "check", "--json")
    statuses = {a["path"]: a["status"] for a in json.loads(checked.stdout)["artifacts"]}
    assert statuses == {
        f"{job}/prompt.xml": "edited",
        f"{job}/agents/reviewer.md": "missing",
        f"{job}/launch.json": "current",
        f"{job}/subagent.xml": "current",
    }
    text = hotplex("-C", str(root), "check").stdout
    assert f"edited: {job}/prompt.xml (output edited by hand: {job}/prompt.xml)" in text
    assert f"missing: {job}/agents/reviewer.md (output missing:" in text
    assert "launch.json" not in text

    assert hotplex("-C", str(root), "build").status == 0
    (root / "hotplex.toml").write_text(
        manifest.replace('"claude-code"\n', '"claude-code"\ncwd = "../s"\n')
    )
    text = hotplex("-C", str(root), "check").stdout
    assert f"stale: {job}/launch.json" in text and "prompt.xml" not in text, text
