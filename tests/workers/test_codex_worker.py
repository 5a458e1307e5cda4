"""The Codex worker: prompt.xml, the config.toml that carries it exactly, and launch.json.

The real CLI is driven in tests/integration/test_codex.py.
"""

from __future__ import annotations

import json
import tomllib

from hotplex import registry
from hotplex.api import Project
from hotplex.targets import codex
from hypothesis import given
from hypothesis import strategies as st


@given(st.text())
def test_config_toml_carries_any_text_exactly(text):
    """CR, CRLF, control characters, quotes, backslashes, astral characters: all exact."""
    assert tomllib.loads(codex.config_toml(text).decode("utf-8")) == {
        "developer_instructions": text
    }


def test_artifact_files_and_launch(make_project):
    manifest = (
        '[variants]\nplatforms = ["slack"]\n\n'
        '[[target]]\nname = "cx"\nworker = "codex"\n\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    files = {"agent-configs/SOUL.md": "Ask @alice. 中文 🎉\r\n\r\n\r\n\r\nEnd.\n"}
    project = Project.load(make_project(files, manifest))
    artifact = project.compile("cx", platform="slack")
    folder = "dist/cx/slack"
    assert list(artifact.files) == [
        f"{folder}/prompt.xml",
        f"{folder}/codex-home/config.toml",
        f"{folder}/launch.json",
    ]
    assert artifact.text == project.compile("cc", platform="slack").text, "Claude Code's document"
    assert "Ask @alice. 中文 🎉\n\n\n\nEnd." in artifact.text  # as written, line ends as LF
    config = tomllib.loads(artifact.files[f"{folder}/codex-home/config.toml"].decode())
    # project_doc_max_bytes = 0: Codex reads no project AGENTS.md raw beside the document
    assert config == {"developer_instructions": artifact.text, "project_doc_max_bytes": 0}
    assert json.loads(artifact.files[f"{folder}/launch.json"]) == {
        "argv": ["codex"],
        "cwd": ".",
        "env": {"CODEX_HOME": f"{folder}/codex-home"},
        "platform": "slack",
        "target": "cx",
    }


def test_registered():
    assert isinstance(registry.workers()["codex"], codex.Codex)
