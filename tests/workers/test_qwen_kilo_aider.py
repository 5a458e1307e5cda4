"""The Qwen Code, Kilo and Aider workers: what each does beyond the home-document family (the
contract suite runs the rest). The real programs are driven in tests/integration/."""

from __future__ import annotations

import json

import pytest
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
    assert config == "read:\n- dist/t/default/prompt.xml\n"
    launch = json.loads(artifact.file("launch.json"))
    assert launch["argv"] == ["aider", "--config", "dist/t/default/aider-config/aider.conf.yml"]
    assert "env" not in launch and "--read" in launch["gateway_adds"]
    assert any("user message" in note for note in artifact.notes)


# A folder name holding what a hand-built YAML or JSON string gets wrong: U+0085 (a line break
# to YAML, not to JSON), C0 and C1 controls, an escape sequence, a bidi override, DEL, U+2028.
ODD = "o\u0085u\x01t\x1b[31m\u202e\x7f\u2028\x9b"
NEL = "ou\u0085t"  # alone, PyYAML would write it single-quoted, where it reads as a space


def _loaded(name: str, data: bytes) -> object:
    """An emitted config read as its program's library reads it."""
    import tomllib

    import yaml

    if name.endswith((".yml", ".yaml")):
        return yaml.safe_load(data.decode("utf-8"))
    if name.endswith(".toml"):
        return tomllib.loads(data.decode("utf-8"))
    return json.loads(data)


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("odd", [ODD, NEL], ids=["controls", "nel"])
def test_every_config_a_worker_writes_reads_back_an_odd_folder_exactly(make_project, odd):
    """Every JSON, TOML and YAML file of every worker, loaded by the library its program
    uses, names the artifacts' folder exactly as ``[project] out`` spells it."""
    from hotplex import registry

    targets = "".join(
        f'\n[[target]]\nname = "{name}"\nworker = "{name}"\n' for name in registry.names()
    )
    odd = f"zq{odd}"  # every string naming the folder holds "zq", mangled or not
    out = json.dumps(odd)  # a TOML basic string is written as a JSON one for these characters
    manifest = f"[project]\nout = {out}\n\n[metacognition]\nenabled = false\n{targets}"
    project = Project.load(make_project({"agent-configs/SOUL.md": "Be brief.\n"}, manifest))
    configs = named = 0
    for job in project.jobs():
        artifact = project.compile(job.target.name, job.platform)
        for path, data in artifact.files.items():
            if path.endswith((".json", ".toml", ".yml", ".yaml")):
                configs += 1
                strings = [s for s in _strings(_loaded(path, data)) if "zq" in s]
                assert all(odd in s for s in strings), (path, strings)
                named += len(strings)
        if job.target.worker == "aider":
            config = _loaded("a.yml", artifact.file("aider-config/aider.conf.yml"))
            assert config == {"read": [f"{odd}/aider/default/prompt.xml"]}
    assert configs >= 10 and named >= 10


def test_vibe_reads_its_home_agents_md_stripped_with_universal_newlines(make_project):
    """Mistral Vibe strips its user-level AGENTS.md and reads it with universal newlines; no
    ``--trust`` in launch.json (it would add the project's AGENTS.md files raw)."""
    artifact = Project.load(_project(make_project, "mistral-vibe")).compile("t")
    assert artifact.text == artifact.text.strip() and "A lone \n and" in artifact.text
    assert artifact.file("vibe-home/AGENTS.md").decode("utf-8") == artifact.text
    launch = json.loads(artifact.file("launch.json"))
    assert launch["argv"] == ["vibe"] and launch["env"] == {"VIBE_HOME": "dist/t/default/vibe-home"}
    assert "no --trust" in launch["gateway_adds"] and "config.toml" in launch["gateway_adds"]
