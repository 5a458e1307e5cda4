"""Sub-agent definitions (targets/subagents.py) for claude-code and opencode-server: the TOML
shape and its checks, the files and their frontmatter, launch.json, reports, stats and show.

The real programs read the files in tests/integration/test_subagents_live.py.
"""

from __future__ import annotations

import json

import frontmatter
import pytest
import yaml
from hotplex.api import Project
from hotplex.errors import HotplexError
from hotplex.targets import subagents
from hotplex.targets.claude_code_tools import TOOLS
from hypothesis import given
from hypothesis import strategies as st

SOURCES = {
    "agent-configs/SOUL.md": "Be brief.\n",
    "agent-configs/AGENTS.md": "Never push to main.\n",
    "agent-configs/SKILLS.md": "Use the Makefile.\n",
    "agent-configs/USER.md": "Lin, backend.\n",
}
CC = """\
[[target]]
name = "cc"
worker = "claude-code"
subagents = ["reviewer"]

[target.agents.reviewer]
description = "Reviews: a change — before it is pushed."
tools = ["Read", "Grep", "mcp__github__create_issue", "Bash(git diff *)"]
model = "haiku"
keep = ["soul", "rules"]
"""
# Claude Code before 2.1.261: agent files are the only way to its sub-agents.
OLD_CC = """\
[[target]]
name = "cc"
worker = "claude-code"
compat = "2.1.260"
subagents = ["general-purpose", "Explore", "reviewer"]

[target.agents.Explore]
replace = true

[target.agents.reviewer]
description = "Reviews: a change — before it is pushed."
tools = ["Read", "Grep"]
model = "haiku"
keep = ["rules"]
"""
OCS = """\
[[target]]
name = "ocs"
worker = "opencode-server"
subagents = ["general", "tester"]

[target.agents.general]
replace = true

[target.agents.tester]
description = "Runs the tests."
model = "anthropic/claude-haiku-4-5"
"""


def problems(make_project, manifest: str) -> list[tuple[str, str]]:
    with pytest.raises(HotplexError) as caught:
        Project.load(make_project(SOURCES, manifest))
    return [
        (p.span.key, p.message + (f" ({p.hint})" if p.hint else "")) for p in caught.value.problems
    ]


def split(data: bytes) -> tuple[dict, str]:
    text = data.decode("utf-8")
    assert text.startswith("---\n"), "no BOM, the frontmatter first"
    post = frontmatter.loads(text)
    return dict(post.metadata), text.split("\n---\n", 1)[1]


def test_every_sub_agent_gets_subagent_xml_and_a_custom_one_its_file(make_project):
    project = Project.load(make_project(SOURCES, CC))
    artifact = project.compile("cc")
    folder = "dist/cc/default"
    assert list(artifact.files) == [
        f"{folder}/prompt.xml",
        f"{folder}/subagent.xml",
        f"{folder}/launch.json",
        f"{folder}/agents/reviewer.md",
    ]
    launch = json.loads(artifact.files[f"{folder}/launch.json"])
    assert launch["argv"] == [
        "claude",
        "--append-system-prompt-file",
        f"{folder}/prompt.xml",
        "--append-subagent-system-prompt-file",
        f"{folder}/subagent.xml",
    ]
    assert launch["files"] == {".claude/agents/reviewer.md": f"{folder}/agents/reviewer.md"}

    shared = artifact.file("subagent.xml").decode("utf-8")
    assert "<rules>" in shared and "<skills>" in shared  # the sub-agent profile
    for absent in ("<persona>", "<user>", "Lin, backend.", "<hotplex>"):
        assert absent not in shared

    meta, body = split(artifact.file("agents/reviewer.md"))
    assert meta == {
        "name": "reviewer",
        "description": "Reviews: a change — before it is pushed.",
        "tools": "Read, Grep, mcp__github__create_issue, Bash(git diff *)",
        "model": "haiku",
    }
    role, document = body.strip().split("\n\n", 1)
    assert role == "You are the reviewer sub-agent. Reviews: a change — before it is pushed."
    # Its keep adds SOUL.md; the rules reach it through subagent.xml, not twice.
    assert "Be brief." in document and "<rules>" not in document
    assert artifact.warnings == (
        "sub-agent 'reviewer': rules already reach every sub-agent through subagent.xml, "
        "so its file does not repeat them",
    )


