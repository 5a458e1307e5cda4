"""Agent Skills placed for the editor targets, in the repository folder each editor's
documentation names (``tests/workers/fixtures/rule_formats/``), under the guard of the placed
rule files: never over a file of the user's, a removed skill's files deleted as orphans, and the
one-copy warnings where the editor would list a skill twice."""

from __future__ import annotations

import re
import shutil

import pytest
from hotplex import cli
from hotplex.placement import is_hotplex_file
from hotplex_testing import EXAMPLES, settle

SKILLS = ("incident-triage", "release-notes", "sql-review")


def _project(tmp_path, targets: str):
    root = tmp_path / "p"
    shutil.copytree(EXAMPLES / "skills", root)
    (root / "hotplex.toml").write_text(
        '[project]\nname = "p"\nsources = "agent-configs"\n\n[skills]\n'
        f'scripts = ["release-notes/scripts/collect.sh"]\n{targets}',
        encoding="utf-8",
    )
    return root


def _target(name: str, worker: str, more: str = "") -> str:
    return f'\n[[target]]\nname = "{name}"\nworker = "{worker}"\n{more}'


def _build(root, capsys, *args: str) -> tuple[int, str]:
    status = cli.main(["-C", str(root), "build", *args])
    out, err = capsys.readouterr()
    return status, out + err


def test_each_skill_is_placed_whole_and_the_rule_file_beside_it(tmp_path, capsys):
    root = _project(tmp_path, _target("cu", "cursor"))
    status, said = _build(root, capsys)
    assert status == 0, said
    source = root / "agent-configs/skills"
    for name in SKILLS:
        for path in (source / name).rglob("*"):
            if not path.is_file():
                continue
            rel = path.relative_to(source).as_posix()
            placed = (root / ".cursor/skills" / rel).read_bytes()
            if path.name == "SKILL.md":
                assert is_hotplex_file(placed)
            else:
                assert placed == path.read_bytes(), rel
    assert "not verified to load Agent Skills" not in said
    assert cli.main(["-C", str(root), "check"]) == 0
    capsys.readouterr()
    assert cli.main(["-C", str(root), "show", "cu"]) == 0
    shown = capsys.readouterr().err
    assert all(f"note: skill {n}: listed whole" in shown for n in SKILLS)


def test_a_skill_folder_of_the_user_s_own_is_never_overwritten(tmp_path, capsys):
    root = _project(tmp_path, _target("cu", "cursor"))
    mine = root / ".cursor/skills/sql-review/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: sql-review\ndescription: Mine.\n---\nMy own.\n")
    status, said = _build(root, capsys)
    assert status == 2
    assert "'.cursor/skills/sql-review/SKILL.md' exists and hotplex did not write it" in said
    assert "hint: keep what it says in the sources' skills/ (edit the skill there;" in said
    assert mine.read_text().endswith("My own.\n")
    assert not (root / ".cursor/skills/incident-triage").exists()  # nothing of the job written


def test_an_edited_placed_file_is_kept_and_a_removed_skill_is_an_orphan(tmp_path, capsys):
    root = _project(tmp_path, _target("cu", "cursor"))
    assert _build(root, capsys)[0] == 0
    template = root / ".cursor/skills/release-notes/references/template.md"
    template.write_text("edited by hand\n")
    status, said = _build(root, capsys)
    assert status == 2 and "references/template.md' exists and hotplex did not write" in said
    template.unlink()  # the way out: the user's edit goes, the build writes it again
    assert _build(root, capsys)[0] == 0
    shutil.rmtree(root / "agent-configs/skills/release-notes")
    status, said = _build(root, capsys)
    assert status == 0
    assert "deleted .cursor/skills/release-notes/SKILL.md (no target builds it)" in said
    assert not (root / ".cursor/skills/release-notes").exists()  # its folders too
    assert (root / ".cursor/skills/sql-review/SKILL.md").is_file()


def test_a_fresh_clone_of_committed_placed_skills_builds(tmp_path, capsys):
    """No build log, the files as the build would write them: nothing of anyone's is lost."""
    root = _project(tmp_path, _target("w", "windsurf"))
    assert _build(root, capsys)[0] == 0
    shutil.rmtree(root / ".hotplex")
    status, said = _build(root, capsys)
    assert status == 0, said


