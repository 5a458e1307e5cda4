"""Agent Skills reach the real Claude Code where hotplex places them.

The ``cc`` artifact of ``examples/skills`` is launched as its ``launch.json`` says (each of its
``files`` copied into the session folder, ``executable`` ones made 0755, then ``argv``) against
a fake Messages API. The first request must list each skill as ``- <name>: <description>`` in
its skills reminder, exactly once; when the fake model calls the ``Skill`` tool, the skill's
SKILL.md body must come back to it byte for byte. A skill written by hand with an over-long
description shows where Claude Code cuts an entry of its listing (``claude_code.SKILL_LISTING_CAP``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import CLAUDE_TIMEOUT, HOTPLEX, build_example, claude_env
from fake_api import FakeAnthropic, RecordedRequest, Reply, running
from hotplex.targets.claude_code import (
    SKILL_LISTING_BUDGET,
    SKILL_LISTING_CAP,
    SKILL_LISTING_OWN,
)
from hotplex_testing import EXAMPLES
from test_subagents_live import has_tool_result, tool_use_stream, user_text

pytestmark = pytest.mark.integration

PROBE = "HOTPLEX-SKILL-PROBE"
REMINDER = "The following skills are available for use with the Skill tool:"


@dataclass
class SkillCalling(FakeAnthropic):
    """Answers the session's first request with one ``Skill`` call for ``skill`` (when set and
    offered), every other request with plain text."""

    skill: str | None = None
    calls: list[str] = field(default_factory=list)

    def respond(self, request: RecordedRequest) -> Reply | None:
        body = request.body
        if request.route != "/v1/messages" or not isinstance(body, dict):
            return super().respond(request)
        offered = any(t["name"] == "Skill" for t in body.get("tools", ()))
        asking = PROBE in user_text(request) and not has_tool_result(request)
        if self.skill is None or not offered or not asking or self.calls:
            return super().respond(request)
        self.calls.append(self.skill)
        block = {
            "type": "tool_use",
            "id": "toolu_hotplex_skill",
            "name": "Skill",
            "input": {"skill": self.skill},
        }
        model = str(body.get("model", "claude"))
        return 200, tool_use_stream(model, [block]), "text/event-stream"


def place(project: Path, launch: dict[str, Any], session: Path) -> None:
    """What a gateway does with ``launch.json``: copy each file, make the allowed scripts 0755."""
    for where, built in launch["files"].items():
        target = session / where
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(project / built, target)
        os.chmod(target, 0o755 if where in launch.get("executable", ()) else 0o644)


def run(claude_cli, argv: list[str], cwd: Path, home: Path, skill: str | None) -> SkillCalling:
    with running(SkillCalling(skill=skill)) as fake:
        done = subprocess.run(
            [str(claude_cli.path), *argv, "--print", PROBE],
            cwd=cwd,
            env=claude_env(home, fake.url),
            capture_output=True,
            text=True,
            timeout=CLAUDE_TIMEOUT * 2,
        )
    assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}"
    return fake


def message_texts(request: RecordedRequest) -> str:
    """The text blocks of every message, whatever its role: 2.1.332 sends the skills listing
    in a message of role ``system`` between the user's."""
    texts = []
    for message in request.body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts += [b["text"] for b in blocks if b.get("type") == "text"]
    return "\n".join(texts)


def reminder(request: RecordedRequest) -> str:
    """The skills listing of a request: the lines after its heading, up to a blank line."""
    text = message_texts(request)
    assert text.count(REMINDER) == 1, "no skills listing, or more than one"
    return text.split(REMINDER, 1)[1].split("\n\n", 2)[1]


def frontmatter_of(path: Path) -> dict[str, Any]:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = build_example(tmp_path_factory.mktemp("skills"), "skills")
    if built.problem is not None:
        pytest.fail(built.problem, pytrace=False)
    return built.project


def launch_spec(project: Path) -> dict[str, Any]:
    return json.loads((project / "dist/cc/default/launch.json").read_text(encoding="utf-8"))


