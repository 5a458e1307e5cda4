"""The Qwen Code, Kilo and Aider workers: what each does beyond the home-document family (the
contract suite runs the rest). The real programs are driven in tests/integration/."""

from __future__ import annotations

import json

from hotplex.api import Project

WJ = "\u2060"
SOUL = "Ask @alice.\r\n\n\n\n\nA lone {{ cr }} and `@code`.\n"


def _project(make_project, worker: str, extra: str = "", name: str = "project"):
    head = '[metacognition]\nenabled = false\n\n[vars]\ncr = "\\r"\n\n[[target]]\nname = "t"\n'
    manifest = f'{head}worker = "{worker}"\n{extra}'
    return make_project({"agent-configs/SOUL.md": SOUL}, manifest=manifest, name=name)


def test_qwen_keeps_blank_line_runs_and_defuses_imports(make_project):
    """As Gemini CLI, but Qwen Code sends runs of blank lines as they are."""
    artifact = Project.load(_project(make_project, "qwen-code")).compile("t")
    home = artifact.file("qwen-home/QWEN.md").decode("utf-8")
    assert home == artifact.text and artifact.text == artifact.text.strip()
    assert f"Ask {WJ}@alice.\n\n\n\n\nA lone \r and `@code`." in artifact.text
    assert any("Qwen Code would read 1 '@'" in w for w in artifact.warnings)


def test_kilo_switch_is_the_targets_choice(make_project):
    """``KILO_DISABLE_PROJECT_CONFIG`` only with ``own_instructions = "off"``; the text as
    written (CR kept)."""
    for extra, env in (
        ("", {"KILO_CONFIG_DIR": "dist/t/default/kilo-config"}),
        (
            'own_instructions = "off"\n',
            {"KILO_CONFIG_DIR": "dist/t/default/kilo-config", "KILO_DISABLE_PROJECT_CONFIG": "1"},
        ),
    ):
        root = _project(make_project, "kilo", extra, name=f"p{len(env)}")
        artifact = Project.load(root).compile("t")
        launch = json.loads(artifact.file("launch.json"))
        assert launch["env"] == env and "provider" in launch["gateway_adds"]
        assert artifact.file("kilo-config/AGENTS.md").decode("utf-8") == artifact.text
        assert "A lone \r and" in artifact.text and f"{WJ}@" not in artifact.text


def test_aider_reads_the_prompt_with_universal_newlines_at_user_level(make_project):
    """CR LF and a lone CR become LF; the config names prompt.xml; the note says user level."""
    artifact = Project.load(_project(make_project, "aider")).compile("t")
    assert "\r" not in artifact.text and "A lone \n and" in artifact.text
    config = artifact.file("aider-config/aider.conf.yml").decode("utf-8")
    assert config == 'read:\n  - "dist/t/default/prompt.xml"\n'
    launch = json.loads(artifact.file("launch.json"))
    assert launch["argv"] == ["aider", "--config", "dist/t/default/aider-config/aider.conf.yml"]
    assert "env" not in launch and "--read" in launch["gateway_adds"]
    assert any("user message" in note for note in artifact.notes)
