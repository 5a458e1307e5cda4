"""The curl lines of the compaction guide (docs/pages/guides/memory-compaction.md), run as
written against a live server on a copy of examples/learning, as the README's are: each gets the
status its comment says (that both compaction routes have one: test_docs_curl)."""

from __future__ import annotations

import json
from pathlib import Path

import test_docs_curl as readme
from hotplex_testing import REPO

GUIDE = REPO / "docs/pages/guides/memory-compaction.md"


@readme.needs_curl
def test_the_guides_curl_lines_answer_as_documented(tmp_path: Path) -> None:
    answers = readme.served_answers(GUIDE, "learning", tmp_path)
    assert len(answers) == 5
    folded = json.loads(answers[0][1])["months"][0]
    assert folded["days"] == ["2026-10-01.md", "2026-10-02.md"]
    assert "- 2026-10-01, 2026-10-02: met acme about TLS" in folded["text"]
    filed = json.loads(answers[2][1])["months"][0]
    assert "compactor: answer" in filed["text"]
