"""OpenClaw 2026.9.6's own vectors, end to end through a real build.

Each vector becomes a project twice: once with every 2026.9 bootstrap file declared as a
``[[source]]``, once with no ``[[source]]`` at all (the files are only present in the sources
folder, and the worker's defaults must deploy exactly what OpenClaw reads); its session and
budgets are the options of an ``openclaw`` target with workspace "/ws". ``hotplex.build.run`` (what ``hotplex build`` runs)
must write a ``context.md`` equal byte for byte to the section OpenClaw computed (for a set-up
workspace: ``test_openclaw_context.set_up``), and report
OpenClaw's warnings word for word.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hotplex.build import Request, run
from hotplex.targets.openclaw.context import BOOTSTRAP_FILES
from test_openclaw_context import set_up

SHARED = Path(__file__).resolve().parents[3] / "shared"
VECTORS = SHARED / "reference" / "openclaw-2026.9.6-vectors.json"
CONTEXT_CHANNEL = {"USER.md": "C", "MEMORY.md": "C"}  # the rest are directives (B)
TRUNCATED = re.compile(r"workspace bootstrap file (\S+) is (\d+) chars \(limit \d+\)")


def _load_cases() -> dict[str, dict[str, Any]]:
    if not VECTORS.is_file():
        return {}
    return {case["id"]: case for case in json.loads(VECTORS.read_text("utf-8"))["cases"]}


CASES = _load_cases()


def _manifest(case: dict[str, Any], declared: bool) -> str:
    """Every 2026.9 bootstrap file is a source, declared or by default; those the vector lacks
    stay absent on disk."""
    lines = ['[project]\nsources = "src"\n']
    for name in BOOTSTRAP_FILES["2026.9"] if declared else ():
        stem = name.removesuffix(".md").lower()
        channel = CONTEXT_CHANNEL.get(name, "B")
        lines.append(
            f'[[source]]\nname = "{stem}"\nfile = "{name}"\nchannel = "{channel}"\ntag = "{stem}"\n'
        )
    target = f'[[target]]\nname = "claw"\nworker = "openclaw"\nworkspace = "{case["workspace"]}"\n'
    target += f'session = "{case["session"]}"\n'
    for key, option in (("maxChars", "max_chars"), ("totalMaxChars", "total_max_chars")):
        if case[key] is not None:
            target += f"{option} = {case[key]}\n"
    return "\n".join([*lines, target])


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "present"])
@pytest.mark.parametrize("case_id", sorted(CASES) or ["vectors-absent"])
def test_build_reproduces_openclaw_vector(case_id: str, declared: bool, make_project) -> None:
    if not CASES:
        pytest.skip(f"OpenClaw vectors not found at {VECTORS}")
    case = set_up(CASES[case_id])
    assert case["workspace"] == "/ws"
    sources = {f"src/{name}": text for name, text in case["files"].items()}
    root = make_project(sources, manifest=_manifest(case, declared))
    assert ("[[source]]" in (root / "hotplex.toml").read_text("utf-8")) is declared

    outcome = run(Request(root))
    (job,) = outcome.jobs
    assert outcome.warnings == []  # every file of the vector is read: none is reported unused

    assert job.primary == "dist/claw/default/context.md"
    assert (root / job.primary).read_bytes() == case["projectContext"].encode("utf-8")
    assert job.warnings == case["warnings"]
    for name, text in case["files"].items():
        written = (root / "dist/claw/default/workspace" / name).read_text("utf-8")
        assert written == text.rstrip() + "\n"  # hotplex trims a source's end; one newline added
    _assert_report_matches(job, case)


def _assert_report_matches(job: Any, case: dict[str, Any]) -> None:
    """The structured report agrees with OpenClaw's own warnings and injected contents."""
    warned = {(match[1], int(match[2])) for w in case["warnings"] if (match := TRUNCATED.match(w))}
    cut = {(Path(t.files[0]).name, t.before) for t in job.truncations if t.after > 0}
    assert cut == warned
    injected = {Path(s.files[0]).name: s.injected for s in job.sizes}
    for context_file in case["contextFiles"]:
        name = Path(context_file["path"]).name
        if not context_file["content"].startswith("[MISSING] Expected at:"):
            assert injected[name] == len(context_file["content"].encode("utf-16-le")) // 2
