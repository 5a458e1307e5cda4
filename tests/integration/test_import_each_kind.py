"""``hotplex import && hotplex build && hotplex check`` on each kind of input leaves a project
whose Claude Code artifact holds exactly what Claude Code loads from the same folder.

The sections made from Claude Code's own files are compared with a live ``claude --print`` in
the folder (files, order, texts); sections from other tools' files (Cursor and Copilot rules
given to the target with ``--for``) come on top, and AGENTS.md or GEMINI.md never do.
"""

from __future__ import annotations

import pytest
from claude_import_cases import comparable, hotplex_loaded, loaded
from test_claude_imports_live import capture

pytestmark = pytest.mark.integration

SEE = "See @README.md for project overview and @package.json for available npm commands\n"
KINDS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "claude-md": (
        {"CLAUDE.md": SEE, "README.md": "# Proj\nA tool.\n", "package.json": '{"scripts": {}}\n'},
        (),
    ),
    "every-tool": (
        {
            "AGENTS.md": "# Shared\nBe kind.\n",
            "CLAUDE.md": "@AGENTS.md\n",
            "GEMINI.md": "@AGENTS.md\nGemini only.\n",
            ".cursorrules": "Cursor rule.\n",
            ".github/copilot-instructions.md": "Copilot rule.\n",
        },
        (),
    ),
    "claude-layout": (
        {
            "CLAUDE.md": "Root @docs/a.md\n",
            "docs/a.md": "A <!-- hidden -->\n<!-- gone -->\n@../shared.md\n",
            "shared.md": "---\nx: 1\n---\nShared\n",
            ".claude/CLAUDE.md": "Folder @../shared.md\n",
            ".claude/rules/one.md": "Rule one\n",
            ".claude/rules/scoped.md": '---\npaths: ["src/**"]\n---\nScoped\n',
            "CLAUDE.local.md": "Private\n",
        },
        (),
    ),
    "copied": (
        {"CLAUDE.md": SEE, "README.md": "# Proj\nA tool.\n", "package.json": '{"scripts": {}}\n'},
        ("--copy",),
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_imported_project_holds_what_claude_code_loads(kind, claude_cli, fake_anthropic, tmp_path):
    files, args = KINDS[kind]
    folder = tmp_path / "repo"
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (tmp_path / "home").mkdir()
    live = comparable(capture(claude_cli, fake_anthropic, folder))
    assert hotplex_loaded(folder, *args) == loaded(live)
