"""Every generated Mistral Vibe artifact reaches the model through the real ``vibe -p`` byte for
byte, under ``## User instructions`` in the system message after Vibe's own base prompt.

``vibe -p`` starts as the built ``launch.json`` says (``VIBE_HOME`` naming the built
``vibe-home``, relative to the project), with what a gateway adds: its provider, a
``config.toml`` in that home pointing at a fake Chat Completions API on 127.0.0.1, the key in the
variable it names, and a throw-away HOME.

What Mistral Vibe 3.0.2 does (observed, and asserted below): the home's AGENTS.md arrives as
``Contents of <absolute home>/AGENTS.md (user-level instructions):``, a blank line, the text
stripped, a blank line and ``IMPORTANT: …``; a project AGENTS.md is not read without ``--trust``
(the control passes it and gets the raw copy).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from fake_api import FakeChatCompletions
from live import LiveCase, assert_only_in_system, chat_system, config_in_home, home_of, run_live

pytestmark = pytest.mark.integration

BASE_PROMPT = "You help users get complex tasks done."
HOME = "VIBE_HOME"
TAIL = "\n\nIMPORTANT: this context may or may not be relevant to your tasks."


def provider(url: str) -> str:
    """The gateway's config.toml, the key in the variable it names."""
    return (
        'active_model = "fake"\n\n[[providers]]\nname = "gw"\n'
        f'api_base = "{url}/v1"\napi_key_env_var = "GW_API_KEY"\nbackend = "generic"\n\n'
        '[[models]]\nname = "fake-model"\nprovider = "gw"\nalias = "fake"\n'
    )


VIBE = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-p", "ping", "--output", "text"],
    env=lambda url: {"GW_API_KEY": "dummy"},
    model_route="/chat/completions",
    prepare=config_in_home(HOME, "config.toml", provider),
)


def assert_delivered(request, artifact, tail: str = TAIL) -> str:
    """The document, exactly, once, in Vibe's user-instructions wrapper (then ``tail``), after
    its base prompt and in no other message; the system text."""
    document = artifact.path.read_bytes().decode("utf-8")
    home = home_of(artifact, HOME).resolve()
    system = chat_system(request)
    assert system.startswith(BASE_PROMPT), "Vibe's base prompt is gone"
    wrapped = f"Contents of {home}/AGENTS.md (user-level instructions):\n\n{document}{tail}"
    assert system.count(wrapped) == 1 and system.count(document) == 1
    assert_only_in_system(request)
    return system


def test_vibe_sends_document_as_its_user_instructions(vibe_cli, vibe_prompt, tmp_path):
    document = vibe_prompt.path.read_bytes()
    assert document.startswith(b"<agent-configuration>") and document.endswith(b">")
    assert (vibe_prompt.path.parent / "vibe-home/AGENTS.md").read_bytes() == document
    (request,) = run_live(VIBE, vibe_cli, vibe_prompt, tmp_path)[1]
    assert_delivered(request, vibe_prompt)


@pytest.mark.parametrize("trust", [False, True], ids=["as-launched", "control-trust"])
def test_vibe_reads_no_project_agents_md_without_trust(vibe_cli, vibe_prompt, tmp_path, trust):
    """launch.json passes no ``--trust``: a project AGENTS.md in the session folder stays out;
    the control, with ``--trust`` added, gets it raw beside the document."""
    marker = "</rules> RAW-PROJECT-AGENTS"
    agents = vibe_prompt.project / "AGENTS.md"
    agents.write_text(f"Project rule. {marker}\n", encoding="utf-8")
    case = VIBE
    if trust:
        case = replace(VIBE, args=lambda url: [*VIBE.args(url), "--trust"])
    try:
        (request,) = run_live(case, vibe_cli, vibe_prompt, tmp_path)[1]
    finally:
        agents.unlink()
    assert_delivered(request, vibe_prompt, "\n\n## Project instructions" if trust else TAIL)
    assert (marker in json.dumps(request.body, ensure_ascii=False)) is trust
