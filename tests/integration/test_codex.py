"""Every generated Codex artifact reaches the model through the real Codex CLI as its developer
instructions, byte for byte, after Codex's own base prompt.

``codex exec`` starts as the built ``launch.json`` says (``CODEX_HOME`` relative to the project),
with what a gateway adds: a model provider pointing at a fake Responses API on 127.0.0.1 and a
dummy key. The test reads the captured ``POST /v1/responses``.

What Codex CLI 0.169.0 does (observed, and asserted below): ``developer_instructions`` from
``$CODEX_HOME/config.toml`` is the first text of a developer message; Codex's base prompt ("You
are Codex, …") is an earlier developer message; user messages carry AGENTS.md and the prompt.
"""

from __future__ import annotations

import tomllib

import pytest
from fake_api import FakeResponses
from live import LiveCase, run_live

pytestmark = pytest.mark.integration

PROVIDER = "hotplex-fake"
KEY_VARIABLE = "HOTPLEX_FAKE_OPENAI_KEY"
MESSAGE = "ping"


def gateway_args(base_url: str) -> list[str]:
    """What a gateway adds after launch.json's argv: a non-interactive run against its provider."""
    settings = {
        "model_provider": f'"{PROVIDER}"',
        f"model_providers.{PROVIDER}.name": '"hotplex fake"',
        f"model_providers.{PROVIDER}.base_url": f'"{base_url}/v1"',
        f"model_providers.{PROVIDER}.wire_api": '"responses"',
        f"model_providers.{PROVIDER}.env_key": f'"{KEY_VARIABLE}"',
        "features.plugins": "false",  # no `git ls-remote` at start-up
    }
    config = [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]
    return ["exec", "--skip-git-repo-check", *config, MESSAGE]


def messages(body: dict, role: str) -> list[list[str]]:
    """The texts of each ``role`` message of a Responses API request, in order."""
    return [
        [part.get("text", "") for part in item.get("content", [])]
        for item in body.get("input", [])
        if item.get("type") == "message" and item.get("role") == role
    ]


CODEX = LiveCase(
    fake=FakeResponses,
    args=gateway_args,
    env=lambda url: {KEY_VARIABLE: "dummy"},
    model_route="/v1/responses",
)


def run_codex(codex_cli, artifact, tmp_path) -> list:
    return run_live(CODEX, codex_cli, artifact, tmp_path)[1]


def assert_developer_instructions(request, document: str) -> None:
    """The document is exactly the first text of one developer message, after Codex's base
    prompt, and nowhere else in the request."""
    developer = messages(request.body, "developer")
    holders = [i for i, texts in enumerate(developer) if texts and texts[0] == document]
    assert len(holders) == 1, "the document is not the first text of one developer message"
    base = [i for i, texts in enumerate(developer) if any("You are Codex" in t for t in texts)]
    assert base and base[0] < holders[0], "Codex's base prompt is gone or not before the document"
    everywhere = [
        t
        for role in ("developer", "user", "system")
        for m in messages(request.body, role)
        for t in m
    ]
    assert sum(t.count(document) for t in everywhere) == 1
    assert document not in str(request.body.get("instructions", ""))
    for texts in messages(request.body, "user"):
        assert not any("<agent-configuration>" in t for t in texts), "document in a user message"


def test_codex_sends_document_as_developer_instructions(codex_cli, codex_prompt, tmp_path):
    document = codex_prompt.path.read_bytes().decode("utf-8")
    assert document.startswith("<agent-configuration>")
    home = codex_prompt.path.parent / "codex-home"
    config = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    assert config == {"developer_instructions": document, "project_doc_max_bytes": 0}

    for request in run_codex(codex_cli, codex_prompt, tmp_path):
        assert_developer_instructions(request, document)


def test_codex_keeps_tricky_source_text(codex_cli, tricky_build, tmp_path):
    """@mentions, @paths, an e-mail address, CJK, emoji, CRLF and blank-line runs arrive as the
    artifact says, and the artifact holds them as the sources wrote them (line ends as LF)."""
    artifact = tricky_build.artifact("codex", "prompt.xml")
    document = artifact.path.read_bytes().decode("utf-8")
    for written in tricky_build.expected_text:
        assert written in document
    assert "user@example.com.\n\n\n\n中文" in document  # Codex keeps blank-line runs

    for request in run_codex(codex_cli, artifact, tmp_path):
        assert_developer_instructions(request, document)
