"""The README is the front page: the Quick start CI runs, the same on the site, and the Python
versions it names those CI tests (moved here from tests/cli/test_readme.py)."""

from __future__ import annotations

import ast
import re
import tomllib

from docsite import blocks, hooks
from hotplex_testing import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


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
