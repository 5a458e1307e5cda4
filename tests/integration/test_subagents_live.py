"""Sub-agents get the rules: what hotplex builds for them reaches them in the real programs.

Claude Code: the ``cc`` artifact of ``examples/subagents`` is launched as its ``launch.json``
says (the ``files`` placed into the session folder, then ``argv``) against a fake Messages API
whose first answer calls the ``Agent`` tool once per sub-agent named. Each sub-agent's own
request must keep its own prompt (a built-in's opening words, the custom agent's file) and end
with ``subagent.xml`` byte for byte; the main agent's prompt must be the one a run without
``subagent.xml`` gets; no user or memory text may reach a sub-agent. With ``compat`` before
2.1.261 the agent files carry the rules, replacing a built-in's prompt, and ``prompt.xml``
reaches none of them (the finding that made the agent files necessary).

OpenCode: the ``ocs`` files are placed into a fresh session folder, which the running
``opencode serve`` is asked about (``GET /agent?directory=…``, as a gateway's sessions name their
folder); it must list each agent with the compiled prompt.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CLAUDE_TIMEOUT,
    build_example,
    build_project,
    claude_env,
    http_json,
)
from fake_api import FakeAnthropic, RecordedRequest, Reply, fake_message, fake_stream, running, sse
from hotplex.targets import claude_code_tools

pytestmark = pytest.mark.integration

PROBE = "HOTPLEX-SUBAGENT-PROBE"
TASK = "HOTPLEX-TASK-FOR-"  # + the agent's name: how a sub-agent's request is recognised
# The opening words of Claude Code's own built-in prompts (2.1.x), gone once replaced.
BUILT_IN_OPENINGS = {
    "general-purpose": "You are an agent for Claude Code",
    "Explore": "You are a file search specialist",
    "Plan": "You are a software architect and planning specialist",
}
READ_ONLY = "READ-ONLY MODE"  # Explore's and Plan's own instructions: they change no file
AGENT_TOOLS = ("Agent", "Task")  # the sub-agent tool's name, now and in older releases


def agent_body(path: Path) -> str:
    """An agent file's body as Claude Code and OpenCode use it: after the frontmatter, trimmed."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return text.split("\n---\n", 1)[1].strip()


def system_blocks(request: RecordedRequest) -> list[str]:
    system = request.body.get("system")
    if isinstance(system, str):
        return [system]
    return [b["text"] for b in system or () if b.get("type") == "text"]


def system_text(request: RecordedRequest) -> str:
    return "\n".join(system_blocks(request))


def user_text(request: RecordedRequest) -> str:
    """The text blocks of every user message (Claude Code puts reminders before the prompt)."""
    texts = []
    for message in request.body["messages"]:
        content = message["content"]
        if message["role"] != "user":
            continue
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [b["text"] for b in content if b.get("type") == "text"]
    return "\n".join(texts)


def has_tool_result(request: RecordedRequest) -> bool:
    return any(
        isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
        for m in request.body["messages"]
    )


@dataclass
class AgentCalling(FakeAnthropic):
    """Answers the session's first request with one ``Agent`` call per name in ``agents``,
    every other request (the sub-agents', the follow-up) with plain text."""

    agents: tuple[str, ...] = ()
    calls: list[str] = field(default_factory=list)

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        if request.route != "/v1/messages" or not isinstance(body, dict):
            return super().respond(request)
        tool = next((t["name"] for t in body.get("tools", ()) if t["name"] in AGENT_TOOLS), None)
        asking = PROBE in user_text(request) and not has_tool_result(request)
        if tool is None or not asking or self.calls:
            return super().respond(request)
        self.calls.append(tool)
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_hotplex_{index}",
                "name": tool,
                "input": {
                    "description": f"probe {name}",
                    "prompt": f"{TASK}{name}: answer 'ok'.",
                    "subagent_type": name,
                },
            }
            for index, name in enumerate(self.agents)
        ]
        return 200, tool_use_stream(str(body.get("model", "claude")), blocks), "text/event-stream"

    def agent_requests(self, name: str) -> list[RecordedRequest]:
        return [r for r in self.message_requests() if f"{TASK}{name}:" in user_text(r)]