@pytest.mark.parametrize(
    ("targets", "said", "unsaid"),
    [
        (  # Zed places skills in .agents/skills/, which Cursor lists too; Zed lists no other
            (("cu", "cursor"), ("z", "zed")),
            "target 'cu': Cursor also lists the skills that target 'z' places in .agents/skills/"
            " (incident-triage, release-notes, sql-review), a second copy of each; keep only one",
            "target 'z':",
        ),
        (
            (("z", "zed"), ("cx", "codex")),
            "target 'cx': Codex CLI also lists the skills that target 'z' places in"
            " .agents/skills/ (incident-triage, release-notes, sql-review), a second copy of"
            " each; set cwd on target 'cx' to a folder of its own",  # an editor has no cwd
            "target 'z':",
        ),
        (  # one folder for both: the gateway's copies replace the placed ones
            (("gh", "copilot"), ("cli", "copilot-cli")),
            "target 'gh': target 'cli' has its gateway place the same skills in .github/skills/",
            "keep only one",
        ),
    ],
)
def test_a_second_copy_of_the_placed_skills_is_named(tmp_path, capsys, targets, said, unsaid):
    root = _project(tmp_path, "".join(_target(name, worker) for name, worker in targets))
    status, out = _build(root, capsys)
    assert status == 0
    assert said in out
    assert unsaid not in out


@pytest.mark.parametrize(
    ("targets", "unsaid"),
    [
        # Zed's placed copies are Zed's, named by the second-copy warning, not raw skills
        ((("z", "zed"), ("cli", "copilot-cli")), ".agents/skills/sql-review/SKILL.md is a skill"),
        ((("z", "zed"), ("cx", "codex")), ".agents/skills/sql-review/SKILL.md is a skill"),
        # the copilot editor places .github/skills/; its own target has no gateway
        ((("cli", "copilot-cli"), ("gh", "copilot")), "target 'gh' has its gateway place"),
        ((("gh", "copilot"), ("cli", "copilot-cli")), ".github/skills/sql-review/SKILL.md is a"),
    ],
)
def test_the_skills_a_target_placed_are_named_as_its(tmp_path, capsys, targets, unsaid):
    """Once the editor's copies are on disk (the second build), a program listing them too is
    told they are that target's, never that they are raw skills or another target's copies."""
    root = _project(tmp_path, "".join(_target(name, worker) for name, worker in targets))
    assert _build(root, capsys)[0] == 0
    status, out = _build(root, capsys)
    assert status == 0
    assert "'z' places in .agents/skills/" in out or "'cli' has its gateway place" in out
    assert unsaid not in out
    assert cli.main(["-C", str(root), "check"]) == 0
    assert unsaid not in capsys.readouterr().err


def test_the_placer_of_a_skills_folder_is_the_first_editor_of_it(tmp_path):
    from hotplex.manifest import load as loading

    root = _project(
        tmp_path,
        _target("cli", "copilot-cli")
        + _target("gh", "copilot")
        + _target("cu", "cursor")
        + _target("cu2", "cursor", 'place = ".cursor/rules/other.mdc"\n'),
    )
    model = loading.load(root, root / "hotplex.toml")
    assert model.skills_placer(".github/skills/{name}") == "gh"  # not the gateway's folder
    assert model.skills_placer(".cursor/skills/{name}") == "cu"
    assert model.skills_placer(".kiro/skills/{name}") is None


def test_a_file_of_yours_in_a_placed_skill_folder_is_named(tmp_path, capsys):
    """The editor takes it as part of the skill: build and check name it, no-op build too."""
    root = _project(tmp_path, _target("cu", "cursor"))
    assert _build(root, capsys)[0] == 0
    notes = root / ".cursor/skills/release-notes/NOTES.md"
    notes.write_text("mine\n")
    said = (
        "target 'cu': .cursor/skills/release-notes/NOTES.md is not hotplex's: a file of your own"
        " in the folder hotplex places skill 'release-notes' in, which Cursor takes as part of"
        " the skill, raw (not checked or scanned); move it into the sources' skills/release-notes/"
    )
    status, out = _build(root, capsys)
    assert status == 0 and said in out
    assert "references/template.md is not" not in out  # the skill's own files are hotplex's
    (notes.parent / ".DS_Store").write_bytes(b"\0")  # hidden: no part of a skill, as in a build
    assert ".DS_Store" not in _build(root, capsys)[1]
    assert cli.main(["-C", str(root), "check"]) == 0
    assert said in capsys.readouterr().err
    deeper = root / ".cursor/skills/release-notes/references/mine/x.md"
    deeper.parent.mkdir()
    deeper.write_text("mine\n")
    status, out = _build(root, capsys)  # a no-op build: the folder's stamp moved
    assert status == 0 and "references/mine/x.md is not hotplex's" in out
    assert notes.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("worker", "folder"),
    [
        ("cursor", ".cursor/skills"),
        ("cursor", ".claude/skills"),
        ("cursor", ".codex/skills/group"),  # Cursor walks its skill folders recursively
        ("copilot", ".agents/skills"),
        ("junie", ".agents/skills"),
        ("kiro", ".kiro/skills"),
    ],
)
def test_a_skill_of_your_own_the_editor_also_lists_is_named(tmp_path, capsys, worker, folder):
    root = _project(tmp_path, _target("t", worker))
    own = root / folder / "mine/SKILL.md"
    own.parent.mkdir(parents=True)
    own.write_text("---\nname: mine\ndescription: Mine.\n---\nMy own.\n")
    status, said = _build(root, capsys)
    assert status == 0
    assert f"target 't': {folder}/mine/SKILL.md is a skill " in said
    assert "lists beside the compiled ones, raw (not checked or scanned)" in said
    assert cli.main(["-C", str(root), "check"]) == 0
    assert f"{folder}/mine/SKILL.md is a skill" in capsys.readouterr().err