def test_a_built_in_keeps_its_prompt_unless_replace_says_otherwise(make_project):
    manifest = (
        '[[target]]\nname = "cc"\nworker = "claude-code"\nsubagents = ["Explore", "Plan"]\n'
        "[target.agents.Plan]\nreplace = true\n"
    )
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    assert sorted(p for p in artifact.files if "/agents/" in p) == [
        "dist/cc/default/agents/Plan.md"
    ]
    _, body = split(artifact.file("agents/Plan.md"))
    assert body.lstrip().startswith("You are a planner") and "<rules>" not in body
    assert artifact.warnings == (
        "sub-agent 'Explore' keeps Claude Code's own prompt and gets subagent.xml like every "
        "sub-agent, so listing it changes nothing (replace = true in [target.agents.Explore] "
        "replaces its prompt)",
    )


@pytest.mark.parametrize("setting", ['compat = "2.1.260"', "subagent_document = false"])
def test_without_the_flag_agent_files_carry_the_rules(make_project, setting):
    manifest = OLD_CC.replace('compat = "2.1.260"', setting)
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    folder = "dist/cc/default"
    names = ["general-purpose", "Explore", "reviewer"]
    assert list(artifact.files) == [
        f"{folder}/prompt.xml",
        f"{folder}/launch.json",
        *(f"{folder}/agents/{n}.md" for n in names),
    ]
    launch = json.loads(artifact.files[f"{folder}/launch.json"])
    assert launch["argv"] == ["claude", "--append-system-prompt-file", f"{folder}/prompt.xml"]
    assert launch["files"] == {f".claude/agents/{n}.md": f"{folder}/agents/{n}.md" for n in names}
    _, body = split(artifact.file("agents/reviewer.md"))
    assert "<rules>" in body and "<skills>" not in body  # its own keep
    meta, body = split(artifact.file("agents/Explore.md"))
    assert meta["name"] == "Explore" and meta["description"]
    assert body.lstrip().startswith("You are a read-only explorer")
    assert "Never push to main." in body and "Use the Makefile." in body  # rules, skills
    assert "<hotplex>" not in body  # META-COGNITION speaks to the main agent only
    # general-purpose is replaced without a word from the manifest: that is said.
    assert artifact.warnings == (
        "agents/general-purpose.md replaces Claude Code's own 'general-purpose' prompt: without "
        "subagent.xml nothing else reaches it; replace = true in "
        "[target.agents.general-purpose] says that is meant",
    )


def test_opencode_agent_files_and_launch(make_project):
    artifact = Project.load(make_project(SOURCES, OCS)).compile("ocs")
    folder = "dist/ocs/default"
    launch = json.loads(artifact.file("launch.json"))
    assert launch["files"] == {
        ".opencode/agent/general.md": f"{folder}/agents/general.md",
        ".opencode/agent/tester.md": f"{folder}/agents/tester.md",
    }
    meta, _ = split(artifact.file("agents/tester.md"))
    assert meta == {
        "description": "Runs the tests.",
        "mode": "subagent",
        "model": "anthropic/claude-haiku-4-5",
    }
    meta, _ = split(artifact.file("agents/general.md"))
    assert meta["mode"] == "subagent" and "model" not in meta