def tool_use_stream(model: str, blocks: list[dict[str, Any]]) -> bytes:
    """The SSE events of one answer made of ``tool_use`` blocks."""
    start = fake_message(model, "")
    start.update(content=[], stop_reason=None)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(blocks):
        empty = {**block, "input": {}}
        partial = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": empty},
            {"type": "content_block_delta", "index": index, "delta": partial},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    return sse(events)


def place(project: Path, launch: dict[str, Any], session: Path) -> None:
    """What a gateway does with ``launch.json``'s ``files``: copy each into the session."""
    for where, built in launch["files"].items():
        target = session / where
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(project / built, target)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory):
    built = build_example(tmp_path_factory.mktemp("subagents"), "subagents")
    if built.problem is not None:
        pytest.fail(built.problem, pytrace=False)
    return built.project


# How a session is driven: ``--print`` with the prompt as an argument, or the gateway's way,
# one user message as a stream-json line on stdin.
STREAM_JSON = ("--input-format", "stream-json", "--output-format", "stream-json", "--verbose")


def call_agents(
    claude_cli,
    argv: list[str],
    cwd: Path,
    names: tuple[str, ...],
    home: Path,
    streamed: bool = False,
) -> AgentCalling:
    """One ``claude --print`` session whose model calls ``names`` through the Agent tool."""
    message = {"type": "user", "message": {"role": "user", "content": PROBE}}
    with running(AgentCalling(agents=names)) as fake:
        done = subprocess.run(
            [str(claude_cli.path), *argv, "--print", *(STREAM_JSON if streamed else [PROBE])],
            cwd=cwd,
            env=claude_env(home, fake.url),
            input=json.dumps(message) + "\n" if streamed else "",
            capture_output=True,
            text=True,
            timeout=CLAUDE_TIMEOUT * 2,
        )
    assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}"
    assert fake.calls, "the session never offered the Agent tool"
    for name in names:
        assert fake.agent_requests(name), f"no request from sub-agent {name}: {done.stdout[-500:]}"
    return fake  # type: ignore[return-value]


def launch_spec(project: Path, target: str = "cc") -> dict[str, Any]:
    folder = project / "dist" / target / "default"
    return json.loads((folder / "launch.json").read_text(encoding="utf-8"))


def flag_file(project: Path, argv: list[str], flag: str) -> str:
    return (project / argv[argv.index(flag) + 1]).read_text(encoding="utf-8")


