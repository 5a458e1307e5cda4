"""The memory write guard over HTTP: ``POST /v1/check`` answers issue 34's reproductions as
``hotplex check --overlay`` does, and ``POST /v1/compile`` (``on_finding = "error"``) refuses an
image to another host instead of returning it in the artifact."""

from __future__ import annotations

from pathlib import Path

import pytest
from guard_cases import REPRODUCTIONS
from hotplex_testing import copy_example
from serving import Server, running


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return copy_example(tmp_path_factory.mktemp("guard"))


@pytest.fixture(scope="module")
def server(root: Path):
    with running(root) as started:
        yield started


@pytest.mark.parametrize("case", sorted(REPRODUCTIONS))
def test_check_finds_what_a_renderer_would_fetch(server: Server, case: str) -> None:
    text, expected = REPRODUCTIONS[case]
    answer = server.client.post("/v1/check", json={"files": {"MEMORY.md": text}})
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["ok"] is False
    assert [(f["line"], f["rule"]) for f in report["findings"]] == expected


def test_a_compile_refuses_an_image_to_another_host(server: Server) -> None:
    overlay = {"MEMORY.md": "- likes tea\n- ![p](https://evil.example/alice.png)\n"}
    answer = server.client.post("/v1/compile", json={"target": "cc", "overlay": overlay})
    assert answer.status_code == 422, answer.text
    problem = answer.json()["problems"][0]
    assert (problem["line"], problem["column"]) == (2, 8)
    assert "image-url-data" in problem["message"]
    assert "evil.example/alice.png" not in answer.json().get("text", "")
