"""Each slot hotplex writes for Hermes Agent reaches the model through the real
``hermes chat -Q -q``, byte for byte, exactly once, where the worker's docstring says.

``hermes`` starts as the built ``launch.json`` says (``HERMES_HOME`` relative to the project,
the session folder as ``cwd``), with what a gateway adds: the provider in the home's
``config.yaml`` pointing at a fake Chat Completions API on 127.0.0.1, ``-q`` with the message,
and a throw-away HOME.

What Hermes Agent 0.19.0 does (observed, and asserted below): one system message; SOUL.md at its
very start, then Hermes's base prompt ("You run on Hermes Agent …"); MEMORY.md's entries, joined
by lines ``§``, under the banner ``MEMORY (your personal notes) [… chars]`` between two lines of
46 ``═``, then USER.md under ``USER PROFILE (who the user is)``; each file trimmed.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import HOTPLEX, build_project
from fake_api import FakeChatCompletions
from hotplex.targets import hermes_scan
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live import LiveCase, home_of, run_live

pytestmark = pytest.mark.integration

BASE_PROMPT = "\n\nYou run on Hermes Agent (by Nous Research)."
RULE = "═" * 46


def provider(cli, artifact, url: str, home: Path) -> dict[str, str]:
    """The gateway's provider, in the config.yaml of the home launch.json names."""
    config = home_of(artifact, "HERMES_HOME") / "config.yaml"
    config.write_text(
        "model:\n  provider: custom\n  default: fake-model\n"
        f"  base_url: {url}/v1\n  api_key: dummy\n",
        encoding="utf-8",
    )
    return {}


HERMES = LiveCase(
    fake=FakeChatCompletions,
    args=lambda url: ["-q", "ping"],
    env=lambda url: {},
    model_route="/chat/completions",
    prepare=provider,
    banner=True,  # a warning about its optional command scanner comes first
)

SOURCES = {
    "SOUL.md": "You are Tess, PERSONA-MARK.\n",
    "AGENTS.md": "Never push to main. RULES-MARK\n§\nStill a rule.\n",
    "USER.md": "Lin, backend. USER-MARK\n════\n",
    "MEMORY.md": "Curated fact. MEMORY-MARK\n",
    "memory/2026-11-28.md": "- older day DAY1-MARK\n",
    "memory/2026-11-29.md": "- newest day DAY2-MARK\n",
}
MANIFEST = (
    '[project]\nname = "h"\nsources = "src"\n\n[memory]\nlogs = "memory/*.md"\n\n'
    '[[target]]\nname = "hermes"\nworker = "hermes-agent"\n'
)


def build(tmp_path, sources: dict[str, str], extra: str = "", manifest: str = MANIFEST):
    """A project of ``sources`` (and ``extra`` manifest lines) built; its job's launch.json as the live helpers' artifact."""
    project = tmp_path / "repo"
    project.mkdir(exist_ok=True)
    for name, text in sources.items():
        (project / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "src" / name).write_text(text, encoding="utf-8")
    (project / "hotplex.toml").write_text(manifest + extra, encoding="utf-8")
    done = subprocess.run([str(HOTPLEX), "-C", str(project), "build"], capture_output=True)
    assert done.returncode == 0, done.stderr
    (artifact,) = [a for a in build_project(project).artifacts if a.path.name == "SOUL.md"]
    # The job folder's launch.json, which the live helpers read beside the artifact's path.
    return dataclasses.replace(artifact, path=artifact.path.parent.parent / "launch.json")


@pytest.fixture
def built(tmp_path):
    return build(tmp_path, SOURCES)


def slot(artifact, name: str) -> str:
    """A slot's file as Hermes sends it: trimmed."""
    return (home_of(artifact, "HERMES_HOME") / name).read_text(encoding="utf-8").strip()


def banner(title: str, text: str, limit: str) -> re.Pattern[str]:
    """Hermes's banner around a memory file's text, its share of the limit as Hermes counts."""
    head, tail = f"{RULE}\n{title} [", f"/{limit} chars]\n{RULE}\n{text}\n\n"
    return re.compile(re.escape(head) + r"\d+% — [\d,]+" + re.escape(tail))


def test_hermes_gets_each_slot_once_where_the_readme_says(hermes_cli, built, tmp_path):
    names = ("SOUL.md", "memories/MEMORY.md", "memories/USER.md")
    soul, memory, user = (slot(built, n) for n in names)
    assert "RULES-MARK" in soul and "\n&sect;\n" in soul and "\n&#9552;═══" in user
    assert memory.count("\n§\n") == 2  # MEMORY.md, then each day: three entries
    _, requests = run_live(HERMES, hermes_cli, built, tmp_path)
    for request in requests:
        messages = request.body["messages"]
        assert messages[0]["role"] == "system"
        system = messages[0]["content"]
        assert system.startswith(soul + BASE_PROMPT), "SOUL.md is not first, or the base is gone"
        for text, (title, limit) in (
            (memory, ("MEMORY (your personal notes)", "2,200")),
            (user, ("USER PROFILE (who the user is)", "1,375")),
        ):
            assert len(banner(title, text, limit).findall(system)) == 1, title
        for mark in ("PERSONA-MARK", "RULES-MARK", "USER-MARK", "MEMORY-MARK", "DAY1", "DAY2"):
            assert system.count(mark) == 1, mark
        for text in (soul, memory, user):
            assert system.count(text) == 1
        assert not any("MARK" in json.dumps(m) for m in messages[1:])


