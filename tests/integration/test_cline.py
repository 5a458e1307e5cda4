"""Every generated Cline artifact reaches the model through the real Cline CLI byte for byte, as
the rule ``hotplex`` at the end of the system message, after Cline's own base prompt.

``cline`` starts as the built ``launch.json`` says (``CLINE_DIR`` naming the built
``cline-home``, ``CLINE_SESSION_BACKEND_MODE=local``), with what a gateway adds: its provider,
written once by ``cline auth`` into a data folder of its own (``CLINE_DATA_DIR``) and pointing at
a fake Chat Completions API on 127.0.0.1. In local mode Cline starts no hub daemon; should one be
running all the same, the test stops its process group and fails.

What Cline 3.0.65 does (observed, and asserted below): the rules end the system message as
``# Rules`` then ``## <name>`` and the rule's trimmed text; the rule in ``$CLINE_DIR/rules``
shadows a project ``.clinerules`` rule of the same name, which ``check`` names.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import HOTPLEX, build_project
from fake_api import FakeChatCompletions
from live import LiveCase, run_live
from test_own_instructions_live import artifact

# Slow: every start of Cline waits on a DNS lookup of its telemetry host (otel.cline.bot, no
# setting turns it off), about 4 s on a machine without network, and each test starts it twice.
pytestmark = [pytest.mark.integration, pytest.mark.slow]

BASE = "You are Cline, an AI coding agent."
MODEL = "fake-model"


def data_folder(home: Path) -> Path:
    return home / "cline-data"


def authenticate(cli, built, url: str, home) -> dict[str, str]:
    """``cline auth`` as a gateway runs it once: the provider in its own data folder."""
    data = {"CLINE_DATA_DIR": str(data_folder(home))}
    args = ["auth", "-p", "openai-compatible", "-k", "dummy", "-m", MODEL, "-b", f"{url}/v1"]
    done = cli.launch(built, args, data, home)
    assert done.returncode == 0, done.stderr[-2000:]
    return data


CLINE = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["say ping", "-P", "openai-compatible", "-m", MODEL],
    env=lambda url: {},
    model_route="/chat/completions",
    prepare=authenticate,
)


@pytest.fixture
def no_hub(tmp_path):
    """Fails the test if Cline left a hub daemon (its discovery file names it), after stopping
    the daemon's process group."""
    yield
    discovery = data_folder(tmp_path / "home") / "locks/hub/production.json"
    if discovery.is_file():
        pid = json.loads(discovery.read_text(encoding="utf-8"))["pid"]
        with contextlib.suppress(ProcessLookupError):  # gone already
            os.killpg(pid, signal.SIGKILL)
        pytest.fail(f"Cline left a hub daemon running (pid {pid})")


def assert_rule(request, document: str) -> None:
    """The document is the rule ``hotplex``, the end of the system message, after Cline's base
    prompt; no other message holds it."""
    (system,) = [m["content"] for m in request.body["messages"] if m["role"] == "system"]
    assert system.startswith(BASE), "Cline's base prompt is gone"
    assert system.count(document) == 1
    assert system.endswith(f"\n\n# Rules\n## hotplex\n{document}"), system[-300:]
    others = json.dumps([m for m in request.body["messages"] if m["role"] != "system"])
    assert "agent-configuration" not in others


@pytest.mark.usefixtures("no_hub")
def test_cline_sends_document_as_its_last_rule(cline_cli, cline_prompt, tmp_path):
    document = cline_prompt.path.read_bytes().decode("utf-8")
    assert document.startswith("<agent-configuration>") and document == document.strip()
    rule = cline_prompt.path.parent / "cline-home/rules/hotplex.md"
    assert rule.read_bytes() == document.encode()
    for request in run_live(CLINE, cline_cli, cline_prompt, tmp_path)[1]:
        assert_rule(request, document)


MANIFEST = '[project]\nname = "rules"\n\n[[target]]\nname = "cline"\nworker = "cline"\n'


@pytest.mark.usefixtures("no_hub")
def test_cline_rule_shadows_a_project_rule_of_its_name(cline_cli, tmp_path):
    """A project ``.clinerules/HotPlex.md`` (a rule named like the document's, in another letter
    case) is not sent, and ``check`` says so; another project rule is sent after the document,
    in the order of the names."""
    project = tmp_path / "project"
    (project / "agent-configs").mkdir(parents=True)
    (project / ".clinerules").mkdir()
    (project / "hotplex.toml").write_text(MANIFEST, encoding="utf-8")
    (project / "agent-configs/AGENTS.md").write_text("Rules\r\n\r\n", encoding="utf-8")
    (project / ".clinerules/HotPlex.md").write_text("SHADOWED-PROJECT-RULE\n", encoding="utf-8")
    (project / ".clinerules/zz-team.md").write_text("\n  TEAM-RULE  \n", encoding="utf-8")
    built = build_project(project)
    assert built.problem is None, built.problem
    checked = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "check", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    warnings = json.loads(checked.stdout)["warnings"]
    assert any(".clinerules/HotPlex.md is not read by Cline" in w for w in warnings), warnings

    prompt = artifact(built, "cline")
    document = prompt.path.read_text(encoding="utf-8")
    (request,) = run_live(CLINE, cline_cli, prompt, tmp_path)[1]
    (system,) = [m["content"] for m in request.body["messages"] if m["role"] == "system"]
    assert "SHADOWED-PROJECT-RULE" not in system
    assert system.endswith(f"\n\n# Rules\n## hotplex\n{document}\n\n## zz-team\nTEAM-RULE")
