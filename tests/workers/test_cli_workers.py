"""``hotplex init --worker <a home-document worker>`` and the commands a user runs next, through
the CLI: every worker of the family (``targets/home.py``) gets these cases."""

from __future__ import annotations

import json

import pytest
from hotplex import registry
from hotplex.targets.home import HomeDocument

# Each home-document worker: the path of its home file in a job folder.
CLI_WORKERS = {
    name: next(o.name for o in worker.outputs if o.kind == worker.home_kind)
    for name, worker in registry.workers().items()
    if isinstance(worker, HomeDocument)
}


@pytest.mark.parametrize("worker", sorted(CLI_WORKERS))
def test_init_build_show_stats_check(worker, tmp_path, hotplex):
    root = tmp_path / "agents"
    assert hotplex("init", str(root), "--worker", worker).status == 0
    manifest = (root / "hotplex.toml").read_text(encoding="utf-8")
    name = registry.workers()[worker].init_target[0]
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
    user_level = "user message" in "".join(registry.workers()[worker].notes)
    assert ("note: Aider has no system-level way in" in shown.stderr) is (worker == "aider")
    assert user_level is (worker == "aider")
    prompt = (root / f"dist/{name}/slack/prompt.xml").read_text(encoding="utf-8")
    assert shown.stdout.rstrip("\n") == prompt.rstrip("\n")
    assert prompt.startswith("<agent-configuration>\n<directives>")

    stats = hotplex("-C", str(root), "stats", "--json", name)
    assert stats.status == 0, stats.stderr
    rows = json.loads(stats.stdout)["artifacts"]
    assert {r["worker"] for r in rows} == {worker}
    assert [s["name"] for s in rows[0]["sections"]][:2] == ["metacognition", "soul"]
    assert rows[0]["total"] == 40000
    table = hotplex("-C", str(root), "stats", name).stdout
    assert ("Aider has no system-level way in" in table) is user_level

    with (root / "agent-configs/SOUL.md").open("a", encoding="utf-8") as soul:
        soul.write("\nAsk @alice.\n")
    stale = hotplex("-C", str(root), "check")
    assert stale.status == 1 and f"stale: dist/{name}/slack/prompt.xml" in stale.stdout
    assert hotplex("-C", str(root), "build").status == 0
    delivered = root / f"dist/{name}/slack/{CLI_WORKERS[worker]}"
    prompt_path = f"dist/{name}/slack/prompt.xml"
    assert "@alice." in (root / prompt_path).read_text("utf-8")
    home = delivered.read_text("utf-8")
    assert "@alice." in home or f"- {prompt_path}\n" in home  # the text, or where it is (Aider)

    delivered.write_text("edited by the CLI or a person\n", encoding="utf-8")
    edited = hotplex("-C", str(root), "check")
    assert edited.status == 1 and str(delivered.relative_to(root)) in edited.stdout
