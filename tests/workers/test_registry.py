"""The registry is the core's one way to a worker: nothing in the core names or imports one, so
what a worker declares (its audiences, its workspace format) is all the core goes by."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hotplex import importing, registry
from hotplex.errors import HotplexError
from hotplex.importing.found import Entry, Found
from hotplex.targets import gemini_cli

REPO = Path(__file__).resolve().parents[2]


def test_no_core_module_imports_a_worker_or_a_floor_above_its_own():
    script = REPO / ".ci" / "import-cycles"
    result = subprocess.run(
        [sys.executable, str(script), "--core"], capture_output=True, text=True, check=False
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("core module")] == []
    assert result.returncode == 0, result.stdout  # nor a cycle, an import up or a floorless module


def test_naming_the_workers_imports_none():
    code = (
        "import sys; from hotplex import registry; names = registry.names();"
        "print(sorted(m for m in sys.modules if m.startswith('hotplex.targets')), names)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("[] ("), out.stdout
    assert registry.names() == tuple(registry.workers())


class GeminiFork(gemini_cli.GeminiCli):
    name = "gemini-fork"
    init_target = ("fork", "a program reading GEMINI.md")


@pytest.mark.parametrize("audience", ["gemini", "agents"])
def test_import_gives_each_file_to_the_workers_that_declare_reading_it(
    tmp_path, monkeypatch, audience
):
    fork = type("Fork", (GeminiFork,), {"imports_read": frozenset({audience})})()
    monkeypatch.setitem(registry.workers(), fork.name, fork)
    (tmp_path / ("GEMINI.md" if audience == "gemini" else "AGENTS.md")).write_text("Be brief.\n")
    plan = importing.plan([tmp_path], tmp_path)
    assert '[[target]]\nname = "fork"\nworker = "gemini-fork"' in plan.text


class NotesFormat:
    """A tool's instruction file, NOTES.md, in the interface ``hotplex import`` asks of a format
    (``KIND``, ``find``); declared only by the worker below."""

    KIND = "Notes"

    def find(self, root: Path) -> Found | None:
        path = root / "NOTES.md"
        return (
            Found(self.KIND, root, [Entry("notes", path, audience="notes")])
            if path.is_file()
            else None
        )


NOTES_FORMAT = NotesFormat()


@pytest.mark.parametrize("declared", [True, False])
def test_import_adopts_the_files_of_a_format_a_worker_declares(tmp_path, monkeypatch, declared):
    """A worker brings its tool's import format: no core module lists it."""
    noted = type(
        "Noted",
        (GeminiFork,),
        {
            "name": "noted",
            "imports_read": frozenset({"notes"}),
            "import_formats": (f"{__name__}:NOTES_FORMAT",) if declared else (),
        },
    )()
    monkeypatch.setitem(registry.workers(), noted.name, noted)
    (tmp_path / "NOTES.md").write_text("Be brief.\n", encoding="utf-8")
    try:
        plan = importing.plan([tmp_path], tmp_path)
    except HotplexError as error:
        assert not declared, error
        return
    importing.write(plan)
    manifest = tomllib.loads((tmp_path / "hotplex.toml").read_text(encoding="utf-8"))
    assert [(s["name"], s["file"]) for s in manifest["source"]] == [("notes", "NOTES.md")]
    assert [t["worker"] for t in manifest["target"]] == ["noted"]
