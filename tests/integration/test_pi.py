"""Every generated Pi artifact reaches the model through the real Pi byte for byte, in the system
message right after Pi's own base prompt.

``pi -p`` starts as the built ``launch.json`` says (``--append-system-prompt`` naming the built
``pi/APPEND_SYSTEM.md``, relative to the project), with what a gateway adds: its provider in the
agent folder of a throw-away HOME (``~/.pi/agent/models.json``, pointing at a fake Chat
Completions API on 127.0.0.1), ``--provider``/``--model`` and no session file.

What Pi 0.73.1 does (observed, and asserted below): the system message is Pi's base prompt
("You are an expert coding assistant operating inside pi, …"), ``\\n\\n``, the file's text as
it is, then the project context and ``Current date:``; a project ``.pi/APPEND_SYSTEM.md`` is not
read beside the argument, and ``--no-context-files`` keeps a raw AGENTS.md out.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import HOTPLEX
from fake_api import FakeChatCompletions
from live import LiveCase, run_live
from test_own_instructions_live import MARKERS, RAW_AGENTS, artifact, imported

pytestmark = pytest.mark.integration

BASE = "You are an expert coding assistant operating inside pi"
PROVIDER, MODEL = "hotplex-fake", "fake-model"


def provider(cli, built, url: str, home) -> dict[str, str]:
    """The gateway's provider, in the agent folder of the throw-away HOME."""
    models = {
        "providers": {
            PROVIDER: {
                "baseUrl": f"{url}/v1",
                "api": "openai-completions",
                "apiKey": "dummy",
                "models": [{"id": MODEL}],
            }
        }
    }
    agent = home / ".pi/agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    return {}


PI = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-p", "ping", "--provider", PROVIDER, "--model", MODEL, "--no-session"],
    env=lambda url: {"PI_OFFLINE": "1"},
    model_route="/chat/completions",
    prepare=provider,
)


def system_message(request) -> str:
    (system,) = [m["content"] for m in request.body["messages"] if m["role"] == "system"]
    return system


def assert_appended(request, document: str) -> str:
    """The document follows Pi's base prompt and a blank line, once, in the system message
    alone; returns the system message."""
    system = system_message(request)
    assert system.startswith(BASE), "Pi's base prompt is gone"
    assert system.count(document) == 1
    before = system[: system.index(document)]
    assert before.endswith("\n\n") and "# Project Context" not in before
    users = json.dumps([m for m in request.body["messages"] if m["role"] != "system"])
    assert "agent-configuration" not in users
    return system


def test_pi_sends_document_after_its_base_prompt(pi_cli, pi_prompt, tmp_path):
    document = pi_prompt.path.read_bytes().decode("utf-8")
    assert document.startswith("<agent-configuration>")
    assert (pi_prompt.path.parent / "pi/APPEND_SYSTEM.md").read_bytes() == document.encode()
    (request,) = run_live(PI, pi_cli, pi_prompt, tmp_path)[1]
    system = assert_appended(request, document)
    assert system[system.index(document) + len(document) :].startswith("\nCurrent date: ")


def test_pi_gets_one_copy(pi_cli, tmp_path):
    """In an imported project (AGENTS.md in place) with ``own_instructions = "off"`` and a
    project ``.pi/APPEND_SYSTEM.md``: the build names the latter, launch.json switches the raw
    AGENTS.md off, and only the compiled document arrives."""
    rival = "PROJECT-APPEND-SYSTEM-ONLY"
    built = imported(tmp_path, {"AGENTS.md": RAW_AGENTS}, own_instructions="off", worker="pi")
    (built.project / ".pi").mkdir()
    (built.project / ".pi/APPEND_SYSTEM.md").write_text(rival + "\n", encoding="utf-8")
    prompt = artifact(built, "pi")
    checked = subprocess.run(
        [str(HOTPLEX), "-C", str(built.project), "check", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    warnings = json.loads(checked.stdout)["warnings"]
    assert any(".pi/APPEND_SYSTEM.md is not read by Pi" in w for w in warnings), warnings
    launch = json.loads((prompt.path.parent / "launch.json").read_text(encoding="utf-8"))
    assert launch["argv"][-1] == "--no-context-files"

    document = prompt.path.read_text(encoding="utf-8")
    assert "RAW-AGENTS-ONLY" in document and MARKERS["AGENTS.md"] not in document
    (request,) = run_live(PI, pi_cli, prompt, tmp_path)[1]
    assert_appended(request, document)
    sent = json.dumps(request.body, ensure_ascii=False)
    assert MARKERS["AGENTS.md"] not in sent and rival not in sent
