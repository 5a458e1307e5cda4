"""``hotplex init --worker codex|gemini-cli`` and the commands a user runs next, through the CLI."""

from __future__ import annotations

import json

import pytest

CLI_WORKERS = {"codex": "codex-home/config.toml", "gemini-cli": "gemini-home/.gemini/GEMINI.md"}


@pytest.mark.parametrize("worker", sorted(CLI_WORKERS))
def test_init_build_show_stats_check(worker, tmp_path, hotplex):
    root = tmp_path / "agents"
    assert hotplex("init", str(root), "--worker", worker).status == 0
    manifest = (root / "hotplex.toml").read_text(encoding="utf-8")
    name = {"codex": "codex", "gemini-cli": "gemini"}[worker]
    assert f'name = "{name}"\nworker = "{worker}"' in manifest

    built = hotplex("-C", str(root), "build", "--json")
    assert built.status == 0, built.stderr
    artifacts = json.loads(built.stdout)["artifacts"]
    prompts = [a["path"] for a in artifacts if a["path"].endswith("/prompt.xml")]
    folders = {p.removesuffix("/prompt.xml") for p in prompts}
    assert folders == {f"dist/{name}/{p}" for p in ("default", "slack", "feishu", "webchat")}
    for folder in folders:
        assert {a["path"] for a in artifacts if a["path"].startswith(folder + "/")} == {
            f"{folder}/prompt.xml",
            f"{folder}/{CLI_WORKERS[worker]}",
            f"{folder}/launch.json",
        }
    assert hotplex("-C", str(root), "check").status == 0

    shown = hotplex("-C", str(root), "show", name, "--platform", "slack")
    assert shown.status == 0, shown.stderr
    prompt = (root / f"dist/{name}/slack/prompt.xml").read_text(encoding="utf-8")
    assert shown.stdout.rstrip("\n") == prompt.rstrip("\n")
    assert prompt.startswith("<agent-configuration>\n<directives>")

    stats = hotplex("-C", str(root), "stats", "--json", name)
    assert stats.status == 0, stats.stderr
    rows = json.loads(stats.stdout)["artifacts"]
    assert {r["worker"] for r in rows} == {worker}
    assert [s["name"] for s in rows[0]["sections"]][:2] == ["metacognition", "soul"]
    assert rows[0]["total"] == 40000

    with (root / "agent-configs/SOUL.md").open("a", encoding="utf-8") as soul:
        soul.write("\nAsk @alice.\n")
    stale = hotplex("-C", str(root), "check")
    assert stale.status == 1 and f"stale: dist/{name}/slack/prompt.xml" in stale.stdout
    assert hotplex("-C", str(root), "build").status == 0
    delivered = root / f"dist/{name}/slack/{CLI_WORKERS[worker]}"
    assert "@alice." in delivered.read_text("utf-8")

    delivered.write_text("edited by the CLI or a person\n", encoding="utf-8")
    edited = hotplex("-C", str(root), "check")
    assert edited.status == 1 and str(delivered.relative_to(root)) in edited.stdout
