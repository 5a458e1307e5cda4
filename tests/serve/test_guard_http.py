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


def test_a_nul_in_a_stored_file_is_a_finding_blocked_as_its_entry_never_a_lockout(
    server: Server,
) -> None:
    """A NUL (U+0000) in a user's stored text failed their every compile, "block" too, as a
    binary file (adversary9 D4): it is a control character, blocked as the other controls are,
    refused with its place under "error", and the guard still says the file is not ok."""
    memory = "- likes\u0000 tea\n- reads at night\n"
    overlay = {"target": "cc", "overlay": {"MEMORY.md": memory}}
    blocked = server.client.post("/v1/compile", json={**overlay, "on_finding": "block"})
    assert blocked.status_code == 200, blocked.text
    answer = blocked.json()
    assert [(f["rule"], f["line"], f["column"]) for f in answer["findings"]] == [
        ("control-character", 1, 8)
    ]
    assert "\0" not in answer["text"] and "- reads at night" in answer["text"]
    refused = server.client.post("/v1/compile", json=overlay)
    assert refused.status_code == 422, refused.text
    problem = refused.json()["problems"][0]
    assert (problem["line"], problem["column"]) == (1, 8)
    assert "U+0000 (rule control-character)" in problem["message"]
    checked = server.client.post("/v1/check", json={"files": {"MEMORY.md": memory}})
    assert checked.status_code == 200, checked.text
    assert checked.json()["ok"] is False
    assert [f["rule"] for f in checked.json()["findings"]] == ["control-character"]
    fact = {"key": "a", "value": "b\u0000"}
    learned = server.client.post(
        "/v1/learn", json={"text": "# A\n", "facts": [fact], "date": "2026-12-01"}
    )
    assert learned.status_code == 200, learned.text
    assert [f["status"] for f in learned.json()["facts"]] == ["refused"]


@pytest.mark.slow  # a server of its own: the memory example
def test_a_users_definition_taking_a_project_days_image_over_http(tmp_path: Path) -> None:
    """adversary17 D5: a user's definition of the label a project day's image uses is found by
    ``/v1/check`` and refused by ``/v1/compile``; under "block" the image is the project's."""
    from markdown_it import MarkdownIt

    root = copy_example(tmp_path, "memory")
    day = root / "agent-configs/memory/2026-11-29.md"
    day.write_text(day.read_text() + "\nDiagram: ![arch]\n\n[arch]: ./arch.png\n")
    overlay = {"memory/2026-11-30.md": "[arch]: https://evil.example/a.png\n"}
    with running(root) as server:
        checked = server.client.post("/v1/check", json={"target": "cc", "files": overlay})
        assert checked.status_code == 200, checked.text
        found = [(f["rule"], f["line"]) for f in checked.json()["findings"]]
        assert found == [("image-url-data", 1)]
        asked = {"target": "cc", "overlay": overlay}
        refused = server.client.post("/v1/compile", json=asked)
        assert refused.status_code == 422, refused.text
        blocked = server.client.post("/v1/compile", json={**asked, "on_finding": "block"})
        assert blocked.status_code == 200, blocked.text
        page = MarkdownIt("commonmark").render(blocked.json()["text"])
        assert "evil.example" not in page and '<img src="./arch.png" alt="arch" />' in page
