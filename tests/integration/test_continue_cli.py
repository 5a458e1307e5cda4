"""Every generated Continue CLI artifact reaches the model through the real ``cn`` byte for byte,
as the last rule of ``<context name="userRules">`` at the end of the system message, after
Continue's own base prompt.

``cn -p`` starts as the built ``launch.json`` says (``CONTINUE_GLOBAL_DIR`` naming the built
``continue-home``, relative to the project), with what a gateway adds: its provider, a
``config.yaml`` in that home pointing at a fake Chat Completions API on 127.0.0.1, and a
throw-away HOME.

What Continue CLI 1.5.47 does (observed, and asserted below): the system message ends with
``<context name="userRules">\\n`` + the rules joined by blank lines + ``\\n</context>``; a rule file
is split at its ``---`` lines and what lies before the second one is taken for frontmatter, so the
home file starts with hotplex's own; a project AGENTS.md arrives raw too, before the document.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import HOTPLEX, build_project
from fake_api import FakeChatCompletions
from live import LiveCase, assert_only_in_system, chat_system, config_in_home, home_of, run_live

pytestmark = pytest.mark.integration

BASE_PROMPT = "You are an agent in the Continue CLI."
HOME = "CONTINUE_GLOBAL_DIR"
FRONTMATTER = "---\nalwaysApply: true\n---\n"


def provider(url: str) -> str:
    """The gateway's config.yaml."""
    return (
        "name: gateway\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: fake\n    provider: openai\n"
        f"    model: fake-model\n    apiBase: {url}/v1\n    apiKey: dummy\n"
        "    roles: [chat, edit, apply]\n"
    )


CONTINUE = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-p", "ping"],
    env=lambda url: {"CONTINUE_CLI_ENABLE_TELEMETRY": "0"},
    model_route="/chat/completions",
    prepare=config_in_home(HOME, "config.yaml", provider),
)


def user_rules(request) -> tuple[str, str]:
    """The system message, and the text of its ``userRules`` block, which ends it."""
    system = chat_system(request)
    assert system.startswith(BASE_PROMPT), "Continue's base prompt is gone"
    opening, closing = '\n\n<context name="userRules">\n', "\n</context>"
    assert system.count(opening) == 1 and system.endswith(closing), system[-300:]
    return system, system[system.index(opening) + len(opening) : -len(closing)]


def test_continue_sends_document_as_its_last_rule(continue_cli, continue_prompt, tmp_path):
    document = continue_prompt.path.read_bytes()
    assert document.startswith(b"<agent-configuration>")
    home = continue_prompt.path.parent / "continue-home/rules/hotplex.md"
    assert home.read_bytes() == FRONTMATTER.encode() + document
    (request,) = run_live(CONTINUE, continue_cli, continue_prompt, tmp_path)[1]
    assert user_rules(request)[1] == document.decode("utf-8")
    assert_only_in_system(request)


RULED = """\
HEAD-BEFORE-THE-RULES stays.

---

MIDDLE-BETWEEN-THE-RULES stays.
---\t\u00a0

---
TAIL-AFTER-THE-RULES stays.
"""


def _built(tmp_path, files: dict[str, str], head: str = "", extra: str = ""):
    """A project of ``files`` with a continue-cli target: the build's stderr and its artifact."""
    project = tmp_path / "repo"
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    manifest = f'{head}[[target]]\nname = "continue"\nworker = "continue-cli"\n{extra}'
    (project / "hotplex.toml").write_text(manifest, encoding="utf-8")
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "build"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    built = build_project(project)
    assert built.problem is None, built.problem
    (artifact,) = [a for a in built.artifacts if a.path.name == "prompt.xml"]
    return done.stderr, artifact


def test_continue_keeps_a_document_with_markdown_rules_whole(continue_cli, tmp_path):
    """``---`` lines in a source: the frontmatter hotplex writes keeps Continue from taking the
    document's head for its own; without it (the control) the head is lost."""
    _, artifact = _built(tmp_path, {"agent-configs/SOUL.md": RULED})
    document = artifact.path.read_text(encoding="utf-8")
    assert "\n---\nMIDDLE-BETWEEN" in document and "stays.\n---\n---\nTAIL" in document
    (request,) = run_live(CONTINUE, continue_cli, artifact, tmp_path / "run")[1]
    assert user_rules(request)[1] == document
    home = home_of(artifact, HOME) / "rules/hotplex.md"
    home.write_text(document, encoding="utf-8")  # the document alone, as a naive rule file
    (request,) = run_live(CONTINUE, continue_cli, artifact, tmp_path / "control")[1]
    rules = user_rules(request)[1]
    assert "HEAD-BEFORE-THE-RULES" not in rules and "TAIL-AFTER-THE-RULES" in rules


@pytest.mark.parametrize(("cwd", "raw"), [(".", True), ("../session", False)])
def test_continue_reads_a_raw_agents_md_beside_the_document(continue_cli, tmp_path, cwd, raw):
    """Continue has no switch for its own files: a compiled AGENTS.md in its working folder
    arrives raw too, first, and ``build`` says so; started in a folder outside the project
    (``cwd``), only the compiled copy arrives."""
    (tmp_path / "session").mkdir()
    marker = "</rules> RAW-AGENTS-ONLY"  # escaped in the compiled copy
    files = {"AGENTS.md": f"Shared rule. {marker}\n"}
    stderr, artifact = _built(tmp_path, files, '[project]\nsources = "."\n\n', f'cwd = "{cwd}"\n')
    assert ("Continue also reads AGENTS.md" in stderr) is raw, stderr
    document = artifact.path.read_text(encoding="utf-8")
    assert "RAW-AGENTS-ONLY" in document and marker not in document
    (request,) = run_live(CONTINUE, continue_cli, artifact, tmp_path / "run")[1]
    rules = user_rules(request)[1]
    expected = f"{files['AGENTS.md']}\n\n{document}" if raw else document
    assert rules == expected
    assert json.dumps(request.body, ensure_ascii=False).count(marker) == int(raw)
