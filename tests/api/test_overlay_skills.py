"""A per-user compile never overlays an Agent Skill: a skill is the project's, the same in every
call, so an overlay naming a skill's file is refused in every call, whatever it holds, and each
user's artifact carries the project's skill (adversary 8, H1: the second user was served the
first user's overlaid skill, and its text went unscanned)."""

from __future__ import annotations

import pytest
from hotplex import HotplexError, Project

SKILL = "---\nname: s1\ndescription: {}\n---\n{}\n"
PLACED = "dist/cc/default/skills/s1/SKILL.md"
MANIFEST = '[[target]]\nname = "cc"\nworker = "claude-code"'


@pytest.fixture
def project(make_project) -> Project:
    root = make_project(
        {
            "agent-configs/SOUL.md": "You are the build helper.",
            "agent-configs/USER.md": "The base user.",
            "agent-configs/skills/s1/SKILL.md": SKILL.format("the project's skill", "body"),
            "agent-configs/skills/s1/references/notes.md": "notes",
        },
        manifest=MANIFEST,
    )
    return Project.load(root)


def _refused(project: Project, overlay: dict[str, str], **kwargs) -> str:
    with pytest.raises(HotplexError) as raised:
        project.compile("cc", overlay=overlay, **kwargs)
    return raised.value.render()


@pytest.mark.parametrize("on_finding", ["error", "block"])
def test_each_user_gets_the_projects_skill_and_a_skill_overlay_is_refused(
    project, on_finding
) -> None:
    secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    users = {
        "alice": SKILL.format("skill of alice", "alice's private body"),
        "bob": SKILL.format("skill of bob", f"bob's body {secret} zero\u200bwidth"),
    }
    for who, text in users.items():
        for key in ("skills/s1/SKILL.md", "./skills/s1/references/notes.md"):
            message = _refused(project, {key: text}, on_finding=on_finding)
            assert message.startswith(f"overlay:{key}: a skill's files are not overlaid")
            assert "alice" not in message and secret not in message
        # With a skill overlay among them, the user's own files are refused too: the whole call.
        _refused(project, {"USER.md": who, "skills/s1/SKILL.md": text}, on_finding=on_finding)
        artifact = project.compile("cc", overlay={"USER.md": f"{who} prefers short answers"})
        assert artifact.files[PLACED] == project.compile("cc").files[PLACED]
        assert b"the project's skill" in artifact.files[PLACED]
        assert f"{who} prefers" in artifact.text
        kept = repr([(p.head, p.head_reads, p.rest, p.skills) for p in project._plans.values()])
        assert "alice" not in kept and "bob" not in kept


def test_a_skill_overlay_is_named_by_its_label(project) -> None:
    message = _refused(
        project,
        {"skills/s1/SKILL.md": SKILL.format("x", "y")},
        overlay_names={"skills/s1/SKILL.md": "users/42/skill.md"},
    )
    assert message.splitlines()[0].startswith("users/42/skill.md: a skill's files")
    assert "agent-configs/skills" not in message  # never the project file it stands in for
