"""The Factory Droid worker: what it does beyond the home-document family (the contract suite
runs the rest; tests/integration/test_droid.py drives the real ``droid exec``)."""

from __future__ import annotations

import json

from hotplex.api import Project
from hotplex.targets.home import js_trimmed

SOUL = "Ask @alice.  \r\n\n\n\n\nA lone {{ cr }} here.\n"


def test_droid_gets_the_document_trimmed_by_file_after_exec(make_project):
    """The file ``--append-system-prompt-file`` names is ``prompt.xml``: the compiled document
    with its final line feed gone (Droid trims the file as JavaScript's ``trim`` does), CR,
    blank-line runs, trailing spaces and ``@`` inside it as written."""
    manifest = (
        '[metacognition]\nenabled = false\n\n[vars]\ncr = "\\r"\n\n'
        '[[target]]\nname = "t"\nworker = "droid"\n'
    )
    root = make_project({"agent-configs/SOUL.md": SOUL}, manifest=manifest)
    artifact = Project.load(root).compile("t")
    assert artifact.file("droid/system-prompt.md").decode("utf-8") == artifact.text
    assert artifact.text == js_trimmed(artifact.text + "\n").text
    assert artifact.text.startswith("<agent-configuration>")
    assert artifact.text.endswith("</agent-configuration>")
    assert "Ask @alice.  \n\n\n\n\nA lone \r here.\n</persona>" in artifact.text
    launch = json.loads(artifact.file("launch.json"))
    assert launch["argv"] == [
        "droid",
        "exec",
        "--append-system-prompt-file",
        "dist/t/default/droid/system-prompt.md",
    ]
    assert "env" not in launch and "custom:<model>" in launch["gateway_adds"]


def test_stats_and_show_name_the_raw_copies_droid_loads(make_project, hotplex):
    """No switch: a compiled AGENTS.md in the session folder is a raw copy too (``build``,
    ``stats`` and ``show`` say so, with CLAUDE.md, which it reads uncompiled); a session
    folder outside the project leaves the compiled copy alone."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\nignore = ["CLAUDE.md"]\n\n'
        '[[source]]\nname = "rules"\nfile = "AGENTS.md"\nchannel = "B"\ntag = "rules"\n\n'
        '[[target]]\nname = "d"\nworker = "droid"\n'
    )
    files = {"AGENTS.md": "Use pytest.\n", "CLAUDE.md": "c\n"}
    root = make_project(files, manifest=manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0
    assert "target 'd': Factory Droid also reads AGENTS.md by itself" in done.stderr
    assert "has no switch" in done.stderr and 'cwd = "../session"' in done.stderr
    said = (
        "a raw copy too: Factory Droid reads AGENTS.md by itself; Factory Droid also reads"
        " CLAUDE.md by itself, raw, which the target does not compile"
    )
    copies = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"]
    assert copies[0]["copies"] == said
    assert said in hotplex("-C", str(root), "show", "d").stderr
    manifest_file = root / "hotplex.toml"
    manifest_file.write_text(manifest + 'cwd = "../session"\n', encoding="utf-8")
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and "Factory Droid" not in done.stderr, done.stderr
    copies = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"]
    assert copies[0]["copies"].startswith("only the compiled copy"), copies[0]["copies"]


def test_a_lowercase_agents_md_is_droids_only_where_no_agents_md_sits_beside_it(
    make_project, hotplex
):
    """Droid 0.225.2 reads agents.md (and .factory/agents.md) in place of a missing AGENTS.md,
    never beside one."""
    for files, said in (
        ({"agents.md": "a\n", ".factory/agents.md": "f\n"}, "agents.md, .factory/agents.md"),
        (
            {"agents.md": "a\n", "AGENTS.md": "A\n", ".factory/AGENTS.md": "F\n"},
            "AGENTS.md, .factory/AGENTS.md",
        ),
    ):
        root = make_project(
            {"agent-configs/SOUL.md": "S\n", **files},
            manifest='[[target]]\nname = "d"\nworker = "droid"\n',
            name=f"p{len(files)}",
        )
        copies = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"]
        assert copies[0]["copies"].endswith(
            f"Factory Droid also reads {said} by itself, raw, which the target does not compile"
        )
