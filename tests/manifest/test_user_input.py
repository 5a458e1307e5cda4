"""Nothing the user wrote is ignored without a word (issue 12).

Each test runs the installed ``hotplex`` command in a temporary project, as a user would, and
asserts the message, the exit status and what is (and is not) on disk afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

MANIFEST = """\
[project]
{project}
[variants]
platforms = ["slack"]
{variants}
[[target]]
name = "cc"
worker = "claude-code"
{rest}"""

FIVE = {
    "SOUL.md": "I am the persona.\n",
    "AGENTS.md": "Follow the rules.\n",
    "SKILLS.md": "I can search.\n",
    "USER.md": "The user is Lin.\n",
    "MEMORY.md": "We chose Postgres.\n",
}


def _project(make_project, files=None, project="", variants="", rest="") -> Path:
    files = {f"agent-configs/{k}": v for k, v in (FIVE if files is None else files).items()}
    project = project if "sources =" in project else f'sources = "agent-configs"\n{project}'
    text = MANIFEST.format(project=project, variants=variants, rest=rest)
    root = make_project(files, manifest=text)
    (root / "agent-configs").mkdir(exist_ok=True)
    return root


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def _prompt(root: Path, platform: str = "default") -> str:
    return (root / f"dist/cc/{platform}/prompt.xml").read_text("utf-8")


# --- 1. the sources folder ----------------------------------------------------------------------


def test_a_misspelt_sources_folder_is_an_error_with_a_suggestion(make_project, hotplex):
    root = _project(make_project, project='sources = "agent-confgs"')
    before = _tree(root)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert result.stderr.startswith(
        "hotplex.toml: project.sources: the sources folder 'agent-confgs' does not exist"
    )
    assert "hint: did you mean 'agent-configs'?" in result.stderr
    assert _tree(root) - before <= {".hotplex", ".hotplex/lock"}  # no artifact, no build log


def test_an_empty_sources_folder_is_a_warning(make_project, hotplex):
    root = _project(make_project, files={})
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0
    warnings = json.loads(result.stdout)["warnings"]
    assert warnings == [
        "no artifact reads any file of the sources folder 'agent-configs': the artifacts hold"
        " none of your text (the folder is empty)"
    ]


# --- 2. source declarations extend the defaults -------------------------------------------------


def test_one_declared_source_is_added_to_the_defaults(make_project, hotplex):
    rest = '[[source]]\nname = "tools"\nfile = "TOOLS.md"\nchannel = "B"\ntag = "tools"\n'
    files = {**FIVE, "TOOLS.md": "Use the shell.\n"}
    root = _project(make_project, files=files, rest=rest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert result.stderr == ""
    prompt = _prompt(root)
    order = [prompt.index(f"<{tag}>") for tag in ("persona", "rules", "skills", "tools")]
    assert order == sorted(order)  # the defaults keep their place; the new one follows
    assert "<user>" in prompt and "<memory>" in prompt and "Use the shell." in prompt


def test_a_declaration_with_a_defaults_name_changes_only_what_it_sets(make_project, hotplex):
    root = _project(make_project, rest='[[source]]\nname = "memory"\nrequired = true\n')
    assert hotplex("-C", str(root), "build").status == 0
    assert "<memory>\nRecall relevant past context when applicable.\nWe chose" in _prompt(root)
    (root / "agent-configs/MEMORY.md").unlink()
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "required source 'memory' is missing" in result.stderr


def test_the_switch_drops_the_defaults_and_says_which_files_are_left(make_project, hotplex):
    rest = '[[source]]\nname = "soul"\nfile = "SOUL.md"\nchannel = "B"\ntag = "persona"\n'
    root = _project(make_project, project="default_sources = false", rest=rest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert "<rules>" not in _prompt(root) and "<persona>" in _prompt(root)
    assert (
        "warning: agent-configs/AGENTS.md is read by no artifact: a default source, dropped by"
        " [project] default_sources = false" in result.stderr
    )


# --- 3. defaults per worker ---------------------------------------------------------------------


def test_openclaw_deploys_every_bootstrap_file_present(make_project, hotplex):
    files = {
        "AGENTS.md": "Rules.\n",
        "SOUL.md": "Soul.\n",
        "IDENTITY.md": "I am Clawd.\n",
        "USER.md": "Lin.\n",
        "BOOTSTRAP.md": "First run.\n",
        "MEMORY.md": "Facts.\n",
    }
    rest = '[[target]]\nname = "claw"\nworker = "openclaw"\nworkspace = "/ws"\n'
    root = _project(make_project, files=files, rest=rest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert result.stderr == ""  # every file is read by some artifact; nothing unused
    context = (root / "dist/claw/default/context.md").read_text("utf-8")
    assert "[MISSING]" not in context
    assert "I am Clawd." in context and "First run." in context
    workspace = {p.name for p in (root / "dist/claw/default/workspace").iterdir()}
    assert workspace == set(files)
    # IDENTITY.md is OpenClaw's: Claude Code gets it only when a [[source]] declares it.
    assert "<identity>" not in _prompt(root)
    assert (
        "<skills>" not in context and not (root / "dist/claw/default/workspace/SKILLS.md").exists()
    )


def test_declaring_an_openclaw_default_by_name_makes_it_every_targets(make_project, hotplex):
    files = {**FIVE, "IDENTITY.md": "I am Clawd.\n"}
    rest = '[[target]]\nname = "claw"\nworker = "openclaw"\n\n[[source]]\nname = "identity"\n'
    root = _project(make_project, files=files, rest=rest)
    assert hotplex("-C", str(root), "build").status == 0
    assert "<identity>\nYour name and presentation.\nI am Clawd.\n</identity>" in _prompt(root)


# --- 4. the unused-file report ------------------------------------------------------------------


def test_another_workers_source_is_never_suggested_as_a_misspelling(make_project, hotplex):
    """SKILLS.md in an OpenClaw-only project is another worker's source, not a misspelt
    SOUL.md: the warning says so and suggests no file of a different role."""
    manifest = '[metacognition]\nenabled = false\n[[target]]\nname = "claw"\nworker = "openclaw"\n'
    root = make_project({f"agent-configs/{k}": v for k, v in FIVE.items()}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert "did you mean" not in result.stderr
    assert (
        "warning: agent-configs/SKILLS.md is read by no artifact: a default source of the"
        " claude-code worker, which no target here uses" in result.stderr
    )


def test_files_no_artifact_reads_are_listed_with_what_they_look_meant_to_be(make_project, hotplex):
    files = {**FIVE, "SOUL.slak.md": "x\n", "NOTES.md": "x\n", "webchat/SOUL.md": "x\n"}
    files["slack/SOUL.md"] = "a directory variant under the suffix layout\n"
    root = _project(make_project, files=files)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    lines = result.stderr.splitlines()
    assert lines[:4] == [
        "warning: agent-configs/NOTES.md is read by no artifact",
        "warning: agent-configs/SOUL.slak.md is read by no artifact: no platform 'slak' — did you"
        " mean 'slack'?",
        "warning: agent-configs/slack/SOUL.md is read by no artifact: a directory variant, but"
        ' [variants] layout = "suffix" reads SOUL.md',
        "warning: agent-configs/webchat/SOUL.md is read by no artifact: no platform 'webchat'"
        " (platforms: slack)",
    ]
    assert lines[4].startswith("warning: 4 file(s) under 'agent-configs/' are read by no artifact")
    check = hotplex("-C", str(root), "check", "--json")
    assert check.status == 0
    assert len(json.loads(check.stdout)["warnings"]) == 5


@pytest.mark.parametrize("file", ["PERSONA.md", "persona/SOUL.md"])
def test_a_default_given_a_file_that_does_not_exist_is_warned_about(make_project, hotplex, file):
    """``[[source]] name = "soul" file = "PERSONA.md"`` with no PERSONA.md built a persona-less
    artifact in silence, and blamed SOUL.md on a worker no target uses; a file of a default's
    name in another folder is no default's file either."""
    root = _project(make_project, rest=f'[[source]]\nname = "soul"\nfile = "{file}"\n')
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"warning: source 'soul': agent-configs/{file} does not exist, so no artifact has it"
        " (required = true makes this an error)",
        f"warning: agent-configs/SOUL.md is read by no artifact: source 'soul' reads {file}"
        " instead",
    ]
    (root / "agent-configs" / file).parent.mkdir(exist_ok=True)
    (root / "agent-configs" / file).write_text("I am the persona.\n", encoding="utf-8")
    again = hotplex("-C", str(root), "build")
    assert "does not exist" not in again.stderr