@pytest.mark.parametrize("streamed", [False, True], ids=["print", "stream-json"])
def test_every_sub_agent_keeps_its_prompt_and_gets_subagent_xml(
    claude_cli, example, tmp_path, streamed
):
    launch = launch_spec(example)
    argv = launch["argv"]
    assert argv[1] == "--append-system-prompt-file"
    appended = flag_file(example, argv, "--append-system-prompt-file")
    shared = flag_file(example, argv, "--append-subagent-system-prompt-file")
    assert list(launch["files"]) == [".claude/agents/reviewer.md"]  # a custom agent only

    place(example, launch, example)  # cwd "." : the session folder is the project
    names = (*BUILT_IN_OPENINGS, "reviewer")
    fake = call_agents(
        claude_cli, argv[1:], example / launch["cwd"], names, tmp_path / "h1", streamed
    )
    reviewer = agent_body(example / launch["files"][".claude/agents/reviewer.md"])
    private = [
        (example / "agent-configs" / name).read_text(encoding="utf-8").strip().splitlines()[-1]
        for name in ("USER.md", "MEMORY.md")
    ]
    captured = {}
    for name in names:
        (request, *_) = fake.agent_requests(name)
        blocks = system_blocks(request)
        # The agent's own prompt opens its block, whole; subagent.xml ends it, byte for byte.
        opening = BUILT_IN_OPENINGS.get(name, reviewer)
        assert any(b.startswith(opening) for b in blocks), f"{name}: its own prompt is gone"
        assert blocks[-1].endswith(shared), f"{name}: subagent.xml is not at its end"
        assert blocks[-1].count(shared) == 1
        assert appended.strip() not in system_text(request)  # prompt.xml is the main agent's
        sent = json.dumps(request.body, ensure_ascii=False)
        for text in private:  # the default profile: no user or memory text
            assert text not in sent, f"{name}: {text!r} reached it"
        captured[name] = system_text(request)
    for name in ("Explore", "Plan"):
        assert READ_ONLY in captured[name], f"{name}: its read-only instructions are gone"

    # The main agent's prompt is the one it gets without subagent.xml.
    bare = [a for a in argv[1:] if a != "--append-subagent-system-prompt-file"]
    bare.remove(argv[argv.index("--append-subagent-system-prompt-file") + 1])
    control = call_agents(
        claude_cli, bare, example / launch["cwd"], ("Plan",), tmp_path / "h2", streamed
    )
    main, without = fake.message_requests()[0], control.message_requests()[0]
    # [0]: a per-run header; the rest names each run's own HOME (Claude Code's memory folder).
    mine = [b.replace(str(tmp_path / "h1"), "HOME") for b in system_blocks(main)[1:]]
    assert mine == [b.replace(str(tmp_path / "h2"), "HOME") for b in system_blocks(without)[1:]]
    assert system_blocks(main)[-1].endswith(appended)
    assert shared not in system_text(main)
    if os.environ.get("HOTPLEX_SHOW_CAPTURE"):
        print(f"\n--- Claude Code {claude_cli.version}, sub-agent 'Explore' system prompt:")
        print(captured["Explore"])


OLD_MANIFEST = """\
[[target]]
name = "cc"
worker = "claude-code"
compat = "2.1.260"
subagents = ["general-purpose", "Explore", "reviewer"]

[target.agents.general-purpose]
replace = true

[target.agents.Explore]
replace = true

[target.agents.reviewer]
description = "Reviews a change against the workspace rules before it is committed or pushed."
keep = ["rules"]
"""


def test_before_2_1_261_the_agent_files_carry_the_rules(claude_cli, example, tmp_path):
    project = tmp_path / "old"
    shutil.copytree(example / "agent-configs", project / "agent-configs")
    (project / "hotplex.toml").write_text(OLD_MANIFEST, encoding="utf-8")
    built = build_project(project)
    assert built.problem is None, built.problem
    folder = project / "dist" / "cc" / "default"
    launch = launch_spec(project)
    names = tuple(Path(p).stem for p in launch["files"])
    assert set(names) == {"general-purpose", "Explore", "reviewer"}
    assert launch["argv"][1:] == ["--append-system-prompt-file", "dist/cc/default/prompt.xml"]
    appended = flag_file(project, launch["argv"], "--append-system-prompt-file")

    # Without the files: the built-ins keep their own prompts and get none of the rules.
    bare = tmp_path / "bare"
    bare.mkdir()
    argv = [launch["argv"][1], str(project / launch["argv"][2])]
    control = call_agents(claude_cli, argv, bare, ("general-purpose", "Explore"), tmp_path / "h1")
    for name in ("general-purpose", "Explore"):
        system = system_text(control.agent_requests(name)[0])
        assert BUILT_IN_OPENINGS[name] in system and "<rules>" not in system, name

    place(project, launch, project)
    fake = call_agents(claude_cli, launch["argv"][1:], project, names, tmp_path / "h2")
    rules = appended[appended.index("<rules>") : appended.index("</rules>") + len("</rules>")]
    for name in names:
        requests = fake.agent_requests(name)
        system = system_text(requests[0])
        body = agent_body(folder / "agents" / f"{name}.md")
        # Claude Code's own lines (a header, "You are Claude Code, …") come first, each a block
        # of its own; the agent's prompt opens the next one, its fixed notes follow.
        assert any(block.startswith(body) for block in system_blocks(requests[0]))
        assert appended.strip() not in system  # the appended prompt reaches no sub-agent
        assert BUILT_IN_OPENINGS.get(name, body) not in system or name == "reviewer"
        assert rules in system  # the kept sections, byte for byte


