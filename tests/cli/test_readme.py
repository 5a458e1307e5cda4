"""The README's lists of workers are the registry's: a worker added, renamed or reordered without
its README row fails here; and its floors are the ones `.ci/import-cycles --core` enforces."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from hotplex import registry
from hotplex_testing import DEVELOPERS_GUIDE

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
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


def test_one_copy_table_has_a_row_for_every_program_that_loads_files_by_itself():
    """A worker declaring ``own_files`` (its program reads instruction files on its own) needs
    its row in "One copy of the rules", which says what hotplex does about them."""
    rows = {row[0].partition(" (")[0] for row in _rows("| program | loads by itself |")}
    declared = {w.own_files.program for w in registry.workers().values() if w.own_files}
    assert declared <= rows, declared - rows


def test_placed_table_lists_every_worker_that_places_a_file():
    rows = [TICKED.fullmatch(row[0]).group(1) for row in _rows("| worker | default place |")]
    assert rows == [name for name, w in registry.workers().items() if w.places]


def _import_cycles_script():
    """``.ci/import-cycles`` as a module: the floors' table is its data."""
    path = REPO / ".ci" / "import-cycles"
    loader = importlib.machinery.SourceFileLoader("import_cycles", str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def test_layout_states_the_floors_the_check_enforces():
    """The developers' guide's numbered list of floors is ``FLOORS`` of ``.ci/import-cycles``."""
    lines = DEVELOPERS_GUIDE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("The package is built in"))
    stated = []
    for line in lines[start:]:
        floor = re.fullmatch(r"\d+\. ([a-z]+): (.+)", line)
        if floor:
            places = re.sub(r"\([^)]*\)", "", floor.group(2))
            stated.append((floor.group(1), tuple(p.rstrip("/") for p in TICKED.findall(places))))
        elif stated:
            break
    assert stated == [(name, tuple(places)) for name, places in _import_cycles_script().FLOORS]


def test_floor_check_flags_an_import_of_a_floor_above_and_a_module_on_no_floor(tmp_path):
    script = _import_cycles_script()
    module = tmp_path / "errors.py"
    module.write_text("def shown():\n    from hotplex.build import engine\n", encoding="utf-8")
    names = {"hotplex.errors", "hotplex.build.engine", "hotplex.elsewhere"}
    deferred = script.imported_modules(module, "hotplex.errors", names)
    assert deferred == {"hotplex.build.engine"}  # an import inside a function counts
    graph = script.networkx.DiGraph()
    graph.add_nodes_from(names)
    graph.add_edges_from([("hotplex.errors", "hotplex.build.engine")])
    graph.add_edges_from([("hotplex.build.engine", "hotplex.errors")])  # down: allowed
    assert script.floor_breaches(graph) == (
        ["hotplex.elsewhere"],
        [("hotplex.errors", "hotplex.build.engine")],
    )


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