def test_an_editor_without_skills_in_the_example_is_unchanged(tmp_path, capsys):
    """A project with no skills/ folder places nothing more than its rule file."""
    root = tmp_path / "editors"
    shutil.copytree(EXAMPLES / "editors", root)
    assert cli.main(["-C", str(root), "build"]) == 0
    capsys.readouterr()
    assert not any((root / f).exists() for f in (".cursor/skills", ".agents", ".kiro/skills"))


def test_two_targets_of_one_editor_place_the_skills_once(tmp_path, capsys):
    """One .cursor/skills/ per repository: the first target places them, the second says so
    (two would rewrite each other's files at every build, and check would never be current)."""
    second = _target("cu2", "cursor", 'place = ".cursor/rules/other.mdc"\n')
    root = _project(tmp_path, _target("cu", "cursor") + second)
    status, said = _build(root, capsys)
    assert status == 0
    assert "target 'cu' places the skills in .cursor/skills/, where Cursor loads them" in said
    marker = (root / ".cursor/skills/sql-review/SKILL.md").read_text()
    assert 'target "cu";' in marker
    status, said = _build(root, capsys)
    assert "up to date" in said or "unchanged" in said
    assert cli.main(["-C", str(root), "check"]) == 0


@pytest.mark.parametrize("logged", [True, False])
def test_a_symlinked_skills_folder_is_refused_at_the_target(tmp_path, capsys, logged):
    """Placed files go through real folders only, with or without the log's record of them
    (the record's were stat'ed first, and named as ``project.out``'s)."""
    root = _project(tmp_path, _target("cu", "cursor"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _build(root, capsys)[0] == 0
    shutil.rmtree(root / ".cursor/skills")
    if not logged:
        shutil.rmtree(root / ".hotplex")
    (root / ".cursor/skills").symlink_to(elsewhere)
    status, said = _build(root, capsys)
    assert status == 2
    assert "hotplex.toml: target[0]: '.cursor/skills' is a symlink: hotplex places" in said
    assert "hint: replace the symlink with a folder\n" in said  # no place to set
    assert "project.out" not in said and not list(elsewhere.iterdir())


def test_a_stale_placed_skill_in_a_fresh_clone_is_named(tmp_path, capsys):
    """No log to delete it by: its SKILL.md's marker names it, as a placed rule file's does."""
    root = _project(tmp_path, _target("k", "kiro"))
    assert _build(root, capsys)[0] == 0
    shutil.rmtree(root / ".hotplex")
    shutil.rmtree(root / "agent-configs/skills/sql-review")
    status, said = _build(root, capsys)
    assert status == 0
    assert (
        ".kiro/skills/sql-review/SKILL.md carries hotplex's marker for target 'k' of hotplex.toml,"
        " which places nothing there now"
    ) in said
    assert (root / ".kiro/skills/sql-review/SKILL.md").is_file()  # never deleted without the log


def _tree(root) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".hotplex" not in p.relative_to(root).parts
    }


def test_a_parallel_build_places_what_one_process_does(tmp_path, capsys, monkeypatch):
    """The pool's processes get each job as a copy of its target: the first target placing in
    a folder is found by name there, so a -j2 build places the skills (not "target 'cu' places
    the skills …" of itself), and an edit after a -j1 build is placed, not deleted as an orphan."""
    from hotplex.build import pool

    monkeypatch.setattr(pool, "JOBS_PER_PROCESS", 1)  # two jobs are enough for two processes
    targets = _target("cu", "cursor") + _target("pi", "pi") + _target("ki", "kiro")
    one, two = _project(tmp_path / "one", targets), _project(tmp_path / "two", targets)
    for root in (one, two):
        settle(root)
    assert _build(one, capsys, "-j1")[0] == _build(two, capsys, "-j1")[0] == 0
    for root in (one, two):
        source = root / "agent-configs/skills/sql-review/SKILL.md"
        source.write_text(source.read_text() + "edited\n")
        settle(root / "agent-configs")  # the no-op build below is not sent down the slow path
    status, said_two = _build(two, capsys, "-j2")
    assert status == 0, said_two
    assert "places none" not in said_two and "deleted" not in said_two
    said_one = _build(one, capsys, "-j1")[1]
    timed = re.compile(r"\([0-9.]+ s\)")
    assert timed.sub("", said_two.replace(str(two), "")) == timed.sub(
        "", said_one.replace(str(one), "")
    )
    assert _tree(two) == _tree(one)
    assert "edited\n" in (two / ".cursor/skills/sql-review/SKILL.md").read_text()
    assert "edited\n" in (two / ".kiro/skills/sql-review/SKILL.md").read_text()
    status, said = _build(two, capsys, "-j2")
    assert status == 0 and "0 rebuilt" in said, said
    assert cli.main(["-C", str(two), "check"]) == 0
    assert _tree(two) == _tree(one)


@pytest.mark.parametrize("skill_edited", [False, True])
def test_without_the_log_a_placed_skill_s_resource_is_vouched_for_by_its_marker(
    tmp_path, capsys, skill_edited
):
    """A resource file has no marker line: with ``.hotplex/`` deleted, its skill's placed
    SKILL.md, hotplex's by its marker, makes it hotplex's, and an edited source is placed; once
    that SKILL.md was edited by hand, the folder is the user's and nothing in it is overwritten."""
    root = _project(tmp_path, _target("cu", "cursor"))
    assert _build(root, capsys)[0] == 0
    shutil.rmtree(root / ".hotplex")
    if skill_edited:
        placed_skill = root / ".cursor/skills/release-notes/SKILL.md"
        placed_skill.write_text(placed_skill.read_text() + "mine\n")
    source = root / "agent-configs/skills/release-notes/references/template.md"
    source.write_text(source.read_text() + "more\n")
    status, said = _build(root, capsys)
    placed = root / ".cursor/skills/release-notes/references/template.md"
    if skill_edited:
        assert status == 2
        assert "'.cursor/skills/release-notes/references/template.md' exists and hotplex" in said
        assert placed.read_text() != source.read_text()
    else:
        assert status == 0, said
        assert placed.read_bytes() == source.read_bytes()
        assert cli.main(["-C", str(root), "check"]) == 0


def test_a_skill_folder_holding_its_source_s_bytes_is_taken_over(tmp_path, capsys):
    """What ``import`` leaves: the editor's folder it adopted, the same bytes as the new
    source, the SKILL.md but for the marker line. Nothing is lost by placing over it."""
    root = _project(tmp_path, _target("cu", "cursor"))
    shutil.copytree(root / "agent-configs/skills/sql-review", root / ".cursor/skills/sql-review")
    settle(root)
    status, said = _build(root, capsys)
    assert status == 0, said
    assert is_hotplex_file((root / ".cursor/skills/sql-review/SKILL.md").read_bytes())
    assert "0 rebuilt" in _build(root, capsys)[1]
    assert cli.main(["-C", str(root), "check"]) == 0


def test_an_edited_placed_skill_is_adopted_without_hotplex_s_marker_line(tmp_path, capsys):
    """The user's edit makes the skill theirs; the marker line says a build wrote it and would
    ship in every copy compiled from the sources (adversary 9, D10)."""
    root = _project(tmp_path, _target("cu", "cursor"))
    assert _build(root, capsys)[0] == 0
    other = tmp_path / "other"
    shutil.copytree(root / ".cursor", other / ".cursor")
    (other / "AGENTS.md").write_text("Rules.\n", encoding="utf-8")
    edited = other / ".cursor/skills/sql-review/SKILL.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "One more line.\n", encoding="utf-8")
    assert cli.main(["-C", str(other), "import"]) == 0
    said = capsys.readouterr().out
    assert "hotplex's marker line left out" in said
    adopted = [
        p for p in other.rglob("SKILL.md") if ".cursor" not in p.parts and "sql-review" in p.parts
    ]
    assert len(adopted) == 1, adopted
    text = adopted[0].read_text(encoding="utf-8")
    assert "hotplex: written by" not in text
    assert text.endswith("One more line.\n")
    source = (root / "agent-configs/skills/sql-review/SKILL.md").read_text(encoding="utf-8")
    assert text == source + "One more line.\n"
