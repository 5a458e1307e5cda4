"""The workspace hotplex builds for an ``openclaw`` target reaches the model through the real
OpenClaw exactly as ``context.md`` predicts: its ``# Project Context``, byte for byte, once, after
OpenClaw's own base prompt.

A gateway deploys the built ``workspace/`` into the folder the target's ``workspace`` names and
runs one headless turn there: ``openclaw agent exec --config <file> --cwd <workspace> --model
fake/m``, with a throw-away HOME and state folder, its provider ``fake`` an OpenAI Chat
Completions API on 127.0.0.1 (``models.providers``, ``api = "openai-completions"``) and
``skipBootstrap`` set, so OpenClaw writes no template of its own beside hotplex's files.

What OpenClaw 2026.9.6 does (observed, and asserted below): the system message opens with its
base prompt ("You are a personal assistant running inside OpenClaw."), and its "Workspace Files
(injected)" part holds the Project Context, rendered from the files in the workspace with the
target's budgets (``bootstrapMaxChars``, ``bootstrapTotalMaxChars``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLES, Cli, base_env, build_project
from fake_api import FakeApi, FakeChatCompletions, RecordedRequest, running
from test_skills_each_program import assert_body_returned, assert_listed, calling, xml_entry

pytestmark = pytest.mark.integration

BASE = "You are a personal assistant running inside OpenClaw."
HEADING = "# Project Context\n"
PROVIDER, MODEL = "fake", "m"
TURN_TIMEOUT = 240  # seconds for one `openclaw agent exec` (its SQLite upkeep takes a while)


def openclaw_config(url: str, workspace: Path, **agent: object) -> dict[str, object]:
    """The gateway's OpenClaw config: the workspace hotplex's files are deployed in, no
    templates of OpenClaw's own written there, and the fake API as its only provider."""
    model = {"id": MODEL, "name": MODEL}
    provider = {"baseUrl": f"{url}/v1", "apiKey": "dummy", "api": "openai-completions"}
    defaults = {
        "workspace": str(workspace),
        "skipBootstrap": True,
        "model": {"primary": f"{PROVIDER}/{MODEL}"},
        **agent,
    }
    return {
        "agents": {"defaults": defaults},
        "models": {"providers": {PROVIDER: {**provider, "models": [model]}}},
    }


def run_turn(
    cli: Cli, workspace: Path, root: Path, fake: FakeApi | None = None, **agent: object
) -> tuple[FakeApi, list[RecordedRequest]]:
    """One headless ``openclaw agent exec`` turn in ``workspace`` against ``fake`` (a fresh
    Chat Completions fake unless given); its state under ``root``. The fake and its chat
    requests."""
    home, config = root / "home", root / "openclaw.json"
    home.mkdir(parents=True, exist_ok=True)
    with running(fake or FakeChatCompletions()) as served:
        config.write_text(json.dumps(openclaw_config(served.url, workspace, **agent)), "utf-8")
        argv = [str(cli.path), "agent", "exec", "--config", str(config), "--cwd", str(workspace)]
        argv += ["--model", f"{PROVIDER}/{MODEL}", "--timeout", str(TURN_TIMEOUT), "ping"]
        done = subprocess.run(
            argv,
            cwd=workspace,
            env=base_env(HOME=str(home), OPENCLAW_STATE_DIR=str(root / "state"), **cli.runtime()),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TURN_TIMEOUT + 60,
        )
    assert done.returncode == 0, f"openclaw exited {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == served.reply, done.stdout[-2000:]
    requests = [r for r in served.requests if r.route.endswith("/chat/completions")]
    assert requests, f"no chat request; saw {[r.path for r in served.requests]}"
    return served, requests


def system_message(request: RecordedRequest) -> str:
    (system,) = [m["content"] for m in request.body["messages"] if m["role"] == "system"]
    return system if isinstance(system, str) else "".join(p["text"] for p in system)


def built_workspace(tmp_path: Path, example: str = "openclaw", target: str = "claw") -> Path:
    """``examples/<example>`` built with the target's ``workspace`` set to a folder of
    ``tmp_path``, and its built ``workspace/`` deployed there; that folder."""
    project = tmp_path / example
    shutil.copytree(EXAMPLES / example, project, ignore=shutil.ignore_patterns("dist"))
    deployed = tmp_path / "workspace"
    manifest = project / "hotplex.toml"
    text = manifest.read_text("utf-8")
    lines = [
        f'workspace = "{deployed}"' if line.startswith("workspace = ") else line
        for line in text.splitlines()
    ]
    manifest.write_text("\n".join(lines) + "\n", "utf-8")
    done = build_project(project)
    if done.problem is not None:
        pytest.fail(done.problem, pytrace=False)
    shutil.copytree(project / f"dist/{target}/default/workspace", deployed)
    return deployed


def test_openclaw_builds_the_project_context_hotplex_predicts(openclaw_cli, tmp_path):
    workspace = built_workspace(tmp_path)
    context = (tmp_path / "openclaw/dist/claw/default/context.md").read_bytes().decode("utf-8")
    assert context.startswith(HEADING)
    (request, *_) = run_turn(openclaw_cli, workspace, tmp_path / "run", bootstrapMaxChars=1500)[1]
    system = system_message(request)
    assert system.count(BASE) == 1 and system.index(BASE) < system.index(HEADING)
    assert system.count(HEADING) == 1
    assert system.count(context) == 1, system[system.index(HEADING) :][:3000]


@pytest.mark.slow  # a second turn of OpenClaw's (about 40 s), as Cline's skills test
def test_openclaw_lists_each_skill_of_its_workspace_once_and_sends_its_body_whole(
    openclaw_cli, tmp_path
):
    """``examples/skills`` with an ``openclaw`` target: its workspace, deployed, holds each skill
    in ``skills/``; OpenClaw lists each in ``<available_skills>`` once, and when the model reads
    one at its listed location with OpenClaw's ``read`` tool, the SKILL.md body comes back byte
    for byte."""
    project = tmp_path / "skills"
    shutil.copytree(EXAMPLES / "skills", project, ignore=shutil.ignore_patterns("dist"))
    deployed = tmp_path / "workspace"
    manifest = project / "hotplex.toml"
    claw = f'\n[[target]]\nname = "claw"\nworker = "openclaw"\nworkspace = "{deployed}"\n'
    manifest.write_text(manifest.read_text("utf-8") + claw, "utf-8")
    built = build_project(project)
    if built.problem is not None:
        pytest.fail(built.problem, pytrace=False)
    shutil.copytree(project / "dist/claw/default/workspace", deployed)
    skill_md = deployed / "skills/release-notes/SKILL.md"
    # OpenClaw keeps only the letters and digits of a call id.
    fake = calling("read", call_id="callhotplexskill", path=str(skill_md))()
    fake, requests = run_turn(openclaw_cli, deployed, tmp_path / "run", fake)
    body = requests[0].body
    system = system_message(requests[0])
    assert system.count(context_of(project)) == 1
    listing = system.split("<available_skills>", 1)[1].split("</available_skills>", 1)[0]
    entry = lambda name, text: xml_entry(name, text, deployed / "skills")  # noqa: E731
    assert_listed(built, body, listing, entry, "openclaw")
    assert_body_returned(built, fake, requests, skill_md)


def context_of(project: Path) -> str:
    return (project / "dist/claw/default/context.md").read_bytes().decode("utf-8")
