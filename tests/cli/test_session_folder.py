"""A target's session folder (``cwd``): one folder however the manifest spells it, worked out
against the project once, and a key only a worker whose program hotplex starts takes."""

from __future__ import annotations

import json
import os

import pytest

SOUL = {"agent-configs/SOUL.md": "S\n"}


def launch(root, target: str) -> dict:
    return json.loads((root / f"dist/{target}/default/launch.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("cwd", ["sub", "./sub/", "../project/sub", "../project/x/../sub"])
def test_a_session_folder_inside_the_project_is_one_however_it_is_reached(
    make_project, hotplex, cwd
):
    """Named from outside the project (``../project/sub``), the folder is still inside it: the
    AGENTS.md above it reaches Qwen Code raw, and launch.json names the folder one way."""
    manifest = (
        '[[source]]\nname = "rules"\nfile = "../AGENTS.md"\n'
        f'[[target]]\nname = "q"\nworker = "qwen-code"\ncwd = "{cwd}"\n'
    )
    root = make_project({**SOUL, "AGENTS.md": "raw\n", "sub/.keep": ""}, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    assert "Qwen Code also reads AGENTS.md by itself from its session folder 'sub'" in done.stderr
    assert launch(root, "q")["cwd"] == "sub"
    assert launch(root, "q")["env"]["QWEN_HOME"] == "../dist/q/default/qwen-home"
    stats = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)
    assert stats["artifacts"][0]["copies"].startswith("a raw copy too: Qwen Code reads AGENTS.md")


def test_a_session_folder_that_climbs_back_into_the_project_is_the_project(make_project, hotplex):
    manifest = (
        '[[source]]\nname = "rules"\nfile = "../AGENTS.md"\n'
        '[[target]]\nname = "cl"\nworker = "cline"\ncwd = "../project"\n'
    )
    root = make_project({**SOUL, "AGENTS.md": "raw\n"}, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    assert launch(root, "cl")["cwd"] == "."
    assert "Cline also reads AGENTS.md by itself from its session folder '.'" in done.stderr
    assert "out of the session folder" not in done.stderr


@pytest.mark.parametrize(
    ("link", "points_to", "cwd", "itself"),
    [
        ("session", "elsewhere/deep/run", "../session", "../elsewhere/deep/run"),
        ("session", "project/sub", "../session", "sub"),
        ("session", "project", "../session/", "."),
        ("project/link", "elsewhere/deep/run", "link/..", "../elsewhere/deep"),
        ("project/link", "elsewhere/deep/run", "link", "../elsewhere/deep/run"),
    ],
)
def test_a_session_folder_through_a_symlink_is_refused_with_its_own_name(
    make_project, hotplex, tmp_path, link, points_to, cwd, itself
):
    """A process's working folder is the physical one: launch.json's way back, counted from the
    link's name, would name nothing there (Pi would append the path as text). The hint's
    spelling builds, and its paths lead back to the project from the real folder."""
    manifest = f'[[target]]\nname = "pi"\nworker = "pi"\ncwd = "{cwd}"\n'
    root = make_project({**SOUL, "sub/.keep": ""}, manifest)
    (tmp_path / "elsewhere/deep/run").mkdir(parents=True)
    os.symlink(tmp_path / points_to, tmp_path / link)
    for command in ("build", "check"):
        done = hotplex("-C", str(root), command)
        assert done.status == 2, done.stderr
        assert f"target[0].cwd: cwd '{cwd}' passes through a symlink" in done.stderr
        assert f'hint: name that folder itself: cwd = "{itself}"' in done.stderr
    assert not (root / "dist").exists()
    (root / "hotplex.toml").write_text(manifest.replace(f'"{cwd}"', f'"{itself}"'))
    assert hotplex("-C", str(root), "build").status == 0
    started = launch(root, "pi")
    prompt = os.path.join(root, started["cwd"], started["argv"][2])
    assert os.path.realpath(prompt) == str(root / "dist/pi/default/pi/APPEND_SYSTEM.md")


@pytest.mark.parametrize("worker", ["junie", "cursor", "zed", "aider", "openclaw"])
@pytest.mark.parametrize("cwd", [".", "./", "sub/..", "elsewhere"])
def test_cwd_on_a_worker_without_a_session_folder_is_refused_however_spelt(
    make_project, hotplex, worker, cwd
):
    """The project itself written as ``"."`` is still a key the worker does not take."""
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\ncwd = "{cwd}"\n'
    done = hotplex("-C", str(make_project(SOUL, manifest)), "check")
    assert done.status == 2, done.stderr
    assert f"target[0].cwd: 'cwd' does not apply to worker '{worker}'" in done.stderr