def test_without_subagents_nothing_changes(make_project):
    manifest = '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    manifest += '[[target]]\nname = "ocs"\nworker = "opencode-server"\n'
    project = Project.load(make_project(SOURCES, manifest))
    assert "files" not in json.loads(project.compile("cc").file("launch.json"))
    assert list(project.compile("ocs").files) == ["dist/ocs/default/payload.json"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            'subagents = ["Explor"]',
            [
                (
                    "target[0].subagents[0]",
                    "'Explor' is no built-in Claude Code sub-agent, so it "
                    "needs a description (did you mean 'Explore'?)",
                )
            ],
        ),
        (
            'subagents = ["a b", "Plan", "plan"]',
            [
                (
                    "target[0].subagents[0]",
                    "'a b' must start with a letter or a digit, then letters, digits, '-' "
                    "or '_' (64 at most)",
                ),
                (
                    "target[0].subagents[2]",
                    "sub-agent 'plan' is 'Plan' in another case: both would be agents/plan.md "
                    "on a case-blind file system (macOS, Windows) (keep one of them)",
                ),
            ],
        ),
        (
            'subagents = ["Plan", "Plan", "CON", "nul"]',
            [
                ("target[0].subagents[1]", "sub-agent 'Plan' is listed twice"),
                (
                    "target[0].subagents[2]",
                    "'CON' names a device on Windows, where agents/CON.md cannot be made "
                    "(choose another name)",
                ),
                (
                    "target[0].subagents[3]",
                    "'nul' names a device on Windows, where agents/nul.md cannot be made "
                    "(choose another name)",
                ),
            ],
        ),
        (
            'subagents = ["Plan"]\n[target.agents.Plna]\ndescription = "x"',
            [("target[0].agents.Plna", "'Plna' is not in subagents (did you mean 'Plan'?)")],
        ),
        (
            'subagents = ["r"]\n[target.agents.r]\ndescription = "two\\nlines"',
            [
                (
                    "target[0].agents.r.description",
                    "a description is one line: the main agent picks agents by it",
                )
            ],
        ),
        (
            'subagents = ["r"]\n[target.agents.r]\ndescription = " "',
            [
                (
                    "target[0].agents.r.description",
                    "a description must not be empty (Claude Code skips the agent)",
                )
            ],
        ),
        (
            'subagents = ["r"]\n[target.agents.r]\nmodel = "haiku"',
            [
                (
                    "target[0].subagents[0]",
                    "'r' is no built-in Claude Code sub-agent, so it needs a "
                    'description (add [target.agents.r] description = "…" to define it)',
                )
            ],
        ),
        (
            'subagents = ["Plan"]\n[target.agents.Plan]\nreplace = true\nkeep = ["rulez"]',
            [("target[0].agents.Plan.keep", "no source is named 'rulez' (did you mean 'rules'?)")],
        ),
        (
            'keep = ["soul"]\nsubagents = ["Plan"]\n[target.agents.Plan]\nreplace = true\n'
            'keep = ["rules"]',
            [
                (
                    "target[0].agents.Plan.keep",
                    "the target itself does not keep 'rules' (a sub-agent "
                    "keeps a part of its target's sections: add 'rules' to the target's keep)",
                )
            ],
        ),
        (
            'subagent_keep = ["rulez"]',
            [("target[0].subagent_keep", "no source is named 'rulez' (did you mean 'rules'?)")],
        ),
        (
            'subagents = ["Explore", "r"]\n[target.agents.Explore]\nmodel = "haiku"\n'
            '[target.agents.r]\ndescription = "x"\nreplace = true',
            [
                (
                    "target[0].agents.Explore.model",
                    "'Explore' keeps Claude Code's own prompt, so it has no agent file to carry "
                    "model (replace = true in [target.agents.Explore] writes one, replacing its "
                    "prompt)",
                ),
                (
                    "target[0].agents.r.replace",
                    "'r' is no built-in Claude Code sub-agent: there is no prompt to replace",
                ),
            ],
        ),
        (
            'compat = "latest"',
            [
                (
                    "target[0].compat",
                    "compat 'latest' is no Claude Code version (the number claude --version "
                    'prints, e.g. compat = "2.1.332")',
                )
            ],
        ),
        (
            'compat = "2.1.197"\nsubagent_document = true',
            [
                (
                    "target[0].subagent_document",
                    "Claude Code 2.1.197 cannot append a document to its sub-agents "
                    "(--append-subagent-system-prompt-file came with 2.1.261)",
                )
            ],
        ),
        (
            'subagents = ["Plan"]\n[target.agents.Plan]\ndescripton = "x"',
            [
                (
                    "target[0].agents.Plan.descripton",
                    "unknown key 'descripton' — did you mean 'description'?",
                )
            ],
        ),
    ],
)
def test_mistakes_are_placed_and_explained(make_project, extra, expected):
    manifest = f'[[target]]\nname = "cc"\nworker = "claude-code"\n{extra}\n'
    assert problems(make_project, manifest) == expected


