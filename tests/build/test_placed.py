"""Placed files (``hotplex.placement``, ``targets/placed.py``): rule files an editor reads at a
fixed place in the repository, written beside the user's own files and never over one of them.

Run as a user runs hotplex (the installed command in a temporary project), because what matters
is what is on disk afterwards: which files exist, with which bytes and mtimes.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal

import pytest
from hotplex.placement import is_hotplex_file, marked

SOURCES = {"agent-configs/SOUL.md": "Be brief.\n", "agent-configs/AGENTS.md": "Never push.\n"}
IDE = """\
[[target]]
name = "cursor"
worker = "cursor"

[[target]]
name = "zed"
worker = "zed"
"""
PLACED = (".cursor/rules/cursor.mdc", ".rules")


@pytest.fixture
def project(make_project, hotplex):
    root = make_project(SOURCES, manifest=IDE)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    return root


def _manifest(root, text: str) -> None:
    (root / "hotplex.toml").write_text(text, encoding="utf-8")


def _stamp(path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# --- writing ----------------------------------------------------------------------------------


def test_each_placed_file_is_the_artifact_with_a_marker_and_a_no_op_rewrites_nothing(
    project, hotplex
):
    copies = ("dist/cursor/default/rule.mdc", "dist/zed/default/rules.md")
    for path, copy in zip(PLACED, copies, strict=True):
        data = (project / path).read_bytes()
        assert data == (project / copy).read_bytes()
        assert is_hotplex_file(data)
    text = (project / ".rules").read_text(encoding="utf-8")
    assert text.startswith(
        '<!-- hotplex: written by `hotplex build` from hotplex.toml, target "zed"'
    )
    before = [_stamp(project / p) for p in PLACED]
    again = hotplex("-C", str(project), "build")
    assert "0 rebuilt" in again.stdout
    assert [_stamp(project / p) for p in PLACED] == before
    assert hotplex("-C", str(project), "check").status == 0


def test_stats_says_what_each_editor_makes_of_the_other_rule_files(project, hotplex):
    """Cursor reads every rule in its folder beside the placed one; Zed uses only the first of
    its list, which a placed ``.rules`` is."""
    done = hotplex("-C", str(project), "stats", "--json")
    copies = {a["target"]: a["copies"] for a in json.loads(done.stdout)["artifacts"]}
    assert copies["cursor"].startswith("the compiled copy at .cursor/rules/cursor.mdc; the editor")
    assert "also reads the other rule files it finds" in copies["cursor"]
    assert copies["zed"] == (
        "the compiled copy at .rules; Zed reads no other: of its rule files it uses the first it"
        " finds, .rules"
    )


def test_show_file_takes_the_place_it_lists(project, hotplex):
    for target, place in (("zed", ".rules"), ("cursor", ".cursor/rules/cursor.mdc")):
        shown = hotplex("-C", str(project), "show", target, "--file", place)
        assert shown.status == 0, shown.stderr
        assert shown.stdout.encode() == (project / place).read_bytes()
    wrong = hotplex("-C", str(project), "show", "zed", "--file", ".rule")
    assert wrong.status == 2 and "did you mean '.rules'?" in wrong.stderr


def test_a_forged_or_edited_marker_is_not_hotplex_s():
    text = marked("---\nx: 1\n---\n", "body\n", "hotplex.toml", "zed")
    assert is_hotplex_file(text.encode())
    assert not is_hotplex_file((text + "my own line\n").encode())  # edited since
    marker = text.splitlines(keepends=True)[3]
    assert not is_hotplex_file((marker + "My own rules.\n").encode())  # the line copied
    assert not is_hotplex_file((text + marker).encode())  # two markers


@pytest.mark.parametrize("name", ["a-->b.toml", "nl\nx.toml", 'q", target "x.toml', "50%41.toml"])
def test_any_manifest_name_keeps_the_marker_one_comment_that_hotplex_knows_again(
    make_project, hotplex, name
):
    """The name is encoded in the marker: nothing in it ends the comment early, splits the
    line or forges the target, and a fresh clone's build still knows the file for its own."""
    root = make_project(SOURCES, manifest=None)
    (root / name).write_text(IDE.split("\n\n")[1], encoding="utf-8")  # zed alone
    assert hotplex("-C", str(root), "-f", name, "build").status == 0
    first = (root / ".rules").read_text(encoding="utf-8").split("\n", 1)[0]
    assert first.startswith("<!-- hotplex: ") and first.endswith(" -->")
    assert first.count("-->") == 1 and first.count('"') == 2
    shutil.rmtree(root / ".hotplex")  # a fresh clone: the marker alone must be enough
    (root / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    result = hotplex("-C", str(root), "-f", name, "build")
    assert result.status == 0, result.stderr
    shutil.rmtree(root / ".hotplex")
    (root / name).write_text(IDE.split("\n\n")[0], encoding="utf-8")  # cursor alone
    result = hotplex("-C", str(root), "-f", name, "check")
    assert ".rules carries hotplex's marker for target 'zed' of" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "content",
    [
        "My own rules.\n",  # hand-written
        None,  # hotplex's, edited since
        "forged",  # hotplex's marker line pasted into a hand-written file
    ],
)
def test_a_file_hotplex_did_not_write_is_never_overwritten(make_project, hotplex, content):
    root = make_project(SOURCES, manifest=IDE)
    if content is None:
        assert hotplex("-C", str(root), "build").status == 0
        with open(root / ".rules", "a", encoding="utf-8") as handle:
            handle.write("My edit.\n")
        (root / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    elif content == "forged":
        assert hotplex("-C", str(root), "build").status == 0
        marker = (root / ".rules").read_text(encoding="utf-8").splitlines(keepends=True)[0]
        (root / ".rules").write_text(marker + "My own rules.\n", encoding="utf-8")
        shutil.rmtree(root / ".hotplex")  # no log either: the marker alone must not convince
    else:
        (root / ".rules").write_text(content, encoding="utf-8")
    before = _stamp(root / ".rules")
    for command in ("build", "check"):
        result = hotplex("-C", str(root), command)
        assert result.status == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert (
            "hotplex.toml: target[1].place: '.rules' exists and hotplex did not write it (or it"
            " was edited since): it is never overwritten" in result.stderr
        )
        assert "hint: move what it says into the sources in 'agent-configs/' yourself" in (
            result.stderr
        )
    assert _stamp(root / ".rules") == before


def test_every_blocked_place_is_named_at_once_and_nothing_is_placed(make_project, hotplex):
    """Errors are values: the user learns of both hand-written files in one run, and the hint
    is one they can follow in this project (import refuses one with a manifest already)."""
    root = make_project(SOURCES, manifest=IDE)
    (root / ".rules").write_text("My zed rules.\n", encoding="utf-8")
    (root / ".cursor/rules").mkdir(parents=True)
    (root / ".cursor/rules/cursor.mdc").write_text("My cursor rules.\n", encoding="utf-8")
    for command in ("build", "check"):
        result = hotplex("-C", str(root), command)
        assert result.status == 2, result.stderr
        assert "target[0].place: '.cursor/rules/cursor.mdc' exists and hotplex" in result.stderr
        assert "target[1].place: '.rules' exists and hotplex did not write it" in result.stderr
        assert "hotplex import" not in result.stderr
    assert (root / ".rules").read_text(encoding="utf-8") == "My zed rules.\n"
    assert not (root / "dist").exists()


def test_an_older_build_of_the_file_checked_out_again_is_still_hotplex_s(project, hotplex):
    old = (project / ".rules").read_bytes()
    (project / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    assert hotplex("-C", str(project), "build").status == 0
    (project / ".rules").write_bytes(old)  # `git checkout` of the committed older file
    shutil.rmtree(project / ".hotplex")  # a fresh clone: no log
    result = hotplex("-C", str(project), "build")
    assert result.status == 0, result.stderr
    assert (project / ".rules").read_bytes() == (project / "dist/zed/default/rules.md").read_bytes()


def test_a_symlink_on_the_way_is_refused(make_project, hotplex, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = make_project(SOURCES, manifest=IDE)
    os.symlink(elsewhere, root / ".cursor")
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "target[0].place: '.cursor' is a symlink" in result.stderr
    assert not list(elsewhere.iterdir())
    os.unlink(root / ".cursor")
    (root / "mine.md").write_text("mine\n", encoding="utf-8")
    os.symlink("mine.md", root / ".rules")  # a symlink at the place itself
    result = hotplex("-C", str(root), "build")
    assert "target[1].place: '.rules' is a symlink" in result.stderr
    assert (root / "mine.md").read_text(encoding="utf-8") == "mine\n"


def test_a_place_that_became_a_symlink_after_a_build_is_refused_at_its_place(
    project, hotplex, tmp_path
):
    victim = tmp_path / "victim.md"
    victim.write_bytes((project / ".rules").read_bytes())
    (project / ".rules").unlink()
    os.symlink(victim, project / ".rules")
    (project / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    for command in ("check", "build"):
        result = hotplex("-C", str(project), command)
        assert result.status == 2, result.stderr
        assert "hotplex.toml: target[1].place: '.rules' is a symlink" in result.stderr
        assert "project.out" not in result.stderr
    assert victim.read_bytes() == (project / "dist/zed/default/rules.md").read_bytes()


# --- deleting ---------------------------------------------------------------------------------


def test_a_removed_target_s_placed_file_is_an_orphan_and_its_empty_folders_go(project, hotplex):
    _manifest(project, IDE.split("\n\n")[1])  # zed alone
    check = hotplex("-C", str(project), "check")
    assert check.status == 1
    assert "orphaned: .cursor/rules/cursor.mdc" in check.stdout
    result = hotplex("-C", str(project), "build")
    assert "deleted .cursor/rules/cursor.mdc" in result.stdout
    assert not (project / ".cursor").exists()
    assert (project / ".rules").exists()


def test_without_the_log_a_stale_placed_file_is_named_never_deleted(project, hotplex):
    shutil.rmtree(project / ".hotplex")  # a fresh clone
    _manifest(project, IDE.split("\n\n")[1])  # zed alone
    for command in ("check", "build"):
        result = hotplex("-C", str(project), command)
        assert (
            "warning: .cursor/rules/cursor.mdc carries hotplex's marker for target 'cursor' of"
            " hotplex.toml, which places nothing there now" in result.stderr
        )
    assert (project / ".cursor/rules/cursor.mdc").exists()


@pytest.mark.parametrize("case_blind", [False, True])
def test_a_target_renamed_in_case_only_keeps_the_files_it_just_wrote(
    make_project, monkeypatch, capsys, case_blind
):
    """``ed2`` renamed ``ED2``: on macOS or Windows the old names are the files just written,
    so the build must not delete them; on Linux they are other files, and go. A file system
    that ignores case is simulated by ``os.path.samefile`` (no such one is mounted here)."""
    from hotplex.cli import main
    from hotplex.fs import folded

    manifest = '[[target]]\nname = "ed2"\nworker = "windsurf"\n'
    root = make_project(SOURCES, manifest=manifest)
    assert main(["-C", str(root), "build", "-j", "1"]) == 0
    _manifest(root, manifest.replace("ed2", "ED2"))
    if case_blind:
        monkeypatch.setattr(os.path, "samefile", lambda a, b: folded(str(a)) == folded(str(b)))
    capsys.readouterr()
    assert main(["-C", str(root), "build", "-j", "1"]) == 0
    printed = capsys.readouterr().out
    assert "built ED2/default: dist/ED2/default/rule.md, .windsurf/rules/ED2.md" in printed
    old = ("dist/ed2/default/rule.md", ".windsurf/rules/ed2.md")
    assert [f"deleted {path}" in printed for path in old] == [not case_blind] * 2
    assert [(root / path).exists() for path in old] == [case_blind] * 2
    assert (root / ".windsurf/rules/ED2.md").exists()


@pytest.mark.parametrize("leftover", ["marked, without the log", "edited"])
def test_a_leftover_rule_file_is_named_by_every_run_while_it_is_there(project, hotplex, leftover):
    """A stale file the editor still reads is said by every build (a no-op one too), check
    (text and --json) and clean, not only by the build that found it; deleted, it is not."""
    if leftover == "edited":
        with open(project / ".cursor/rules/cursor.mdc", "a", encoding="utf-8") as handle:
            handle.write("My edit.\n")
        said = ".cursor/rules/cursor.mdc is left in place: hotplex placed it for target 'cursor'"
    else:
        shutil.rmtree(project / ".hotplex")  # a fresh clone
        said = ".cursor/rules/cursor.mdc carries hotplex's marker for target 'cursor'"
    _manifest(project, IDE.split("\n\n")[1])  # zed alone
    for command in ("build", "build", "check", "build"):
        result = hotplex("-C", str(project), command)
        assert result.status == 0 and f"warning: {said}" in result.stderr, (command, result)
    report = json.loads(hotplex("-C", str(project), "check", "--json").stdout)
    assert [w for w in report["warnings"] if w.startswith(said)]
    (project / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    assert f"warning: {said}" in hotplex("-C", str(project), "build").stderr  # a slow build
    assert f"warning: {said}" in hotplex("-C", str(project), "clean").stderr
    assert (project / ".cursor/rules/cursor.mdc").exists()
    assert hotplex("-C", str(project), "build").status == 0
    (project / ".cursor/rules/cursor.mdc").unlink()
    for command in ("build", "check", "build"):
        assert "cursor.mdc" not in hotplex("-C", str(project), command).stderr


def test_a_moved_place_deletes_the_old_file_unless_it_was_edited(project, hotplex):
    _manifest(
        project,
        IDE.replace('worker = "cursor"\n', 'worker = "cursor"\nplace = ".cursor/rules/team.mdc"\n'),
    )
    assert hotplex("-C", str(project), "build").status == 0
    assert not (project / ".cursor/rules/cursor.mdc").exists()
    assert is_hotplex_file((project / ".cursor/rules/team.mdc").read_bytes())
    with open(project / ".rules", "a", encoding="utf-8") as handle:
        handle.write("My edit.\n")
    _manifest(project, IDE.split("\n\n")[0])  # cursor alone: .rules is an orphan, edited
    result = hotplex("-C", str(project), "build")
    assert result.status == 0
    assert ".rules is left in place" in result.stderr and "edited since" in result.stderr
    assert (project / ".rules").read_text(encoding="utf-8").endswith("My edit.\n")


def test_clean_removes_the_placed_files_hotplex_still_owns_and_nothing_else(project, hotplex):
    (project / ".cursor/rules/mine.mdc").write_text("mine\n", encoding="utf-8")
    with open(project / ".rules", "a", encoding="utf-8") as handle:
        handle.write("My edit.\n")
    result = hotplex("-C", str(project), "clean")
    assert result.status == 0
    assert "removed .cursor/rules/cursor.mdc" in result.stdout
    assert "warning: .rules is left in place" in result.stderr
    assert "clean removes it, but it was edited since" in result.stderr
    assert "no longer places it" not in result.stderr  # it still does
    assert (project / ".cursor/rules/mine.mdc").exists() and (project / ".rules").exists()
    assert not (project / "dist").exists() or not any((project / "dist").rglob("*.*"))


def test_only_hotplex_s_own_temp_names_beside_a_placed_file_are_deleted(project, hotplex):
    folder = project / ".cursor/rules"
    mine = (".cursor.mdc.tmp", ".cursor.mdc.abc.0.tmp", ".cursor.mdc.1.tmp")
    for name in mine:
        (folder / name).write_text("mine\n", encoding="utf-8")
    (folder / ".cursor.mdc.4242.7.tmp").write_text(
        "half a rule", encoding="utf-8"
    )  # a killed write
    (project / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    result = hotplex("-C", str(project), "build")
    assert result.status == 0, result.stderr
    assert "deleted .cursor/rules/.cursor.mdc.4242.7.tmp (a killed write's temp file)" in (
        result.stdout
    )
    assert not (folder / ".cursor.mdc.4242.7.tmp").exists()
    for name in mine:
        assert (folder / name).read_text(encoding="utf-8") == "mine\n"
        assert name not in result.stdout


def test_a_place_with_a_long_legal_name_builds_and_a_longer_one_is_refused_at_its_key(
    make_project, hotplex
):
    """A 250-byte name is legal (255 is the limit) though `.<name>.<pid>.<n>.tmp` beside it
    would not be: the temp name is shortened, still known as hotplex's. One over 255 bytes is
    refused at `target[0].place` by check and build, before anything is written."""
    from hotplex.writes import temp_stem

    name = "\u00e9" * 123 + ".mdc"  # 250 bytes
    manifest = f'[[target]]\nname = "a"\nworker = "cursor"\nplace = ".cursor/rules/{name}"\n'
    root = make_project(SOURCES, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    placed = root / ".cursor/rules" / name
    assert placed.read_bytes() == (root / "dist/a/default/rule.mdc").read_bytes()
    assert hotplex("-C", str(root), "check").status == 0
    stem = temp_stem(name)
    assert stem.endswith(".mdc") and len(f".{stem}.4294967295.{2**64}.tmp".encode()) <= 255
    (root / ".cursor/rules" / f".{stem}.4242.7.tmp").write_text("half", encoding="utf-8")
    (root / ".cursor/rules" / f".{name}.tmp").write_text("mine", encoding="utf-8")  # 255 bytes
    (root / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    result = hotplex("-C", str(root), "build")
    assert f".{stem}.4242.7.tmp (a killed write's temp file)" in result.stdout
    assert sorted(p.name for p in placed.parent.iterdir()) == [f".{name}.tmp", name]

    too_long = "a" * 252 + ".mdc"
    _manifest(root, manifest.replace(name, too_long))
    shutil.rmtree(root / "dist")
    for command in ("check", "build"):
        result = hotplex("-C", str(root), command)
        assert result.status == 2
        assert "target[0].place: path '.cursor/rules/aaa" in result.stderr
        assert "has a name of 256 bytes: no file system takes one over 255" in result.stderr
    assert not (root / "dist").exists()


# --- interrupted builds -----------------------------------------------------------------------


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_build_killed_at_any_step_leaves_no_partial_placed_file(
    project, hotplex, tmp_path, every
):
    """At a few write steps (``every``: at each one, until the build has no step left)."""
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine)
    old = {p: (project / p).read_bytes() for p in PLACED}
    (pristine / "agent-configs/SOUL.md").write_text("Be briefer.\n", encoding="utf-8")
    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference)
    assert hotplex("-C", str(reference), "build").status == 0
    new = {p: (reference / p).read_bytes() for p in PLACED}
    killed = 0
    for point in itertools.count(1) if every else (2, 3, 5):
        root = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, root)
        result = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)})
        if result.status == 0:
            break
        assert result.status == -signal.SIGKILL, result.stderr
        killed += 1
        for path in PLACED:
            assert (root / path).read_bytes() in (old[path], new[path])
        repaired = hotplex("-C", str(root), "build")
        assert repaired.status == 0, repaired.stderr
        for path in PLACED:
            assert (root / path).read_bytes() == new[path]
            folder = (root / path).parent
            assert not [n for n in os.listdir(folder) if n.endswith(".tmp")]
        shutil.rmtree(root)
    # Two sets of two files: around each rename a step, and a log line per set.
    assert killed >= 6 if every else killed == 3


@pytest.mark.slow
def test_a_build_killed_while_deleting_a_placed_orphan_is_repaired(project, hotplex, tmp_path):
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine)
    _manifest(pristine, IDE.split("\n\n")[1])  # zed alone: cursor's files are orphans
    rule = (project / PLACED[0]).read_bytes()
    point = 0
    while True:
        point += 1
        root = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, root)
        result = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)})
        if result.status == 0:
            break
        assert result.status == -signal.SIGKILL, result.stderr
        if (root / PLACED[0]).exists():
            assert (root / PLACED[0]).read_bytes() == rule  # whole, or gone
        repaired = hotplex("-C", str(root), "build")
        assert repaired.status == 0, repaired.stderr
        assert "warning" not in repaired.stderr
        assert not (root / ".cursor").exists()
        shutil.rmtree(root)
    assert point > 2


