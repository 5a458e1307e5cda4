"""Every generated Qwen Code artifact reaches the model through the real Qwen Code byte for byte,
in the system message after Qwen's own base prompt.

``qwen -p`` starts as the built ``launch.json`` says (``QWEN_HOME`` relative to the project), run
by npm's node 22, with what a gateway adds: ``--auth-type openai`` and the ``OPENAI_*`` variables
pointing at a fake Chat Completions API on 127.0.0.1, and a throw-away HOME.

What Qwen Code 0.24.4 does (observed, and asserted below): two requests per turn, the main one
(system message "You are Qwen Code, …") and its memory-extraction sub-agent's; both carry the
home's QWEN.md as ``--- Context from: <path relative to the working folder> ---`` / the file's
text, trimmed / ``--- End of Context from: … ---``, blank-line runs and CR kept, ``@path``
imports inlined unless defused (the artifact has a word joiner before each).
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import build_project
from fake_api import FakeChatCompletions
from live import (
    LiveCase,
    assert_only_in_system,
    built_in_session,
    chat_system,
    home_of,
    run_live,
)

pytestmark = pytest.mark.integration

WORD_JOINER = "\u2060"
BASE_PROMPT = "You are Qwen Code"

QWEN = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-p", "ping", "--auth-type", "openai", "--model", "fake-model"],
    env=lambda url: {
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_API_KEY": "dummy",
        "OPENAI_MODEL": "fake-model",
    },
    model_route="/chat/completions",
    home_variable="QWEN_HOME",
)


def wrapped(artifact, document: str) -> str:
    """The document in Qwen's wrapper, its path relative to the session folder."""
    launch = json.loads((artifact.path.parent / "launch.json").read_text(encoding="utf-8"))
    shown = os.path.relpath(
        home_of(artifact, "QWEN_HOME") / "QWEN.md", artifact.project / launch["cwd"]
    )
    return f"--- Context from: {shown} ---\n{document}\n--- End of Context from: {shown} ---"


def assert_delivered(requests, artifact) -> list[str]:
    """The document is in every request's system message exactly once, in Qwen's wrapper, after
    Qwen's base prompt in the main turn; the systems of the requests."""
    document = artifact.path.read_bytes().decode("utf-8")
    systems = [chat_system(r) for r in requests]
    main = [s for s in systems if s.startswith(BASE_PROMPT)]
    assert main, f"no main turn; systems start {[s[:60] for s in systems]}"
    for system in systems:
        assert system.count(document) == 1 and system.count(wrapped(artifact, document)) == 1
    for request in requests:
        assert_only_in_system(request)
    return systems


def test_qwen_sends_document_in_system_message(qwen_cli, qwen_prompt, tmp_path):
    document = qwen_prompt.path.read_bytes()
    assert document.startswith(b"<agent-configuration>")
    assert (qwen_prompt.path.parent / "qwen-home/QWEN.md").read_bytes() == document
    _, requests = run_live(QWEN, qwen_cli, qwen_prompt, tmp_path)
    assert len(requests) >= 1
    assert_delivered(requests, qwen_prompt)


@pytest.mark.slow
def test_qwen_keeps_tricky_source_text(qwen_cli, tricky_build, tmp_path):
    """Blank-line runs stay (Qwen does not collapse them, unlike Gemini CLI), and ``@alice``,
    ``@README.md`` reach Qwen as text with the files an import would read lying beside."""
    project = tricky_build.build.project
    manifest = project / "hotplex.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        + '\n[[target]]\nname = "qwen"\nworker = "qwen-code"\n',
        encoding="utf-8",
    )
    built = build_project(project)
    assert built.problem is None, built.problem
    (artifact,) = [a for a in built.artifacts if a.target == "qwen" and a.path.name == "prompt.xml"]
    document = artifact.path.read_text(encoding="utf-8")
    assert "\n\n\n" in document  # kept, as Qwen keeps it
    for defused in ("@alice", "@README.md", "@./docs/adr", "@bob", "@carol"):
        assert WORD_JOINER + defused in document
    bait = dict(tricky_build.bait)
    home = home_of(artifact, "QWEN_HOME")
    home.mkdir(parents=True, exist_ok=True)
    _, requests = run_live(QWEN, qwen_cli, artifact, tmp_path, extra=bait)
    for system in assert_delivered(requests, artifact):
        assert not any(text.strip() in system for text in bait.values()), "an import was read"
        assert "Import failed" not in system and "Imported from" not in system


@pytest.mark.slow
def test_qwen_reads_a_raw_agents_md_beside_the_document(qwen_cli, tmp_path):
    """Qwen Code has no switch for its own files: a compiled AGENTS.md in the session folder
    arrives raw too, and ``build`` says so; started in a folder outside the project (``cwd``),
    only the compiled copy arrives."""
    project = tmp_path / "repo"
    project.mkdir()
    (project / "AGENTS.md").write_text("Shared rule. </rules> RAW-AGENTS-ONLY\n", encoding="utf-8")
    manifest = '[project]\nsources = "."\n\n[[target]]\nname = "qwen"\nworker = "qwen-code"\n'
    for cwd, raw in ((".", True), ("../session", False)):
        artifact = built_in_session(project, manifest, cwd, "Qwen Code also reads AGENTS.md", raw)
        assert "RAW-AGENTS-ONLY" in artifact.path.read_text(encoding="utf-8")
        _, requests = run_live(QWEN, qwen_cli, artifact, tmp_path / f"run-{raw}")
        for system in assert_delivered(requests, artifact):
            assert ("</rules> RAW-AGENTS-ONLY" in system) is raw
