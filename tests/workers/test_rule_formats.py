"""The placed rule files against their tools' published documentation (the excerpts in
``fixtures/rule_formats/``): the place, the frontmatter the tool needs, its size limit. Checked
against the documentation only: no editor runs headless here."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest
import yaml
from hotplex import registry
from hotplex.build import Request, run
from hotplex.placement import is_hotplex_file
from hotplex.targets.placed import Placed

FIXTURES = Path(__file__).parent / "fixtures" / "rule_formats"
PLACED = sorted(n for n, w in registry.workers().items() if isinstance(w, Placed))


def _fixture(worker: str) -> tuple[dict[str, list[str]], str]:
    head, _, excerpt = (FIXTURES / f"{worker}.md").read_text(encoding="utf-8").partition("\n---\n")
    fields: dict[str, list[str]] = {}
    for line in head.splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value)
    return fields, excerpt


def test_every_placed_worker_has_its_documentation_excerpt():
    assert PLACED == ["copilot", "cursor", "junie", "kiro", "windsurf", "zed"]
    assert sorted(p.stem for p in FIXTURES.glob("*.md") if p.stem != "README") == PLACED


@pytest.mark.parametrize("worker", PLACED)
def test_the_placed_file_meets_its_tool_s_documentation(worker, make_project):
    fields, excerpt = _fixture(worker)
    assert fields["source"] and all(s.startswith("https://") for s in fields["source"])
    assert fields["retrieved"][0][:4].isdigit()
    flat = " ".join(excerpt.replace("\n>", "\n").split())  # quoted lines, rewrapped
    for phrase in fields["phrases"][0].split("|"):
        assert phrase in flat, phrase  # the header rests on what the excerpt says
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n'
    root = make_project({"agent-configs/AGENTS.md": "Never push to main.\n"}, manifest=manifest)
    (job,) = run(Request(root, processes=1)).jobs
    place = registry.workers()[worker].placed(_target(root))
    assert fnmatch.fnmatchcase(place, fields["place"][0])
    assert place in {f.path for f in job.files}
    data = (root / place).read_bytes()
    assert is_hotplex_file(data)
    text = data.decode("utf-8")
    wanted = fields["frontmatter"][0]
    if wanted == "none":
        assert not text.startswith("---")
    else:
        assert text.startswith("---\n")
        meta = yaml.safe_load(text.split("---\n")[1])
        for pair in wanted.split(","):
            key, _, value = pair.partition("=")
            assert meta[key] == yaml.safe_load(value), (key, meta)
    limit = fields["limit"][0]
    declared = registry.workers()[worker].format.max_chars
    assert declared == (None if limit == "none" else int(limit))
    assert limit == "none" or f"{int(limit):,}" in excerpt


@pytest.mark.parametrize("worker", PLACED)
def test_the_placed_skills_go_where_the_tool_s_documentation_says(worker, make_project):
    """Each editor documents a repository folder of Agent Skills: the worker places each skill
    there, its SKILL.md as it ships with hotplex's marker after the frontmatter."""
    fields, excerpt = _fixture(worker)
    assert fields["skills_source"][0].startswith("https://")
    flat = " ".join(excerpt.replace("\n>", "\n").split())
    for phrase in fields["skills_phrases"][0].split("|"):
        assert phrase in flat, phrase
    folder = fields["skills"][0]
    assert registry.workers()[worker].format.skills == folder
    assert folder in flat
    skill = "---\nname: deploy\ndescription: Deploy it.\n---\nSteps.\n"
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n'
    root = make_project(
        {
            "agent-configs/AGENTS.md": "Never push to main.\n",
            "agent-configs/skills/deploy/SKILL.md": skill,
            "agent-configs/skills/deploy/references/steps.md": "1. Look.\n",
        },
        manifest=manifest,
    )
    (job,) = run(Request(root, processes=1)).jobs
    placed = root / folder / "deploy/SKILL.md"
    assert f"{folder}/deploy/SKILL.md" in {f.path for f in job.files}
    data = placed.read_bytes()
    assert is_hotplex_file(data)
    head, _, body = data.decode("utf-8").partition("\n---\n")
    assert yaml.safe_load(head.removeprefix("---\n")) == {
        "name": "deploy",
        "description": "Deploy it.",
    }
    assert body.startswith("<!-- hotplex: ") and body.endswith("-->\nSteps.\n")
    assert (root / folder / "deploy/references/steps.md").read_text() == "1. Look.\n"


def _target(root: Path):
    from hotplex.manifest.load import load

    (target,) = load(root, root / "hotplex.toml").manifest.target
    return target
