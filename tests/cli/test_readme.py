"""The README's lists of workers are the registry's: a worker added, renamed or reordered without
its README row fails here."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from hotplex import registry

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
TICKED = re.compile(r"`([^`]+)`")


def _rows(header: str) -> list[list[str]]:
    """The cells of each row of the table whose header line starts with ``header``."""
    lines = README.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_worker_table_matches_registry():
    rows = _rows("| worker | artifact |")
    assert [TICKED.fullmatch(row[0]).group(1) for row in rows] == list(registry.names())
    for row, worker in zip(rows, registry.workers().values(), strict=True):
        for output in worker.outputs:
            if "*" not in output.name:
                assert output.name.rpartition("/")[2] in row[1], (worker.name, output.name)


def test_worker_key_comment_lists_every_worker():
    lines = README.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("worker = "))
    listed = lines[at].partition("# ")[2]
    for more in lines[at + 1 :]:  # the list goes on in comment lines under the key
        if not more.lstrip().startswith("# |"):
            break
        listed += " " + more.lstrip()[2:]
    assert listed == " | ".join(registry.names())


@pytest.mark.parametrize(
    ("file", "audiences"),
    [
        ("`CLAUDE.md`", ("claude-code",)),
        ("`AGENTS.md`", ("agents", "claude-code")),
        ("`GEMINI.md`", ("gemini",)),
        ("`QWEN.md`", ("qwen",)),
        ("`.kilocode/rules/*.md`", ("kilo",)),
        ("`.aider.conf.yml`", ("aider",)),
    ],
)
def test_import_table_matches_imports_read(file, audiences):
    """The targets ``hotplex import`` gives each tool's file: its readers' (AGENTS.md also Claude
    Code's, where no CLAUDE.md sits beside it)."""
    row = next(r for r in _rows("| you have | source | target |") if r[0].startswith(file))
    targets = {w.init_target[0] for w in registry.workers().values()}
    named = set(TICKED.findall(row[2])) & targets
    expected = {
        w.init_target[0] for w in registry.workers().values() if set(audiences) & w.imports_read
    }
    assert named == expected


def test_the_supported_pythons_are_one_list():
    """pyproject's requires-python and classifiers, the versions CI runs the suite on
    (``.ci/noxfile.py``, read without importing nox) and the README's say the same."""
    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    prefix = "Programming Language :: Python :: "
    classified = [c.removeprefix(prefix) for c in project["classifiers"] if c.startswith(prefix)]
    noxfile = ast.parse((root / ".ci/noxfile.py").read_text(encoding="utf-8"))
    (tested,) = (
        ast.literal_eval(node.value)
        for node in noxfile.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "PYTHONS"
    )
    assert [v for v in classified if re.fullmatch(r"3\.\d+", v)] == tested
    assert project["requires-python"] == f">={tested[0]}"
    assert f"Python {', '.join(tested[:-1])} or {tested[-1]}" in " ".join(README.split())
