"""Tests for the OpenClaw Project Context predictor.

The 2026.9 behaviour is checked against vectors computed by OpenClaw 2026.9.6's own code; the seed
behaviour against the examples and code excerpts of seeds/002_37568ecd09879a56.txt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hotplex.targets.openclaw.context import (
    BOOTSTRAP_FILES,
    COMPATS,
    SESSIONS,
    build_project_context,
)

VECTORS = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "openclaw-2026.9.6-vectors.json"
)
SEED_SOUL_LINE = (
    "If SOUL.md is present, embody its persona and tone. Avoid stiff, generic replies; follow its"
    " guidance unless higher-priority instructions override it."
)


def _load_cases() -> dict[str, dict[str, Any]]:
    if not VECTORS.is_file():
        return {}
    return {case["id"]: case for case in json.loads(VECTORS.read_text("utf-8"))["cases"]}


CASES = _load_cases()


def set_up(case: dict[str, Any]) -> dict[str, Any]:
    """The vector as OpenClaw 2026.9.6 builds it for a set-up workspace: the vectors were
    computed past ``resolveBootstrapFiles``, which leaves a missing BOOTSTRAP.md out, since a
    workspace without one counts as set up (tests/integration/test_openclaw_live.py, with the real
    program)."""
    path = f"{case['workspace']}/BOOTSTRAP.md"
    missing = f"\n## {path}\n[MISSING] Expected at: {path}"
    files = [
        f
        for f in case["contextFiles"]
        if not (f["path"] == path and f["content"].startswith("[MISSING]"))
    ]
    return {
        **case,
        "projectContext": case["projectContext"].replace(missing, ""),
        "contextFiles": files,
    }


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# --- compat 2026.9: OpenClaw's own vectors ------------------------------------------------------


@pytest.mark.parametrize("case_id", sorted(CASES) or ["vectors-absent"])
def test_matches_openclaw_2026_9_vector(case_id: str) -> None:
    if not CASES:
        pytest.skip(f"OpenClaw vectors not found at {VECTORS}")
    case = set_up(CASES[case_id])
    result = build_project_context(
        case["files"],
        compat="2026.9",
        session=case["session"],
        workspace=case["workspace"],
        max_chars=case["maxChars"],
        total_max_chars=case["totalMaxChars"],
    )
    assert result.text == case["projectContext"]
    assert list(result.warnings) == case["warnings"]
    expected_files = [
        (cf["path"], _utf16_len(cf["content"]), cf["content"].startswith("[MISSING] Expected at:"))
        for cf in case["contextFiles"]
    ]
    assert [(f.path, f.injected_size, f.missing) for f in result.files] == expected_files
    assert {f.name for f in result.files} <= set(case["allowed"])


# --- compat 2026.9: hand cases ------------------------------------------------------------------


def test_constants_describe_both_compats() -> None:
    assert COMPATS == ("2026.9", "seed")
    assert SESSIONS == ("main", "subagent", "cron", "group")
    assert BOOTSTRAP_FILES["2026.9"] == (
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
    )


@pytest.mark.parametrize(
    ("name", "content", "max_chars", "head", "tail"),
    [
        # A surrogate pair straddles each cut; both must stay whole (OpenClaw's own test data).
        ("SOUL.md", "h" * 73 + "😀" + "m" * 200 + "😀" + "t" * 23, 200, "h" * 73, "t" * 23),
        ("AGENTS.md", "a" * 269 + "😀" + "b" * 638 + "😀" + "c" * 89, 600, "a" * 269, "c" * 89),
    ],
)
def test_truncation_never_splits_a_surrogate_pair(
    name: str, content: str, max_chars: int, head: str, tail: str
) -> None:
    result = build_project_context({name: content}, workspace="/ws", max_chars=max_chars)
    body = result.text.split(f"## /ws/{name}\n", 1)[1].split("\n## ", 1)[0]
    assert body.startswith(head)
    assert body.endswith(tail)
    body.encode("utf-8")  # a lone surrogate would raise here
    (injected,) = [f for f in result.files if f.name == name]
    assert injected.injected_size <= max_chars


def test_emoji_counts_two_units() -> None:
    result = build_project_context({"USER.md": "😀" * 2_001}, workspace="/ws")
    (user,) = [f for f in result.files if f.name == "USER.md"]
    assert user.raw_size == 4_002
    assert result.warnings == (
        "workspace bootstrap file USER.md is 4002 chars (limit 4000); truncating in injected"
        " context",
    )
    assert user.cut_text == "truncated to USER.md cap 4000 (head 75% / tail 25%)"


def test_whitespace_only_file_is_dropped_silently() -> None:
    result = build_project_context({"SOUL.md": " \n\t\u3000\n"}, workspace="/ws")
    assert "## /ws/SOUL.md" not in result.text
    assert "SOUL.md: persona/tone" not in result.text
    assert result.warnings == ()
    assert "SOUL.md" not in {f.name for f in result.files}


def test_head_tail_marker_fits_the_budget() -> None:
    content = "HEAD-" + "a" * 600 + "b" * 300 + "-TAIL"
    result = build_project_context({"SOUL.md": content}, workspace="/ws", max_chars=200)
    (soul,) = [f for f in result.files if f.name == "SOUL.md"]
    assert soul.injected_size == 199
    assert "…(truncated SOUL.md: kept 75+25 chars of 910)…" in result.text
    assert soul.cut_text == "truncated to per-file budget 200 (head 75% / tail 25%)"


def test_compact_marker_when_the_full_one_does_not_fit() -> None:
    content = "HEAD-" + "a" * 1_000 + "-TAIL"
    result = build_project_context(
        {"USER.md": content}, workspace="/ws", session="cron", max_chars=22
    )
    assert result.text.endswith("## /ws/USER.md\nH[…truncated 1+0/1010]")
    assert result.files[-1].cut_text == (
        "truncated to per-file budget 22 (head 75% / tail 25%, compact marker)"
    )


@pytest.mark.parametrize(("padding", "fits"), [(51, True), (52, False)])
def test_agents_digest_keeps_a_framed_rule_whole(padding: int, fits: bool) -> None:
    frame = "Example " + "x" * padding
    rule = (  # OpenClaw's own test example; its length sets where the frame stops fitting
        "`Check STATUS.md if it exists. Follow it strictly. Do not repeat old tasks from prior"
        " chats. If nothing needs attention, reply STATUS_OK.`"
    )
    content = "\n".join(["# AGENTS.md", "", "A" * 9_000, "", frame, rule, "", "B" * 7_000, "end"])
    result = build_project_context({"AGENTS.md": content}, workspace="/ws", max_chars=600)
    assert (f"{frame}\n{rule}" in result.text) is fits
    assert ("[...1 more policy lines omitted...]" in result.text) is not fits
    assert result.files[0].cut_text == (
        "truncated to per-file budget 600 (head 45% / policy digest 35% / tail 15%)"
    )


def test_missing_marker_is_clamped_to_the_total_budget() -> None:
    result = build_project_context({}, workspace="/ws", session="subagent", total_max_chars=10)
    assert result.text == "# Project Context\nLoaded project context:\n## /ws/AGENTS.md\n[MISSING]…"
    assert result.files[0].cut_text == "clamped to remaining total budget 10"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"session": "thread"}, "unknown OpenClaw session 'thread'"),
        ({"compat": "2026.10"}, "unknown OpenClaw compat '2026.10'"),
        ({"max_chars": 0}, "max_chars must be a positive integer"),
        ({"total_max_chars": True}, "total_max_chars must be a positive integer"),
        ({"compat": "seed", "total_max_chars": 100}, "compat 'seed' has no total budget"),
    ],
)
def test_bad_arguments_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_project_context({"AGENTS.md": "x"}, **kwargs)


# --- compat "seed": the design document's behaviour ---------------------------------------------


def _seed(files: dict[str, str], **kwargs: Any) -> Any:
    return build_project_context(files, compat="seed", workspace="/ws", **kwargs)


def test_seed_reads_eight_files_and_marks_absent_ones_missing() -> None:
    result = _seed({"AGENTS.md": "rules\n\n", "SOUL.md": "be kind"})
    missing = ("TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md")
    assert result.text == "\n".join(
        [
            "# Project Context",
            "The following project context files have been loaded:",
            SEED_SOUL_LINE,
            "## AGENTS.md",
            "rules",
            "## SOUL.md",
            "be kind",
            *(line for n in missing for line in (f"## {n}", f"[MISSING] Expected at: /ws/{n}")),
        ]
    )
    assert [f.name for f in result.files] == ["AGENTS.md", "SOUL.md", *missing]
    assert [f.path for f in result.files][:2] == ["/ws/AGENTS.md", "/ws/SOUL.md"]
    assert result.warnings == ()


def test_seed_truncation_keeps_70_percent_head_and_20_percent_tail() -> None:
    content = "h" * 14_000 + "m" * 7_000 + "t" * 4_000  # 25,000 chars, default budget 20,000
    result = _seed({"AGENTS.md": content}, session="subagent")
    body = result.text.split("## AGENTS.md\n", 1)[1].split("\n## ", 1)[0]
    assert body == (
        "h" * 14_000
        + "\n\n[...truncated, read AGENTS.md for full content...]\n"
        + "…(truncated AGENTS.md: kept 14000+4000 chars of 25000)…\n\n"
        + "t" * 4_000
    )
    assert result.warnings == (
        "workspace bootstrap file AGENTS.md is 25000 chars (limit 20000); truncating in"
        " injected context",
    )
    assert result.files[0].cut_text == "truncated to per-file budget 20000 (head 70% / tail 20%)"


def test_seed_subagent_allowlist_is_agents_and_tools() -> None:
    files = {"AGENTS.md": "a", "TOOLS.md": "t", "SOUL.md": "s", "MEMORY.md": "m"}
    result = _seed(files, session="subagent")
    assert [f.name for f in result.files] == ["AGENTS.md", "TOOLS.md"]
    assert SEED_SOUL_LINE not in result.text


def test_seed_memory_is_optional_and_deduplicated() -> None:
    def memory_files(files: dict[str, str]) -> list[str]:
        return [f.name for f in _seed(files).files if f.name.lower() == "memory.md"]

    assert memory_files({}) == []
    assert memory_files({"MEMORY.md": "same", "memory.md": "same"}) == ["MEMORY.md"]
    assert memory_files({"memory.md": "only lower"}) == ["memory.md"]
    assert memory_files({"MEMORY.md": "one", "memory.md": "two"}) == ["MEMORY.md", "memory.md"]


def test_seed_never_splits_a_surrogate_pair() -> None:
    result = _seed({"SOUL.md": "h" * 69 + "😀" + "m" * 100}, max_chars=100)
    body = result.text.split("## SOUL.md\n", 1)[1].split("\n## ", 1)[0]
    assert body.startswith("h" * 69 + "\n\n[...truncated")
    body.encode("utf-8")
