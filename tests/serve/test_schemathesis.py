"""Schemathesis against the live server, from the /openapi.json it serves: generated requests
(the document's examples, its edge cases, random data, chains of calls) may get any documented
answer but no 5xx, and every answer must match the document (status, content type, headers,
body schema): every generated case passes, and no warning but the one the document cannot
avoid."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hotplex_testing import copy_example
from serving import running

# The one warning tolerated, and for the one operation: POST /v1/check needs at least one file,
# and each key must be a file the served project reads (USER.md, memory/2026-12-01.md). The
# document is the repository's, the same for every project, so it cannot name them: most bodies
# generated for that operation get the 400 it documents, and schemathesis says so. (On
# /v1/compile the overlay may be absent, so the bodies it generates mostly compile.)
INTRINSIC = {"Schema validation mismatch": {"POST /v1/check"}}
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_headers_conformance,response_schema_conformance"
)


@pytest.mark.slow
def test_every_generated_request_gets_a_documented_answer(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    examples = os.environ.get("HOTPLEX_SCHEMATHESIS_EXAMPLES", "100")
    st = Path(sys.executable).parent / "st"
    with running(root) as server:
        run = subprocess.run(
            [
                str(st),
                "--no-color",
                "run",
                f"{server.url}/openapi.json",
                "--checks",
                CHECKS,
                "--max-examples",
                examples,
            ],
            capture_output=True,
            cwd=tmp_path,  # its .schemathesis/ cache stays out of the repository
            text=True,
            timeout=900,
        )
    out = run.stdout
    summary = out[out.rfind("SUMMARY") :]
    print(summary)
    assert run.returncode == 0, out[-8000:] + run.stderr
    counts = re.search(r"(\d+) generated, (\d+) passed", summary)
    assert counts is not None, summary
    assert counts[1] == counts[2], summary  # every generated case passed: none failed or erred
    for kind, operations in _warnings(out).items():
        assert operations <= INTRINSIC.get(kind, set()), f"{kind}: {operations}\n{summary}"


def _warnings(out: str) -> dict[str, set[str]]:
    """The WARNINGS section: each warning's kind (its line up to the colon) -> the operations
    listed under it."""
    start = out.find(" WARNINGS ")
    if start < 0:
        return {}
    found: dict[str, set[str]] = {}
    kind = ""
    for line in out[start : out.rfind("SUMMARY")].splitlines()[1:]:
        if line.startswith("  - "):
            found[kind].add(line.removeprefix("  - ").strip())
        elif line.strip() and not line.startswith((" ", "=", "\N{ELECTRIC LIGHT BULB}")):
            kind = line.partition(":")[0].strip()
            found.setdefault(kind, set())
    return found
