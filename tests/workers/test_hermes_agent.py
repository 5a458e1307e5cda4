"""Hermes Agent's own: its slots' budgets, its reserved forms, its switch as an explicit choice."""

from __future__ import annotations

import json
import re

import pytest
from hotplex.build import Request, run
from hotplex.targets.hermes_agent import reserved_forms
from hypothesis import given
from hypothesis import strategies as st

RESERVED = re.compile(r"^[ \t]*[§═][§═ \t]*$", re.MULTILINE)
MANIFEST = '[project]\nname = "h"\n[[target]]\nname = "h"\nworker = "hermes-agent"\n'


@given(st.lists(st.sampled_from(["§", "═", " ", "\t", "a", "&sect;", "\n", "<"]), max_size=40))
def test_no_line_is_an_entry_split_or_a_banner_after_reserved_forms(chars):
    text = "".join(chars)
    defused = reserved_forms(text)
    assert not RESERVED.search(defused)
    for before, after in zip(text.split("\n"), defused.split("\n"), strict=True):
        assert after == before or RESERVED.fullmatch(before)


def _home(make_project, files: dict[str, str], extra: str = ""):
    root = make_project(files, manifest=MANIFEST + extra)
    (job,) = run(Request(root, processes=1)).jobs
    return root, job


def test_each_memory_slot_is_cut_to_its_budget_and_the_cut_is_named(make_project):
    files = {
        "agent-configs/SOUL.md": "Be brief.\n",
        "agent-configs/USER.md": "user fact\n" * 400,
        "agent-configs/MEMORY.md": "memory fact\n" * 400,
    }
    root, job = _home(make_project, files)
    home = root / "dist/h/default/hermes-home"
    assert len((home / "memories/USER.md").read_text(encoding="utf-8").strip()) <= 1375
    assert len((home / "memories/MEMORY.md").read_text(encoding="utf-8").strip()) <= 2200
    limits = {c.limit for c in job.truncations}
    assert {"hermes.user_char_limit", "hermes.memory_char_limit"} <= limits


@pytest.mark.parametrize(("extra", "cap"), [("", 20_000), ("context_length = 128000\n", 30_720)])
def test_soul_md_is_cut_to_the_context_file_cap_the_model_sets(make_project, extra, cap):
    files = {"agent-configs/SOUL.md": "persona line\n" * 4000}
    limits = "[limits]\nper_file = 100000\ntotal = 100000\n"
    root, job = _home(make_project, files, extra + limits)
    soul = (root / "dist/h/default/hermes-home/SOUL.md").read_text(encoding="utf-8")
    assert cap - 200 < len(soul) <= cap
    assert "hermes.context_file_max_chars" in {c.limit for c in job.truncations}


@pytest.mark.parametrize(("extra", "switched"), [("", False), ('own_instructions = "off"\n', True)])
def test_ignore_rules_is_only_the_targets_explicit_choice(make_project, extra, switched):
    root, _ = _home(make_project, {"agent-configs/SOUL.md": "Be brief.\n"}, extra)
    launch = json.loads((root / "dist/h/default/launch.json").read_text(encoding="utf-8"))
    assert ("--ignore-rules" in launch["argv"]) is switched
    assert launch["env"]["HERMES_HOME"] == "dist/h/default/hermes-home"