def test_the_tool_names_are_the_ones_claude_code_offers(claude_cli, tmp_path):
    """``claude_code_tools.SENT`` is what the real program offers its model (the check of an
    agent's ``tools`` rests on it): as it starts, and with its deferred tools sent whole."""
    offered: set[str] = set()
    for run, extra in enumerate(({}, {"ENABLE_TOOL_SEARCH": "false"})):
        folder = tmp_path / f"run{run}"
        folder.mkdir()
        with running(FakeAnthropic()) as fake:
            done = subprocess.run(
                [str(claude_cli.path), "--print", "ping"],
                cwd=folder,
                env={**claude_env(folder / "home", fake.url), **extra},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=CLAUDE_TIMEOUT,
            )
        assert done.returncode == 0, done.stderr[-2000:]
        tools = fake.message_requests()[0].body["tools"]
        offered |= {t["name"] for t in tools if not t.get("defer_loading")}
    assert offered == set(claude_code_tools.SENT)


def test_the_built_in_names_and_old_names_are_the_programs_own(claude_cli):
    """``claude_code_tools.BUILT_IN`` and ``LEGACY`` are the list and map in the program's code:
    the array of names ending in "Write", then the map of old names beginning with Task."""
    code = Path(claude_cli.path).resolve().read_bytes()
    found = re.search(rb'=\[((?:"\w+",){20,}"Write")\],[\w$]+=\{(Task:"Agent"[^}]*)\}', code)
    assert found, "the tool-name list and its map of old names moved; read them again"
    names = [n.decode() for n in re.findall(rb'"(\w+)"', found[1])]
    old_names = {k.decode(): v.decode() for k, v in re.findall(rb'(\w+):"(\w+)"', found[2])}
    assert names == list(claude_code_tools.BUILT_IN)
    assert old_names == claude_code_tools.LEGACY


# YAML's hard cases in one line: a colon and blank, quotes of both kinds, a comment sign, flow
# and anchor characters, a leading dash, CJK and an emoji; and a role that opens with '---'.
TRICKY_DESCRIPTION = "- Reviews: \"diffs\" & 'plans' #now {a: [b]} *x !y 中文 🎉"
TRICKY_MANIFEST = f"""\
[metacognition]
enabled = false

[[target]]
name = "cc"
worker = "claude-code"
subagents = ["tricky"]

[target.agents.tricky]
description = {json.dumps(TRICKY_DESCRIPTION, ensure_ascii=False)}
role = "---\\nYou are the tricky reviewer."
"""


def test_claude_code_reads_every_frontmatter_hotplex_writes(claude_cli, tmp_path):
    project = tmp_path / "tricky"
    (project / "agent-configs").mkdir(parents=True)
    (project / "hotplex.toml").write_text(TRICKY_MANIFEST, encoding="utf-8")
    (project / "agent-configs" / "AGENTS.md").write_text("Never push to main.\n", "utf-8")
    built = build_project(project)
    assert built.problem is None, built.problem
    folder = project / "dist" / "cc" / "default"
    launch = json.loads((folder / "launch.json").read_text(encoding="utf-8"))
    place(project, launch, project)
    fake = call_agents(claude_cli, launch["argv"][1:], project, ("tricky",), tmp_path / "home")
    (request,) = fake.agent_requests("tricky")[:1]
    assert agent_body(folder / "agents" / "tricky.md") in system_text(request)
    # The main agent is offered the agent with its description as written.
    main = fake.message_requests()[0]
    assert TRICKY_DESCRIPTION in json.dumps(main.body, ensure_ascii=False).replace('\\"', '"')


