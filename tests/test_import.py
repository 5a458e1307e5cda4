"""`hotplex import`: each kind of existing file is imported by the real command, the new project is
built at once, and each artifact is compared with the original files' text.

The expected text is derived here from the fixture files themselves, by the rule the issue states
(UTF-8, BOM dropped, CRLF -> LF, frontmatter stripped, blank lines around trimmed), with an
independent implementation: the compiler's helpers are not used to compute what it must produce.
The command runs in-process (``hotplex.cli.main``, what the installed script calls) to keep the
file fast; the first test drives the installed command itself.
"""

from __future__ import annotations

import contextlib
import io
import re
import tomllib
from pathlib import Path

import pytest
from hotplex.cli import main
from hotplex_testing import Result, run_hotplex, source_body, trimmed

# --- helpers -----------------------------------------------------------------------------------


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def section(xml: str, tag: str) -> str:
    """The text of <tag> in an agent-configuration document, without its one-line note."""
    match = re.search(
        rf"^<{re.escape(tag)}>\n[^\n]*\n(.*?)\n</{re.escape(tag)}>$", xml, re.S | re.M
    )
    assert match, f"no <{tag}> section in:\n{xml}"
    return match.group(1)


def run_cli(*args: str) -> Result:
    """The command line, in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return Result(status, out.getvalue(), err.getvalue())


def run_ok(*args: str, installed: bool = False) -> Result:
    result = (run_hotplex if installed else run_cli)(*args)
    assert result.status == 0, f"hotplex {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
    assert "Traceback" not in result.stderr
    return result


def import_and_build(repo: Path, *args: str, installed: bool = False) -> tuple[Path, Result]:
    """Run `hotplex import` in ``repo``, then build the new project; its folder and the report."""
    imported = run_ok("-C", str(repo), "import", *args, installed=installed)
    into = repo / args[args.index("--into") + 1] if "--into" in args else repo
    run_ok("-C", str(into), "build", installed=installed)
    return into, imported


def sources(project: Path) -> dict[str, dict]:
    manifest = tomllib.loads((project / "hotplex.toml").read_text(encoding="utf-8"))
    return {s["name"]: s for s in manifest["source"]}


def prompt(project: Path, target: str = "cc", platform: str = "default") -> str:
    manifest = tomllib.loads((project / "hotplex.toml").read_text(encoding="utf-8"))
    out = manifest["project"]["out"]
    return (project / out / target / platform / "prompt.xml").read_text(encoding="utf-8")


# --- CLAUDE.md ----------------------------------------------------------------------------------

CLAUDE = """\
# Project guide

See @docs/style.md for the style, but not `@docs/style.md` in code.
@AGENTS.md

Vue templates look like {{ user.name }} and Liquid like {% image "a.png" %}.

