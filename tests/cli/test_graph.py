"""`hotplex graph`: every dependency of every artifact, including files that do not exist yet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILES = {
    "agent-configs/SOUL.md": "Base persona.\n",
    "agent-configs/SOUL.slack.md": 'Slack.\n{% include "shared/slack.md" %}\n',
    "agent-configs/AGENTS.md": "Rules for {{ platform | default('every platform') }}.\n",
    "agent-configs/shared/slack.md": "Slack etiquette.\n",
}


@pytest.fixture
def graph(make_project, hotplex) -> dict:
    root = make_project(FILES)
    result = hotplex("-C", str(root), "graph", "--format", "json")
    assert result.status == 0, result.stderr
    data = json.loads(result.stdout)
    return {
        "nodes": {n["id"]: n for n in data["nodes"]},
        "edges": {(e["from"], e["to"]) for e in data["edges"]},
    }


def users(graph: dict, node: str) -> set[str]:
    return {b.removeprefix("artifact:") for a, b in graph["edges"] if a == node}


def test_the_graph_has_every_kind_of_node(graph):
    kinds = {n["kind"] for n in graph["nodes"].values()}
    assert kinds == {"manifest", "file", "value", "worker", "artifact"}
    nodes = graph["nodes"]
    assert "manifest:hotplex.toml" in nodes
    assert {"value:limits", "value:metacognition", "var:platform"} <= nodes.keys()
    assert {"worker:claude-code", "worker:opencode-server"} <= nodes.keys()
    artifacts = {n for n, d in nodes.items() if d["kind"] == "artifact"}
    assert "artifact:dist/cc/slack/prompt.xml" in artifacts
    assert "artifact:dist/ocs/feishu/payload.json" in artifacts
    assert len(artifacts) == 12  # 3 claude-code sets of 3 files, 3 opencode payloads


def test_sources_variants_and_includes_are_files_with_roles(graph):
    nodes = graph["nodes"]
    assert nodes["file:agent-configs/SOUL.md"]["exists"] is True
    assert nodes["file:agent-configs/SOUL.md"]["role"] == "source"
    assert nodes["file:agent-configs/SOUL.slack.md"]["role"] == "variant"
    assert nodes["file:agent-configs/shared/slack.md"]["role"] == "include"
    assert nodes["file:agent-configs/shared/slack.md"]["exists"] is True


def test_a_variant_that_does_not_exist_yet_is_a_node_too(graph):
    absent = graph["nodes"]["file:agent-configs/SOUL.feishu.md"]
    assert absent["exists"] is False and absent["role"] == "variant"
    assert users(graph, "file:agent-configs/SOUL.feishu.md") == {
        "dist/cc/feishu/prompt.xml",
        "dist/cc/feishu/subagent.xml",
        "dist/cc/feishu/launch.json",
        "dist/ocs/feishu/payload.json",
    }
    assert graph["nodes"]["file:agent-configs/USER.md"]["exists"] is False  # optional source


def test_edges_lead_from_each_input_to_exactly_its_users(graph):
    slack = {
        "dist/cc/slack/prompt.xml",
        "dist/cc/slack/subagent.xml",
        "dist/cc/slack/launch.json",
        "dist/ocs/slack/payload.json",
    }
    assert users(graph, "file:agent-configs/SOUL.slack.md") == slack
    assert users(graph, "file:agent-configs/shared/slack.md") == slack
    assert len(users(graph, "file:agent-configs/SOUL.md")) == 12
    assert users(graph, "worker:opencode-server") == {
        f"dist/ocs/{p}/payload.json" for p in ("default", "slack", "feishu")
    }
    assert ("manifest:hotplex.toml", "var:platform") in graph["edges"]
    assert len(users(graph, "var:platform")) == 12  # AGENTS.md reads it in every job
    assert len(users(graph, "value:metacognition")) == 12


def test_dot_output_marks_absent_files(make_project, hotplex):
    root = make_project(FILES)
    result = hotplex("-C", str(root), "graph")
    assert result.status == 0, result.stderr
    dot = result.stdout
    assert dot.startswith("digraph hotplex {") and dot.rstrip().endswith("}")
    assert '"file:agent-configs/SOUL.feishu.md" [shape=note, style="dashed"];' in dot
    assert '"file:agent-configs/SOUL.slack.md" [shape=note];' in dot
    assert '"file:agent-configs/SOUL.slack.md" -> "artifact:dist/cc/slack/prompt.xml";' in dot


def test_an_include_cycle_is_reported_with_the_whole_cycle(make_project, hotplex):
    root: Path = make_project(
        {
            "agent-configs/SOUL.md": '{% include "a.md" %}\n',
            "agent-configs/a.md": '{% include "b.md" %}\n',
            "agent-configs/b.md": '{% include "a.md" %}\n',
        }
    )
    for command in ("graph", "build"):
        result = hotplex("-C", str(root), command)
        assert result.status == 2, result.stderr
        assert "include cycle" in result.stderr
        assert "agent-configs/a.md → agent-configs/b.md → agent-configs/a.md" in result.stderr