def test_each_skill_is_listed_once_and_its_body_arrives_whole(claude_cli, example, tmp_path):
    launch = launch_spec(example)
    place(example, launch, example)  # cwd ".": the session folder is the project
    fake = run(
        claude_cli, launch["argv"][1:], example / launch["cwd"], tmp_path / "h", "release-notes"
    )
    listing = "\n" + reminder(fake.message_requests()[0]) + "\n"
    for name in ("incident-triage", "release-notes", "sql-review"):
        meta = frontmatter_of(example / "agent-configs/skills" / name / "SKILL.md")
        listed = " - ".join(meta[k] for k in ("description", "when_to_use") if k in meta)
        entry = f"\n- {name}: {listed}\n"
        assert listing.count(entry) == 1, f"{name}: {entry[:80]!r} not listed once"
    assert fake.calls == ["release-notes"], "the session never offered the Skill tool"
    skill_md = (example / launch["files"][".claude/skills/release-notes/SKILL.md"]).read_text()
    body = skill_md.split("\n---\n", 1)[1]
    after = [r for r in fake.message_requests() if has_tool_result(r)]
    assert after, "no request after the Skill call"
    (texts,) = [
        b["text"]
        for b in after[0].body["messages"][-1]["content"]
        if b.get("type") == "text" and b["text"].startswith("Base directory for this skill: ")
    ]
    # The body as Claude Code sends it: after its own first line and a blank line, whole.
    assert texts.split("\n\n", 1)[1] == body.lstrip("\n")


def test_claude_code_cuts_a_listing_entry_at_its_cap(claude_cli, tmp_path):
    """Measured, not assumed: a description far over the cap, written by hand, is listed cut
    to ``SKILL_LISTING_CAP`` characters."""
    session = tmp_path / "session"
    folder = session / ".claude/skills/long-one"
    folder.mkdir(parents=True)
    description = "".join(f"{n:05d} " for n in range(1000))  # 6,000 characters, each place named
    (folder / "SKILL.md").write_text(
        f"---\nname: long-one\ndescription: {description}\n---\n\nBody.\n"
    )
    fake = run(claude_cli, [], session, tmp_path / "h", None)
    listing = reminder(fake.message_requests()[0])
    line = next(line for line in listing.split("\n") if line.startswith("- long-one: "))
    kept = line[len("- long-one: ") :]
    assert kept.endswith("…") and description.startswith(kept[:-1]), "the entry is no head"
    assert len(kept) == SKILL_LISTING_CAP


def _project_over(tmp_path: Path, over: int) -> tuple[Path, list[str]]:
    """A project of 47 skills whose listing lines take the room Claude Code leaves them
    (``SKILL_LISTING_BUDGET`` less ``SKILL_LISTING_OWN``) and ``over`` columns more: 46 of
    500-character descriptions, the last sized to it. Built; its cuts as hotplex reports them."""
    project = tmp_path / "p"
    shutil.copytree(EXAMPLES / "skills", project, ignore=shutil.ignore_patterns("dist"))
    shutil.rmtree(project / "agent-configs/skills")
    (project / "hotplex.toml").write_text(
        '[project]\nsources = "agent-configs"\n\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    room = SKILL_LISTING_BUDGET - SKILL_LISTING_OWN
    line = len("- skill-00: ")
    sizes = [500] * 46 + [room - 46 * (line + 500 + 1) - line - 1 + over]
    for number, size in enumerate(sizes):
        folder = project / f"agent-configs/skills/skill-{number:02d}"
        folder.mkdir(parents=True)
        description = f"D{number:02d} {'x' * size}"[:size]
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{number:02d}\ndescription: {description}\n---\n\nBody.\n"
        )
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "build", "--json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    cut = [
        t["section"].removeprefix("skill ")
        for a in report["artifacts"]
        for t in a["truncations"]
        if t["limit"] == "claude-code.skill_listing_total"
    ]
    return project, cut


@pytest.mark.parametrize("over", [0, 1])
def test_claude_code_lists_skills_by_name_only_past_its_listing_budget(claude_cli, tmp_path, over):
    """Measured to the column: the project's lines fitting the room its budget leaves them are
    all listed whole; one column more, and the last is listed by its name alone, as hotplex
    reports it (``SKILL_LISTING_BUDGET``, ``SKILL_LISTING_OWN``)."""
    project, cut = _project_over(tmp_path, over)
    assert cut == (["skill-46"] if over else [])
    launch = launch_spec(project)
    place(project, launch, project)
    fake = run(claude_cli, launch["argv"][1:], project, tmp_path / "h", None)
    lines = reminder(fake.message_requests()[0]).split("\n")
    ours = [x for x in lines if x.startswith("- skill-")]
    assert len(ours) == 47
    assert [x[2:] for x in ours if ":" not in x] == cut
