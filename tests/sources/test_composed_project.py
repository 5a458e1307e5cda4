"""A user's files read with the project's own (adversary16 D13): a renderer reads the document
whole and CommonMark takes a label's first definition, so a user's definition written before the
project's takes over the project's reference image. What the join makes is the user's finding,
at the definition; the project's own text, trusted, is never one."""

from __future__ import annotations

import pytest
from hotplex import HotplexError, Project
from hotplex.scanning import rendered
from hotplex_testing import CC_LOGS_MANIFEST

HIJACK = {"USER.md": "# Alice\n\n[logo]: https://evil.example/x.png\n"}


@pytest.fixture
def project(make_project) -> Project:
    files = {
        "agent-configs/SOUL.md": "Be kind.\n\n![logo][logo]\n",
        "agent-configs/USER.md": "Base user.",
        "agent-configs/MEMORY.md": "Base memory.\n\n[logo]: ./logo.png\n",
    }
    return Project.load(make_project(files, manifest=CC_LOGS_MANIFEST))


def _fetched(text: str) -> list[str]:
    return [p.url for p in rendered.read(text).fetches]


def test_the_project_alone_fetches_its_own_file(project) -> None:
    assert not any("evil" in url for url in _fetched(project.compile("cc").text))
    assert project.check({"USER.md": "# Alice\n"}).findings == ()


def test_check_finds_the_definition_that_takes_the_projects_image(project) -> None:
    found = [(f.rule, f.file, f.line) for f in project.check(HIJACK).findings]
    assert found == [("image-url-data", "overlay:USER.md", 3)]


def test_compile_fails_at_the_definition(project) -> None:
    with pytest.raises(HotplexError, match="image-url-data") as raised:
        project.compile("cc", overlay=HIJACK)
    span = raised.value.problems[0].span
    assert (span.file, span.line) == ("overlay:USER.md", 3)


def test_under_block_the_definition_is_blocked_and_the_image_is_the_projects(project) -> None:
    artifact = project.compile("cc", overlay=HIJACK, on_finding="block")
    assert not any("evil" in url for url in _fetched(artifact.text))
    assert [(f.rule, f.file, f.action) for f in artifact.findings] == [
        ("image-url-data", "overlay:USER.md", "blocked")
    ]


def test_a_user_link_definition_of_a_label_the_project_does_not_use_is_fine(project) -> None:
    overlay = {"USER.md": "See [the book][1].\n\n[1]: https://doc.rust-lang.org/book/\n"}
    assert project.check(overlay).findings == ()
    project.compile("cc", overlay=overlay)


# Definitions in every container, quotes and list items nested in any order.
CONTAINERS = [
    "> [logo]: https://evil.example/x.png\n",
    "- [logo]: https://evil.example/x.png\n",
    "1. [logo]: https://evil.example/x.png\n",
    "- a\n  - b\n    - [logo]: https://evil.example/x.png\n",
    "[logo]:\n  <https://evil.example/x.png> 'title'\n",
    "[LOGO]: //evil.example/x.png\n",
    "> - > [logo]: https://evil.example/x.png\n",
    "> 1. - > [ Logo ]: https://evil.example/x.png\n",
]


@pytest.mark.parametrize("definition", CONTAINERS)
def test_a_definition_in_any_container_is_found_and_blocked(project, definition) -> None:
    overlay = {"USER.md": "# Alice\n\n" + definition}
    found = [(f.rule, f.file, f.line) for f in project.check(overlay).findings]
    line = 3 + definition.split("evil", 1)[0].count("\n")  # where the URL is
    assert found == [("image-url-data", "overlay:USER.md", line)]
    with pytest.raises(HotplexError, match="image-url-data"):
        project.compile("cc", overlay=overlay)
    artifact = project.compile("cc", overlay=overlay, on_finding="block")
    assert not any("evil" in url for url in _fetched(artifact.text))


def test_what_the_users_text_makes_of_the_projects_is_the_users() -> None:
    """A style the user leaves open makes the project's CSS a stylesheet that fetches: a finding
    in the project's text that the project alone does not make is the user's, without a line."""
    from hotplex.manifest.model import Manifest
    from hotplex.sources import blocking

    css = "![i][b]\n\nbody{background:url(https://evil.example/a.png)}\n"
    parts = [
        blocking.Part("<style>\n[b]: ./b.png\n", "overlay:USER.md", 1),
        blocking.Part(css, "MEMORY.md", 1, trusted=True),
    ]
    found = [(f.rule, f.span.file, f.span.line) for f in blocking.composed(Manifest(), parts)]
    assert found == [("image-url-data", "overlay:USER.md", None)]
    assert blocking.composed(Manifest(), parts[1:]) == []


@pytest.mark.parametrize("count", [1, 3, 10])
def test_many_definitions_of_the_projects_label_are_each_blocked(project, count) -> None:
    """Each finding of a join is placed in the part's body before any is blocked: blocking them
    one at a time moved the later ones' lines (an IndexError at ten)."""
    user = "# Alice\n\n" + "[logo]: https://evil.example/x.png\n\n- likes tea\n" * count
    artifact = project.compile("cc", overlay={"USER.md": user}, on_finding="block")
    assert not any("evil" in url for url in _fetched(artifact.text))
    assert {f.file for f in artifact.findings} == {"overlay:USER.md"}