@pytest.mark.parametrize(
    ("layout", "variant"), [("suffix", "SOUL.slack.md"), ("directory", "slack/SOUL.md")]
)
def test_a_variant_of_a_source_no_target_keeps_says_so(make_project, hotplex, layout, variant):
    """cc builds slack but keeps no soul: its slack variant is unread for that, not for a
    platform no target builds; a variant of a platform no target builds still says that."""
    files = {**FIVE, variant: "x\n", variant.replace("slack", "feishu"): "x\n"}
    manifest = (
        f'[variants]\nplatforms = ["slack", "feishu"]\nlayout = "{layout}"\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\nkeep = ["rules"]\nplatforms = ["slack"]\n'
    )
    root = make_project({f"agent-configs/{k}": v for k, v in files.items()}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert (
        f"warning: agent-configs/{variant} is read by no artifact: no target that builds platform"
        " 'slack' keeps source 'soul' (keep / profile)\n" in result.stderr
    )
    feishu = variant.replace("slack", "feishu")
    assert (
        f"warning: agent-configs/{feishu} is read by no artifact: no target builds platform"
        " 'feishu'\n" in result.stderr
    )


def test_a_bot_file_of_a_source_no_target_keeps_says_so(make_project, hotplex):
    files = {**FIVE, "slack/U1/SOUL.md": "x\n"}
    manifest = (
        '[variants]\nplatforms = ["slack"]\nlayout = "directory"\n[[target]]\nname = "cc"\n'
        'worker = "claude-code"\nkeep = ["rules"]\nbot = "U1"\n'
    )
    root = make_project({f"agent-configs/{k}": v for k, v in files.items()}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert (
        "warning: agent-configs/slack/U1/SOUL.md is read by no artifact: no target that builds"
        " bot 'U1' for platform 'slack' keeps source 'soul' (keep / profile)\n" in result.stderr
    )


@pytest.mark.parametrize("sources", [".", "./", "agent-configs", "./agent-configs"])
def test_in_a_project_that_is_its_own_sources_folder_only_markdown_is_reported_unread(
    make_project, hotplex, sources
):
    """``sources = "."`` (as ``import`` writes): a repository's code and config are no sources
    and go unreported; a Markdown file nobody reads still is. A dedicated sources folder
    reports every file in it."""
    prefix = "" if sources.strip("./") == "" else "agent-configs/"
    files = {f"{prefix}{k}": v for k, v in FIVE.items()}
    strays = ["src/main.py", "package.json", "notes.txt", "docs/guide.md", "SOUL.slak.md"]
    files.update({f"{prefix}{p}": "x\n" for p in strays})
    root = make_project(
        files, manifest=MANIFEST.format(project=f'sources = "{sources}"', variants="", rest="")
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    unread = {
        line.split(" is read by no artifact")[0].removeprefix("warning: ")
        for line in result.stderr.splitlines()
        if " is read by no artifact" in line
    }
    if not prefix:
        assert unread == {"docs/guide.md", "SOUL.slak.md"}
    else:
        assert unread == {f"agent-configs/{p}" for p in strays}


def test_a_suffix_variant_left_behind_after_switching_layout(make_project, hotplex):
    files = {**FIVE, "SOUL.slack.md": "Suffix file.\n", "slack/SOUL.md": "Folder file.\n"}
    root = _project(make_project, files=files, variants='layout = "directory"')
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert (
        "agent-configs/SOUL.slack.md is read by no artifact: a suffix variant, but [variants]"
        ' layout = "directory" reads slack/SOUL.md' in result.stderr
    )
    assert "Folder file." in _prompt(root, "slack") and "Suffix file." not in _prompt(root, "slack")


def test_a_no_op_build_still_sees_a_new_unused_file_and_ignore_silences_it(make_project, hotplex):
    root = _project(make_project)
    assert hotplex("-C", str(root), "build").stderr == ""
    assert hotplex("-C", str(root), "build").stderr == ""
    (root / "agent-configs/drafts").mkdir()
    (root / "agent-configs/drafts/idea.md").write_text("later\n", encoding="utf-8")
    for _ in range(2):  # the slow build that notices, then the fast path that remembers
        result = hotplex("-C", str(root), "build")
        assert "0 rebuilt" in result.stdout
        assert "agent-configs/drafts/idea.md is read by no artifact" in result.stderr
    manifest = root / "hotplex.toml"
    text = manifest.read_text("utf-8").replace("[project]\n", '[project]\nignore = ["drafts/**"]\n')
    manifest.write_text(text, encoding="utf-8")
    assert hotplex("-C", str(root), "build").stderr == ""


def test_a_misspelt_bot_folder_is_named(make_project, hotplex):
    files = {**FIVE, "slack/U1/SOUL.md": "bot\n", "slack/U2x/SOUL.md": "typo\n"}
    rest = '\n[[target]]\nname = "bot"\nworker = "claude-code"\nbot = "U2"\nbase = false\n'
    root = _project(make_project, files=files, variants='layout = "directory"', rest=rest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert "agent-configs/slack/U1/SOUL.md is read by no artifact: no target has bot 'U1'" in (
        result.stderr
    )
    assert "slack/U2x/SOUL.md is read by no artifact: no target has bot 'U2x' — did you mean" in (
        result.stderr
    )


def test_a_bot_built_for_other_platforms_is_not_suggested_as_its_own_name(make_project, hotplex):
    files = {**FIVE, "slack/U1/SOUL.md": "bot\n"}
    rest = (
        '\n[[target]]\nname = "bot"\nworker = "claude-code"\nbot = "U1"\nplatforms = ["discord"]\n'
    )
    variants = 'layout = "directory"'
    root = _project(make_project, files=files, variants=variants, rest=rest)
    manifest = root / "hotplex.toml"
    text = manifest.read_text("utf-8").replace('["slack"]', '["slack", "discord"]')
    manifest.write_text(text, encoding="utf-8")
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    said = "slack/U1/SOUL.md is read by no artifact: no target builds bot 'U1' for platform 'slack'"
    assert said in result.stderr
    assert "did you mean 'U1'" not in result.stderr


# --- 5. the project root ------------------------------------------------------------------------


def test_f_makes_the_manifests_folder_the_project_root(make_project, hotplex):
    root = _project(make_project)
    parent = root.parent
    result = hotplex("-f", "project/hotplex.toml", "build", cwd=parent)
    assert result.status == 0, result.stderr
    assert (root / "dist/cc/default/prompt.xml").is_file()
    assert not (parent / "dist").exists() and not (parent / ".hotplex").exists()
    assert "We chose Postgres." in _prompt(root)


@pytest.mark.parametrize("command", ["build", "check", "clean", "show cc", "stats", "graph"])
def test_no_manifest_is_an_error_that_writes_nothing(tmp_path, hotplex, command):
    folder = tmp_path / "项目 one"
    folder.mkdir()
    result = hotplex(*command.split(), cwd=folder)
    assert result.status == 2
    assert f"no manifest: 'hotplex.toml' does not exist (looked in {folder})" in result.stderr
    assert "hint: run hotplex init to create one" in result.stderr
    assert list(folder.iterdir()) == []


def test_from_a_projects_subfolder_the_hint_names_the_project_above(make_project, hotplex):
    root = _project(make_project)
    result = hotplex("clean", cwd=root / "agent-configs")
    assert result.status == 2
    assert (
        f"hint: this folder is inside the project {root / 'hotplex.toml'}: run hotplex -C .. clean"
        in result.stderr
    )
    assert not (root / "agent-configs/.hotplex").exists()
    assert not (root / ".hotplex").exists()


@pytest.mark.parametrize(
    "command", ["memory compact --dry-run", "show cc --platform slack", "build --explain -C ."]
)
def test_the_hint_from_a_subfolder_repeats_the_whole_command(make_project, hotplex, command):
    """``hotplex memory compact`` must not be told to run ``hotplex -C .. memory``, a usage
    error: the hint repeats every word typed, less the -C or -f it replaces."""
    root = _project(make_project)
    result = hotplex(*command.split(), cwd=root / "agent-configs")
    assert result.status == 2
    shown = command.removesuffix(" -C .")
    assert f"hotplex.toml: run hotplex -C .. {shown}\n" in result.stderr


# --- 6. reserved names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variants", "rest", "key"),
    [
        ('platforms = ["default", "slack"]', "", "variants.platforms"),
        ("", 'bot = "Default"\n', "target[0].bot"),
        ('platforms = ["slack", "SOUL.md"]\nlayout = "directory"', "", "variants.platforms"),
    ],
)
def test_a_name_that_takes_a_folders_place_is_refused(make_project, hotplex, variants, rest, key):
    root = _project(make_project, rest=rest)
    text = (root / "hotplex.toml").read_text("utf-8")
    if variants:
        text = text.replace('platforms = ["slack"]\n', variants + "\n")
    (root / "hotplex.toml").write_text(text, encoding="utf-8")
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert f"hotplex.toml: {key}: '" in result.stderr and "is reserved" in result.stderr
    assert not (root / "dist").exists()


# --- 7. a changed out ---------------------------------------------------------------------------


def test_artifacts_in_the_previous_out_are_orphans(make_project, hotplex):
    root = _project(make_project)
    assert hotplex("-C", str(root), "build").status == 0
    (root / "dist/notes.txt").write_text("mine\n", encoding="utf-8")  # not hotplex's
    manifest = root / "hotplex.toml"
    manifest.write_text(
        manifest.read_text("utf-8").replace("[project]\n", '[project]\nout = "build"\n')
    )
    check = hotplex("-C", str(root), "check")
    assert check.status == 1
    assert "orphaned: dist/cc/default/prompt.xml (a build would delete it)" in check.stdout
    assert "hotplex: 2 artifact set(s) out of date, 6 orphaned file(s); run: " in check.stdout
    built = hotplex("-C", str(root), "build")
    assert built.status == 0
    assert "deleted dist/cc/slack/launch.json" in built.stdout
    assert _tree(root / "dist") == {"notes.txt"}  # only the files the log recorded
    assert (root / "build/cc/slack/prompt.xml").is_file()
    assert hotplex("-C", str(root), "check").status == 0


# --- 8. frontmatter that is not a mapping -------------------------------------------------------


def test_a_memory_file_starting_with_a_rule_gets_both_ways_out(make_project, hotplex):
    files = {**FIVE, "MEMORY.md": "---\nChose Postgres on Monday.\n---\nMore.\n"}
    root = _project(make_project, files=files)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "agent-configs/MEMORY.md:2:1: frontmatter must be a mapping of keys, not str" in (
        result.stderr
    )
    assert "frontmatter = false" in result.stderr and "'***'" in result.stderr
    assert not (root / "dist").exists()
    manifest = root / "hotplex.toml"
    manifest.write_text(
        manifest.read_text("utf-8") + '\n[[source]]\nname = "memory"\nfrontmatter = false\n'
    )
    assert hotplex("-C", str(root), "build").status == 0
    assert "<memory>\nRecall relevant past context when applicable.\n---\nChose Postgres" in (
        _prompt(root)
    )


# --- 9. smaller items ---------------------------------------------------------------------------


def test_unclosed_if_counts_the_frontmatter_in_both_places(make_project, hotplex):
    files = {**FIVE, "SOUL.md": "---\ntitle: x\n---\nHi.\n{% if platform %}\nslack\n"}
    root = _project(make_project, files=files)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "agent-configs/SOUL.md:5:1: unclosed {% if %} opened at agent-configs/SOUL.md:5:1" in (
        result.stderr
    )


def test_an_overflowing_builtin_block_is_not_blamed_on_the_manifest(make_project, hotplex):
    root = _project(make_project, project="", rest="")
    manifest = root / "hotplex.toml"
    manifest.write_text(
        manifest.read_text("utf-8") + '\n[limits]\nper_file = 50\noverflow = "error"\n'
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert "\nthe built-in META-COGNITION block: " in "\n" + result.stderr
    assert "hotplex.toml: the built-in" not in result.stderr
    assert "[metacognition] file" in result.stderr


def test_suggested_commands_are_shell_quoted(make_project, hotplex):
    root = _project(make_project, files=FIVE)
    quoted = root.parent / "项目 one"
    root.rename(quoted)
    result = hotplex("-C", "项目 one", "check", cwd=quoted.parent)
    assert result.status == 1
    assert result.stdout.endswith("run: hotplex -C '项目 one' build\n")


def test_json_reports_keep_their_keys_on_an_error_and_spell_the_base_platform_null(
    make_project, hotplex
):
    root = _project(make_project, project='sources = "nowhere"')
    for command, listed in (("build", "deleted"), ("check", "orphans")):
        report = json.loads(hotplex("-C", str(root), command, "--json").stdout)
        assert report["artifacts"] == [] and report[listed] == [] and report["warnings"] == []
        assert report["errors"][0]["key"] == "project.sources"
    text = (root / "hotplex.toml").read_text("utf-8").replace('"nowhere"', '"agent-configs"')
    (root / "hotplex.toml").write_text(text, encoding="utf-8")
    graph = json.loads(hotplex("-C", str(root), "graph", "--format", "json").stdout)
    platforms = {n.get("platform", "-") for n in graph["nodes"] if n["kind"] == "artifact"}
    assert platforms == {None, "slack"}
    stats = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)
    assert {a["platform"] for a in stats["artifacts"]} == {None, "slack"}
    built = json.loads(hotplex("-C", str(root), "build", "--json").stdout)
    assert {a["platform"] for a in built["artifacts"]} == {None, "slack"}


def test_a_declared_source_whose_file_is_misspelt_is_named(make_project, hotplex):
    rest = '[[source]]\nname = "tools"\nfile = "TOOL.md"\nchannel = "B"\ntag = "tools"\n'
    root = _project(make_project, files={**FIVE, "TOOLS.md": "Use the shell.\n"}, rest=rest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert (
        "warning: source 'tools': agent-configs/TOOL.md does not exist, so no artifact has it"
        " — did you mean 'TOOLS.md'?" in result.stderr
    )
    assert "warning: agent-configs/TOOLS.md is read by no artifact" in result.stderr
    assert "Use the shell." not in _prompt(root)


def test_clean_after_a_changed_out_removes_the_logs_files_in_the_earlier_folder(
    make_project, hotplex
):
    root = _project(make_project)
    assert hotplex("-C", str(root), "build").status == 0
    (root / "dist/notes.txt").write_text("mine\n", encoding="utf-8")
    manifest = root / "hotplex.toml"
    manifest.write_text(
        manifest.read_text("utf-8").replace("[project]\n", '[project]\nout = "o"\n')
    )
    result = hotplex("-C", str(root), "clean")
    assert result.status == 0
    assert "removed dist/cc/default/prompt.xml" in result.stdout
    assert _tree(root / "dist") == {"notes.txt"}


def test_an_ignore_pattern_that_matches_nothing_is_named(make_project, hotplex):
    files = {**FIVE, "drafts/idea.md": "later\n"}
    root = _project(make_project, files=files, project='ignore = ["draft/**"]')
    result = hotplex("-C", str(root), "build")
    assert result.status == 0
    assert (
        "warning: [project] ignore[0] 'draft/**' matches no file in 'agent-configs/' — did you"
        " mean 'drafts/**'?" in result.stderr
    )
    assert "agent-configs/drafts/idea.md is read by no artifact" in result.stderr


def test_init_suggests_a_misspelt_worker(tmp_path, hotplex):
    result = hotplex("init", "--worker", "openclw", cwd=tmp_path)
    assert result.status == 2
    assert "init knows no worker 'openclw'\n  hint: did you mean 'openclaw'?" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_launch_json_spells_the_base_platform_null_as_the_json_reports_do(make_project, hotplex):
    workers = {"cc": "claude-code", "codex": "codex", "gemini": "gemini-cli"}
    rest = "".join(
        f'[[target]]\nname = "{n}"\nworker = "{w}"\n' for n, w in workers.items() if n != "cc"
    )
    root = _project(make_project, rest=rest)
    assert hotplex("-C", str(root), "build").status == 0
    for name in workers:
        for platform, expected in (("default", None), ("slack", "slack")):
            launch = json.loads((root / f"dist/{name}/{platform}/launch.json").read_text("utf-8"))
            assert launch["platform"] == expected, (name, platform)


def test_allow_files_patterns_that_match_nothing_are_named_with_the_glob_meant(
    make_project, hotplex
):
    files = {**FIVE, "i18n/es.md": "Hola.\n"}
    project = '[secrets]\nallow_files = ["USER.md", "agent-configs/SOUL.md"]\n'
    project += '[unicode]\nallow_files = ["agent-configs/i18n/**", "i18n/**", "nowhere/*.md"]\n'
    project += '[injection]\nallow_files = ["overlay:*"]\n'  # users' files: allows them
    root = _project(make_project, files=files, project=project)
    for run in ("build", "build", "check"):  # the no-op build and check say it too
        result = hotplex("-C", str(root), run)
        assert result.status == 0, result.stderr
        relative = "patterns match paths from the project folder, such as 'agent-configs/AGENTS.md'"
        assert (
            f"warning: [secrets] allow_files[0] 'USER.md' matches no file in the project, so it"
            f" allows nothing ({relative}) — did you mean 'agent-configs/USER.md'?"
        ) in result.stderr
        assert (
            f"warning: [unicode] allow_files[1] 'i18n/**' matches no file in the project, so it"
            f" allows nothing ({relative}) — did you mean 'agent-configs/i18n/**'?"
        ) in result.stderr
        assert "[unicode] allow_files[2] 'nowhere/*.md' matches no file in the project" in (
            result.stderr
        )
        assert "allow_files[0] 'agent-configs/i18n/**'" not in result.stderr
        assert "'agent-configs/SOUL.md' matches" not in result.stderr
        assert "'overlay:*' matches" not in result.stderr


def test_a_misspelt_overlay_glob_is_named_by_check_overlay_with_the_glob_meant(
    make_project, hotplex, tmp_path
):
    """``check --overlay``, the command that reads users' files, said nothing of an overlay
    glob that names none (adversary21 D6); a glob in another letter case was offered its
    folder's ``**``, which allows every file there (D7)."""
    slips = ["Overlay:*", "overlay: *", "OVERLAY:**", "overlay/*", "overlay:", "overlay:u/*"]
    globs = ", ".join(f'"{g}"' for g in [*slips, "agent-configs/*.MD"])
    root = _project(make_project, project=f"[secrets]\nallow_files = [{globs}]\n")
    user = tmp_path / "u.md"
    user.write_text("- tea\n", "utf-8")
    meant = ["overlay:*", "overlay:*", "overlay:**", "overlay:*", "overlay:*"]
    for run in (["check", "--overlay", f"USER.md={user}"], ["build"], ["check"]):
        result = hotplex("-C", str(root), *run)
        assert result.status == 0, result.stderr
        for index, (slip, glob) in enumerate(zip(slips, meant, strict=False)):
            assert (
                f"warning: [secrets] allow_files[{index}] '{slip}' names no user's file (one is"
                " named by 'overlay:' and its label) and no file in the project, so it allows"
                f" nothing — did you mean '{glob}'?"
            ) in result.stderr
        assert "'overlay:u/*'" not in result.stderr
        if run != ["check", "--overlay", f"USER.md={user}"]:
            assert "'agent-configs/*.MD' matches no file" in result.stderr
            assert "did you mean 'agent-configs/*.md'?" in result.stderr
    (root / "overlay").mkdir()  # a folder of the project: overlay/* is no slip
    (root / "overlay" / "x.md").write_text("x\n", "utf-8")
    result = hotplex("-C", str(root), "check", "--overlay", f"USER.md={user}")
    assert "'overlay/*'" not in result.stderr


def test_a_prefix_one_or_two_edits_from_overlay_before_a_colon_is_a_slip(
    make_project, hotplex, tmp_path
):
    """``overlays:*``, a full-width or doubled colon, a ';' or a misspelt word allowed nothing,
    and ``check --overlay`` said nothing of it (adversary22 D7). A glob of a folder
    (``overlays/*``) or of a user's absolute label (``overlay:/...``) is no slip."""
    slips = [
        "overlays:*",
        "overlay\uff1a*",
        "overlay;*",
        "overlay::*",
        "overlai:*",
        "0verlay ; u/*",
    ]
    controls = ["overlays/*", "overlay:/home/*"]
    tables = {"secrets": [*slips[:4], *controls], "injection": slips[4:]}
    project = "".join(
        f"[{table}]\nallow_files = [{', '.join(repr(g) for g in globs)}]\n"
        for table, globs in tables.items()
    )
    root = _project(make_project, project=project)
    (root / "overlays").mkdir()
    (root / "overlays" / "x.md").write_text("x\n", "utf-8")
    user = tmp_path / "u.md"
    user.write_text("token: Xk9mP2vL8qR4wzT7aB3c\n", "utf-8")
    meant = ["overlay:*"] * 5 + ["overlay:u/*"]
    places = [("secrets", i) for i in range(4)] + [("injection", i) for i in range(2)]
    for run in (["check", "--overlay", f"USER.md={user}"], ["build"], ["check"]):
        result = hotplex("-C", str(root), *run)
        for slip, glob, (table, index) in zip(slips, meant, places, strict=True):
            assert (
                f"warning: [{table}] allow_files[{index}] '{slip}' names no user's file (one is"
                " named by 'overlay:' and its label) and no file in the project, so it allows"
                f" nothing — did you mean '{glob}'?"
            ) in result.stderr, (run, slip)
        assert all(f"'{control}' names" not in result.stderr for control in controls)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-f", "/dev/zero"], "'/dev/zero' is a device, not a regular file"),
        (["-f", "pipe"], "'pipe' is a FIFO (named pipe), not a regular file"),
        (["-f", "folder"], "'folder' is a directory, not a regular file"),
        (["-C", "pipe"], "-C pipe: 'pipe' is a FIFO (named pipe), not a directory"),
        (["-C", "/dev/zero"], "-C /dev/zero: '/dev/zero' is a device, not a directory"),
        (["-C", "file"], "-C file: 'file' is a regular file, not a directory"),
    ],
)
def test_a_manifest_or_folder_of_the_wrong_kind_is_named_so(tmp_path, hotplex, args, message):
    """Said as --overlay and --facts say it: it exists, so neither "does not exist" nor a hint
    to init the folder a device sits in; and nothing written, nothing waited on."""
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    result = hotplex(*args, "build", cwd=tmp_path, timeout=20)
    assert result.status == 2
    assert result.stderr.startswith(message), result.stderr
    assert "init" not in result.stderr and "does not exist" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "folder", "pipe"]
