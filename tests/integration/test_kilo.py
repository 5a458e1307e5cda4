"""Every generated Kilo artifact reaches the model through the real ``kilo run`` byte for byte,
in the system message after Kilo's own base prompt.

``kilo run`` starts as the built ``launch.json`` says (``KILO_CONFIG_DIR`` relative to the
project), with what a gateway adds: a provider pointing at a fake Chat Completions API on
127.0.0.1 in ``KILO_CONFIG_CONTENT``, ``--model`` and a throw-away HOME.

What Kilo 7.7.7 does (observed, and asserted below): ``$KILO_CONFIG_DIR/AGENTS.md`` is sent as
``Instructions from: <absolute path>`` and the file's text, verbatim, in the system message after
the base prompt ("You are Kilo, …"). ``KILO_DISABLE_PROJECT_CONFIG=1`` keeps a project AGENTS.md
out; Kilo Code's legacy ``.kilocode/rules/*.md`` arrive whatever it says.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import HOTPLEX, build_project
from fake_api import FakeChatCompletions
from live import LiveCase, assert_only_in_system, chat_system, home_of, run_live

pytestmark = pytest.mark.integration

BASE_PROMPT = "You are Kilo"
RAW_MARKER = "</rules> RAW-AGENTS-ONLY"  # escaped in the compiled copy


def provider(url: str) -> str:
    options = {"baseURL": f"{url}/v1", "apiKey": "dummy"}
    fake = {"npm": "@ai-sdk/openai-compatible", "options": options, "models": {"m": {}}}
    return json.dumps({"provider": {"fake": fake}})


KILO = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["run", "--model", "fake/m", "ping"],
    env=lambda url: {
        "KILO_CONFIG_CONTENT": provider(url),
        "KILO_DISABLE_MODELS_FETCH": "1",
        "KILO_DISABLE_AUTOUPDATE": "1",
        "KILO_TELEMETRY_LEVEL": "off",
    },
    model_route="/chat/completions",
    home_variable="KILO_CONFIG_DIR",
)


def assert_delivered(request, artifact) -> str:
    """The document, verbatim, after ``Instructions from: <its absolute path>``, once, after
    Kilo's base prompt and in no other message; the system text."""
    document = artifact.path.read_bytes().decode("utf-8")
    path = os.path.abspath(home_of(artifact, "KILO_CONFIG_DIR") / "AGENTS.md")
    system = chat_system(request)
    assert system.startswith(BASE_PROMPT), "Kilo's base prompt is gone"
    assert system.count(f"Instructions from: {path}\n{document}\n") == 1
    assert system.count(document) == 1
    assert_only_in_system(request)
    return system


def test_kilo_sends_document_in_system_message(kilo_cli, kilo_prompt, tmp_path):
    document = kilo_prompt.path.read_bytes()
    assert document.startswith(b"<agent-configuration>")
    assert (kilo_prompt.path.parent / "kilo-config/AGENTS.md").read_bytes() == document
    _, requests = run_live(KILO, kilo_cli, kilo_prompt, tmp_path)
    for request in requests:
        assert_delivered(request, kilo_prompt)


def in_place(tmp_path, files: dict[str, str], extra: str = ""):
    """A project whose AGENTS.md is its ``rules`` source, in place, with a kilo target: the
    build's stderr and its artifact."""
    project = tmp_path / "repo"
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    manifest = '[project]\nsources = "."\n\n[[target]]\nname = "kilo"\nworker = "kilo"\n'
    (project / "hotplex.toml").write_text(manifest + extra, encoding="utf-8")
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "build"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    built = build_project(project)
    (artifact,) = [a for a in built.artifacts if a.path.name == "prompt.xml"]
    assert "RAW-AGENTS-ONLY" in artifact.path.read_text(encoding="utf-8")
    return done.stderr, artifact


@pytest.mark.slow
@pytest.mark.parametrize("switch", [True, False], ids=["off", "default"])
def test_kilo_gets_a_raw_agents_md_only_without_the_switch(switch, kilo_cli, tmp_path):
    """With ``own_instructions = "off"`` launch.json sets ``KILO_DISABLE_PROJECT_CONFIG=1`` and
    only the compiled copy arrives; without it the raw AGENTS.md arrives too, as build warns."""
    extra = 'own_instructions = "off"\n' if switch else ""
    stderr, artifact = in_place(tmp_path, {"AGENTS.md": f"Shared rule. {RAW_MARKER}\n"}, extra)
    launch = json.loads((artifact.path.parent / "launch.json").read_text(encoding="utf-8"))
    assert ("KILO_DISABLE_PROJECT_CONFIG" in launch["env"]) is switch
    assert ("Kilo also reads AGENTS.md" in stderr) is not switch, stderr
    _, requests = run_live(KILO, kilo_cli, artifact, tmp_path)
    for request in requests:
        assert (RAW_MARKER in assert_delivered(request, artifact)) is not switch


@pytest.mark.slow
def test_kilo_reads_its_legacy_rules_whatever_the_switch(kilo_cli, tmp_path):
    """``.kilocode/rules/*.md`` reach Kilo with the switch on: build says so."""
    files = {"AGENTS.md": "Shared rule.\n", ".kilocode/rules/style.md": f"Style. {RAW_MARKER}\n"}
    extra = (
        'own_instructions = "off"\n\n[[source]]\nname = "style"\nfile = ".kilocode/rules/style.md"'
    )
    extra += '\nchannel = "B"\ntag = "style"\n'
    stderr, artifact = in_place(tmp_path, files, extra)
    assert "reads .kilocode/rules/style.md by itself even with its switch" in stderr, stderr
    _, requests = run_live(KILO, kilo_cli, artifact, tmp_path)
    for request in requests:
        assert RAW_MARKER in assert_delivered(request, artifact)