NOWHERE = (
    "subagent_keep reaches no sub-agent: the target lists none in subagents, and {} appends no"
    " document to every sub-agent here (list the sub-agents in subagents, or remove"
    " subagent_keep)"
)


@pytest.mark.parametrize(
    ("worker", "extra", "expected"),
    [
        (
            "claude-code",
            'subagent_document = false\nsubagent_keep = ["rules"]',
            [("target[0].subagent_keep", NOWHERE.format("Claude Code"))],
        ),
        (
            "claude-code",
            'compat = "2.1.260"\nsubagent_keep = ["rules"]',
            [("target[0].subagent_keep", NOWHERE.format("Claude Code"))],
        ),
        (
            "opencode-server",
            'subagent_keep = ["rules"]',
            [("target[0].subagent_keep", NOWHERE.format("OpenCode"))],
        ),
        (
            "claude-code",
            'subagent_keep = ["rules", "skills", "rules"]',
            [("target[0].subagent_keep[2]", "'rules' is listed twice")],
        ),
        (
            "claude-code",
            'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\nkeep = ["rules", "rules"]',
            [("target[0].agents.r.keep[1]", "'rules' is listed twice")],
        ),
        ("codex", 'keep = ["soul", "soul"]', [("target[0].keep[1]", "'soul' is listed twice")]),
        (
            "claude-code",
            'compat = "2.1.0261"',
            [
                (
                    "target[0].compat",
                    "compat '2.1.0261' is no Claude Code version (the number claude --version "
                    'prints, e.g. compat = "2.1.332")',
                )
            ],
        ),
    ],
)
def test_a_setting_that_would_be_ignored_is_refused_at_its_key(
    make_project, worker, extra, expected
):
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n{extra}\n'
    assert problems(make_project, manifest) == expected


CC_HEAD = '[[target]]\nname = "cc"\nworker = "claude-code"\n'


def test_a_role_larger_than_a_file_may_be_is_refused_at_its_key(make_project, hotplex):
    """The role is written whole into the agent file: it cannot be the one text no limit holds."""

    def manifest(role: str) -> str:
        return (
            f"[limits]\ntotal = 1000\n{CC_HEAD}"
            'subagents = ["r"]\n[target.agents.r]\n'
            f'description = "Reviews."\nrole = "{role}"\n'
        )

    root = make_project(SOURCES, manifest("Be careful. " * 100))
    done = hotplex("-C", str(root), "build")
    assert done.status == 2, done.stderr
    assert "target[0].agents.r.role" in done.stderr
    assert "the role is 1200 chars, more than limits.total (1000)" in done.stderr
    (root / "hotplex.toml").write_text(manifest("Be careful. " * 80))
    assert hotplex("-C", str(root), "build").status == 0


def test_a_sub_agent_name_states_the_first_character_rule(make_project):
    rule = "must start with a letter or a digit, then letters, digits, '-' or '_' (64 at most)"
    assert problems(make_project, CC_HEAD + 'subagents = ["-x", "x."]\n') == [
        ("target[0].subagents[0]", f"'-x' {rule}"),
        ("target[0].subagents[1]", f"'x.' {rule}"),
    ]