```yaml
token: ${{ secrets.API_TOKEN }}
greeting: "{{ hello }}"
```
"""
STYLE = "Write short sentences.\nMore in @deep/notes.md and @../CLAUDE.md is a loop.\n"
NOTES = "---\nowner: docs\n---\nNotes with {{ braces }}.\n"
AGENTS = "---\nversion: 1\n---\r\n# Agents\r\n\r\nKeep {% raw %} in mind.\r\n"


def test_claude_md_imports_become_includes_and_the_text_survives(tmp_path):
    repo = write_tree(
        tmp_path / "repo",
        {
            "CLAUDE.md": CLAUDE,
            "docs/style.md": STYLE,
            "docs/deep/notes.md": NOTES,
            "AGENTS.md": AGENTS,
        },
    )
    project, report = import_and_build(repo, installed=True)

    style = source_body(STYLE).replace("@deep/notes.md", source_body(NOTES))
    expected = source_body(CLAUDE).replace("See @docs/style.md for", f"See {style} for")
    expected = expected.replace("@AGENTS.md\n", source_body(AGENTS).rstrip("\n") + "\n")
    assert section(prompt(project), "claude") == trimmed(expected)
    # AGENTS.md is reached through CLAUDE.md's import, so it is no second section.
    assert list(sources(project)) == ["claude"]
    assert "<rules>" not in prompt(project)
    copied = (project / "agent-configs/CLAUDE.md").read_text(encoding="utf-8")
    assert '{% include "docs/style.md" %}' in copied
    assert "`@docs/style.md`" in copied  # inside code: not an import
    assert (
        '{% include "docs/deep/notes.md" %}'
        in (project / "agent-configs/docs/style.md").read_text()
    )
    assert "@../CLAUDE.md left as text" in report.stdout


def test_claude_md_without_anything_to_change_is_copied_byte_for_byte(tmp_path):
    original = (
        b"\xef\xbb\xbf# Rules\r\n\r\nUse `{{ x }}` in code only; ${{ env.X }} is GitHub's.\r\n"
    )
    repo = write_tree(tmp_path / "repo", {"CLAUDE.md": original})
    project, _ = import_and_build(repo)
    assert (project / "agent-configs/CLAUDE.md").read_bytes() == original
    assert section(prompt(project), "claude") == trimmed(source_body(original))


def test_a_leading_rule_line_that_opens_no_frontmatter_stays_text(tmp_path):
    original = "---\nA horizontal rule first, then prose; no closing fence.\n"
    repo = write_tree(tmp_path / "repo", {"CLAUDE.md": original})
    project, report = import_and_build(repo)
    assert section(prompt(project), "claude") == trimmed(original)
    assert "empty frontmatter block" in report.stdout


# --- AGENTS.md ----------------------------------------------------------------------------------


def test_agents_md_with_template_looking_text_is_opted_out_keeping_its_frontmatter(tmp_path):
    original = (
        '---\r\nversion: 1\r\ndescription: "Agent rules"\r\nx-custom: [a, b]\r\n---\r\n'
        '# Rules\r\n\r\nFill in {{anti_patterns}} later; {% image "x" %} is Liquid.\r\n'
    )
    repo = write_tree(tmp_path / "repo", {"AGENTS.md": original})
    project, report = import_and_build(repo)

    assert section(prompt(project), "rules") == trimmed(source_body(original))
    copied = (project / "agent-configs/AGENTS.md").read_text(encoding="utf-8")
    head = copied.split("\n---\n", 1)[0].split("\n")
    assert head == [
        "---",
        "template: false",
        "version: 1",
        'description: "Agent rules"',
        "x-custom: [a, b]",
    ]
    assert "template: false" in report.stdout


def test_identical_instruction_files_are_imported_once(tmp_path):
    text = "# Shared rules\n\nBe kind.\n"
    repo = write_tree(tmp_path / "repo", {"AGENTS.md": text, "CLAUDE.md": text, "GEMINI.md": text})
    project, report = import_and_build(repo)
    assert list(sources(project)) == ["rules"]
    assert report.stdout.count("same text as") == 2
    assert section(prompt(project), "rules") == trimmed(text)


# --- GEMINI.md ----------------------------------------------------------------------------------


def test_gemini_md_imports_with_dot_slash_paths(tmp_path):
    gemini = "# Gemini\n\n@./components/intro.md\n\nDone.\n"
    intro = "Intro text.\n"
    repo = write_tree(tmp_path / "repo", {"GEMINI.md": gemini, "components/intro.md": intro})
    project, _ = import_and_build(repo)
    expected = source_body(gemini).replace("@./components/intro.md\n", intro)
    assert section(prompt(project), "gemini") == trimmed(expected)


# --- Cursor ------------------------------------------------------------------------------------


def test_cursor_rules_map_by_rule_kind(tmp_path):
    files = {
        ".cursor/rules/general.mdc": "---\ndescription:\nglobs:\nalwaysApply: true\n---\nAlways english",
        ".cursor/rules/react.mdc": (
            '---\ndescription: React components\nglobs: ["src/**/*.tsx"]\nalwaysApply: false\n'
            "---\nUse function components; JSX like {value} is fine.\n"
        ),
        ".cursor/rules/manual.mdc": "---\nalwaysApply: false\n---\nOnly when mentioned.\n",
        ".cursorrules": "用中文回答。\n不要 {{ 模板 }}。",
    }
    repo = write_tree(tmp_path / "repo", files)
    project, report = import_and_build(repo)
    xml = prompt(project)
    listed = sources(project)

    assert list(listed) == ["cursorrules", "cursor-general", "cursor-react"]
    for name, rel in (
        ("cursorrules", ".cursorrules"),
        ("cursor-general", ".cursor/rules/general.mdc"),
    ):
        assert section(xml, name) == trimmed(source_body(files[rel]))
    assert section(xml, "cursor-react") == trimmed(source_body(files[".cursor/rules/react.mdc"]))
    assert (
        listed["cursor-react"]["note"]
        == "React components (applies to files matching src/**/*.tsx)"
    )
    assert "manual.mdc: a manual Cursor rule" in report.stdout
    # Cursor's own keys stay in the copy: nothing was changed in it.
    copied = project / "agent-configs/.cursor/rules/react.mdc"
    assert copied.read_text(encoding="utf-8") == files[".cursor/rules/react.mdc"]


# --- Copilot -----------------------------------------------------------------------------------


def test_copilot_instructions(tmp_path):
    files = {
        ".github/copilot-instructions.md": (
            "# Copilot\r\n\r\nDeploys read ${{ secrets.DEPLOY_KEY }}; never echo it.\r\n"
        ),
        ".github/instructions/python.instructions.md": (
            '---\napplyTo: "**/*.py"\n---\nType-hint every function.\n'
        ),
    }
    repo = write_tree(tmp_path / "repo", files)
    project, _ = import_and_build(repo)
    xml = prompt(project)
    assert section(xml, "copilot") == trimmed(source_body(files[".github/copilot-instructions.md"]))
    python = ".github/instructions/python.instructions.md"
    assert section(xml, "copilot-python") == trimmed(source_body(files[python]))
    assert "applies to files matching **/*.py" in sources(project)["copilot-python"]["note"]
    # `${{` never opens a template: the copy needed no change at all.
    copied = project / "agent-configs/.github/copilot-instructions.md"
    assert copied.read_bytes() == files[".github/copilot-instructions.md"].encode()


# --- ruler -------------------------------------------------------------------------------------


def test_ruler_folder_keeps_rulers_order(tmp_path):
    files = {
        "AGENTS.md": "Root summary.\n",
        ".ruler/AGENTS.md": "Ruler primary.\n",
        ".ruler/zeta.md": "Zeta rules.\n",
        ".ruler/Beta.md": "Beta rules.\n",
        ".ruler/api/style.md": "API style.\n",
        ".ruler/ruler.toml": 'default_agents = ["claude"]\n',
        ".ruler/skills/pdf/SKILL.md": "A skill.\n",
        "CLAUDE.md": "<!-- Generated by Ruler -->\n<!-- Source: .ruler/AGENTS.md -->\nRuler primary.\n",
    }
    repo = write_tree(tmp_path / "repo", files)
    project, report = import_and_build(repo)
    xml = prompt(project)

    # ruler: the root AGENTS.md, .ruler/AGENTS.md, then the rest sorted by path.
    order = ["rules", "ruler", "ruler-api-style", "ruler-beta", "ruler-zeta"]
    assert list(sources(project)) == order
    assert [m for m in re.findall(r"^<([a-z-]+)>$", xml, re.M) if m in order] == order
    for name, rel in zip(
        order,
        [
            "AGENTS.md",
            ".ruler/AGENTS.md",
            ".ruler/api/style.md",
            ".ruler/Beta.md",
            ".ruler/zeta.md",
        ],
        strict=True,
    ):
        assert section(xml, name) == trimmed(files[rel])
    assert "CLAUDE.md: written by ruler" in report.stdout
    assert ".ruler/skills" in report.stdout and ".ruler/ruler.toml" in report.stdout


# --- OpenClaw ----------------------------------------------------------------------------------


def test_openclaw_workspace_becomes_an_openclaw_target(tmp_path):
    files = {
        "AGENTS.md": "# AGENTS\n\nRead SOUL.md first.\n",
        "SOUL.md": "---\nsummary: soul\n---\n# SOUL\n\nBe genuinely helpful.\n",
        "IDENTITY.md": "Name: Claw {{ emoji }}\n",
        "USER.md": "Call me Ada.\n",
        "MEMORY.md": "Ada prefers tea.\n",
        "memory/2026-01-02.md": "daily note\n",
    }
    workspace = write_tree(tmp_path / "workspace", files)
    project, report = import_and_build(workspace.parent, "workspace", "--into", "project")

    manifest = tomllib.loads((project / "hotplex.toml").read_text(encoding="utf-8"))
    assert manifest["target"] == [{"name": "claw", "worker": "openclaw"}]
    assert manifest["project"]["templates"] is False  # IDENTITY.md's {{ emoji }} is text
    out = project / manifest["project"]["out"] / "claw" / "default"
    for name in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"):
        expected = trimmed(source_body(files[name]))
        assert (out / "workspace" / name).read_text(encoding="utf-8") == expected + "\n"
        assert expected in (out / "context.md").read_text(encoding="utf-8")
    assert "workspace/memory: OpenClaw injects only its bootstrap files" in report.stdout
    assert (workspace / "IDENTITY.md").read_text() == files["IDENTITY.md"]  # never changed


# --- HotPlex agent-configs/ ---------------------------------------------------------------------

HOTPLEX_FILES = {
    "agent-configs/SOUL.md": "---\nversion: 1\n---\nGlobal soul.\n",
    "agent-configs/AGENTS.md": "Rules. Fill {{anti_patterns}} in.\n",
    "agent-configs/USER.md": "Global user.\n",
    "agent-configs/slack/SOUL.md": "Slack soul.\n",
    "agent-configs/slack/U123/SOUL.md": "Bot soul.\n",
    "agent-configs/slack/U123/USER.md": "Bot user.\n",
    "agent-configs/feishu/AGENTS.md": "Feishu rules.\n",
    "agent-configs/META-COGNITION.md": "HotPlex embeds its own.\n",
}


def test_hotplex_agent_configs_is_adopted_in_place_with_platforms_and_bots(tmp_path):
    repo = write_tree(tmp_path / "deploy", HOTPLEX_FILES)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    project, report = import_and_build(repo)

    after = {p: p.read_bytes() for p in before}
    assert after == before  # every file used where it is, unchanged
    manifest = tomllib.loads((project / "hotplex.toml").read_text(encoding="utf-8"))
    assert manifest["project"]["sources"] == "agent-configs"
    assert manifest["variants"] == {
        "platforms": ["feishu", "slack"],
        "mode": "replace",
        "layout": "directory",
    }

    def text(rel: str) -> str:
        return trimmed(source_body(HOTPLEX_FILES[f"agent-configs/{rel}"]))

    # HotPlex's per-file fallback: bot folder, then platform folder, then the global file.
    cases = {
        ("cc", "default"): {"persona": "SOUL.md", "rules": "AGENTS.md", "user": "USER.md"},
        ("cc", "slack"): {"persona": "slack/SOUL.md", "rules": "AGENTS.md", "user": "USER.md"},
        ("cc", "feishu"): {"persona": "SOUL.md", "rules": "feishu/AGENTS.md", "user": "USER.md"},
        ("cc-slack-U123", "slack"): {
            "persona": "slack/U123/SOUL.md",
            "rules": "AGENTS.md",
            "user": "slack/U123/USER.md",
        },
    }
    for (target, platform), expected in cases.items():
        xml = prompt(project, target, platform)
        for tag, rel in expected.items():
            assert section(xml, tag) == text(rel), (target, platform, tag)
    assert "META-COGNITION.md: HotPlex reads only" in report.stdout
    assert "templates are off" in report.stdout  # {{anti_patterns}} is HotPlex text, not a template


def test_hotplex_suffix_variants_append(tmp_path):
    files = {
        "agent-configs/SOUL.md": "Base soul.\n",
        "agent-configs/SOUL.slack.md": "Slack addendum.\n",
    }
    repo = write_tree(tmp_path / "old", files)
    project, _ = import_and_build(repo)
    manifest = tomllib.loads((project / "hotplex.toml").read_text(encoding="utf-8"))
    assert manifest["variants"] == {"platforms": ["slack"], "mode": "append", "layout": "suffix"}
    assert section(prompt(project, "cc", "slack"), "persona") == "Base soul.\n\nSlack addendum."


def test_hotplex_folder_outside_the_destination_is_copied(tmp_path):
    source = write_tree(tmp_path / "shared", {"agent-configs/SOUL.md": "Copied soul.\n"})
    project = tmp_path / "new"
    run_ok("import", str(source / "agent-configs"), "--into", str(project))
    run_ok("-C", str(project), "build")
    assert (project / "agent-configs/SOUL.md").read_bytes() == b"Copied soul.\n"
    assert section(prompt(project), "persona") == "Copied soul."


# --- safety -----------------------------------------------------------------------------------


def test_import_never_overwrites(tmp_path):
    repo = write_tree(tmp_path / "repo", {"CLAUDE.md": "Rules.\n"})
    run_ok("-C", str(repo), "import")
    snapshot = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}

    again = run_cli("-C", str(repo), "import")
    assert again.status == 2
    assert "hotplex.toml' already exists" in again.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == snapshot


def test_a_clash_stops_the_import_before_anything_is_written(tmp_path):
    repo = write_tree(
        tmp_path / "repo",
        {
            "CLAUDE.md": "New rules.\n",
            "GEMINI.md": "Gemini.\n",
            "agent-configs/CLAUDE.md": "Mine.\n",
        },
    )
    result = run_cli("-C", str(repo), "import")
    assert result.status == 2, result.stdout
    assert "agent-configs/CLAUDE.md' already exists with other content" in result.stderr
    assert "nothing was written" in result.stderr
    assert not (repo / "hotplex.toml").exists()
    assert not (repo / "agent-configs/GEMINI.md").exists()
    assert (repo / "agent-configs/CLAUDE.md").read_text() == "Mine.\n"


def test_dry_run_writes_nothing(tmp_path):
    repo = write_tree(tmp_path / "repo", {"AGENTS.md": "Rules.\n"})
    result = run_ok("-C", str(repo), "import", "--dry-run")
    assert "would write 1 file(s) and hotplex.toml" in result.stdout
    assert sorted(p.name for p in repo.iterdir()) == ["AGENTS.md"]


def test_an_existing_dist_folder_is_not_taken_as_the_artifact_folder(tmp_path):
    repo = write_tree(tmp_path / "repo", {"AGENTS.md": "Rules.\n", "dist/app/main/bundle.js": "x"})
    project, _ = import_and_build(repo)
    assert tomllib.loads((project / "hotplex.toml").read_text())["project"]["out"] == "hotplex-dist"
    assert (repo / "dist/app/main/bundle.js").read_text() == "x"


def test_a_big_file_gets_limits_it_fits_in(tmp_path):
    big = "".join(f"- rule {n}: keep this line exactly as written.\n" for n in range(2000))
    repo = write_tree(tmp_path / "repo", {"AGENTS.md": big})
    project, _ = import_and_build(repo)
    assert section(prompt(project), "rules") == trimmed(big)


# --- the bot overlay (model change the HotPlex import needs) -------------------------------------


BOT_MANIFEST = """\
[project]
sources = "src"
[metacognition]
enabled = false
[variants]
platforms = ["slack"]
mode = "{mode}"
layout = "{layout}"
[[source]]
name = "soul"
file = "SOUL.md"
channel = "B"
tag = "persona"
note = ""
[[target]]
name = "bot"
worker = "claude-code"
base = false
bot = "U1"
"""


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("append", "Base.\n\nSlack.\n\nBot."), ("replace", "Bot.")],
)
def test_bot_overlay_layers_after_the_platform(make_project, mode, expected):
    root = make_project(
        {
            "src/SOUL.md": "Base.\n",
            "src/slack/SOUL.md": "Slack.\n",
            "src/slack/U1/SOUL.md": "Bot.\n",
        },
        manifest=BOT_MANIFEST.format(mode=mode, layout="directory"),
    )
    assert run_cli("-C", str(root), "build").status == 0
    xml = (root / "dist/bot/slack/prompt.xml").read_text()
    assert re.search(r"<persona>\n(.*?)\n</persona>", xml, re.S).group(1) == expected


def test_a_new_bot_file_triggers_a_rebuild(make_project):
    root = make_project(
        {"src/SOUL.md": "Base.\n"}, manifest=BOT_MANIFEST.format(mode="replace", layout="directory")
    )
    assert run_cli("-C", str(root), "build").status == 0
    (root / "src/slack/U1").mkdir(parents=True)
    (root / "src/slack/U1/SOUL.md").write_text("Bot.\n")
    result = run_cli("-C", str(root), "build", "--explain")
    assert "new input src/slack/U1/SOUL.md" in result.stdout
    assert "<persona>\nBot.\n</persona>" in (root / "dist/bot/slack/prompt.xml").read_text()


def test_bot_overlay_needs_the_directory_layout_and_a_platform(make_project):
    manifest = BOT_MANIFEST.format(mode="append", layout="suffix").replace(
        'platforms = ["slack"]', "platforms = []"
    )
    root = make_project({"src/SOUL.md": "Base.\n"}, manifest=manifest)
    result = run_cli("-C", str(root), "build")
    assert result.status == 2
    assert "target[0].bot: bot overlays live in <platform>/<bot>/ folders" in result.stderr
    assert 'set [variants] layout = "directory"' in result.stderr
    assert "target[0].bot: a bot overlay needs a platform" in result.stderr


# --- more of Claude Code's import rules ---------------------------------------------------------


def test_imports_stop_after_five_hops_and_never_leave_the_folder(tmp_path):
    chain = {f"hop{n}.md": f"Hop {n}.\n@hop{n + 1}.md\n" for n in range(1, 7)}
    files = {
        "CLAUDE.md": "Start.\n@hop1.md\n@~/.claude/mine.md\n@../outside.md\n",
        **chain,
        "hop7.md": "Hop 7.\n",
    }
    repo = write_tree(tmp_path / "repo", files)
    (tmp_path / "outside.md").write_text("Outside.\n")
    project, report = import_and_build(repo)

    text = section(prompt(project), "claude")
    assert "Hop 5.\n@hop6.md" in text  # CLAUDE.md -> hop1 … hop5: five hops, then text
    assert "Hop 6." not in text
    assert "@~/.claude/mine.md\n@../outside.md" in text
    assert "@hop6.md left as text: deeper than Claude Code's 5 hops" in report.stdout
    assert "@~/.claude/mine.md left as text: a per-user file" in report.stdout
    assert "@../outside.md left as text: outside" in report.stdout


def test_a_foreign_template_key_is_not_taken_over(tmp_path):
    repo = write_tree(
        tmp_path / "repo",
        {"AGENTS.md": "Rules.\n", "CLAUDE.md": "---\ntemplate: post\n---\nA Jekyll page.\n"},
    )
    project, report = import_and_build(repo)
    assert list(sources(project)) == ["rules"]
    assert "frontmatter key 'template' is hotplex's on/off switch, here 'post'" in report.stdout


def test_nothing_to_import_is_an_error(tmp_path):
    repo = write_tree(tmp_path / "repo", {"README.md": "# A project\n"})
    result = run_cli("-C", str(repo), "import")
    assert result.status == 2
    assert "nothing to import" in result.stderr
    assert not (repo / "hotplex.toml").exists()


def test_instruction_files_beside_a_workspace_are_left_for_their_own_import(tmp_path):
    repo = write_tree(tmp_path / "repo", {**HOTPLEX_FILES, "CLAUDE.md": "Dev notes.\n"})
    project, report = import_and_build(repo)
    assert list(sources(project)) == ["soul", "rules", "skills", "user", "memory"]
    assert "CLAUDE.md: not imported with the HotPlex agent-configs" in report.stdout


def test_two_workspaces_do_not_merge(tmp_path):
    write_tree(tmp_path, {"a/agent-configs/SOUL.md": "A.\n", "b/IDENTITY.md": "B.\n"})
    result = run_cli("-C", str(tmp_path), "import", "a", "b", "--into", "new")
    assert result.status == 2
    assert "found more than one workspace" in result.stderr


# --- the {% raw %} wrapping, against the real template engine ----------------------------------

PIECES = ["{{", "}}", "{%", "%}", "{#", "#}", "{{ x }}", "{% image 'a' %}", "{# c #}", "${{"]
PIECES += ["`", "```", "~~~", "\n```\n", "\n\n", "\n", " ", "a", "}", "{", "raw", "endraw"]


def test_wrapped_template_looking_text_renders_as_written(tmp_path):
    """A file that needs includes keeps its other braces by {% raw %}: any mix of pieces."""
    from hypothesis import example, given
    from hypothesis import strategies as st

    counter = iter(range(10**6))

    @given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
    @example("${{{%}")  # a "}" after {% endraw %} would close the open ${{ around the edit
    @example("{%\n```%}")  # the closer inside an unclosed fence: wrap the opener alone
    def check(text):
        repo = tmp_path / f"case{next(counter)}"
        write_tree(repo, {"CLAUDE.md": "@part.md\n\n" + text + "\n", "part.md": "Part.\n"})
        from hotplex import importer
        from hotplex.api import Project

        importer.write(importer.plan([repo], repo))
        xml = Project.load(repo).compile("cc").text
        assert section(xml, "claude") == trimmed("Part.\n\n" + text)

    check()
