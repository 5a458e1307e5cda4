"""Every generated Copilot CLI artifact reaches the model through the real Copilot CLI byte for
byte, in the system message after Copilot's own base prompt and tools.

``copilot -p`` starts as the built ``launch.json`` says (``COPILOT_CUSTOM_INSTRUCTIONS_DIRS``
naming the built ``copilot-instructions`` folder, relative to the session folder), with what a
gateway adds: a provider pointing at a fake Chat Completions API on 127.0.0.1 (no GitHub login),
a model, offline mode, and a package cache under ``$HOTPLEX_TOOLS`` (the first start unpacks
about 235 MB there, once).

What Copilot CLI 1.0.102 does (observed, and asserted below): the instructions file of an added
folder is sent bare (no ``<custom_instruction>`` wrapper), verbatim, after ``</tools>``; its
``@file`` lines stay text; an AGENTS.md in the session folder would arrive too, raw.
"""

from __future__ import annotations

import json

import pytest
from conftest import build_project, tools_dir
from fake_api import FakeChatCompletions
from live import LiveCase, run_live
from test_own_instructions_live import MARKERS, RAW_AGENTS, artifact, imported

pytestmark = pytest.mark.integration

BASE = "You are the GitHub Copilot CLI"
HOME = "COPILOT_CUSTOM_INSTRUCTIONS_DIRS"
FILE = ".github/instructions/hotplex.instructions.md"
MANIFEST = '[project]\nname = "at"\n\n[[target]]\nname = "copilot-cli"\nworker = "copilot-cli"\n'
AT_LINES = "@notes.md\nRead @README.md first.\n"

COPILOT = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-p", "ping", "--allow-all-tools", "--no-auto-update"],
    env=lambda url: {
        "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_MODEL": "fake-model",
        "COPILOT_OFFLINE": "true",
        "COPILOT_PKG_CACHE_HOME": str(tools_dir() / "copilot-pkg-cache"),
    },
    model_route="/chat/completions",
    home_variable=HOME,
)


def assert_instructions(request, document: str) -> None:
    """The document is in the system message once, after Copilot's base prompt and tools, as a
    paragraph of its own, without a wrapper; no other message holds it."""
    (system,) = [m["content"] for m in request.body["messages"] if m["role"] == "system"]
    assert system.startswith(BASE), "Copilot's base prompt is gone"
    assert system.count(document) == 1
    at = system.index(document)
    assert system.rfind("</tools>", 0, at) > 0, "the document is not after Copilot's tools"
    assert system[at - 1] == "\n" and system[at + len(document)] == "\n"
    assert not system[:at].endswith("<custom_instruction>\n")
    others = json.dumps([m for m in request.body["messages"] if m["role"] != "system"])
    assert "agent-configuration" not in others


def test_copilot_sends_document_after_its_base_prompt(copilot_cli, copilot_prompt, tmp_path):
    document = copilot_prompt.path.read_bytes().decode("utf-8")
    assert document.startswith("<agent-configuration>")
    home = copilot_prompt.path.parent / "copilot-instructions"
    assert (home / FILE).read_bytes() == document.encode()
    for request in run_live(COPILOT, copilot_cli, copilot_prompt, tmp_path)[1]:
        assert_instructions(request, document)


def test_copilot_keeps_at_lines_as_text(copilot_cli, tmp_path):
    """Lines starting with ``@file`` (Copilot's import syntax in copilot-instructions.md) arrive
    as written, with the files they name lying beside the instructions file and in the session
    folder."""
    bait = {"notes.md": "IMPORTED-NOTES-7f3a\n", "README.md": "IMPORTED-README-7f3a\n"}
    project = tmp_path / "project"
    (project / "agent-configs").mkdir(parents=True)
    (project / "hotplex.toml").write_text(MANIFEST, encoding="utf-8")
    (project / "agent-configs/AGENTS.md").write_text(AT_LINES, encoding="utf-8")
    for name, text in bait.items():
        (project / name).write_text(text, encoding="utf-8")
    built = build_project(project)
    assert built.problem is None, built.problem
    prompt = artifact(built, "copilot-cli")
    document = prompt.path.read_text(encoding="utf-8")
    assert AT_LINES.strip() in document
    extra = {f".github/instructions/{name}": text for name, text in bait.items()}
    for request in run_live(COPILOT, copilot_cli, prompt, tmp_path, extra)[1]:
        assert_instructions(request, document)
        sent = json.dumps(request.body, ensure_ascii=False)
        assert not any(text.strip() in sent for text in bait.values())


def test_copilot_from_a_session_folder_gets_one_copy(copilot_cli, tmp_path):
    """Copilot CLI has no switch for AGENTS.md that keeps the document: run in a session folder
    outside the project (``cwd``), it gets the compiled copy alone; in the project, the raw
    copy too (the control)."""
    built = imported(tmp_path, {"AGENTS.md": RAW_AGENTS})
    for run, (cwd, raw) in enumerate((("../session", False), (".", True))):
        manifest = built.project / "hotplex.toml"
        text = manifest.read_text(encoding="utf-8").replace('cwd = "../session"\n', "")
        text = text.replace('worker = "copilot-cli"\n', f'worker = "copilot-cli"\ncwd = "{cwd}"\n')
        manifest.write_text(text, encoding="utf-8")
        (tmp_path / "session").mkdir(exist_ok=True)
        rebuilt = build_project(built.project)
        assert rebuilt.problem is None, rebuilt.problem
        prompt = artifact(rebuilt, "copilot-cli")
        launch = json.loads((prompt.path.parent / "launch.json").read_text(encoding="utf-8"))
        assert launch["cwd"] == cwd
        document = prompt.path.read_text(encoding="utf-8")
        assert "RAW-AGENTS-ONLY" in document and MARKERS["AGENTS.md"] not in document
        for request in run_live(COPILOT, copilot_cli, prompt, tmp_path / f"run{run}")[1]:
            assert_instructions(request, document)
            sent = json.dumps(request.body, ensure_ascii=False)
            assert (MARKERS["AGENTS.md"] in sent) is raw
