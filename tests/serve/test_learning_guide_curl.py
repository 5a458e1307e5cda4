"""The curl lines of the learning guide (docs/pages/guides/learning.md), run as written against a
live server on a copy of examples/learning, as the serve guide's are (``test_docs_curl``): each gets
the status its comment says, and both learn routes have a line."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import test_docs_curl as readme
from hotplex_testing import REPO
from serving import running

GUIDE = REPO / "docs/pages/guides/learning.md"


def _blocks() -> list[list[str]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [
        body.replace("\\\n", "").splitlines() for body in re.findall(r"```sh\n(.*?)```", text, re.S)
    ]


def test_both_learn_routes_have_a_line() -> None:
    lines = " ".join(c for block in _blocks() for c in readme._commands(block))
    for route in ("/v1/learn ", "/v1/learn/request"):
        assert route in lines


@pytest.mark.skipif(
    shutil.which("curl") is None and not os.environ.get("CI"), reason="curl is not installed"
)
def test_the_guides_curl_lines_answer_as_documented(tmp_path: Path) -> None:
    root = tmp_path / "learning"
    shutil.copytree(
        REPO / "examples/learning", root, ignore=shutil.ignore_patterns("dist", ".hotplex")
    )
    answers = []
    with running(root) as server:
        for block in _blocks():
            for line, expected, got, body in readme._run(block, server.url, tmp_path):
                assert got == expected, f"{line}\n{body}"
                assert body, line
                answers.append((line, body))
    bodies = {line.split("#")[-1].strip(): body for line, body in answers}
    refused = json.loads(next(b for k, b in bodies.items() if k.startswith("200: refused")))
    assert refused["facts"][0]["status"] == "refused" and not refused["changed"]
    compiled = json.loads(next(b for k, b in bodies.items() if "indentation: tabs" in k))
    assert "- indentation: tabs" in compiled["text"] and "session-42" not in compiled["text"]