def test_a_soul_md_cut_to_20000_characters_arrives_whole(hermes_cli, tmp_path):
    """hotplex's cap is within Hermes's: the cut file arrives with no marker of Hermes's."""
    persona = "".join(f"Persona line {i}.\n" for i in range(3000))  # about 55,000 characters
    artifact = build(tmp_path, {**SOURCES, "SOUL.md": persona}, "[limits]\nper_file = 60000\n")
    soul = slot(artifact, "SOUL.md")
    assert 19_800 < len(soul) <= 20_000
    _, requests = run_live(HERMES, hermes_cli, artifact, tmp_path)
    for request in requests:
        system = request.body["messages"][0]["content"]
        assert system.startswith(soul + BASE_PROMPT) and "[...truncated" not in system


# Asks the installed Hermes's scan about each probe: a text in, its findings out, per scope.
ASK_SCAN = """
import json, sys
from tools.threat_patterns import scan_for_threats
for line in sys.stdin:
    text = json.loads(line)["text"]
    print(json.dumps({s: scan_for_threats(text, scope=s) for s in ("context", "strict")}))
"""
PROBES = Path(__file__).parents[1] / "fixtures/hermes-agent-0.19.0-scan.jsonl"


def test_the_recorded_scan_probes_are_what_hermes_answers(hermes_cli):
    """The probes hotplex's predicted scan is held to (tests/workers) are still the real one's."""
    assert hermes_cli.version.startswith("Hermes Agent v0.19.0 ")
    probes = PROBES.read_text(encoding="utf-8")
    done = subprocess.run(
        [str(hermes_cli.path.parent / "python"), "-c", ASK_SCAN],
        input=probes,
        capture_output=True,
        text=True,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    recorded = [json.loads(line) for line in probes.splitlines()]
    assert len(answers) == len(recorded)
    for probe, answer in zip(recorded, answers, strict=True):
        assert answer == {"context": probe["context"], "strict": probe["strict"]}, probe["text"]


# Words of the probes, and what may stand between them (or any short text): hypothesis strings
# them together.
WORDS = sorted(
    {
        word
        for line in PROBES.read_text(encoding="utf-8").splitlines()
        for word in re.split(r"\s+", json.loads(line)["text"])
        if 0 < len(word) < 40
    }
)
BETWEEN = [" ", "  ", "\n", "\u00a0", "\u2028", "", "-", ". ", "\u3000", "x"]


def _variant(word: str, how: int) -> str:
    """``word`` as written, upper-cased, or fullwidth (which NFKC folds back)."""
    if how == 1:
        return word.upper()
    if how == 2:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)
    return word


texts = st.lists(
    st.tuples(
        st.sampled_from(WORDS),
        st.integers(0, 5),
        st.sampled_from(BETWEEN) | st.text(max_size=3),
    ),
    min_size=1,
    max_size=8,
).map(lambda parts: "".join(_variant(w, how) + gap for w, how, gap in parts))


