"""The curl lines of the ``hotplex serve`` guide (docs/pages/guides/serve.md, moved there from the
README), run as written against a live server on a copy of examples/basic: each gets the status
its comment says, and every route has a line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hotplex.serve.app import ROUTES
from hotplex_testing import REPO, copy_example
from serving import running

GUIDE = REPO / "docs/pages/guides/serve.md"
GUIDE_URL = "http://127.0.0.1:8765"
ASSIGNMENT = re.compile(r"^(\w+)=\$\((.*)\)$")
STATUS = re.compile(r"\s+#\s*(\d{3})\b.*$")


def _section() -> str:
    """The guide's part on the calls; the Go client's part after it runs in test_go_client."""
    text = GUIDE.read_text(encoding="utf-8")
    return text[: text.index("\n## `hotplex serve` from Go")]


def sh_blocks(text: str) -> list[list[str]]:
    """Each ```sh block's lines in ``text``, continuation lines joined."""
    return [
        body.replace("\\\n", "").splitlines() for body in re.findall(r"```sh\n(.*?)```", text, re.S)
    ]


def _blocks() -> list[list[str]]:
    return sh_blocks(_section())


def commands(blocks: list[list[str]]) -> str:
    """The curl lines and assignments of all ``blocks``, in one line (to look for a route)."""
    return " ".join(c for block in blocks for c in _commands(block))


def _commands(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("curl ") or ASSIGNMENT.match(line)]


def _run(lines: list[str], url: str, cwd: Path) -> list[tuple[str, int, int, str]]:
    """Each curl line's (line, status expected, status got, output); an assignment's value is
    kept for the lines after it, as a shell would."""
    env: dict[str, str] = {}
    done = []
    for line in _commands(lines):
        command = line.replace(GUIDE_URL, url)
        assigned = ASSIGNMENT.match(command)
        if assigned:
            value = _bash(assigned.group(2), env, cwd)
            env[assigned.group(1)] = value.stdout
            continue
        expected = STATUS.search(command)
        assert expected, f"no status in the comment of: {line}"
        command = STATUS.sub("", command) + " -w '\\n%{http_code}'"
        out = _bash(command, env, cwd).stdout
        body, _, code = out.rpartition("\n")
        done.append((line, int(expected.group(1)), int(code), body))
    return done


def _bash(command: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=60,
    )
    assert result.returncode == 0, f"{command}\n{result.stderr}"
    return result


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example(tmp_path)


def test_every_route_has_a_curl_line() -> None:
    lines = commands(_blocks())
    for route in ROUTES:
        assert route.path.split("{")[0] in lines, route.path


# The routes of each guide but the serve guide's (every route, above): each has a curl line.
GUIDE_ROUTES = {
    "memory-compaction.md": ("/v1/memory/compact ", "/v1/memory/compact/request"),
    "learning.md": ("/v1/learn ", "/v1/learn/request"),
}


@pytest.mark.parametrize(("guide", "routes"), GUIDE_ROUTES.items())
def test_each_route_of_a_guide_has_a_curl_line(guide: str, routes: tuple[str, ...]) -> None:
    lines = commands(sh_blocks((GUIDE.parent / guide).read_text(encoding="utf-8")))
    for route in routes:
        assert route in lines


# CI installs curl (Debian's package); elsewhere a machine without it skips, saying so.
needs_curl = pytest.mark.skipif(
    shutil.which("curl") is None and not os.environ.get("CI"), reason="curl is not installed"
)


def served_answers(guide: Path, example: str, tmp_path: Path) -> list[tuple[str, str]]:
    """Each curl line of ``guide``'s sh blocks and its output, run against a server on a copy
    of examples/``example``: each line gets the status its comment says, and some output."""
    answers = []
    with running(copy_example(tmp_path, example)) as server:
        for block in sh_blocks(guide.read_text(encoding="utf-8")):
            for line, expected, got, body in _run(block, server.url, tmp_path):
                assert got == expected, f"{line}\n{body}"
                assert body, line
                answers.append((line, body))
    return answers


@needs_curl
def test_the_guide_curl_lines_answer_as_documented(project: Path, tmp_path: Path) -> None:
    blocks = _blocks()
    plain = [b for b in blocks if not any("--token-file" in line for line in b)]
    guarded = [b for b in blocks if any("--token-file" in line for line in b)]
    assert guarded, "the guide shows a server with a token"
    with running(project) as server:
        for block in plain:
            for line, expected, got, body in _run(block, server.url, tmp_path):
                assert got == expected, f"{line}\n{body}"
                assert body or got == 304, line
    token = tmp_path / "token"
    token.write_text("readme-token-0123456789abcdef\n", encoding="utf-8")
    with running(project, "--token-file", str(token)) as server:
        for block in guarded:
            for line, expected, got, body in _run(block, server.url, tmp_path):
                assert got == expected, f"{line}\n{body}"
