"""Schemathesis against the live server, from the /openapi.json it serves: generated requests
(the document's examples, its edge cases, random data, chains of calls) may get any documented
answer but no 5xx, and every answer must match the document (status, content type, headers,
body schema)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hotplex_testing import REPO
from serving import running

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_headers_conformance,response_schema_conformance"
)


@pytest.mark.slow
def test_every_generated_request_gets_a_documented_answer(tmp_path: Path) -> None:
    root = tmp_path / "basic"
    shutil.copytree(
        REPO / "examples/basic", root, ignore=shutil.ignore_patterns("dist", ".hotplex")
    )
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
    summary = run.stdout[run.stdout.rfind("SUMMARY") :]
    print(summary)
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr
    assert "No issues found" in summary
