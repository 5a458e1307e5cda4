"""``profile = "subagent"`` and ``keep`` on the XML workers (OpenClaw's documented sub-agent allowlist).

Claude Code sub-agents inherit the whole system prompt, so a sub-agent profile is what a gateway
passes to a sub-agent it starts itself: the working rules and tool guidance, not the persona or
the user's context. The same document goes to OpenCode Server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hotplex.api import Project
from hotplex.build import Request, run
from hotplex.document.compile import compile_job
from hotplex.errors import HotplexError
from hotplex.sources.inputs import Inputs, read_cap

FILES = {
    "agent-configs/SOUL.md": "Be brief.",
    "agent-configs/SOUL.slack.md": "Use threads.",
    "agent-configs/AGENTS.md": "Run the tests.",
    "agent-configs/SKILLS.md": "Use make.",
    "agent-configs/USER.md": "Prefers Go.",
    "agent-configs/MEMORY.md": "Decided: Postgres.",
}
SECTION_TAGS = ("persona", "rules", "skills", "user", "memory")


def _manifest(worker: str, options: str) -> str:
    return (
        '[variants]\nplatforms = ["slack"]\n\n'
        f'[[target]]\nname = "main"\nworker = "{worker}"\n\n'
        f'[[target]]\nname = "sub"\nworker = "{worker}"\n{options}\n'
    )


def _sections(text: str) -> list[str]:
    """The source sections of an agent-configuration document, in order."""
    return [tag for tag in re.findall(r"^<([a-z]+)>", text, re.MULTILINE) if tag in SECTION_TAGS]


def _document(artifact) -> str:
    """prompt.xml as is; payload.json's system field."""
    if artifact.path.endswith("payload.json"):
        return json.loads(artifact.text)["system"]
    return artifact.text


@pytest.mark.parametrize("worker", ["claude-code", "opencode-server"])
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ('profile = "subagent"', ["rules", "skills"]),
        ('profile = "subagent"\nkeep = ["rules", "memory"]', ["rules", "memory"]),
        ('keep = ["soul"]', ["persona"]),
        ('profile = "main"', list(SECTION_TAGS)),
    ],
)
def test_profile_keeps_only_the_listed_sources(make_project, worker, options, expected) -> None:
    project = Project.load(make_project(FILES, manifest=_manifest(worker, options)))
    for platform in (None, "slack"):
        document = _document(project.compile("sub", platform))
        assert _sections(document) == expected
        assert "<hotplex>" in document  # the META-COGNITION block stays: it is no source
    assert _sections(_document(project.compile("main"))) == list(SECTION_TAGS)


def test_both_workers_give_a_subagent_the_same_document(make_project) -> None:
    documents = []
    for worker in ("claude-code", "opencode-server"):
        root = make_project(FILES, manifest=_manifest(worker, 'profile = "subagent"'), name=worker)
        documents.append(_document(Project.load(root).compile("sub", "slack")))
    assert documents[0] == documents[1]


@pytest.mark.parametrize(
    ("options", "key", "message"),
    [
        ('profile = "helper"', "target[1].profile", "expected one of 'main', 'subagent'"),
        ('keep = ["rule"]', "target[1].keep", "no source is named 'rule'"),
    ],
)
def test_bad_profile_settings_are_reported(make_project, options, key, message) -> None:
    root = make_project(FILES, manifest=_manifest("claude-code", options))
    with pytest.raises(HotplexError) as caught:
        Project.load(root)
    ((found_key, found_message),) = [(p.span.key, p.message) for p in caught.value.problems]
    assert (found_key, found_message) == (key, message)


def test_unknown_keep_name_gets_a_suggestion(make_project) -> None:
    root = make_project(FILES, manifest=_manifest("claude-code", 'keep = ["rule"]'))
    with pytest.raises(HotplexError) as caught:
        Project.load(root)
    assert caught.value.problems[0].hint == "did you mean 'rules'?"


def test_dropped_sources_are_not_inputs(make_project) -> None:
    root = make_project(FILES, manifest=_manifest("claude-code", 'profile = "subagent"'))
    project = Project.load(root)
    (job,) = [j for j in project.jobs() if j.id == "sub/slack"]
    model = project.model
    compiled = compile_job(model, job, Inputs(root, read_cap(model)))
    assert sorted(compiled.inputs) == [
        "agent-configs/AGENTS.md",
        "agent-configs/AGENTS.slack.md",
        "agent-configs/SKILLS.md",
        "agent-configs/SKILLS.slack.md",
        "agent-configs/skills/.",  # the Agent Skills folder, absent: made, it rebuilds the job
    ]


def test_editing_a_dropped_source_rebuilds_only_the_full_profile(make_project) -> None:
    root = make_project(FILES, manifest=_manifest("claude-code", 'profile = "subagent"'))
    run(Request(root))
    Path(root / "agent-configs/SOUL.md").write_text("Be thorough.", encoding="utf-8")
    status = {job.id: job.status for job in run(Request(root)).jobs}
    assert status == {
        "main/default": "rebuilt",
        "main/slack": "rebuilt",
        "sub/default": "current",
        "sub/slack": "current",
    }
