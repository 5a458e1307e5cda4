"""A user's overlaid file is data: a Claude ``@path`` line in it is not followed, so it cannot
read the project's other files into that user's artifact (adversary 9, D7: an overlaid USER.md
that CLAUDE.md imports, or an overlaid CLAUDE.md, read another user's stored memory and
``.git/config``). The project's own imports are followed as before."""

from __future__ import annotations

import pytest
from hotplex import Project, cli

PRIVATE = "BOB-PRIVATE-MEMORY"


@pytest.fixture
def project(make_project, capsys) -> Project:
    """A repository whose CLAUDE.md imports USER.md, adopted as ``hotplex import`` does it
    (``imports = "claude"``), with one user's stored memory kept inside it."""
    root = make_project(
        {
            "CLAUDE.md": "# Rules\nSee @README.md\nThe user: @USER.md\n",
            "README.md": "# the readme\n",
            "USER.md": "# the base profile\nsee @HELP.md\n",
            "HELP.md": "# the project's help\n",
        },
        manifest=None,
    )
    assert cli.main(["-C", str(root), "import"]) == 0, capsys.readouterr()
    assert 'imports = "claude"' in (root / "hotplex.toml").read_text(encoding="utf-8")
    (root / "users/43").mkdir(parents=True)
    (root / "users/43/MEMORY.md").write_text(PRIVATE + "\n", encoding="utf-8")
    return Project.load(root)


def test_the_projects_own_imports_are_followed(project) -> None:
    text = project.compile("cc").text
    assert "# the readme" in text
    assert "# the project's help" in text  # USER.md's own import, a project file


@pytest.mark.parametrize("key", ["USER.md", "CLAUDE.md"])
def test_an_overlaid_files_imports_stay_text(project, key) -> None:
    hostile = "# Alice\n@users/43/MEMORY.md\n@hotplex.toml\n"
    first = project.compile("cc", overlay={key: hostile}).text
    again = project.compile("cc", overlay={key: hostile}).text  # through the overlay plan
    fresh = Project.load(project.root).compile("cc", overlay={key: hostile}).text
    for text in (first, again, fresh):
        assert PRIVATE not in text
        assert "default_sources" not in text
        assert "@users/43/MEMORY.md" in text  # kept as the user wrote it
    if key == "USER.md":  # the project's CLAUDE.md still imports its README
        assert "# the readme" in first
    # And the next user without an overlay gets the project's files again.
    assert "# the project's help" in project.compile("cc").text
