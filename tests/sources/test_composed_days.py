"""A user's definition that takes over the reference image of a project's *day* (adversary17
D5): the project's days and compacted months join the user's files in their place, trusted, as
its other files do (``test_composed_project.py``); what the join makes is the user's finding."""

from __future__ import annotations

import pytest
from hotplex import HotplexError, Project
from hotplex.scanning import rendered
from hotplex_testing import CC_LOGS_MANIFEST
from markdown_it import MarkdownIt

IMAGE = "Diagram: ![arch]\n\n[arch]: ./arch.png\n"
EVIL = "[arch]: https://evil.example/a.png\n"
# Each user's file that defines the project day's label, and where its URL is. Before the day
# (a newer day, MEMORY.md, USER.md) CommonMark takes it; after (an older day) a renderer that
# takes a label's last definition does.
HIJACKS = {
    "newer day": ({"memory/2026-11-30.md": EVIL}, "overlay:memory/2026-11-30.md", 1),
    "older day": ({"memory/2026-11-01.md": EVIL}, "overlay:memory/2026-11-01.md", 1),
    "MEMORY.md": ({"MEMORY.md": "Notes\n\n" + EVIL}, "overlay:MEMORY.md", 3),
    "USER.md": ({"USER.md": "x\n\n" + EVIL, "MEMORY.md": "m\n"}, "overlay:USER.md", 3),
}


@pytest.fixture(params=["day", "month"])
def project(make_project, request) -> Project:
    where = "memory/2026-11-29.md" if request.param == "day" else "memory/compacted/2026-10.md"
    files = {
        "agent-configs/USER.md": "Base user.",
        "agent-configs/MEMORY.md": "Base memory.",
        "agent-configs/memory/2026-11-28.md": "- older\n",
        f"agent-configs/{where}": IMAGE,
    }
    return Project.load(make_project(files, manifest=CC_LOGS_MANIFEST))


def _fetched(text: str) -> list[str]:
    return [p.url for p in rendered.read(text).fetches]


@pytest.mark.parametrize("name", HIJACKS)
def test_a_users_definition_of_a_project_days_label_is_found_and_blocked(project, name) -> None:
    overlay, label, line = HIJACKS[name]
    assert not any("evil" in url for url in _fetched(project.compile("cc").text))
    found = [(f.rule, f.file, f.line) for f in project.check(overlay).findings]
    assert found == [("image-url-data", label, line)]
    with pytest.raises(HotplexError, match="image-url-data"):
        project.compile("cc", overlay=overlay)
    artifact = project.compile("cc", overlay=overlay, on_finding="block")
    assert _fetched(artifact.text) == ["https://hotplex.invalid/arch.png"]  # the project's
    assert "evil.example" not in MarkdownIt("commonmark").render(artifact.text)
    assert [(f.rule, f.file, f.action) for f in artifact.findings] == [
        ("image-url-data", label, "blocked")
    ]


def test_a_user_day_standing_in_for_the_projects_takes_its_image_with_it(project) -> None:
    """An overlaid day of the project's day's name replaces it: no image of the project's is
    left for a newer day's definition to take (a compacted month's still is)."""
    overlay = {"memory/2026-11-29.md": "- mine\n", "memory/2026-11-30.md": EVIL}
    month = (project.root / "agent-configs/memory/compacted/2026-10.md").exists()
    found = [(f.rule, f.file) for f in project.check(overlay).findings]
    assert found == ([("image-url-data", "overlay:memory/2026-11-30.md")] if month else [])


def test_days_only_the_join_reads_stay_out_of_the_shared_reader(make_project) -> None:
    """A user's definition makes the join read every project day, those too old for any base
    document among them: read apart, they do not join the files whose stamps every later call
    of every user checks (1,000 days once joined cost each later call 1,000 stats). The join
    still finds what the oldest day makes with the user's definition."""
    files = {"agent-configs/USER.md": "Base user.", "agent-configs/MEMORY.md": "Base memory."}
    for day in range(2, 29):
        files[f"agent-configs/memory/2026-11-{day:02d}.md"] = f"- day {day} {'x' * 3000}\n"
    files["agent-configs/memory/2026-11-01.md"] = IMAGE
    project = Project.load(make_project(files, manifest=CC_LOGS_MANIFEST))
    assert "arch.png" not in project.compile("cc").text  # the oldest day: over the budget
    held = _days_held(project)
    assert held and "agent-configs/memory/2026-11-01.md" not in held
    user = {"USER.md": "x\n\n[a]: https://example.com/\n"}
    assert project.compile("cc", overlay=user).text
    assert _days_held(project) == held
    found = [(f.rule, f.file) for f in project.check({"USER.md": "x\n\n" + EVIL}).findings]
    assert found == [("image-url-data", "overlay:USER.md")]
    assert _days_held(project) == held


def _days_held(project: Project) -> set[str]:
    return {p for p in project._inputs.stamps if p.startswith("agent-configs/memory/2026-")}