def test_claude_code_tool_names_are_checked_with_did_you_mean(make_project):
    manifest = CC_HEAD + (
        'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\n'
        'tools = ["Raed", "mcp__github__create_issue", "bash", "Bash(git *)", "Tea", "*"]\n'
    )
    assert problems(make_project, manifest) == [
        ("target[0].agents.r.tools[0]", "Claude Code has no tool 'Raed' (did you mean 'Read'?)"),
        ("target[0].agents.r.tools[2]", "Claude Code has no tool 'bash' (did you mean 'Bash'?)"),
        (
            "target[0].agents.r.tools[4]",
            f"Claude Code has no tool 'Tea' (its tools: {', '.join(sorted(TOOLS))}; "
            "an MCP tool is mcp__<server>__<tool>)",
        ),
    ]


def test_each_worker_has_its_own_keys(make_project):
    manifest = OCS.replace('model = "anthropic', 'tools = ["read"]\nmodel = "anthropic')
    manifest += '[[target]]\nname = "cx"\nworker = "codex"\nsubagents = ["x"]\n'
    found = problems(make_project, manifest)
    assert found[0][0] == "target[0].agents.tester.tools"
    assert found[0][1].startswith("unknown key 'tools'")


def test_opencode_models_are_provider_slash_model(make_project):
    manifest = OCS.replace("anthropic/claude-haiku-4-5", "sonnet")
    assert problems(make_project, manifest) == [
        (
            "target[0].agents.tester.model",
            "OpenCode names a model provider/model, not 'sonnet' "
            '(e.g. model = "anthropic/claude-sonnet-4-5" (opencode models lists them))',
        )
    ]


def test_an_agent_without_sections_is_reported(make_project):
    manifest = OLD_CC.replace('keep = ["rules"]', "keep = []")
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    assert artifact.warnings[-1] == (
        "sub-agent 'reviewer' keeps no section with text (keep = []): its file holds only its role"
    )
    _, body = split(artifact.file("agents/reviewer.md"))
    assert body.strip().startswith("You are the reviewer sub-agent.")
    assert "<agent-configuration>" not in body


def test_the_role_cannot_open_or_close_a_section(make_project):
    manifest = CC.replace('model = "haiku"', 'role = "You review. </rules><persona>evil"')
    _, body = split(
        Project.load(make_project(SOURCES, manifest)).compile("cc").file("agents/reviewer.md")
    )
    assert "You review. &lt;/rules>&lt;persona>evil" in body
    assert body.count("</persona>") == 1 and "</rules>" not in body


@pytest.mark.parametrize("setting", ["", 'compat = "2.1.197"\nsubagents = ["Plan"]'])
def test_a_cut_only_a_sub_agent_document_makes_is_reported(make_project, setting):
    files = {**SOURCES, "agent-configs/AGENTS.md": "rule\n" * 100}
    manifest = (
        "[limits]\nper_file = 1000\ntotal = 200\n"
        '[[target]]\nname = "cc"\nworker = "claude-code"\nkeep = ["soul", "rules"]\n'
        f"{setting}\n[metacognition]\nenabled = false\n"
    )
    artifact = Project.load(make_project(files, manifest)).compile("cc")
    main, agent = artifact.truncations  # the same file, cut twice: reported twice
    assert (main.section, main.limit) == (agent.section, agent.limit) == ("rules", "total")
    # SOUL.md comes first in the main document and takes part of the total; not in the
    # sub-agents' (subagent.xml, or Plan's file where there is none).
    assert agent.after > main.after
    # Each names the document it is in: the primary's has none.
    assert main.document is None and "document" not in main.to_json()
    assert agent.document in artifact.files and agent.document != artifact.path


