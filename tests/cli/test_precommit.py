"""hotplex as a pre-commit hook: the real ``pre-commit`` installs this checkout's hooks (from its
``.pre-commit-hooks.yaml``) into its own virtualenv and runs them in a temporary git repository.

pre-commit installs a hook repository from a commit. ``try-repo`` on this checkout would commit
tracked files only (it runs ``git add -u``), so the hook repository is a snapshot of the working
tree (tracked and untracked, minus ignored files) committed in a temporary folder: the tests see
exactly the code under test. ``try-repo`` always installs into a fresh store (~6 s), so it runs
once; the other cases use a ``.pre-commit-config.yaml`` and a store shared by the session.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hotplex_testing import REPO

# The real pre-commit installs hotplex into its own environment: about ten seconds a test.
pytestmark = [pytest.mark.integration, pytest.mark.slow]

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "hotplex tests",
    "GIT_AUTHOR_EMAIL": "tests@hotplex.invalid",
    "GIT_COMMITTER_NAME": "hotplex tests",
    "GIT_COMMITTER_EMAIL": "tests@hotplex.invalid",
}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def _commit_all(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-verify", "-m", message)
    return _git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(path, commit) of a git repository holding this checkout's working tree."""
    if shutil.which("git") is None or not PRE_COMMIT.exists():
        pytest.skip("needs git and pre-commit")
    try:
        listed = _git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except subprocess.CalledProcessError:
        pytest.skip("this checkout is not a git repository")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():  # listed but deleted in the working tree: not part of it
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / rel)
    _git(snapshot, "init", "-q")
    return snapshot, _commit_all(snapshot, "snapshot of the working tree")


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PRE_COMMIT_HOME for the session: the hook's virtualenv is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _pre_commit(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "PRE_COMMIT_HOME": str(home),
        "NO_COLOR": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [str(PRE_COMMIT), *args, "--color", "never"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _project_repo(root: Path, hotplex, subfolder: Path) -> None:
    """A git repository whose project in ``subfolder`` is built and committed, dist included."""
    assert hotplex("-C", str(subfolder), "build").status == 0
    (root / ".gitignore").write_text(".hotplex/\n", encoding="utf-8")
    _git(root, "init", "-q")


def _stale_because(output: str, artifact: str, reason: str) -> bool:
    """``artifact`` is listed as stale with ``reason`` among its reasons.

    Only among them: the hook's hotplex is the snapshot's, the project was built by the working
    tree's, and the two differ when the tree changes during the session ("hotplex itself changed").
    """
    pattern = rf"^stale: {re.escape(artifact)} \((?:[^)\n]*; )?{re.escape(reason)}(?:; [^)\n]*)?\)$"
    return re.search(pattern, output, re.MULTILINE) is not None


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"\n{line}\n")


def test_try_repo_check_fails_with_the_stale_list_and_the_fix(
    hook_repo, example_copy, hotplex, tmp_path
):
    hooks, _rev = hook_repo
    root = example_copy("basic")
    _project_repo(root, hotplex, root)
    _append(root / "agent-configs" / "USER.md", "Prefers short answers.")
    _commit_all(root, "a source edited, artifacts not rebuilt")
    result = _pre_commit(
        root, tmp_path / "home", "try-repo", str(hooks), "hotplex-check", "--all-files"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "hotplex check" in out and "Failed" in out and "- exit code: 1" in out
    for job in ("cc/default", "cc/slack", "cc/feishu"):
        assert _stale_because(out, f"dist/{job}/prompt.xml", "agent-configs/USER.md changed")
    assert "hotplex: 6 artifact set(s) out of date; run: hotplex build" in out
    assert _git(root, "status", "--porcelain") == ""  # the check wrote nothing


def test_hooks_from_a_config_in_a_subfolder_project(hook_repo, store, example_copy, hotplex):
    hooks, rev = hook_repo
    basic = example_copy("basic")
    repo = basic.parent / "repo"
    project = repo / "agents"
    repo.mkdir()
    shutil.move(basic, project)
    _project_repo(repo, hotplex, project)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"-   repo: {hooks}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        "    -   id: hotplex-build\n"
        "        args: [-C, agents]\n"
        "    -   id: hotplex-check\n"
        "        args: [-C, agents]\n",
        encoding="utf-8",
    )
    _commit_all(repo, "project and hooks")

    current = _pre_commit(repo, store, "run", "hotplex-check", "--all-files")
    assert current.returncode == 0, current.stdout + current.stderr
    assert "hotplex check" in current.stdout and "Passed" in current.stdout

    _append(project / "agent-configs" / "SOUL.md", "Answers in haiku.")
    stale = _pre_commit(repo, store, "run", "hotplex-check", "--all-files")
    assert stale.returncode == 1
    assert _stale_because(stale.stdout, "dist/cc/slack/prompt.xml", "agent-configs/SOUL.md changed")
    assert "run: hotplex -C agents build" in stale.stdout

    rebuilt = _pre_commit(repo, store, "run", "hotplex-build", "--all-files")
    assert rebuilt.returncode == 1, rebuilt.stdout + rebuilt.stderr
    assert "files were modified by this hook" in rebuilt.stdout
    assert "Answers in haiku." in (project / "dist/cc/slack/prompt.xml").read_text("utf-8")
    changed = _git(repo, "status", "--porcelain").splitlines()
    assert " M agents/dist/ocs/feishu/payload.json" in changed

    again = _pre_commit(repo, store, "run", "hotplex-build", "--all-files")
    assert again.returncode == 0, again.stdout + again.stderr
    assert _pre_commit(repo, store, "run", "hotplex-check", "--all-files").returncode == 0
