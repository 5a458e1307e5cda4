"""The Pi, Copilot CLI and Cline workers: what each writes, and what is particular to each.

The real programs are driven in tests/integration/test_pi.py, test_copilot_cli.py and
test_cline.py.
"""

from __future__ import annotations

import json

import pytest
from hotplex.api import Project
from hotplex.errors import HotplexError
from hotplex.targets.home import JS_WHITESPACE

MANIFEST = """\
[variants]
platforms = ["slack"]

[metacognition]
enabled = false

[[target]]
name = "pi"
worker = "pi"

[[target]]
name = "copilot"
worker = "copilot-cli"

[[target]]
name = "cline"
worker = "cline"

[[target]]
name = "cc"
worker = "claude-code"
"""
SOUL = "Ask @alice.\r\n@notes.md\r\n\r\n\r\n\r\nEnd.\n"


@pytest.fixture
def project(make_project) -> Project:
    return Project.load(make_project({"agent-configs/SOUL.md": SOUL}, MANIFEST))


def launch(artifact, folder: str) -> dict:
    return json.loads(artifact.files[f"{folder}/launch.json"])


def test_pi_appends_its_file_by_argument(project):
    artifact = project.compile("pi", platform="slack")
    folder = "dist/pi/slack"
    assert artifact.text == project.compile("cc", platform="slack").text  # as written
    assert artifact.files[f"{folder}/pi/APPEND_SYSTEM.md"] == artifact.text.encode()
    spec = launch(artifact, folder)
    assert spec["argv"] == ["pi", "--append-system-prompt", f"{folder}/pi/APPEND_SYSTEM.md"]
    assert "env" not in spec and "models.json" in spec["gateway_adds"]


def test_copilot_adds_a_folder_of_instructions(project):
    artifact = project.compile("copilot", platform="slack")
    folder = "dist/copilot/slack"
    assert artifact.text == project.compile("cc", platform="slack").text  # no @ imports to defuse
    home = f"{folder}/copilot-instructions"
    assert artifact.files[f"{home}/.github/instructions/hotplex.instructions.md"] == (
        artifact.text.encode()
    )
    assert launch(artifact, folder)["env"] == {"COPILOT_CUSTOM_INSTRUCTIONS_DIRS": home}


def test_copilot_refuses_a_folder_with_a_comma(make_project):
    """Copilot splits COPILOT_CUSTOM_INSTRUCTIONS_DIRS at commas: the folder would be lost."""
    manifest = '[project]\nout = "a,b"\n\n[[target]]\nname = "c"\nworker = "copilot-cli"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n"}, manifest)
    with pytest.raises(HotplexError) as raised:
        Project.load(root).compile("c")
    (problem,) = raised.value.problems
    assert problem.span.key == "project.out" and "comma" in problem.message


def test_cline_rule_is_the_document_trimmed(make_project):
    """Cline trims a rule (JavaScript's trim), so the artifact is built trimmed, and the sizes
    ``stats`` shows are of what arrives."""
    manifest = '[metacognition]\nenabled = false\n\n[[target]]\nname = "cl"\nworker = "cline"\n'
    root = make_project({"agent-configs/SOUL.md": "Soul.\n"}, manifest)
    project = Project.load(root)
    artifact = project.compile("cl")
    folder = "dist/cl/default"
    assert artifact.text == artifact.text.strip(JS_WHITESPACE)
    assert artifact.text.endswith("</agent-configuration>")
    assert artifact.files[f"{folder}/cline-home/rules/hotplex.md"] == artifact.text.encode()
    assert launch(artifact, folder)["env"] == {
        "CLINE_DIR": f"{folder}/cline-home",
        "CLINE_SESSION_BACKEND_MODE": "local",  # its own process: its own CLINE_DIR
    }
    (soul,) = [s for s in artifact.sizes if s.name == "soul"]
    assert soul.injected == soul.raw > 0