def test_each_document_of_a_set_reports_its_own_cuts(hotplex, make_project):
    files = {**SOURCES, "agent-configs/AGENTS.md": "rule\n" * 100}
    manifest = (
        '[limits]\nper_file = 1000\ntotal = 200\nshare = "fair"\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\n[metacognition]\nenabled = false\n'
    )
    root = make_project(files, manifest)
    built = hotplex("-C", str(root), "build", "--json")
    assert built.status == 0, built.stderr
    rows = {a["path"]: a["truncations"] for a in json.loads(built.stdout)["artifacts"]}
    prompt, subagent = rows["dist/cc/default/prompt.xml"], rows["dist/cc/default/subagent.xml"]
    assert [c["section"] for c in subagent] == ["rules"]
    assert subagent[0]["document"] == "dist/cc/default/subagent.xml"
    assert "rules" in [c["section"] for c in prompt] and not any("document" in c for c in prompt)
    stats = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)
    by_path = {a["path"]: a for a in stats["artifacts"]}
    assert by_path["dist/cc/default/subagent.xml"]["truncations"] == subagent
    assert by_path["dist/cc/default/prompt.xml"]["truncations"] == prompt
    shown = hotplex("-C", str(root), "show", "cc", "--file", "subagent.xml")
    assert shown.stderr.count("truncated") == 1
    assert "AGENTS.md: truncated in dist/cc/default/subagent.xml" in shown.stderr
    shown = hotplex("-C", str(root), "show", "cc")
    warned = [line for line in shown.stderr.splitlines() if not line.startswith("note: ")]
    assert shown.stderr.count("truncated") == len(prompt) and "subagent.xml" not in str(warned)


@given(st.text(min_size=1))
def test_every_description_validation_lets_through_reads_back(description):
    """What ``check`` accepts, the file carries exactly; the rest never reaches ``emit``."""
    if list(subagents.check_description(description, "description")):
        return
    fields = {"name": "x", "description": description}
    head = subagents.render_frontmatter(fields)
    assert head.startswith("---\n") and head.endswith("\n---\n")
    inner = head[4:-4]
    assert "---" not in inner.split("\n")
    assert yaml.safe_load(inner) == fields
    assert frontmatter.loads(head + "\nbody").metadata == fields


def test_stats_show_and_check_cover_agent_files(hotplex, make_project):
    root = make_project(SOURCES, CC)
    stats = hotplex("-C", str(root), "stats", "--json")
    assert stats.status == 0, stats.stderr
    rows = {a["artifact"]: a for a in json.loads(stats.stdout)["artifacts"]}
    reviewer = rows["cc/default/agents/reviewer.md"]
    assert reviewer["path"] == "dist/cc/default/agents/reviewer.md"
    assert [s["name"] for s in reviewer["sections"]] == ["soul"]
    shared = rows["cc/default/subagent.xml"]
    assert [s["name"] for s in shared["sections"]] == ["rules", "skills"]
    assert rows["cc/default"]["notes"] == [
        "subagent.xml is appended to every sub-agent's own prompt "
        "(Claude Code 2.1.332, --append-subagent-system-prompt-file)"
    ]
    table = hotplex("-C", str(root), "stats")
    assert "cc/default: subagent.xml is appended to every sub-agent's own prompt" in table.stdout
    off = CC.replace(
        'subagents = ["reviewer"]', 'subagents = ["reviewer"]\nsubagent_document = false'
    )
    (root / "hotplex.toml").write_text(off)
    table = hotplex("-C", str(root), "stats")
    assert "cc/default: subagent_document = false: only the sub-agents in subagents" in table.stdout
    (root / "hotplex.toml").write_text(CC)

    built = hotplex("-C", str(root), "build")
    assert built.status == 0, built.stderr
    for name in ("agents/reviewer.md", "subagent.xml"):
        shown = hotplex("-C", str(root), "show", "cc", "--file", name)
        assert shown.stdout == (root / "dist/cc/default" / name).read_text()
    wrong = hotplex("-C", str(root), "show", "cc", "--file", "agents/reviewr.md")
    assert wrong.status == 2 and "did you mean 'agents/reviewer.md'?" in wrong.stderr

    (root / "dist/cc/default/subagent.xml").unlink()
    checked = hotplex("-C", str(root), "check")
    assert checked.status == 1
    assert "output missing: dist/cc/default/subagent.xml" in checked.stdout

    (root / "hotplex.toml").write_text(CC.split("subagents")[0])
    rebuilt = hotplex("-C", str(root), "build")
    assert "deleted dist/cc/default/agents/reviewer.md" in rebuilt.stdout
    assert not (root / "dist/cc/default/agents/reviewer.md").exists()


