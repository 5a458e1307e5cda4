"""Every generated Factory Droid artifact reaches the model through the real ``droid exec`` byte
for byte, at the end of the system message, after Droid's own base prompt.

``droid exec`` starts as the built ``launch.json`` says (``--append-system-prompt-file`` naming
the built ``droid/system-prompt.md``, relative to the project), with what a gateway adds: a BYOK
custom model in the ``settings.json`` of a Droid home that ``FACTORY_HOME_OVERRIDE`` moves into a
throw-away HOME, pointing at a fake Chat Completions API on 127.0.0.1, ``-m custom:<model>``, no
keyring and airgap mode (no Factory login, no other network).

What Factory Droid 0.225.2 does (observed, and asserted below): the system message is Droid's
base prompt ("You are Droid, …"), ``\\n\\n`` and the file's text trimmed as JavaScript's ``trim``
does, and nothing after it; the AGENTS.md and CLAUDE.md it loads itself go to the user turn.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import HOTPLEX
from fake_api import FakeChatCompletions
from hotplex.targets.home import js_trimmed
from live import LiveCase, assert_only_in_system, built_in_session, chat_system, run_live
from test_own_instructions_live import MARKERS, RAW_AGENTS, RAW_CLAUDE

pytestmark = pytest.mark.integration

BASE = "You are Droid, an AI software engineering agent built by Factory."
MODEL = "fake-model"
HOME_FILE = "droid/system-prompt.md"


def provider(cli, artifact, url: str, home) -> dict[str, str]:
    """The gateway's model, in the settings.json of a Droid home moved by its variable."""
    factory = home / "gateway/.factory"
    factory.mkdir(parents=True, exist_ok=True)
    model = {
        "model": MODEL,
        "displayName": "capture",
        "baseUrl": f"{url}/v1",
        "apiKey": "dummy",
        "provider": "generic-chat-completion-api",
        "maxOutputTokens": 4096,
    }
    settings = json.dumps({"customModels": [model]})
    (factory / "settings.json").write_text(settings, encoding="utf-8")
    return {"FACTORY_HOME_OVERRIDE": str(home / "gateway")}


DROID = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-m", f"custom:{MODEL}", "ping"],
    env=lambda url: {"FACTORY_DISABLE_KEYRING": "1", "FACTORY_AIRGAP_ENABLED": "1"},
    model_route="/chat/completions",
    prepare=provider,
)


def assert_at_the_end(request, sent: str) -> str:
    """``sent`` ends the one system message, once, after Droid's base prompt and a blank line;
    no other message carries the document. Returns the system message."""
    system = chat_system(request)
    assert [m["role"] for m in request.body["messages"]].count("system") == 1
    assert system.startswith(BASE), "Droid's base prompt is gone"
    assert system.endswith("\n\n" + sent) and system.count(sent) == 1
    assert_only_in_system(request)
    return system


def test_droid_sends_document_at_the_end_of_its_system_message(droid_cli, droid_prompt, tmp_path):
    document = droid_prompt.path.read_bytes()
    assert (droid_prompt.path.parent / HOME_FILE).read_bytes() == document
    # The compiled document without its final line feed: what Droid's trim leaves of it.
    assert document.startswith(b"<agent-configuration>")
    assert document.endswith(b"</agent-configuration>")
    (request,) = run_live(DROID, droid_cli, droid_prompt, tmp_path)[1]
    assert_at_the_end(request, document.decode("utf-8"))