def test_opencode_lists_each_agent_with_the_compiled_prompt(opencode_server, example, tmp_path):
    folder = example / "dist" / "ocs" / "default"
    launch = json.loads((folder / "launch.json").read_text(encoding="utf-8"))
    assert list(launch["files"]) == [".opencode/agent/general.md"]
    session = tmp_path / "session"  # a gateway's session folder: the placed files, nothing else
    place(example, launch, session)
    # The server serves each project folder it is asked about (``directory``), as a gateway's
    # sessions do; this one has never been asked about before.
    query = urllib.parse.urlencode({"directory": str(session)})
    agents = {a["name"]: a for a in opencode_server.request("GET", f"/agent?{query}")}
    for where, built in launch["files"].items():
        name = Path(where).stem
        assert name in agents, f"GET /agent has no '{name}': {sorted(agents)}"
        assert agents[name]["mode"] == "subagent"
        assert agents[name]["prompt"] == agent_body(example / built)
        assert "<rules>" in agents[name]["prompt"]


@dataclass
class TaskCalling(AgentCalling):
    """``AgentCalling`` for OpenCode: its sub-agent tool is ``task``, its provider the
    Anthropic SDK's (``POST /v1/messages``); every answer streams."""

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        if not request.route.endswith("/messages") or not isinstance(body, dict):
            return None
        offered = {t["name"] for t in body.get("tools", ())}
        asking = PROBE in user_text(request) and not has_tool_result(request)
        if "task" in offered and asking and not self.calls:
            self.calls.append("task")
            blocks = [
                {
                    "type": "tool_use",
                    "id": f"toolu_hotplex_{index}",
                    "name": "task",
                    "input": {
                        "description": f"probe {name}",
                        "prompt": f"{TASK}{name}: answer 'ok'.",
                        "subagent_type": name,
                    },
                }
                for index, name in enumerate(self.agents)
            ]
            return 200, tool_use_stream(str(body["model"]), blocks), "text/event-stream"
        return 200, fake_stream(str(body["model"]), self.reply), "text/event-stream"


def test_opencode_has_no_text_for_sub_agents_alone(opencode_server, tmp_path):
    """What the sub-agents guide says of OpenCode: ``explore`` has a prompt of its own and ``general``
    runs on the provider's, which an agent file replaces; ``system`` reaches the main agent
    only; ``instructions`` reach every agent, the main one too."""
    session = tmp_path / "session"
    (session / ".opencode" / "agent").mkdir(parents=True)
    (session / "extra.md").write_text("HOTPLEX-INSTRUCTIONS\n", encoding="utf-8")
    custom = "---\ndescription: Probes.\nmode: subagent\n---\n\nHOTPLEX-CUSTOM-PROMPT\n"
    (session / ".opencode" / "agent" / "custom.md").write_text(custom, encoding="utf-8")
    names = ("general", "explore", "custom")
    with running(TaskCalling(agents=names)) as fake:
        config = {
            "instructions": ["extra.md"],
            "provider": {"anthropic": {"options": {"baseURL": f"{fake.url}/v1", "apiKey": "k"}}},
            "model": "anthropic/claude-sonnet-4-5",
            "permission": {"*": "allow"},
        }
        (session / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
        query = urllib.parse.urlencode({"directory": str(session)})
        created = opencode_server.request("POST", f"/session?{query}", {})
        message = {"system": "HOTPLEX-SYSTEM", "parts": [{"type": "text", "text": PROBE}]}
        path = f"/session/{created['id']}/message?{query}"
        http_json("POST", opencode_server.url + path, message, timeout=CLAUDE_TIMEOUT * 2)
    main = next(r for r in fake.message_requests() if user_text(r).strip() == PROBE)
    assert "HOTPLEX-SYSTEM" in system_text(main) and "HOTPLEX-INSTRUCTIONS" in system_text(main)
    systems = {name: system_text(fake.agent_requests(name)[0]) for name in names}
    for system in systems.values():
        assert "HOTPLEX-SYSTEM" not in system and "HOTPLEX-INSTRUCTIONS" in system
    assert systems["explore"].startswith("You are a file search specialist")
    assert systems["general"].startswith("You are OpenCode")  # the provider's prompt
    assert systems["custom"].startswith("HOTPLEX-CUSTOM-PROMPT")  # nothing of either
    assert "You are OpenCode" not in systems["custom"]