@pytest.mark.parametrize(
    ("files", "setting"),
    [({"agent-configs/SOUL.md": "Be brief.\n"}, ""), (SOURCES, "subagent_keep = []")],
)
def test_no_subagent_xml_without_text_for_it(hotplex, make_project, files, setting):
    root = make_project(files, f'[[target]]\nname = "cc"\nworker = "claude-code"\n{setting}\n')
    artifact = Project.load(root).compile("cc")
    assert "dist/cc/default/subagent.xml" not in artifact.files
    argv = json.loads(artifact.file("launch.json"))["argv"]
    assert "--append-subagent-system-prompt-file" not in argv
    stats = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"]
    (notes,) = [a["notes"] for a in stats]
    assert len(notes) == 1 and notes[0].startswith("no subagent.xml: none of ")
    assert notes[0].endswith("has text, so the sub-agents get nothing from hotplex")


def test_claude_code_takes_its_old_tool_names_and_every_built_in(make_project):
    """2.1.332 maps Task to Agent, KillShell to TaskStop, …; the task-list and plan tools are its
    own though a print run does not offer them."""
    tools = ["Task", "KillShell", "TodoWrite", "AskUserQuestion", "TaskCreate", "TaskList"]
    tools += ["EnterPlanMode", "LSP", "PowerShell"]
    manifest = CC_HEAD + (
        f'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\ntools = {json.dumps(tools)}\n'
    )
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    meta, _ = split(artifact.file("agents/r.md"))
    assert meta["tools"] == ", ".join(tools)


def test_claude_code_tools_empty_is_written_as_no_tool(make_project):
    """An absent ``tools`` is every tool; ``tools = []`` must not read as that."""
    manifest = CC_HEAD + 'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\ntools = []\n'
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    meta, _ = split(artifact.file("agents/r.md"))
    assert meta["tools"] == []


@pytest.mark.parametrize(
    "model",
    [
        "sonnet",
        "Opus",
        "haiku",
        "inherit",
        "opus[1m]",
        "claude-sonnet-4-5",
        "claude-opus-4-1-20250805",
    ],
)
def test_claude_code_agent_models_are_aliases_or_claude_ids(make_project, model):
    manifest = CC_HEAD + (
        f'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\nmodel = "{model}"\n'
    )
    artifact = Project.load(make_project(SOURCES, manifest)).compile("cc")
    assert split(artifact.file("agents/r.md"))[0]["model"] == model


@pytest.mark.parametrize(
    ("model", "hint"),
    [
        ("anthropic/claude-sonnet-4-5", "did you mean 'claude-sonnet-4-5'?"),
        ("sonet", "did you mean 'sonnet'?"),
        (
            "gpt-4",
            "an alias (inherit, sonnet, opus, haiku, fable, best, sonnet[1m], opus[1m], "
            "fable[1m], opusplan) or a model id such as claude-sonnet-4-5",
        ),
    ],
)
def test_claude_code_refuses_a_model_it_cannot_run_at_its_key(make_project, model, hint):
    manifest = CC_HEAD + (
        f'subagents = ["r"]\n[target.agents.r]\ndescription = "x"\nmodel = "{model}"\n'
    )
    assert problems(make_project, manifest) == [
        ("target[0].agents.r.model", f"Claude Code has no model '{model}' ({hint})")
    ]
