"""The newcomer test: the steps "Writing a worker" lists for adding a worker, performed exactly as
written in a scratch copy of the repository, are all the suites need.

The steps are read from the developers' guide, each step's first repository path telling what it
edits (a folder: the worker's module goes there; a Python file: the registry's line; a manifest:
a target; a Markdown file: the worker's rows; a ``python …`` command: run). The test knows how
to make each kind of edit and nothing of which files: a step it cannot perform fails it, a file
the suites need that no step names fails the contract, CLI or golden suite, and a file touched
that no step names, or a count of files other than the one the guide states, fails here. It adds
a home-document worker and a gateway worker without sub-agents, one after the other.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hotplex_testing import DEVELOPERS_GUIDE, REPO

pytestmark = pytest.mark.slow

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}

# What a newcomer writes for each kind of worker: the module, and the worker's README rows.
WORKERS = {
    "brief-cli": (
        "brief_cli",
        "BriefCli",
        '''"""Brief CLI: the document as the home file BRIEF_HOME points to."""

from __future__ import annotations

from hotplex.targets.home import HomeDocument
from hotplex.worker import Verified


class BriefCli(HomeDocument):
    name = "brief-cli"
    program = "brief"
    home_variable = "BRIEF_HOME"
    home_dir = "brief-home"
    home_file = "BRIEF.md"
    init_target = ("brief", "prompt.xml as brief-home/BRIEF.md")
    delivery = "a test's worker"
    verified = Verified("A test's program", None, "tests/workers/test_contract.py")
''',
    ),
    "relay": (
        "relay",
        "Relay",
        '''"""Relay: a gateway's program taking the document as the JSON field ``instructions``; it
has no sub-agents."""

from __future__ import annotations

from hotplex.targets.gateway import Gateway, json_field
from hotplex.worker import Verified


class Relay(Gateway):
    name = "relay"
    document_file = "relay.json"
    init_target = ("relay", "relay.json: the document as a JSON field")
    delivery = "a test's worker"
    verified = Verified("A test's program", None, "tests/workers/test_contract.py")

    def document_bytes(self, data: bytes) -> bytes:
        return json_field({}, "instructions", data)
''',
    ),
}


def _section() -> str:
    text = DEVELOPERS_GUIDE.read_text(encoding="utf-8")
    return text[text.index("**Adding a worker**") :]


def steps() -> list[str]:
    """The numbered steps after "**Adding a worker**", each as one line of text."""
    found: list[str] = []
    for line in _section().splitlines()[1:]:
        if re.match(r"\d+\. ", line):
            found.append(line.split(". ", 1)[1])
        elif found and line.startswith("   "):
            found[-1] += " " + line.strip()
        elif found:
            break
    return found


def stated_count() -> tuple[int, int]:
    """The hand-written and regenerated files the guide says adding a worker takes."""
    said = re.search(r"takes (\w+)\s+hand-written files? and (\w+) regenerated", _section())
    assert said, "the guide states how many files adding a worker takes"
    return NUMBERS[said.group(1)], NUMBERS[said.group(2)]


def _first_path(step: str, root: Path) -> str | None:
    for ticked in re.findall(r"`([^`]+)`", step):
        if ticked.startswith("python "):
            return ticked
        if (root / ticked).exists():
            return ticked
    return None


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _perform(step: str, root: Path, name: str, python: Path, env: dict[str, str]) -> list[str]:
    """Do ``step`` for the worker ``name`` as a newcomer would; the paths it edited."""
    module, cls, source = WORKERS[name]
    path = _first_path(step, root)
    assert path is not None, f"a step names no file of the repository: {step}"
    if path.startswith("python "):
        argv = [str(python), *path.split()[1:]]
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-3000:]
        return [path]
    target = root / path
    if target.is_dir():  # the worker's module goes in this folder
        (target / f"{module}.py").write_text(source, encoding="utf-8")
    elif target.suffix == ".py" and "BUILT_IN = (" in target.read_text(encoding="utf-8"):
        text = target.read_text(encoding="utf-8")
        at = text.index("\n)\n", text.index("BUILT_IN = ("))
        line = f'\n    ("{name}", "hotplex.targets.{module}:{cls}"),'
        target.write_text(text[:at] + line + text[at:], encoding="utf-8")
    elif target.suffix == ".toml":
        with target.open("a", encoding="utf-8") as manifest:
            manifest.write(f'\n[[target]]\nname = "{name}"\nworker = "{name}"\n')
    elif target.suffix == ".md":
        return _page_rows(step, root, name, python, env)
    else:
        pytest.fail(f"the test cannot perform this step: {step}")
    return [path]


def _page_rows(step: str, root: Path, name: str, python: Path, env: dict[str, str]) -> list[str]:
    """The worker's rows in the pages the step names: the worker table (as the generator the
    step names prints it) and the ``worker =`` list; a table of programs loading files by
    themselves or of placed files applies to neither test worker."""
    edited = []
    for ticked in re.findall(r"`([^`]+)`", step):
        page = root / ticked
        if page.suffix != ".md" or not page.is_file():
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        if any(line.startswith("| worker | artifact |") for line in lines):
            _replace_worker_table(lines, root, python, env)
        elif any(line.startswith("worker = ") and "# " in line for line in lines):
            at = next(i for i, line in enumerate(lines) if line.startswith("worker = "))
            while lines[at + 1].lstrip().startswith("# |"):
                at += 1
            lines[at] += f" | {name}"
        else:
            continue
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")
        edited.append(ticked)
    assert edited, f"the step names no page the test can edit: {step}"
    return edited


def _replace_worker_table(lines: list[str], root: Path, python: Path, env: dict[str, str]) -> None:
    """The README's worker table, replaced by what ``docs/hooks.py``'s ``worker_table()``
    prints with the new worker registered."""
    table = (
        subprocess.run(
            [
                str(python),
                "-c",
                "import runpy; print(runpy.run_path('docs/hooks.py')['worker_table']())",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()
    )
    header = next(i for i, line in enumerate(lines) if line.startswith("| worker | artifact |"))
    last = next(
        (i for i in range(header + 2, len(lines)) if not lines[i].startswith("|")), len(lines)
    )
    lines[header:last] = table


def _changed(root: Path) -> list[str]:
    status = _git(root, "status", "--porcelain", "--untracked-files=all")
    return sorted(line[3:] for line in status.splitlines())


def _scratch(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the working tree, a git repository of its own, installed in editable mode in
    a virtual environment that borrows this one's packages."""
    root = tmp_path / "repo"
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        if (REPO / rel).is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, root / rel)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "before")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "-e",
            str(root),
        ],
        capture_output=True,
        check=True,
    )
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    return root, python, env


def test_the_steps_of_writing_a_worker_are_all_a_worker_needs(tmp_path):
    root, python, env = _scratch(tmp_path)
    hand_written, regenerated = stated_count()
    for name in WORKERS:
        edited = [p for step in steps() for p in _perform(step, root, name, python, env)]
        changed = _changed(root)
        named = [p for p in edited if not p.startswith("python ")]
        unnamed = [c for c in changed if not any(c == p or c.startswith(p) for p in named)]
        snapshots = [c for c in unnamed if "/__snapshots__/" in c]
        assert [c for c in unnamed if c not in snapshots] == [], "touched, named by no step"
        assert (len(changed) - len(snapshots), len(snapshots)) == (hand_written, regenerated)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", name)
    suites = [
        "tests/workers/test_contract.py",
        "tests/cli",
        "tests/golden",
        "tests/docs/test_worker_lists.py",
        "tests/docs/test_tables.py",
    ]
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-x", "-m", "not slow", *suites],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:]