# --- the manifest -----------------------------------------------------------------------------

BAD_PLACES = [
    ('place = "README.md"', "target[0].place: Cursor does not read 'README.md'"),
    ('place = "."', "target[0].place: Cursor does not read '.'"),
    (
        'place = "../x/.cursor/rules/a.mdc"',
        "target[0].place: path '../x/.cursor/rules/a.mdc' escapes",
    ),
    ('place = "/tmp/.cursor/rules/a.mdc"', "target[0].place: absolute path"),
    (
        'place = ".cursor/rules/../../README.md"',
        "target[0].place: Cursor does not read 'README.md'",
    ),
    ('place = ".cursor/rules/a.md"', "hint: Cursor reads .cursor/rules/*.mdc"),
    ('place = ""', "target[0].place: Cursor does not read '.'"),
    ('place = ".cursor\\\\rules\\\\a.mdc"', "holds a backslash: folders are separated by /"),
]


@pytest.mark.parametrize(("line", "message"), BAD_PLACES)
def test_a_place_the_tool_does_not_read_or_outside_the_project_is_refused(
    make_project, hotplex, line, message
):
    root = make_project(
        SOURCES, manifest=IDE.replace('worker = "cursor"\n', f'worker = "cursor"\n{line}\n')
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert message in result.stderr, result.stderr
    assert not (root / "dist").exists()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'bot = "U1"',
            "target[0].bot: worker 'junie' writes one file per repository,"
            " '.junie/guidelines.md': a bot overlay (<platform>/<bot>/) is read by no artifact",
        ),
        (
            'own_instructions = "off"',
            "target[0].own_instructions: 'own_instructions' does not apply to worker 'junie': the"
            " editor runs where you open the repository and reads its rule files there",
        ),
        ('cwd = "../s"', "target[0].cwd: 'cwd' does not apply to worker 'junie': the editor runs"),
    ],
)
def test_a_key_an_editor_target_would_ignore_is_refused_with_the_true_reason(
    make_project, hotplex, line, message
):
    manifest = (
        '[variants]\nplatforms = ["slack"]\nlayout = "directory"\n\n'
        f'[[target]]\nname = "j"\nworker = "junie"\n{line}\n'
    )
    files = {**SOURCES, "agent-configs/slack/U1/SOUL.md": "Bot overlay.\n"}
    result = hotplex("-C", str(make_project(files, manifest=manifest)), "build")
    assert result.status == 2
    assert message in result.stderr, result.stderr
    assert "reads only the files hotplex writes" not in result.stderr


