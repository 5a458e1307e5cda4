"""Every generated Aider artifact reaches the model through the real Aider byte for byte, as the
read-only file of a *user* message (Aider has no system-level way in), after Aider's own system
prompt.

``aider --message`` starts as the built ``launch.json`` says (``--config`` naming the built
config file, relative to the project), with what a gateway adds: the model and a fake Chat
Completions API on 127.0.0.1 on the command line, and a throw-away HOME.

What Aider 0.86.2 does (observed, and asserted below): the file arrives in a user message,
``Here are some READ ONLY files, provided for your reference.\\nDo not edit these files!\\n\\n``,
its path, then its text in a fence, answered by the canned assistant turn ``Ok, I will use these
files as references.``; CR LF arrives as LF (the artifact holds LF already). With ``--config``
the project's ``.aider.conf.yml`` is not read, nor the files its ``read:`` names.
"""

from __future__ import annotations

import json

import pytest
from fake_api import FakeChatCompletions
from live import LiveCase, run_live

pytestmark = pytest.mark.integration

READ_ONLY = (
    "Here are some READ ONLY files, provided for your reference.\nDo not edit these files!\n"
)
CANNED = "Ok, I will use these files as references."
BASE_PROMPT = "Act as an expert software developer."
FLAGS = ("--yes-always", "--no-auto-commits", "--no-check-update", "--analytics-disable")
QUIET = ("--no-stream", "--no-git", "--no-show-model-warnings", "--no-pretty")

AIDER = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: [
        *("--message", "ping", "--model", "openai/fake-model"),
        *("--openai-api-base", f"{url}/v1", "--openai-api-key", "dummy", *FLAGS, *QUIET),
    ],
    env=lambda url: {},
    model_route="/chat/completions",
    banner=True,
)


def assert_delivered(request, artifact) -> list[dict]:
    """The document is the read-only file of one user message, exactly, answered by Aider's
    canned turn; the system prompt is Aider's own and does not hold it."""
    document = artifact.path.read_bytes().decode("utf-8")
    messages = request.body["messages"]
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith(BASE_PROMPT)
    holders = [i for i, m in enumerate(messages) if document in m["content"]]
    assert len(holders) == 1, "the document is not in exactly one message"
    (at,) = holders
    message = messages[at]["content"]
    assert messages[at]["role"] == "user" and message.startswith(READ_ONLY)
    shown = artifact.path.relative_to(artifact.project).as_posix()
    assert message.count(document) == 1 and f"\n{shown}\n" in message
    assert messages[at + 1] == {"role": "assistant", "content": CANNED}
    return messages


def test_aider_sends_document_as_a_read_only_user_file(aider_cli, aider_prompt, tmp_path):
    document = aider_prompt.path.read_bytes()
    assert document.startswith(b"<agent-configuration>") and b"\r" not in document
    _, requests = run_live(AIDER, aider_cli, aider_prompt, tmp_path)
    for request in requests:
        assert_delivered(request, aider_prompt)


def test_aider_reads_no_project_config_beside_it(aider_cli, aider_prompt, tmp_path):
    """A project ``.aider.conf.yml`` naming a raw AGENTS.md: ``--config`` keeps both out."""
    project = aider_prompt.project
    (project / "RAW.md").write_text("</rules> RAW-AGENTS-ONLY\n", encoding="utf-8")
    (project / ".aider.conf.yml").write_text("read: [RAW.md]\n", encoding="utf-8")
    try:
        _, requests = run_live(AIDER, aider_cli, aider_prompt, tmp_path)
    finally:
        (project / ".aider.conf.yml").unlink()
        (project / "RAW.md").unlink()
    for request in requests:
        messages = assert_delivered(request, aider_prompt)
        assert "RAW-AGENTS-ONLY" not in json.dumps(messages)
