"""The curl lines of the learning guide (docs/pages/guides/learning.md), run as written against a
live server on a copy of examples/learning, as the serve guide's are (``test_docs_curl``): each gets
the status its comment says (that both learn routes have one: test_docs_curl)."""

from __future__ import annotations

import json
from pathlib import Path

import test_docs_curl as readme
from hotplex_testing import REPO

GUIDE = REPO / "docs/pages/guides/learning.md"


@readme.needs_curl
def test_the_guides_curl_lines_answer_as_documented(tmp_path: Path) -> None:
    answers = readme.served_answers(GUIDE, "learning", tmp_path)
    bodies = {line.split("#")[-1].strip(): body for line, body in answers}
    refused = json.loads(next(b for k, b in bodies.items() if k.startswith("200: refused")))
    assert refused["facts"][0]["status"] == "refused" and not refused["changed"]
    compiled = json.loads(next(b for k, b in bodies.items() if "indentation: tabs" in k))
    assert "- indentation: tabs" in compiled["text"] and "session-42" not in compiled["text"]