@pytest.fixture(scope="module")
def hermes_scan_oracle(hermes_cli):
    """The installed Hermes's scan, asked one text (a JSON line) at a time."""
    with subprocess.Popen(
        [str(hermes_cli.path.parent / "python"), "-u", "-c", ASK_SCAN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    ) as oracle:

        def ask(text: str) -> dict[str, list[str]]:
            oracle.stdin.write(json.dumps({"text": text}) + "\n")
            oracle.stdin.flush()
            return json.loads(oracle.stdout.readline())

        yield ask
        oracle.stdin.close()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_hotplex_predicts_a_block_exactly_when_hermes_blocks(hermes_scan_oracle, text):
    """Per slot's scope (SOUL.md: context, a memory entry: strict), the rules hotplex predicts
    are the ones the real scan finds, on texts strung from the probes' words."""
    answer = hermes_scan_oracle(text)
    for scope in (hermes_scan.CONTEXT, hermes_scan.STRICT):
        predicted = sorted(finding.rule for finding in hermes_scan.scan(text, scope))
        assert predicted == sorted(answer[scope]), (scope, text)


@pytest.mark.slow
@pytest.mark.parametrize("switch", [False, True], ids=["default", "off"])
def test_hermes_reads_a_raw_agents_md_and_its_switch_drops_every_slot(switch, hermes_cli, tmp_path):
    """By default a raw AGENTS.md in the session folder arrives beside the slots (build warns);
    ``--ignore-rules``, Hermes's only switch (added here by hand), drops it and SOUL.md and the
    memories too: why ``own_instructions = "off"`` is refused for this worker."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/AGENTS.md").write_text("Raw rule. RAW-AGENTS-MARK\n", encoding="utf-8")
    artifact = build(tmp_path, SOURCES)
    if switch:
        launch = json.loads(artifact.path.read_text(encoding="utf-8"))
        launch["argv"].append("--ignore-rules")
        artifact.path.write_text(json.dumps(launch), encoding="utf-8")
    _, requests = run_live(HERMES, hermes_cli, artifact, tmp_path)
    for request in requests:
        system = request.body["messages"][0]["content"]
        assert ("RAW-AGENTS-MARK" in system) is not switch
        for mark in ("PERSONA-MARK", "USER-MARK", "MEMORY-MARK"):
            assert (mark in system) is not switch, mark
        assert "You run on Hermes Agent" in system


# From the session folder "sub" of a project, a git repository or not: the project files lying
# about, and the one Hermes sends raw.
PROJECT_FILES = {
    "others-above": (
        {"AGENTS.md", "CLAUDE.md", "agents.md", "claude.md", ".cursorrules"},
        True,
        None,
    ),
    "hermes-md-above-in-git": ({".hermes.md", "sub/AGENTS.md"}, True, ".hermes.md"),
    "hermes-md-above-no-git": ({".hermes.md", "AGENTS.md"}, False, None),
    "claude-md-here": ({"sub/CLAUDE.md", "AGENTS.md"}, False, "sub/CLAUDE.md"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", PROJECT_FILES)
def test_hermes_reads_hermes_md_up_to_the_git_root_and_the_others_in_its_folder_only(
    case, hermes_cli, tmp_path
):
    """The one-copy table's row, held: from a session folder below the project root, Hermes
    sends a .hermes.md of a folder above inside a git repository only, and never an AGENTS.md,
    CLAUDE.md or .cursorrules from there; ``check`` warns of exactly the file that arrives raw.
    Each is a compiled source, its ``</rules>`` escaped there: the literal text is the raw copy."""
    names, git, arrives = PROJECT_FILES[case]
    project = tmp_path / "repo"
    (project / "sub").mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    sources = 'cwd = "sub"\n'
    for i, name in enumerate(sorted(names)):
        (project / name).write_text(f"</rules> RAW-{name}-MARK\n", encoding="utf-8")
        sources += f'\n[[source]]\nname = "p{i}"\nfile = "../{name}"\nchannel = "B"\ntag = "p{i}"\n'
    artifact = build(tmp_path, SOURCES, sources)
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    warned = re.findall(r"Hermes Agent also reads (\S+) by itself", done.stderr)
    assert warned == ([arrives] if arrives else []), done.stderr
    _, requests = run_live(HERMES, hermes_cli, artifact, tmp_path)
    for request in requests:
        system = request.body["messages"][0]["content"]
        sent = [n for n in sorted(names) if f"</rules> RAW-{n}-MARK" in system]
        assert sent == ([arrives] if arrives else []), system
        assert system.count("PERSONA-MARK") == 1 and system.startswith(slot(artifact, "SOUL.md"))


@pytest.mark.slow
def test_a_cursor_rule_placed_in_the_session_folder_reaches_hermes_raw_as_check_warns(
    hermes_cli, tmp_path
):
    """A cursor target places .cursor/rules/<target>.mdc, which Hermes reads as its project file
    where none of its other names is there: the document a second time, as ``check`` warns."""
    cursor = '\n[[target]]\nname = "ide"\nworker = "cursor"\n'
    artifact = build(tmp_path, SOURCES, cursor)
    project = tmp_path / "repo"
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "check"], capture_output=True, text=True
    )
    assert done.returncode == 0 and ".cursor/rules/ide.mdc reaches Hermes Agent too" in done.stderr
    _, requests = run_live(HERMES, hermes_cli, artifact, tmp_path)
    for request in requests:
        system = request.body["messages"][0]["content"]
        assert system.count("## .cursor/rules/ide.mdc\n\n") == 1
        assert system.count("RULES-MARK") == 2  # SOUL.md's, and the placed rule's


@pytest.mark.slow
def test_hermes_passes_over_a_blank_hermes_md_to_the_agents_md_as_check_warns(hermes_cli, tmp_path):
    """A .hermes.md of white space only is no project file to Hermes: it reads AGENTS.md, the
    raw copy ``check`` names."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/.hermes.md").write_text(" \n\n", encoding="utf-8")
    (tmp_path / "repo/AGENTS.md").write_text("Raw rule. RAW-AGENTS-MARK\n", encoding="utf-8")
    extra = '\n[[source]]\nname = "raw"\nfile = "../AGENTS.md"\nchannel = "B"\ntag = "raw"\n'
    artifact = build(tmp_path, SOURCES, extra)
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(tmp_path / "repo"), "check"], capture_output=True, text=True
    )
    assert re.findall(r"Hermes Agent also reads (\S+) by itself", done.stderr) == ["AGENTS.md"]
    _, requests = run_live(HERMES, hermes_cli, artifact, tmp_path)
    for request in requests:
        system = request.body["messages"][0]["content"]
        assert system.count("## AGENTS.md\n\nRaw rule. RAW-AGENTS-MARK\n\n") == 1
        assert ".hermes.md" not in system
