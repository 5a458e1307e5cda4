"""The README is the front page: short, the Quick start CI runs (the same on the site), the Python
versions CI tests (moved here from tests/cli/test_readme.py), and links a newcomer follows to what
they came for in two clicks (checked here on the Markdown, as GitHub shows it; on the built site
in test_site.py)."""

from __future__ import annotations

import ast
import posixpath
import re
import tomllib

import pytest
from docsite import blocks, hooks
from hotplex_testing import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")

# What a newcomer looks for, and where it is: (page, anchor or "", words the place holds).
WANTED = {
    "how to add the pre-commit hook": ("docs/pages/guides/pre-commit.md", "", "hotplex-check"),
    "how a Go gateway compiles a user's prompt": (
        "docs/pages/guides/serve.md",
        "from-go",
        "POST /v1/compile",
    ),
    "what Codex receives": (
        "docs/pages/workers.md",
        "codex-cli-and-gemini-cli",
        "developer_instructions",
    ),
}


def test_the_readme_is_a_front_page():
    assert len(README.splitlines()) <= 220


def test_the_quick_start_is_two_commands_and_getting_started_has_them():
    """CI runs the README's two Quick start commands as written; Getting started shows the same."""
    start = README.index("\n## Quick start\n")
    (block,) = blocks(README[start : README.index("\n## ", start + 1)], "sh")
    commands = [line.split(" #")[0].rstrip() for line in block.splitlines() if line.strip()]
    assert commands == [
        "pip install . && hotplex -C examples/basic build",
        "pip install '.[test]' && python -m pytest",
    ]
    assert block in (hooks.PAGES / "getting-started.md").read_text(encoding="utf-8")


def _links(path: str, text: str) -> set[tuple[str, str]]:
    """The Markdown pages a page links to, as (repository path, anchor)."""
    found = set()
    for target in LINK.findall(text):
        if "://" in target:
            continue
        file, _, anchor = target.partition("#")
        file = posixpath.normpath(posixpath.join(posixpath.dirname(path), file)) if file else path
        if file.endswith(".md"):
            found.add((file, anchor))
    return found


def _anchors(text: str) -> set[str]:
    return {hooks.anchor(h) for h in re.findall(r"^#+ (.+)$", hooks.FENCE.sub("", text), re.M)}


def test_every_readme_link_into_the_pages_is_there():
    for file, anchor in _links("README.md", README):
        assert (REPO / file).is_file(), file
        if anchor:
            assert anchor in _anchors((REPO / file).read_text(encoding="utf-8")), (file, anchor)


@pytest.mark.parametrize("wanted", sorted(WANTED))
def test_a_newcomer_finds_it_in_two_clicks(wanted):
    page, anchor, words = WANTED[wanted]
    first = _links("README.md", README)
    second = {
        link
        for file, _ in first
        if (REPO / file).is_file()
        for link in _links(file, (REPO / file).read_text(encoding="utf-8"))
    }
    assert (page, anchor) in first | second, wanted
    text = (REPO / page).read_text(encoding="utf-8")
    section = text
    if anchor:
        heading = next(
            h
            for h in re.findall(r"^(#+ .+)$", text, re.M)
            if hooks.anchor(h.lstrip("# ")) == anchor
        )
        level = len(heading.split()[0])
        rest = text[text.index(heading) + len(heading) :]
        end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
        section = rest[: end.start()] if end else rest
    assert words in section, wanted


def test_the_supported_pythons_are_one_list():
    """pyproject's requires-python and classifiers, the versions CI runs the suite on
    (``.ci/noxfile.py``, read without importing nox) and the README's say the same."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    prefix = "Programming Language :: Python :: "
    classified = [c.removeprefix(prefix) for c in project["classifiers"] if c.startswith(prefix)]
    noxfile = ast.parse((REPO / ".ci/noxfile.py").read_text(encoding="utf-8"))
    (tested,) = (
        ast.literal_eval(node.value)
        for node in noxfile.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "PYTHONS"
    )
    assert [v for v in classified if re.fullmatch(r"3\.\d+", v)] == tested
    assert project["requires-python"] == f">={tested[0]}"
    assert f"Python {', '.join(tested[:-1])} or {tested[-1]}" in " ".join(README.split())
