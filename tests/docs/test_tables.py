"""The tables of the pages that list workers by what they declare, and the developers' guide's
floors, are the registry's and ``.ci/import-cycles``'s: a worker declaring ``own_files`` or a
place without its row, or a floor moved without its line, fails here."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re

from docsite import table_rows, written
from hotplex import registry
from hotplex_testing import DEVELOPERS_GUIDE, REPO

TICKED = re.compile(r"`([^`]+)`")


def _rows(header: str) -> list[list[str]]:
    """The cells of each row of the one table, on any page, whose header starts with ``header``."""
    (text,) = [text for text in written().values() if f"\n{header}" in text]
    return table_rows(text, header)


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