def test_a_place_hotplex_would_read_back_is_refused(make_project, hotplex):
    manifest = """\
[project]
sources = "."
out = ".cursor/rules"

[memory]
logs = ".kiro/steering/*.md"

[[source]]
name = "team"
file = ".rules"
channel = "B"
tag = "team"

[[target]]
name = "zed"
worker = "zed"

[[target]]
name = "cursor"
worker = "cursor"

[[target]]
name = "kiro"
worker = "kiro"

[[target]]
name = "copilot"
worker = "copilot"

[[target]]
name = "second"
worker = "copilot"
platforms = ["slack"]
base = false

[variants]
platforms = ["slack"]
"""
    root = make_project({".rules": "Team rules.\n"}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    for expected in (
        "target[0].place: '.rules' is the file of source 'team': hotplex would read its own"
        " output back",
        "target[1].place: '.cursor/rules/cursor.mdc' is inside '.cursor/rules'",
        "target[2].place: '.kiro/steering/kiro.md' matches [memory] logs",
        "target[4].place: '.github/copilot-instructions.md' is placed by target 'copilot' too",
        "target[4].platforms: worker 'copilot' writes one file per repository",
        "target[4].base: worker 'copilot' places the base artifact",
    ):
        assert expected in result.stderr, result.stderr
    assert (root / ".rules").read_text(encoding="utf-8") == "Team rules.\n"


NFC, NFD = "\u00e9", "e\u0301"  # é as one code point, and as e + a combining accent


@pytest.mark.parametrize(
    ("first", "second"), [(NFC, NFD), (NFD, NFC), ("Stra\u00dfe", "STRASSE"), (NFC, "E\u0301")]
)
def test_two_spellings_of_one_name_on_macos_are_one_place(make_project, hotplex, first, second):
    """macOS composes and case-folds names (``é`` is one file however it is spelt): two places,
    or a place and a declared source, that differ only so are one file, refused at the key."""
    manifest = (
        f'[[source]]\nname = "s"\nfile = "../.cursor/rules/src-{first}.mdc"\nchannel = "B"\n'
        f'tag = "s"\n[[target]]\nname = "a"\nworker = "cursor"\nplace = ".cursor/rules/{first}.mdc"'
        f'\n[[target]]\nname = "b"\nworker = "cursor"\nplace = ".cursor/rules/{second}.mdc"\n'
        f'[[target]]\nname = "c"\nworker = "cursor"\nplace = ".cursor/rules/src-{second}.mdc"\n'
    )
    root = make_project({**SOURCES, f".cursor/rules/src-{first}.mdc": "Mine.\n"}, manifest)
    result = hotplex("-C", str(root), "check")
    assert result.status == 2, result.stderr
    assert f"target[1].place: '.cursor/rules/{second}.mdc' is placed by target 'a' too" in (
        result.stderr
    )
    assert f"target[2].place: '.cursor/rules/src-{second}.mdc' is the file of source 's'" in (
        result.stderr
    )


def test_a_place_inside_a_dedicated_sources_folder_is_refused(make_project, hotplex):
    manifest = '[project]\nsources = ".github"\n[[target]]\nname = "c"\nworker = "copilot"\n'
    root = make_project({".github/SOUL.md": "Be brief.\n"}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert "target[0].place: '.github/copilot-instructions.md' is inside the sources folder" in (
        result.stderr
    )


# --- limits -----------------------------------------------------------------------------------


def test_windsurf_s_limit_cuts_the_sections_visibly_never_the_file(make_project, hotplex):
    big = "A rule of some length, repeated. 💡\n" * 600  # 21,600 UTF-16 units
    manifest = '[limits]\nper_file = 40000\n[[target]]\nname = "ws"\nworker = "windsurf"\n'
    root = make_project({"agent-configs/AGENTS.md": big}, manifest=manifest)
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    text = (root / ".windsurf/rules/ws.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-16-le")) // 2 <= 12000
    assert len(text.encode("utf-16-le")) // 2 > 11000  # the budget is spent, not wasted
    assert "[… truncated by hotplex" in text
    assert '"limit": "windsurf.max_chars"' in result.stdout
    tight = manifest + "max_chars = 3000\n"
    _manifest(root, tight)
    result = hotplex("-C", str(root), "build")
    assert "(windsurf.max_chars)" in result.stdout + result.stderr
    assert len((root / ".windsurf/rules/ws.md").read_text(encoding="utf-8")) <= 3000
    _manifest(root, manifest.replace("[limits]\n", '[limits]\noverflow = "error"\n'))
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "target[0].max_chars: the file is over Windsurf's limit of 12000" in result.stderr
    for bad, message in (
        ("max_chars = 20000", "at most Windsurf's 12000"),
        ("max_chars = 50", "cannot fit 50"),
    ):
        _manifest(root, manifest + bad + "\n")
        result = hotplex("-C", str(root), "build")
        assert result.status == 2 and message in result.stderr, result.stderr


def test_a_job_reading_a_placed_file_is_refused(make_project, hotplex):
    """What validation cannot see: an import (or include) of the placed file, read at build."""
    manifest = """\
[project]
sources = "."
default_sources = false

[[source]]
name = "claude"
file = "CLAUDE.md"
channel = "B"
tag = "claude"
imports = "claude"

[[target]]
name = "zed"
worker = "zed"
"""
    root = make_project({"CLAUDE.md": "See @.rules for more.\n"}, manifest=manifest)
    for command in ("build", "check"):
        result = hotplex("-C", str(root), command)
        assert result.status == 2
        assert (
            "target[0].place: zed/default reads '.rules', the file target 'zed' places"
            in result.stderr
        )
    assert not (root / ".rules").exists()


def test_init_scaffolds_an_editor_target_that_builds_and_places(tmp_path, hotplex):
    folder = tmp_path / "fresh"
    result = hotplex("init", str(folder), "--worker", "cursor", "--worker", "kiro")
    assert result.status == 0, result.stderr
    assert 'worker = "cursor"  # a Cursor project rule' in (folder / "hotplex.toml").read_text(
        encoding="utf-8"
    )
    assert hotplex("-C", str(folder), "build").status == 0
    assert is_hotplex_file((folder / ".cursor/rules/cursor.mdc").read_bytes())
    assert is_hotplex_file((folder / ".kiro/steering/kiro.md").read_bytes())


def test_init_where_an_editor_s_rule_file_is_already_says_so_and_overwrites_nothing(
    tmp_path, hotplex
):
    folder = tmp_path / "repo"
    (folder / ".cursor/rules").mkdir(parents=True)
    (folder / ".rules").write_text("My zed rules.\n", encoding="utf-8")
    (folder / ".cursor/rules/cursor.mdc").write_text("My cursor rules.\n", encoding="utf-8")
    result = hotplex("-C", str(folder), "init", "--worker", "zed", "--worker", "cursor")
    assert result.status == 0, result.stderr
    for index, place in enumerate((".rules", ".cursor/rules/cursor.mdc")):
        assert f"warning: hotplex.toml: target[{index}].place: '{place}' exists and hotplex" in (
            result.stderr
        )
    assert "hint: move what it says into the sources in 'agent-configs/'" in result.stderr
    assert "next: hotplex build once the place(s) above are free" in result.stdout
    assert (folder / ".rules").read_text(encoding="utf-8") == "My zed rules.\n"
    again = hotplex("-C", str(folder), "init", "--worker", "kiro")
    assert "hotplex.toml was there already and has no target of worker 'kiro'" in again.stderr
    assert "worker 'zed'" not in again.stderr


def test_a_fifo_or_a_huge_file_at_the_place_is_refused_without_a_blocking_read(
    make_project, hotplex
):
    root = make_project(SOURCES, manifest=IDE)
    os.mkfifo(root / ".rules")
    result = hotplex("-C", str(root), "build", timeout=20)
    assert result.status == 2
    assert "target[1].place: '.rules' is no regular file" in result.stderr
    os.unlink(root / ".rules")
    with open(root / ".rules", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MiB of NUL, never read whole
    result = hotplex("-C", str(root), "build")
    assert result.status == 2 and "hotplex did not write it" in result.stderr


def test_a_killed_writes_temp_file_beside_a_placed_file_is_seen_by_an_up_to_date_build(
    project, hotplex
):
    """The folder of each placed file is stamped like the folders of ``out``: a temp file left
    there by a killed write (the project's own folder, for Zed's ``.rules``) sends the next
    build, with nothing else changed, past the up-to-date path to delete it."""
    assert hotplex("-C", str(project), "build").status == 0
    for left in (project / "..rules.4242.7.tmp", project / ".cursor/rules/.cursor.mdc.4242.8.tmp"):
        left.write_text("half a rule", encoding="utf-8")
    result = hotplex("-C", str(project), "build")
    assert result.status == 0, result.stderr
    assert "deleted ..rules.4242.7.tmp (a killed write's temp file)" in result.stdout
    assert "deleted .cursor/rules/.cursor.mdc.4242.8.tmp (a killed write's temp file)" in (
        result.stdout
    )
    assert not (project / "..rules.4242.7.tmp").exists()
    assert hotplex("-C", str(project), "check").status == 0
