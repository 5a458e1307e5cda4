"""`hotplex memory compact` against what a person or a killed run leaves behind: edited months,
folders that are files, days arriving between a request and its answer (the real command)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

MANIFEST = """\
[memory]
logs = "memory/*.md"
compact_after_days = 10
{extra}
[[target]]
name = "cc"
worker = "claude-code"
"""
MEMORY = "agent-configs/memory"


def _days(count: int, start: datetime.date = datetime.date(2026, 9, 20)) -> dict[str, str]:
    files = {"agent-configs/MEMORY.md": "# Curated\n\n- the curated part\n"}
    for n in range(count):
        day = start + datetime.timedelta(n)
        files[f"{MEMORY}/{day}.md"] = f"- ticket {n} done\n- standup at 10:00\n"
    return files


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".hotplex" not in p.parts and "dist" not in p.parts
    }


@pytest.fixture
def project(make_project):
    return make_project(_days(25), MANIFEST.format(extra=""))


@pytest.mark.parametrize("folder", ["compacted", "compacted/history", "archive"])
def test_a_companion_folder_that_is_a_file_is_refused_before_anything_is_made(
    project, hotplex, folder
):
    """compacted/history as a file was an internal error (exit 3); archive as one a bare "File
    exists", an empty compacted/ folder left behind."""
    taken = project / MEMORY / folder
    taken.parent.mkdir(parents=True, exist_ok=True)
    taken.write_text("x\n")
    before = _files(project)
    done = hotplex("memory", "compact", "--archive", cwd=project)
    assert done.status == 2, done.stderr
    assert f"{MEMORY}/{folder}: {MEMORY}/{folder} is a file, not a folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert _files(project) == before
    assert sorted(p.name for p in (project / MEMORY).iterdir() if p.is_dir()) == (
        ["compacted"] if "/" in folder else []
    )
