"""Agent Skills reach the real Continue CLI, Mistral Vibe, Factory Droid and Hermes Agent where
hotplex puts them.

``examples/skills`` is copied with a target of each added and built; each program is started as
its ``launch.json`` says (Continue, Vibe and Hermes with their home, Droid in the project after
the gateway's copy of each ``files`` entry) against a fake Chat Completions API that has the
model call the program's skill tool once, for ``release-notes``. The request must list each
skill's name and description where that program lists skills, exactly once, in its own form,
from the folder hotplex wrote; the skill tool's result must carry the SKILL.md body (after its
frontmatter) once, byte for byte, as the program sends it.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from live import home_of, run_live
from test_continue_cli import CONTINUE
from test_droid import DROID
from test_hermes_agent import HERMES
from test_mistral_vibe import VIBE
from test_skills_each_program import (
    CALL_ID,
    SKILLS,
    artifact,
    assert_body_returned,
    assert_listed,
    build_with,
    calling,
    description,
    once,
    placed,
)

pytestmark = pytest.mark.integration

TARGETS = {
    "cn": "continue-cli",
    "vibe": "mistral-vibe",
    "droid": "droid",
    "hermes": "hermes-agent",
}
CALLED = "release-notes"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return build_with(tmp_path_factory.mktemp("skills-headless"), TARGETS)


def test_continue_lists_each_skill_of_its_home_once_and_sends_its_body(
    continue_cli, built, tmp_path
):
    """Continue lists skills in its Skills tool's description, ``name:`` and ``description:``
    on lines of their own; the tool sends the body trimmed, in ``<skill_content>``."""
    prompt = artifact(built, "cn")
    case = replace(CONTINUE, fake=calling("Skills", skill_name=CALLED))
    fake, requests = run_live(case, continue_cli, prompt, tmp_path)
    body = requests[0].body
    (tool,) = [t for t in body["tools"] if t["function"]["name"] == "Skills"]
    listing = tool["function"]["description"]
    assert_listed(
        built,
        body,
        listing,
        lambda name, text: f"\nname: {name}\ndescription: {text}\n",
        TARGETS["cn"],
    )
    skill_md = home_of(prompt, "CONTINUE_GLOBAL_DIR") / f"skills/{CALLED}/SKILL.md"
    assert_body_returned(built, fake, requests, skill_md)


def test_vibe_lists_each_skill_of_its_home_once_and_sends_its_body(vibe_cli, built, tmp_path):
    """Vibe lists skills in its system message, in ``<available-skills>``; its skill tool sends
    the body stripped, in ``<skill_content>``."""
    prompt = artifact(built, "vibe")
    skills = (home_of(prompt, "VIBE_HOME") / "skills").resolve()
    case = replace(VIBE, fake=calling("skill", name=CALLED))
    fake, requests = run_live(case, vibe_cli, prompt, tmp_path)
    body = requests[0].body
    (system,) = [m["content"] for m in body["messages"] if m["role"] == "system"]
    listing = system.split("<available-skills>", 1)[1].split("</available-skills>", 1)[0]
    assert_listed(
        built,
        body,
        listing,
        lambda name, text: (
            f"  <skill>\n    <name>{name}</name>\n    <description>{text}</description>\n"
            f"    <path>{skills}/{name}/SKILL.md</path>\n  </skill>"
        ),
        TARGETS["vibe"],
    )
    assert_body_returned(built, fake, requests, skills / CALLED / "SKILL.md")


def test_droid_lists_each_skill_of_the_session_folder_once_and_sends_its_body(
    droid_cli, built, tmp_path
):
    """Droid lists skills in a ``<system-reminder>`` of the user turn, ``<name>: <description>``
    a line each; its Skill tool sends the body trimmed, in ``<skill …>``."""
    project = built.project
    case = replace(DROID, fake=calling("Skill", skill=CALLED))
    with placed(project, "droid") as launch:
        fake, requests = run_live(case, droid_cli, artifact(built, "droid"), tmp_path)
    body = requests[0].body
    head = "Available skills (invoke by exact name when its description matches the request):\n"
    (listing,) = [
        part["text"]
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for part in m["content"]
        if head in part.get("text", "")
    ]
    listing = "\n" + listing.split(head, 1)[1]
    assert_listed(built, body, listing, lambda name, text: f"\n{name}: {text}\n", TARGETS["droid"])
    skill_md = project / launch["files"][f".factory/skills/{CALLED}/SKILL.md"]
    assert_body_returned(built, fake, requests, skill_md)


def hermes_shown(text: str) -> str:
    """A description as Hermes Agent 0.19.0 lists it: stripped, cut past 60 characters to its
    first 57 and ``...``."""
    text = text.strip().strip("'\"")
    return text if len(text) <= 60 else text[:57] + "..."


def test_hermes_lists_each_skill_of_its_home_once_and_sends_it_whole(hermes_cli, built, tmp_path):
    """Hermes lists each skill of its home under a category line of its own (the skill's
    folder), its description cut at 60 characters as hotplex reports; its skill_view tool sends
    the whole SKILL.md as the JSON ``content`` of its result."""
    (soul,) = [a for a in built.artifacts if a.target == "hermes" and a.path.name == "SOUL.md"]
    # The live helpers read launch.json beside the artifact's path: the job folder's.
    prompt = replace(soul, path=soul.path.parent.parent / "launch.json")
    home = home_of(prompt, "HERMES_HOME")
    case = replace(HERMES, fake=calling("skill_view", name=CALLED))
    fake, requests = run_live(case, hermes_cli, prompt, tmp_path)
    body = requests[0].body
    system = body["messages"][0]["content"]
    listing = system.split("<available_skills>\n", 1)[1].split("</available_skills>", 1)[0]
    for name in SKILLS:
        shown = hermes_shown(description(built, name, TARGETS["hermes"]))
        once(listing, f"  {name}:\n    - {name}: {shown}\n", name)
    assert fake.calls, "Hermes never offered skill_view"
    results = [
        m["content"]
        for r in requests
        for m in r.body["messages"]
        if m["role"] == "tool" and m.get("tool_call_id") == CALL_ID
    ]
    assert results, "no request carried skill_view's result"
    sent = json.loads(results[0])["content"]
    whole = (home / f"skills/{CALLED}/SKILL.md").read_text(encoding="utf-8")
    skill_body = whole.split("\n---\n", 1)[1]
    assert sent.count(skill_body.strip("\n")) == 1, sent[:500]
