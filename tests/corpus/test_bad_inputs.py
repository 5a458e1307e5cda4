"""The bad-input corpus: every broken project gets one clear message, its place, its exit status,
never a traceback, and the artifacts of the last good build stay exactly as they were.

Each folder of ``tests/bad_inputs/`` (but ``_base``) is one case: the files it lays over a copy of
``_base`` (a good project, built first) and ``expected.toml``::

    status = 2                                  # the exit status
    place = "agent-configs/USER.md:3:13"        # how the problem's line starts: file:line:col,
                                                # "file: key.path", or "" for no place
    message = "undefined variable 'teem'"       # part of that same line
    hint = "did you mean 'team'?"               # optional: the hint printed under it
    remove = ["agent-configs/USER.md"]          # optional: base files the case deletes first
    fifos = ["agent-configs/USER.md"]           # optional: named pipes to create
    [symlinks]                                  # optional: links to create (link = "target")
    "agent-configs/MEMORY.md" = "/dev/zero"

Special files are made by the test, so the repository holds none; ``@FAKE:<rule>@`` in a case
file becomes a credential-shaped fake (``hotplex_testing.FAKE_SECRETS``) for the same reason, and
``@U+202E@`` the character itself, so no file of the repository hides text from its reviewers.

The corpus runs through ``hotplex.cli.main``, the function the installed ``hotplex`` script runs
(``cli.run``), in-process (one case takes milliseconds, not a process start); the last test runs the
real installed command on a few cases to show the two agree.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from hotplex import cli
from hotplex_testing import FAKE_SECRETS, REPO, run_hotplex

CORPUS = REPO / "tests" / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))
FAKE = re.compile(rb"@FAKE:([a-z-]+)@")
CODE_POINT = re.compile(rb"@U\+([0-9A-F]{4,6})@")


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and mtime: what "unchanged" means."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad-inputs") / "base"
    shutil.copytree(CORPUS / "_base", root)
    assert cli.main(["-C", str(root), "build"]) == 0
    return root


def _lay_over(case: Path, root: Path, expected: dict) -> None:
    for rel in expected.get("remove", []):
        target = root / rel
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    for path in sorted(case.rglob("*")):
        rel = path.relative_to(case)
        if path.is_dir() or str(rel) == "expected.toml":
            continue
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        data = FAKE.sub(lambda m: FAKE_SECRETS[m.group(1).decode()].encode(), path.read_bytes())
        data = CODE_POINT.sub(lambda m: chr(int(m.group(1), 16)).encode(), data)
        (root / rel).write_bytes(data)
    for link, target in expected.get("symlinks", {}).items():
        (root / link).unlink(missing_ok=True)
        os.symlink(target, root / link)
    for fifo in expected.get("fifos", []):
        (root / fifo).unlink(missing_ok=True)
        os.mkfifo(root / fifo)


def _prepare(name: str, built_base: Path, tmp_path: Path) -> tuple[Path, dict]:
    case = CORPUS / name
    expected = tomllib.loads((case / "expected.toml").read_text(encoding="utf-8"))
    root = tmp_path / name
    shutil.copytree(built_base, root, symlinks=True)
    _lay_over(case, root, expected)
    return root, expected


def _check_output(stderr: str, expected: dict) -> None:
    place, message = expected["place"], expected["message"]
    lines = stderr.splitlines()
    head = f"{place}: " if place else ""
    matching = [i for i, line in enumerate(lines) if line.startswith(head) and message in line]
    assert matching, f"no line starting {head!r} with {message!r} in:\n{stderr}"
    if "hint" in expected:
        assert f"  hint: {expected['hint']}" in lines[matching[0] :], stderr


def test_the_corpus_is_large_and_every_case_is_specified():
    assert len(CASES) >= 40
    for name in CASES:
        expected = tomllib.loads((CORPUS / name / "expected.toml").read_text(encoding="utf-8"))
        assert expected["status"] in (1, 2) and expected["message"], name


@pytest.mark.parametrize("name", CASES)
def test_bad_input(name, built_base, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("HOTPLEX_DEBUG", raising=False)
    root, expected = _prepare(name, built_base, tmp_path)
    before = _snapshot(root / "dist")
    assert before, "the base build wrote no artifacts to compare with"
    status = cli.main(["-C", str(root), "build"])
    out, err = capsys.readouterr()
    assert status == expected["status"], err
    assert "Traceback" not in out + err and "internal error" not in err
    _check_output(err, expected)
    assert _snapshot(root / "dist") == before, "the failed build changed the last good artifacts"


@pytest.mark.parametrize(
    "name",
    [
        "manifest-unknown-worker",
        "path-fifo",
        "secret-anthropic-key-in-memory",
        "hidden-tag-characters-in-memory",
    ],
)
def test_the_installed_command_says_the_same(name, built_base, tmp_path):
    root, expected = _prepare(name, built_base, tmp_path)
    result = run_hotplex("-C", str(root), "build")
    assert result.status == expected["status"]
    assert "Traceback" not in result.stdout + result.stderr
    _check_output(result.stderr, expected)


def test_an_unexpected_exception_is_an_internal_error_with_a_hint(
    built_base, tmp_path, capsys, monkeypatch
):
    """A bug must reach the user as one short line and exit 3, never as a traceback."""
    from hotplex import build

    def broken(request):
        raise KeyError("jobs")

    monkeypatch.setattr(build, "run", broken)
    monkeypatch.setattr(build, "up_to_date", broken)  # the no-op path, taken first
    monkeypatch.delenv("HOTPLEX_DEBUG", raising=False)
    assert cli.main(["-C", str(built_base), "build"]) == 3
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert err.startswith("hotplex: internal error: KeyError: 'jobs'\n")
    assert "HOTPLEX_DEBUG=1" in err
    monkeypatch.setenv("HOTPLEX_DEBUG", "1")
    with pytest.raises(KeyError):  # and the traceback is there for whoever asks
        cli.main(["-C", str(built_base), "build"])


def test_a_manifest_saved_with_a_byte_order_mark_is_not_bad_input(built_base, tmp_path, capsys):
    """Windows editors write one; sources have always been read past it, and so is the manifest."""
    root = tmp_path / "bom"
    shutil.copytree(built_base, root, symlinks=True)
    manifest = root / "hotplex.toml"
    manifest.write_bytes(b"\xef\xbb\xbf" + manifest.read_bytes())
    assert cli.main(["-C", str(root), "build"]) == 0, capsys.readouterr().err
