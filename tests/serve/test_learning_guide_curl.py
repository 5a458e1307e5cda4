"""The curl lines of the learning guide (docs/pages/guides/learning.md), run as written against a
live server on a copy of examples/learning, as the serve guide's are (``test_docs_curl``): each gets
the status its comment says, and both learn routes have a line."""

from __future__ import annotations

import json
from pathlib import Path

import test_docs_curl as readme
from hotplex_testing import REPO

GUIDE = REPO / "docs/pages/guides/learning.md"


def test_both_learn_routes_have_a_line() -> None:
    lines = readme.commands(readme.sh_blocks(GUIDE.read_text(encoding="utf-8")))
    for route in ("/v1/learn ", "/v1/learn/request"):
        assert route in lines


@readme.needs_curl
def test_the_guides_curl_lines_answer_as_documented(tmp_path: Path) -> None:
    answers = readme.served_answers(GUIDE, "learning", tmp_path)
    bodies = {line.split("#")[-1].strip(): body for line, body in answers}
    refused = json.loads(next(b for k, b in bodies.items() if k.startswith("200: refused")))
    assert refused["facts"][0]["status"] == "refused" and not refused["changed"]
    compiled = json.loads(next(b for k, b in bodies.items() if "indentation: tabs" in k))
    assert "- indentation: tabs" in compiled["text"] and "session-42" not in compiled["text"]
