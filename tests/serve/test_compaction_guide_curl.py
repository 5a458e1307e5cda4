"""The curl lines of the compaction guide (docs/pages/guides/memory-compaction.md), run as
written against a live server on a copy of examples/learning, as the README's are: each gets the
status its comment says, and both compaction routes have a line."""

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

GUIDE = REPO / "docs/pages/guides/memory-compaction.md"


def _blocks() -> list[list[str]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [
        body.replace("\\\n", "").splitlines() for body in re.findall(r"```sh\n(.*?)```", text, re.S)
    ]


def test_both_compaction_routes_have_a_line() -> None:
    lines = " ".join(c for block in _blocks() for c in readme._commands(block))
    for route in ("/v1/memory/compact ", "/v1/memory/compact/request"):
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
    assert len(answers) == 5
    folded = json.loads(answers[0][1])["months"][0]
    assert folded["days"] == ["2026-10-01.md", "2026-10-02.md"]
    assert "- 2026-10-01, 2026-10-02: met acme about TLS" in folded["text"]
    filed = json.loads(answers[2][1])["months"][0]
    assert "compactor: answer" in filed["text"]
