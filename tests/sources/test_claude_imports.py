"""Claude Code's CLAUDE.md loading rules, one test per rule (cases in claude_import_cases.py).

Each case's expected files and texts were captured from the real Claude Code (the version is in
tests/fixtures/claude-imports.json; tests/integration/test_claude_imports_live.py captures them live
and compares again). Here hotplex imports the case's folder in place, builds it, and its Claude
Code artifact must hold exactly those files, in that order, with those texts.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from claude_import_cases import CASES, hotplex_loaded, loaded, recorded, write_case

RECORDING = recorded()


def test_every_case_was_recorded_from_the_cli():
    assert sorted(RECORDING["cases"]) == sorted(CASES)
    assert RECORDING["claude_code"].startswith("2.1.332")


@pytest.mark.parametrize("case", sorted(CASES))
def test_hotplex_loads_what_claude_code_loaded(case, tmp_path):
    folder = write_case(tmp_path, case)
    expected = [tuple(entry) for entry in RECORDING["cases"][case]]
    assert hotplex_loaded(folder) == loaded(expected)


def test_editing_an_imported_file_rebuilds_the_claude_code_artifact(tmp_path):
    folder = write_case(tmp_path, "relative")
    files, text = hotplex_loaded(folder)
    assert files == ["CLAUDE.md", "docs/guide.md", "docs/style.md", "top.md"]
    (folder / "docs" / "style.md").write_text("Style, edited\n")
    assert hotplex_loaded(folder) == (files, text.replace("Style", "Style, edited"))
    assert "@docs/guide.md" in (folder / "CLAUDE.md").read_text()  # the user's file as written


def test_creating_a_missing_import_rebuilds_it(tmp_path):
    folder = write_case(tmp_path, "missing-and-empty")
    files, _ = hotplex_loaded(folder)
    assert "missing.md" not in files
    (folder / "missing.md").write_text("Now here\n")
    files, text = hotplex_loaded(folder)
    assert files[1] == "missing.md" and "Now here" in text


def test_imported_files_are_inputs_in_the_dependency_graph(tmp_path):
    from hotplex.commands.graph import build_graph

    folder = write_case(tmp_path, "order")
    hotplex_loaded(folder)
    graph = build_graph(folder, None)
    prompt = "artifact:dist/cc/default/prompt.xml"
    assert {f"file:{name}" for name in ("CLAUDE.md", "a.md", "b.md", "c.md", "d.md")} <= set(
        graph.predecessors(prompt)
    )


def test_any_import_graph_loads_each_file_once_in_depth_first_order(tmp_path):
    """Random files importing each other (cycles, repeats, missing files): every entry is a
    file of the project, once, at most four imports below the root, right after an importer."""
    from hotplex.sources.claude_imports import MAX_DEPTH, load_order
    from hypothesis import given, settings
    from hypothesis import strategies as st

    names = [f"f{n}.md" for n in range(6)]
    graphs = st.dictionaries(st.sampled_from(names), st.lists(st.sampled_from([*names, "no.md"])))

    @settings(max_examples=60, deadline=None)
    @given(graphs)
    def check(graph):
        bodies = {
            name: f"{name} " + " ".join(f"@{t}" for t in targets) for name, targets in graph.items()
        }
        root = "f0.md"
        entries = load_order(root, bodies.get(root, "f0.md"), tmp_path, bodies.get, set())
        loaded = [path for path, _ in entries]
        assert len(loaded) == len(set(loaded)) and loaded[0] == root
        assert all(path == root or path in bodies for path in loaded)
        depth = {root: 0}
        for path in loaded[1:]:
            importers = [p for p in loaded[: loaded.index(path)] if path in graph.get(p, [])]
            assert importers, f"{path} loaded without an importer before it"
            depth[path] = min(depth[p] for p in importers if p in depth) + 1
            assert depth[path] < MAX_DEPTH

    check()


def test_a_secret_in_a_file_read_as_claude_code_reads_it_still_stops_the_build(tmp_path):
    from hotplex.cli import main
    from hotplex_testing import FAKE_SECRETS

    key = FAKE_SECRETS["github-token"]
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "CLAUDE.md").write_text("---\nUnclosed, then @notes.md\n")
    (folder / "notes.md").write_text(f"---\n: bad [\n---\ntoken {key}\n")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["-C", str(folder), "import"]) == 0
        assert main(["-C", str(folder), "build"]) == 1
    assert "notes.md:4:7: possible secret, a GitHub token (rule github-token)" in err.getvalue()
    assert key not in err.getvalue()
