"""Agent Skills reach the real Codex CLI, Gemini CLI, OpenCode, Kilo, Qwen Code, Pi, Copilot CLI
and Cline where hotplex puts them.

``examples/skills`` is copied with a target of each worker added and built; each program is
started as its ``launch.json`` says (Codex, Gemini, Kilo and Qwen with their home, OpenCode's ``opencode
serve`` after the gateway's copy of each ``files`` entry into the session folder) against a fake
API. The request must list each skill's name and description where that program lists skills,
exactly once, from the folder hotplex wrote; and the fake has the model open one skill, so that
the SKILL.md body must come back byte for byte: through the program's skill tool (OpenCode's,
Kilo's and Qwen Code's ``skill``, Gemini CLI's ``activate_skill``, Copilot CLI's, Cline's
``skills``), or where it has none through the tool its listing points the model to (Pi's
``read`` of the listed location, Codex's shell, ``exec_command``, running ``cat``). What the
gateway adds for the call to run in a headless session is passed, and said where it is.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    EXAMPLES,
    INSTALL_HINT,
    base_env,
    build_project,
    find_binary,
    opencode_env,
    tools_dir,
)
from fake_api import (
    FakeChatCompletions,
    FakeGemini,
    FakeResponses,
    RecordedRequest,
    Reply,
    running,
    sse,
)
from hotplex import registry
from live import home_of, opencode_message, run_live
from test_cline import CLINE
from test_codex import CODEX, messages
from test_copilot_cli import COPILOT
from test_gemini_cli import GEMINI, texts
from test_kilo import KILO
from test_pi import PI
from test_qwen_code import QWEN
from test_skills_live import frontmatter_of, place

pytestmark = pytest.mark.integration

SKILLS = ("incident-triage", "release-notes", "sql-review")
TARGETS = {
    "codex": "codex",
    "gemini": "gemini-cli",
    "ocs": "opencode-server",
    "kilo": "kilo",
    "qwen": "qwen-code",
    "pi": "pi",
    "cop": "copilot-cli",
    "cline": "cline",
}


def build_with(folder: Path, targets: dict[str, str]):
    """``examples/skills`` copied into ``folder`` with a target of each worker of ``targets``
    (target name -> worker) added, built."""
    project = folder / "skills"
    shutil.copytree(EXAMPLES / "skills", project, ignore=shutil.ignore_patterns("dist"))
    manifest = project / "hotplex.toml"
    added = "".join(f'\n[[target]]\nname = "{n}"\nworker = "{w}"\n' for n, w in targets.items())
    manifest.write_text(manifest.read_text(encoding="utf-8") + added, encoding="utf-8")
    done = build_project(project)
    if done.problem is not None:
        pytest.fail(done.problem, pytrace=False)
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return build_with(tmp_path_factory.mktemp("skills-each"), TARGETS)


def artifact(built, target: str):
    (found,) = [a for a in built.artifacts if a.target == target and a.path.name == "prompt.xml"]
    return found


def description(built, name: str, worker: str = "codex") -> str:
    """The text ``worker``'s program lists for skill ``name``: the keys its ``SkillsPlace``
    names, as written in the sources, joined as it declares."""
    meta = frontmatter_of(built.project / "agent-configs/skills" / name / "SKILL.md")
    place = registry.workers()[worker].skills
    return place.joiner.join(meta[key] for key in place.listed if key in meta)


def once(haystack: str, needle: str, what: str) -> None:
    assert haystack.count(needle) == 1, f"{what}: {needle[:90]!r} not there exactly once"


def xml_entry(name: str, text: str, folder: Path) -> str:
    """A skill as Gemini CLI, OpenCode and Kilo list it in their ``<available_skills>``."""
    return (
        f"<skill>\n    <name>{name}</name>\n    <description>{text}</description>\n"
        f"    <location>{folder.resolve()}/{name}/SKILL.md</location>\n  </skill>"
    )


def assert_listed(built, body: dict, listing: str, entry, worker: str = "codex") -> None:
    """Each skill's ``entry(name, listed text)`` is in ``listing`` once, and that text once in
    the whole request."""
    whole = json.dumps(body, ensure_ascii=False)
    for name in SKILLS:
        text = description(built, name, worker)
        once(listing, entry(name, text), name)
        once(whole, json.dumps(text, ensure_ascii=False)[1:-1], f"{name} in the request")


@dataclass
class ShellCallingResponses(FakeResponses):
    """Answers the first request that offers ``exec_command`` with one call of it running
    ``command``; every other request as ``FakeResponses`` does."""

    command: str = ""
    calls: list[str] = field(default_factory=list)

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body if isinstance(request.body, dict) else {}
        offered = any(t.get("name") == "exec_command" for t in body.get("tools") or ())
        if request.route != "/v1/responses" or not offered or self.calls:
            return super().respond(request)
        self.calls.append(self.command)
        item = {
            "type": "function_call",
            "id": "fc_hotplex_skill",
            "call_id": CALL_ID,
            "name": "exec_command",
            "arguments": json.dumps({"cmd": self.command}),
            "status": "completed",
        }
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        started = {**item, "arguments": "", "status": "in_progress"}
        events = [
            {"type": "response.created", "response": {"id": "resp_hotplex_skill"}},
            {"type": "response.output_item.added", "output_index": 0, "item": started},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {
                "type": "response.completed",
                "response": {"id": "resp_hotplex_skill", "usage": usage},
            },
        ]
        return 200, sse(events), "text/event-stream"


def test_codex_lists_each_skill_of_its_home_once_and_reads_its_body_whole(
    codex_cli, built, tmp_path
):
    """Codex has no skill tool: the model opens a listed SKILL.md with its shell
    (``exec_command``, which Codex offers once the gateway names a model it knows: ``-m``)."""
    prompt = artifact(built, "codex")
    skills = home_of(prompt, "CODEX_HOME") / "skills"
    skill_md = (skills / "release-notes/SKILL.md").resolve()
    case = replace(
        CODEX,
        fake=lambda: ShellCallingResponses(command=f"cat {skill_md}"),
        args=lambda url: [*CODEX.args(url)[:-1], "-m", "gpt-5", CODEX.args(url)[-1]],
    )
    fake, requests = run_live(case, codex_cli, prompt, tmp_path)
    body = requests[0].body
    (listing,) = [t for m in messages(body, "developer") for t in m if "<skills_instructions>" in t]
    roots = dict(
        line[3:].split("` = `", 1)
        for line in listing.splitlines()
        if line.startswith("- `r") and line.endswith("`")
    )
    (root,) = [r for r, folder in roots.items() if folder.rstrip("`") == str(skills.resolve())]
    assert_listed(
        built,
        body,
        listing,
        lambda name, text: f"\n- {name}: {text} (file: {root}/{name}/SKILL.md)\n",
    )
    assert fake.calls, "Codex never offered exec_command"
    outputs = [
        item["output"]
        for r in requests
        for item in r.body["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == CALL_ID
    ]
    assert outputs, "no request carried the shell's output"
    skill_body = skill_md.read_text(encoding="utf-8").split("\n---\n", 1)[1].strip("\n")
    once(outputs[0], skill_body, "the body the shell read")


@dataclass
class SkillCallingGemini(FakeGemini):
    """Answers the first conversation request that declares ``activate_skill`` with one call of
    it for ``release-notes``; every other request as ``FakeGemini`` does."""

    calls: list[str] = field(default_factory=list)

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body if isinstance(request.body, dict) else {}
        declared = [
            f.get("name")
            for tool in body.get("tools", ())
            for f in tool.get("functionDeclarations", ())
        ]
        streamed = request.route.endswith(":streamGenerateContent")
        if not streamed or "activate_skill" not in declared or self.calls:
            return super().respond(request)
        self.calls.append("activate_skill")
        call = {"functionCall": {"name": "activate_skill", "args": {"name": "release-notes"}}}
        candidate = {"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}
        usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
        chunk = {"candidates": [{**candidate, "index": 0}], "usageMetadata": usage}
        return 200, sse([chunk], named=False), "text/event-stream"


def test_gemini_lists_each_skill_of_its_home_once_and_sends_its_body_whole(
    gemini_cli, built, tmp_path
):
    prompt = artifact(built, "gemini")
    skills = home_of(prompt, "GEMINI_CLI_HOME") / ".gemini/skills"
    # What a gateway adds for activate_skill to run: -p declines a call it would ask about.
    case = replace(
        GEMINI,
        fake=SkillCallingGemini,
        args=lambda url: [*GEMINI.args(url), "--approval-mode", "yolo"],
    )
    fake, requests = run_live(case, gemini_cli, prompt, tmp_path)
    body = requests[0].body
    system = "".join(texts(body["systemInstruction"]))
    listing = system.split("<available_skills>", 1)[1].split("</available_skills>", 1)[0]
    assert_listed(built, body, listing, lambda name, text: xml_entry(name, text, skills))
    assert fake.calls, "Gemini CLI never declared activate_skill"
    after = [
        r
        for r in requests
        if any("functionResponse" in part for c in r.body["contents"] for part in c["parts"])
    ]
    assert after, "no request carried activate_skill's result"
    whole = (skills / "release-notes/SKILL.md").read_text(encoding="utf-8")
    skill_body = whole.split("\n---\n", 1)[1].strip("\n")
    sent = json.dumps(after[0].body["contents"], ensure_ascii=False)
    once(sent, json.dumps(skill_body, ensure_ascii=False)[1:-1], "the body after activate_skill")


def test_kilo_lists_each_skill_of_its_config_folder_once_and_sends_its_body_whole(
    kilo_cli, built, tmp_path
):
    prompt = artifact(built, "kilo")
    skills = home_of(prompt, "KILO_CONFIG_DIR") / "skills"
    # Kilo's skill tool lists a skill's files with ripgrep, which it would download.
    path = f"{ripgrep_folder()}{os.pathsep}{base_env()['PATH']}"
    case = replace(
        KILO,
        fake=calling("skill", name="release-notes"),
        env=lambda url: {**KILO.env(url), "PATH": path},
    )
    fake, requests = run_live(case, kilo_cli, prompt, tmp_path)
    body = requests[0].body
    (system,) = [m["content"] for m in body["messages"] if "<available_skills>" in m["content"]]
    assert_listed(built, body, system, lambda name, text: xml_entry(name, text, skills))
    assert_body_returned(built, fake, requests, skills / "release-notes/SKILL.md")


def test_qwen_lists_each_skill_of_its_home_once(qwen_cli, built, tmp_path):
    """Qwen Code lists the home's skills as the user's, in a reminder of a user message; each
    request of the turn (the main one and its memory agent's) that lists skills lists each
    once."""
    prompt = artifact(built, "qwen")
    # What a gateway adds for the skill tool to run: without it -p declines the call, and
    # --allowed-tools skill does not let it through.
    args = QWEN.args
    case = replace(
        QWEN,
        fake=calling("skill", skill="release-notes"),
        args=lambda url: [*args(url), "--approval-mode", "yolo"],
    )
    fake, requests = run_live(case, qwen_cli, prompt, tmp_path)
    listing_requests = [r for r in requests if "<available_skills>" in json.dumps(r.body)]
    assert listing_requests, "no request lists skills"
    for request in listing_requests:
        (listing,) = [
            part["text"]
            for m in request.body["messages"]
            if m["role"] == "user" and isinstance(m["content"], list)
            for part in m["content"]
            if "<available_skills>" in part.get("text", "")
        ]
        assert_listed(
            built,
            request.body,
            listing,
            lambda name, text: (
                f"<skill>\n<name>\n{name}\n</name>\n<description>\n{text} (user)\n"
                "</description>\n<location>\nuser\n</location>\n</skill>"
            ),
            "qwen-code",
        )
    skill_md = home_of(prompt, "QWEN_HOME") / "skills/release-notes/SKILL.md"
    assert_body_returned(built, fake, requests, skill_md)


@dataclass
class SkillCallingChat(FakeChatCompletions):
    """Answers the first request that offers the program's skill ``tool`` with one call of it,
    with ``arguments``; every other request with plain text."""

    tool: str = "skill"
    arguments: dict[str, Any] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    call_id: str = "call_hotplex_skill"  # Droid answers no call id of letters alone

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        offered = isinstance(body, dict) and any(
            t.get("function", {}).get("name") == self.tool for t in body.get("tools", ())
        )
        if not offered or self.calls or not body.get("stream"):
            return super().respond(request)
        self.calls.append(self.tool)
        call = {
            "index": 0,
            "id": self.call_id,
            "type": "function",
            "function": {"name": self.tool, "arguments": json.dumps(self.arguments)},
        }
        chunks = [{"role": "assistant", "content": None, "tool_calls": [call]}, {}]
        events = [
            {
                "id": "chatcmpl-hotplex",
                "object": "chat.completion.chunk",
                "model": "m",
                "choices": [{"index": 0, "delta": d, "finish_reason": f}],
            }
            for d, f in zip(chunks, (None, "tool_calls"), strict=True)
        ]
        return 200, sse(events, named=False) + b"data: [DONE]\n\n", "text/event-stream"


CALL_ID = SkillCallingChat.call_id


def calling(tool: str, call_id: str = CALL_ID, **arguments: Any):
    """A fake that has the model call ``tool`` once, with ``call_id``, for a ``LiveCase``."""
    return lambda: SkillCallingChat(tool=tool, arguments=arguments, call_id=call_id)


def assert_body_returned(built, fake, requests, skill_md: Path) -> None:
    """The skill tool was called, and the first request after it (the tool's result, or a
    message the program adds with the skill: Copilot CLI's) holds the SKILL.md body (after
    the frontmatter) once, byte for byte."""
    assert fake.calls, "the program never offered its skill tool"
    after = [
        r
        for r in requests
        if any(
            m["role"] == "tool" and m.get("tool_call_id") == fake.call_id
            for m in r.body["messages"]
        )
    ]
    assert after, "no request carried the skill tool's result"
    body = skill_md.read_text(encoding="utf-8").split("\n---\n", 1)[1].strip("\n")
    whole = json.dumps(after[0].body["messages"], ensure_ascii=False)
    once(whole, json.dumps(body, ensure_ascii=False)[1:-1], "the body after the skill call")


@contextmanager
def placed(project: Path, target: str) -> Iterator[dict[str, Any]]:
    """The target's ``launch.json`` files placed in the session folder as a gateway places them
    (``cwd = "."``: the project), removed afterwards; its launch.json."""
    launch = json.loads((project / f"dist/{target}/default/launch.json").read_text("utf-8"))
    place(project, launch, project)
    try:
        yield launch
    finally:
        for where in {Path(p).parts[0] for p in launch["files"]}:
            shutil.rmtree(project / where)


def ripgrep_folder() -> Path:
    """A folder holding ``rg``: OpenCode's skill tool lists a skill's files with ripgrep, and
    would download it. Codex's package (installed beside) carries one."""
    found = shutil.which("rg") or next(
        iter(sorted(tools_dir().glob("node_modules/@openai/codex-*/vendor/*/codex-path/rg"))),
        None,
    )
    if found is None:
        pytest.skip(f"no ripgrep on PATH or in Codex's package; {INSTALL_HINT}")
    return Path(found).parent


def serve_opencode(project: Path, launch: dict[str, Any], root: Path, fake) -> list[Any]:
    """``opencode serve`` in the session folder with the gateway's provider, ripgrep on its
    PATH; one message sent with the built payload. The chat requests of the conversation."""
    binary = find_binary("opencode")
    if binary is None:
        pytest.skip("opencode is not installed")
    env = {**opencode_env(root), **launch.get("env", {})}
    env["PATH"] = f"{ripgrep_folder()}{os.pathsep}{env['PATH']}"
    payload = json.loads((project / "dist/ocs/default/payload.json").read_text("utf-8"))
    opencode_message(binary, project / launch["cwd"], env, fake.url, payload)
    return [r for r in fake.completion_requests() if "title generator" not in json.dumps(r.body)]


def test_opencode_lists_each_skill_once_and_sends_its_body_whole(built, tmp_path):
    project = built.project
    fake_api = calling("skill", name="release-notes")()
    with placed(project, "ocs") as launch, running(fake_api) as fake:
        requests = serve_opencode(project, launch, tmp_path / "oc", fake)
    first = requests[0].body
    (system,) = [m["content"] for m in first["messages"] if "<available_skills>" in m["content"]]
    skills = project / ".opencode/skills"
    assert_listed(built, first, system, lambda name, text: xml_entry(name, text, skills))
    skill_md = project / launch["files"][".opencode/skills/release-notes/SKILL.md"]
    assert_body_returned(built, fake, requests, skill_md)


def test_pi_lists_each_skill_of_the_session_folder_once(pi_cli, built, tmp_path):
    project = built.project
    skills = project / ".pi/skills"
    skill_md = (skills / "release-notes/SKILL.md").resolve()
    case = replace(PI, fake=calling("read", path=str(skill_md)))
    with placed(project, "pi"):
        fake, requests = run_live(case, pi_cli, artifact(built, "pi"), tmp_path)
        body = requests[0].body
        (system,) = [m["content"] for m in body["messages"] if m["role"] == "system"]
        assert_listed(built, body, system, lambda name, text: xml_entry(name, text, skills))
        assert_body_returned(built, fake, requests, skill_md)


def test_copilot_lists_each_skill_once_and_sends_its_body_whole(copilot_cli, built, tmp_path):
    project = built.project
    case = replace(COPILOT, fake=calling("skill", skill="release-notes"), banner=True)
    with placed(project, "cop") as launch:
        fake, requests = run_live(case, copilot_cli, artifact(built, "cop"), tmp_path)
    body = requests[0].body
    (system,) = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert_listed(
        built,
        body,
        system,
        lambda name, text: (
            f"<skill>\n  <name>{name}</name>\n  <description>{text}</description>\n"
            "  <location>project</location>\n</skill>"
        ),
    )
    skill_md = project / launch["files"][".github/skills/release-notes/SKILL.md"]
    assert_body_returned(built, fake, requests, skill_md)


@pytest.mark.slow
def test_cline_names_each_skill_of_its_home_once_and_sends_its_body_whole(
    cline_cli, built, tmp_path
):
    """Cline names its skills in its ``skills`` tool and sends no description: each name is
    there once."""
    prompt = artifact(built, "cline")
    case = replace(CLINE, fake=calling("skills", skill="release-notes", args=None), banner=True)
    fake, requests = run_live(case, cline_cli, prompt, tmp_path)
    (tool,) = [t for t in requests[0].body["tools"] if t["function"]["name"] == "skills"]
    names = tool["function"]["description"].split("Available skills: ", 1)[1]
    listed = names.rstrip(".").split(", ")
    for name in SKILLS:
        assert listed.count(name) == 1, f"{name} not named once: {names}"
    skill_md = home_of(prompt, "CLINE_DIR") / "skills/release-notes/SKILL.md"
    assert_body_returned(built, fake, requests, skill_md)
