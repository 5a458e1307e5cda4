"""Paths stay inside the project, special files are refused, huge files are read only as far as
the limits can use, and ``clean`` never deletes outside the artifact folder."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path, PurePosixPath

import pytest
from hotplex import fs
from hotplex.build import Request, run
from hotplex.commands.clean import clean
from hotplex.errors import HotplexError, Span
from hotplex.sources.inputs import READ_FLOOR

MANIFEST = """\
[[target]]
name = "cc"
worker = "claude-code"
"""
SPAN = Span("hotplex.toml", key="source[0].file")


def build_error(root: Path) -> str:
    with pytest.raises(HotplexError) as caught:
        run(Request(root))
    return caught.value.render()


@pytest.mark.parametrize(
    ("rel", "message"),
    [
        ("../outside.md", "path '../outside.md' escapes its folder with '..'"),
        ("a/../../b.md", "path 'a/../../b.md' escapes its folder with '..'"),
        ("/etc/passwd", "absolute path '/etc/passwd' is not allowed"),
        ("C:\\notes.md", "absolute path 'C:\\notes.md' is not allowed"),
        ("..\\up.md", "path '..\\up.md' escapes its folder with '..'"),
        ("SOUL\0.md", "path 'SOUL\\x00.md' contains a NUL character"),
        ("  ", "empty path"),
    ],
)
def test_relative_paths_only(rel, message):
    with pytest.raises(HotplexError) as caught:
        fs.check_relative(rel, SPAN)
    assert caught.value.problems[0].message == message


def test_an_include_cannot_climb_out_of_the_sources(make_project):
    root = make_project(
        {"agent-configs/SOUL.md": 'Hi.\n{% include "../hotplex.toml" %}\n'}, manifest=MANIFEST
    )
    assert build_error(root).startswith(
        "agent-configs/SOUL.md:2:1: path '../hotplex.toml' escapes its folder with '..'"
    )


@pytest.mark.parametrize("target", ["/etc/passwd", "/dev/zero", "../../outside.md"])
def test_a_symlink_leaving_the_project_is_refused(make_project, tmp_path, target):
    (tmp_path / "outside.md").write_text("secret plans\n")
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    os.symlink(target, root / "agent-configs/MEMORY.md")
    real = os.path.realpath(root / "agent-configs/MEMORY.md")
    shown = os.path.relpath(real, os.path.realpath(root))
    assert build_error(root) == (
        f"hotplex.toml: project.sources: 'agent-configs/MEMORY.md' resolves to '{shown}', "
        "outside the project (a symlink leaving it)"
    )


def test_a_symlink_inside_the_project_is_followed(make_project):
    root = make_project({"notes/memory.md": "Remembered.\n"}, manifest=MANIFEST)
    (root / "agent-configs").mkdir()
    os.symlink("../notes/memory.md", root / "agent-configs/MEMORY.md")
    run(Request(root))
    assert "Remembered." in (root / "dist/cc/default/prompt.xml").read_text()


def test_a_fifo_is_refused_without_blocking(make_project):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    os.mkfifo(root / "agent-configs/USER.md")
    assert build_error(root) == (
        "hotplex.toml: project.sources: 'agent-configs/USER.md' is a FIFO (named pipe), "
        "not a regular file"
    )


def test_a_device_is_refused(make_project):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    try:  # the character device /dev/zero is (1, 5) on Linux; creating one needs CAP_MKNOD
        os.mknod(root / "agent-configs/USER.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, AttributeError):
        pytest.skip("cannot create a device node here")
    assert "'agent-configs/USER.md' is a device, not a regular file" in build_error(root)


def test_a_directory_where_a_file_belongs_is_named(make_project):
    root = make_project({"agent-configs/USER.md/notes.txt": "x"}, manifest=MANIFEST)
    assert "'agent-configs/USER.md' is a directory" in build_error(root)


def test_a_symlink_loop_is_an_error_not_a_crash(make_project):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    os.symlink("USER.md", root / "agent-configs/loop.md")
    os.symlink("loop.md", root / "agent-configs/USER.md")
    assert "cannot read 'agent-configs/USER.md': Too many levels of symbolic links" in build_error(
        root
    )


def test_a_one_gigabyte_file_is_read_only_as_far_as_the_limits_can_use(make_project):
    """A sparse 1 GB MEMORY.md with text at its start: the build reads about a megabyte, reports
    the cut, and takes a fraction of a second rather than the time to read a gigabyte."""
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    memory = root / "agent-configs/MEMORY.md"
    with memory.open("wb") as handle:
        handle.write(("Remember the rollout plan. 记住。\n" * 50_000).encode())
        handle.truncate(1 << 30)
    started = time.perf_counter()
    outcome = run(Request(root))
    elapsed = time.perf_counter() - started
    (read_cut, limit_cut) = outcome.jobs[0].truncations
    assert (read_cut.limit, read_cut.before, read_cut.unit) == ("read", 1 << 30, "bytes")
    assert READ_FLOOR - 4 <= read_cut.after <= READ_FLOOR
    assert (limit_cut.limit, limit_cut.after) == ("per_file", 8000)
    assert elapsed < 5, f"the build took {elapsed:.1f} s: did it read the whole gigabyte?"


def test_a_file_of_nul_bytes_is_refused_as_binary(make_project):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    with (root / "agent-configs/MEMORY.md").open("wb") as handle:
        handle.truncate(1 << 30)
    assert build_error(root).startswith(
        "agent-configs/MEMORY.md:1:1: a NUL character: this looks like a binary file"
    )


@pytest.mark.parametrize(
    ("project", "message"),
    [
        ('sources = "agent-configs"\nout = "agent-configs"', "must not be or contain"),
        ('sources = "gen/src"\nout = "gen"', "must not be or contain"),
        ('sources = "."\nout = "."', "must not be or contain"),
        ('out = "../dist"', "path '../dist' escapes the project with '..'"),
        ('out = "dist/../../dist"', "path 'dist/../../dist' escapes the project with '..'"),
        ('out = "dist/.."', "must not be or contain"),  # the project itself, once normalised
        ('out = "x/../agent-configs"', "must not be or contain"),
        ('out = "/tmp/dist"', "absolute path '/tmp/dist' is not allowed"),
    ],
)
def test_the_artifact_folder_must_not_hold_the_sources_or_leave_the_project(
    make_project, project, message
):
    root = make_project(manifest=f"[project]\n{project}\n\n{MANIFEST}")
    error = build_error(root)
    assert error.startswith("hotplex.toml: project.") and message in error


def test_an_artifact_folder_with_dot_dot_inside_the_project_is_normalised(make_project, hotplex):
    """``dist/../out2`` stays in the project: it is ``out2``, not an escape."""
    root = make_project(
        {"agent-configs/SOUL.md": "Hi.\n"}, f'[project]\nout = "dist/../out2"\n\n{MANIFEST}'
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert (root / "out2").is_dir() and not (root / "dist").exists()


def test_an_artifact_folder_symlinked_onto_the_sources_is_refused(make_project):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    os.symlink("agent-configs", root / "dist")
    assert "hotplex.toml: project.out: the artifact folder 'dist' resolves to" in build_error(root)
    assert sorted(p.name for p in (root / "agent-configs").iterdir()) == ["SOUL.md"]


def test_an_artifact_folder_symlinked_out_of_the_project_is_refused(make_project, tmp_path):
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "dist")
    assert "outside the project" in build_error(root)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def _built(make_project) -> Path:
    root = make_project({"agent-configs/SOUL.md": "Hi.\n"}, manifest=MANIFEST)
    run(Request(root))
    return root


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_clean_removes_the_artifacts_and_nothing_else(make_project):
    root = _built(make_project)
    (root / "dist/README.md").write_text("mine\n")
    assert clean(root, None) == ["dist/cc/default/launch.json", "dist/cc/default/prompt.xml"]
    assert _tree(root / "dist") == ["README.md"]
    assert (root / "agent-configs/SOUL.md").exists()


def test_clean_never_follows_a_symlinked_folder_out_of_the_project(make_project, tmp_path):
    root = _built(make_project)
    outside = tmp_path / "outside"
    (root / "dist/cc").rename(outside)  # the job folder now lives outside, reached by a link
    os.symlink(outside, root / "dist/cc")
    (outside / "default/precious.txt").write_text("keep me\n")
    before = _tree(outside)
    assert clean(root, None) == []
    assert _tree(outside) == before


def test_clean_with_the_artifact_folder_linked_outside_deletes_nothing(make_project, tmp_path):
    root = _built(make_project)
    outside = tmp_path / "outside"
    (root / "dist").rename(outside)
    os.symlink(outside, root / "dist")
    before = _tree(outside)
    assert clean(root, None) == []
    assert _tree(outside) == before


def test_clean_ignores_a_log_naming_files_outside_the_artifact_folder(make_project):
    """The build log is a file anyone can edit; clean trusts only paths under `out`."""
    root = _built(make_project)
    log = next((root / ".hotplex").glob("log*"))
    original = log.read_text()
    text = original.replace("dist/cc/default/launch.json", "agent-configs/SOUL.md")
    assert text != original
    log.write_text(text)
    assert "agent-configs/SOUL.md" not in clean(root, None)
    assert (root / "agent-configs/SOUL.md").exists()


def test_confine_resolves_relative_to_the_real_root(tmp_path):
    real = tmp_path / "real"
    (real / "a").mkdir(parents=True)
    os.symlink(real, tmp_path / "alias")
    assert fs.confine(tmp_path / "alias", PurePosixPath("a"), SPAN) == tmp_path / "alias/a"


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_manifest_that_is_a_device_or_a_fifo_is_refused_without_hanging(tmp_path, special):
    path = Path(special)
    if special == "fifo":
        path = tmp_path / "hotplex.toml"
        os.mkfifo(path)
    with pytest.raises(HotplexError) as caught:
        run(Request(tmp_path, manifest=path))
    assert "not a regular file" in caught.value.render()


def test_a_file_name_that_is_not_utf8_is_warned_about_visibly_and_never_crashes(
    make_project, hotplex
):
    """Python reads the byte 0xFF of a name as U+DCFF, which no log, pipe or artifact takes."""
    root = make_project(
        {"SOUL.md": "Persona.\n", "bad\udcff.md": "x\n"},
        manifest='[project]\nsources = "."\n\n[[target]]\nname = "cc"\nworker = "claude-code"\n',
    )
    first = hotplex("build", cwd=root)
    assert first.status == 0, first.stderr
    assert "bad<U+DCFF>.md is read by no artifact" in first.stderr
    again = hotplex("build", "--json", cwd=root)
    assert again.status == 0, again.stderr
    report = json.loads(again.stdout)
    assert any(w.startswith("bad<U+DCFF>.md") for w in report["warnings"])  # as printed
    assert hotplex("check", cwd=root).status == 0
    assert hotplex("stats", cwd=root).status == 0
