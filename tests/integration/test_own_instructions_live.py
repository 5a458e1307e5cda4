"""In a project whose sources are AGENTS.md and CLAUDE.md in place (the layout ``hotplex import``
writes), each program started as the built ``launch.json`` says gets the compiled document and no
raw copy of those files: the programs load them by themselves, and ``launch.json`` switches that
off (Claude Code and OpenCode: ``own_instructions = "off"``; Codex: always).

The marker: ``</rules>`` in a raw file arrives escaped in the compiled copy, so the literal text
reaches a request only through the program's own loading. (Claude Code strips HTML comments
itself, so those would be no marker.)
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

import pytest
from conftest import (
    HOTPLEX,
    Artifact,
    claude_env,
    find_binary,
    opencode_env,
    parse_build,
)
from fake_api import FakeApi, RecordedRequest, Reply, running, sse
from live import opencode_message
from test_claude_code import system_blocks
from test_codex import run_codex

pytestmark = pytest.mark.integration

# Each marker is in a raw file; the compiled copy holds its text with the tag escaped.
MARKERS = {"AGENTS.md": "</rules> RAW-AGENTS-ONLY", "CLAUDE.md": "</rules> RAW-CLAUDE-ONLY"}
RAW_AGENTS = f"# Rules\nShared rule. {MARKERS['AGENTS.md']}\n"
RAW_CLAUDE = f"# Claude\nClaude rule. {MARKERS['CLAUDE.md']}\n"


def imported(
    tmp_path, files: dict[str, str], own_instructions: str | None = None, worker="claude-code"
):
    """``hotplex import`` of ``files`` in place, then ``build --json``: the build."""
    project = tmp_path / "repo"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "import"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    if own_instructions is not None:
        manifest = project / "hotplex.toml"
        text = manifest.read_text(encoding="utf-8")
        text = text.replace(
            f'worker = "{worker}"\n',
            f'worker = "{worker}"\nown_instructions = "{own_instructions}"\n',
        )
        manifest.write_text(text, encoding="utf-8")
    argv = [str(HOTPLEX), "-C", str(project), "build", "--json"]
    built = parse_build(project, argv, subprocess.run(argv, capture_output=True, text=True))
    assert built.problem is None, built.problem
    return built


def artifact(built, worker: str) -> Artifact:
    (found,) = [a for a in built.artifacts if a.worker == worker and a.path.name == "prompt.xml"]
    return found


@pytest.mark.parametrize(
    "files",
    [{"AGENTS.md": RAW_AGENTS, "CLAUDE.md": RAW_CLAUDE}, {"AGENTS.md": RAW_AGENTS}],
    ids=["agents-and-claude", "agents-only"],
)
def test_claude_code_gets_only_the_compiled_copy(files, claude_cli, fake_anthropic, tmp_path):
    built = imported(tmp_path, files, own_instructions="off")
    prompt = artifact(built, "claude-code")
    document = prompt.path.read_text(encoding="utf-8")
    assert not any(MARKERS[name] in document for name in files)  # escaped there
    launch = json.loads((prompt.path.parent / "launch.json").read_text(encoding="utf-8"))
    assert launch["env"] == {"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"}
    env = {**claude_env(tmp_path / "home", fake_anthropic.url), **launch["env"]}
    done = subprocess.run(
        [str(claude_cli.path), *launch["argv"][1:], "--print", "ping"],
        cwd=built.project / launch["cwd"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (request, *_) = fake_anthropic.message_requests()
    assert system_blocks(request.body["system"])[-1].endswith(document)
    sent = json.dumps(request.body, ensure_ascii=False)
    assert not any(MARKERS[name] in sent for name in files), "a raw copy reached Claude Code"
    assert "RAW-" in document  # the rules themselves arrive, compiled


def test_claude_code_without_the_switch_gets_the_raw_copy_too(claude_cli, fake_anthropic, tmp_path):
    """The control: the marker does reach a request when nothing switches the loading off."""
    built = imported(tmp_path, {"AGENTS.md": RAW_AGENTS})
    prompt = artifact(built, "claude-code")
    launch = json.loads((prompt.path.parent / "launch.json").read_text(encoding="utf-8"))
    assert "env" not in launch
    done = subprocess.run(
        [str(claude_cli.path), *launch["argv"][1:], "--print", "ping"],
        cwd=built.project / launch["cwd"],
        env=claude_env(tmp_path / "home", fake_anthropic.url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (request, *_) = fake_anthropic.message_requests()
    assert MARKERS["AGENTS.md"] in json.dumps(request.body, ensure_ascii=False)


def test_codex_gets_only_the_compiled_copy(codex_cli, tmp_path):
    built = imported(tmp_path, {"AGENTS.md": RAW_AGENTS, "CLAUDE.md": RAW_CLAUDE})
    prompt = artifact(built, "codex")
    document = prompt.path.read_text(encoding="utf-8")
    assert "RAW-AGENTS-ONLY" in document and MARKERS["AGENTS.md"] not in document
    (request, *_) = run_codex(codex_cli, prompt, tmp_path)
    sent = json.dumps(request.body, ensure_ascii=False)
    assert json.dumps(document, ensure_ascii=False)[1:-1] in sent  # the compiled copy
    assert MARKERS["AGENTS.md"] not in sent  # and no raw one
    assert "AGENTS.md instructions" not in sent


@dataclass
class FakeChat(FakeApi):
    """An OpenAI-compatible ``POST /v1/chat/completions``: one streamed text reply."""

    def respond(self, request: RecordedRequest) -> Reply | None:
        if request.route != "/v1/chat/completions":
            return None
        delta = {"role": "assistant", "content": self.reply}
        chunks = [
            {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
        events = [{"id": "c", "object": "chat.completion.chunk", "model": "m", **c} for c in chunks]
        return 200, sse(events, named=False) + b"data: [DONE]\n\n", "text/event-stream"


def test_opencode_gets_only_the_compiled_copy(tmp_path):
    """``opencode serve`` started as launch.json says (``own_instructions = "off"``), sent the
    built payload with a message: the model request holds the document and no raw AGENTS.md."""
    binary = find_binary("opencode")
    if binary is None:
        pytest.skip("opencode is not installed")
    built = imported(
        tmp_path, {"AGENTS.md": RAW_AGENTS}, own_instructions="off", worker="opencode-server"
    )
    (payload,) = [a for a in built.artifacts if a.path.name == "payload.json"]
    launch = json.loads((payload.path.parent / "launch.json").read_text(encoding="utf-8"))
    assert launch["env"] == {"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}
    body = json.loads(payload.path.read_text(encoding="utf-8"))
    with running(FakeChat()) as fake:
        env = {**opencode_env(tmp_path / "oc"), **launch["env"]}
        opencode_message(binary, built.project / launch["cwd"], env, fake.url, body)
    sent = [json.dumps(r.body, ensure_ascii=False) for r in fake.posts("/v1/chat/completions")]
    main = [s for s in sent if "RAW-AGENTS-ONLY" in s]
    assert main, "the document reached no model request"
    assert json.dumps(body["system"], ensure_ascii=False)[1:-1] in main[0]
    assert not any(MARKERS["AGENTS.md"] in s for s in sent), "a raw AGENTS.md reached OpenCode"