def test_droid_trims_the_file_as_javascript_does(droid_cli, droid_prompt, tmp_path):
    """The transform the worker declares is Droid's: the file's leading and trailing whitespace
    (a BOM, U+3000, U+2028, NBSP, CR LF) goes, U+0085 (whitespace to Python, not to JavaScript)
    and the inner CR LF, trailing spaces and blank-line runs stay."""
    text = (
        "\ufeff\u3000\u2028\r\n <agent-configuration>\r\nkeep  \r\n\n\n\n中文 é"
        "\u0085 \t\r\n\u00a0\n"
    )
    (droid_prompt.path.parent / HOME_FILE).write_bytes(text.encode("utf-8"))
    sent = js_trimmed(text).text
    assert sent.endswith("\u0085") and sent != text.strip()  # JavaScript's trim, not Python's
    (request,) = run_live(DROID, droid_cli, droid_prompt, tmp_path)[1]
    assert_at_the_end(request, sent)


@pytest.mark.slow
def test_droid_reads_raw_agents_and_claude_beside_the_document(droid_cli, tmp_path):
    """Droid has no switch for its own files: an AGENTS.md compiled in the session folder arrives
    raw too, in the user turn, and ``build`` says so (a CLAUDE.md the target does not compile
    arrives there as well: no second copy, so no warning); started in a folder outside the
    project (``cwd``), only the compiled copy arrives."""
    project = tmp_path / "repo"
    project.mkdir()
    (project / "AGENTS.md").write_text(RAW_AGENTS, encoding="utf-8")
    (project / "CLAUDE.md").write_text(RAW_CLAUDE, encoding="utf-8")
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\nignore = ["CLAUDE.md"]\n\n'
        '[[source]]\nname = "rules"\nfile = "AGENTS.md"\nchannel = "B"\ntag = "rules"\n\n'
        '[[target]]\nname = "droid"\nworker = "droid"\n'
    )
    said = "Factory Droid also reads AGENTS.md by itself"
    for cwd, raw in ((".", True), ("../session", False)):
        artifact = built_in_session(project, manifest, cwd, said, raw)
        document = artifact.path.read_text(encoding="utf-8")
        assert "RAW-AGENTS-ONLY" in document and MARKERS["AGENTS.md"] not in document
        (request,) = run_live(DROID, droid_cli, artifact, tmp_path / f"run-{raw}")[1]
        system = assert_at_the_end(request, document)
        turn = json.dumps(request.body["messages"][1:], ensure_ascii=False)
        for raw_text in (RAW_AGENTS, RAW_CLAUDE):
            wrapped = f"<coding_guidelines>\n{raw_text.rstrip()}\n</coding_guidelines>"
            assert turn.count(json.dumps(wrapped, ensure_ascii=False)[1:-1]) == int(raw)
        assert not any(marker in system for marker in MARKERS.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "read"),
    [
        ({"agents.md": "LOWER-7e1\n", ".factory/agents.md": "FLOWER-7e1\n"}, 2),
        ({"AGENTS.md": "UPPER-7e1\n", "agents.md": "LOWER-7e1\n"}, 1),
    ],
    ids=["agents-md-lowercase", "beside-AGENTS-md"],
)
def test_droid_reads_the_files_its_declaration_names(droid_cli, tmp_path, files, read):
    """What ``stats`` says Droid reads raw in the session folder is what reaches its user turn:
    a lowercase agents.md (and .factory/agents.md) where no AGENTS.md sits beside it."""
    project = tmp_path / "repo"
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    manifest = '[[target]]\nname = "d"\nworker = "droid"\n'
    (project / "agent-configs").mkdir()
    (project / "agent-configs/SOUL.md").write_text("S\n", encoding="utf-8")
    artifact = built_in_session(project, manifest, ".", "Factory Droid", False)
    stats = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "stats", "--json"], capture_output=True, text=True
    )
    copies = json.loads(stats.stdout)["artifacts"][0]["copies"]
    (request,) = run_live(DROID, droid_cli, artifact, tmp_path)[1]
    turn = json.dumps(request.body["messages"][1:], ensure_ascii=False)
    arrived = [name for name, text in files.items() if text.strip() in turn]
    assert len(arrived) == read
    assert copies.endswith(
        f"also reads {', '.join(arrived)} by itself, raw, which the target does not compile"
    ), copies
