"""One small project per rule of Claude Code's CLAUDE.md loading, and how to compare what hotplex
builds from it with what Claude Code sent.

``CASES`` are written into a folder; Claude Code runs there (tests/integration) and its request
gives the entries it loaded: ``Contents of <path> (<label>):`` then the text. hotplex imports the
same folder in place, builds it, and the Claude Code target must hold the same files, in the
same order, with the same texts (LF line ends: hotplex's own normalisation).

``RECORDED`` holds the entries captured from the real CLI (version in the file), so the unit tests
run without it; the integration test compares hotplex with a live capture each time.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

RECORDED = Path(__file__).parent / "fixtures" / "claude-imports.json"
PRIVATE_LABEL = "user's private project instructions, not checked in"
_ENTRY = re.compile(r"^Contents of (.+?) \(([^()]*)\):\n\n", re.M)


@dataclass(frozen=True)
class Link:
    """A symbolic link in a case, to ``target`` (relative to the link's folder)."""

    target: str


def _bodies(names: list[str]) -> dict[str, str]:
    return {name: f"body of {name}\n" for name in names}


CASES: dict[str, dict[str, str | bytes | Link]] = {
    # Code spans, fenced and indented code blocks hold no imports.
    "code": {
        "CLAUDE.md": "span `@span.md` x\n```\n@fence.md\n```\n~~~\n@tilde.md\n~~~\n\n"
        "    @indented.md\n\nthen @real.md\n",
        **_bodies(["span.md", "fence.md", "tilde.md", "indented.md", "real.md"]),
    },
    # HTML blocks and tags hold no imports; what follows a comment on its line does.
    "html": {
        "CLAUDE.md": '<div>\n@block.md\n</div>\n\n<a href="@attr.md">x</a> <b>@tag.md</b>\n\n'
        "<!-- @comment.md -->\n<!-- c --> @after.md\n",
        **_bodies(["block.md", "attr.md", "tag.md", "comment.md", "after.md"]),
    },
    # Emphasis, link text, headings, lists, quotes and table cells start a text run; a link
    # target and GitHub's ~~strikethrough~~ (not parsed) do not.
    "markdown-runs": {
        "CLAUDE.md": "# @head.md\n\n**@strong.md** _@em.md_ ~~@strike.md~~ [@text.md](x)"
        " [x](@target.md)\n\n- @item.md\n\n> @quote.md\n\n| h |\n|---|\n| @cell.md |\n",
        **_bodies(
            [
                "head.md",
                "strong.md",
                "em.md",
                "strike.md",
                "text.md",
                "target.md",
                "item.md",
                "quote.md",
                "cell.md",
            ]
        ),
    },
    # An "@" inside a word (an e-mail address) is no import.
    "email": {
        "CLAUDE.md": "Mail user@mail.md or ask @mail.md\n",
        **_bodies(["mail.md"]),
    },
    # The path runs to whitespace: trailing punctuation is part of it; "#..." is cut; "\ " is
    # a space.
    "punctuation": {
        "CLAUDE.md": "@a.md. @a.md, (@a.md) @a.md: @frag.md#part @my\\ file.md\n",
        **_bodies(["a.md", "frag.md", "my file.md"]),
    },
    # A bare name is a file name like any other: it loads when the file exists.
    "bare-names": {
        "CLAUDE.md": "Ask @alice, @bob or read @Makefile\n",
        **_bodies(["alice", "Makefile"]),
    },
    # Text extensions only (any case), or none.
    "extensions": {
        "CLAUDE.md": "@img.png @UP.MD @notes.txt @conf.yaml @data.bin @script.sh\n",
        **_bodies(["img.png", "UP.MD", "notes.txt", "conf.yaml", "data.bin", "script.sh"]),
    },
    # What a path may start with; "\@" escapes.
    "path-starts": {
        "CLAUDE.md": "@#h.md @%p.md @@d.md @-dash.md @_u.md \\@esc.md @./dot.md\n",
        **_bodies(["#h.md", "%p.md", "@d.md", "-dash.md", "_u.md", "esc.md", "dot.md"]),
    },
    # Depth first: an imported file's imports come before the importer's next import.
    "order": {
        "CLAUDE.md": "@a.md then @b.md\n",
        "a.md": "A imports @c.md\n",
        "b.md": "B\n",
        "c.md": "C imports @d.md\n",
        "d.md": "D\n",
    },
    # Four levels of imports below the file itself, no more.
    "depth": {
        "CLAUDE.md": "@d1.md\n",
        **{f"d{i}.md": f"D{i} @d{i + 1}.md\n" for i in range(1, 8)},
    },
    # Each file once, cycles included, the importing file itself too.
    "cycles-and-repeats": {
        "CLAUDE.md": "@a.md @b.md @a.md @CLAUDE.md\n",
        "a.md": "A imports @b.md and @a.md\n",
        "b.md": "B imports @a.md\n",
    },
    # Missing files and folders load nothing; an empty file (after frontmatter and comments) is
    # left out, and so are its imports.
    "missing-and-empty": {
        "CLAUDE.md": "@missing.md @folder @empty.md @fm-only.md @comment-only.md @ok.md\n",
        "folder/inside.md": "inside\n",
        "empty.md": "",
        "fm-only.md": "---\nname: x\n---\n",
        "comment-only.md": "<!-- @hidden.md -->\n",
        "hidden.md": "hidden\n",
        "ok.md": "OK\n",
    },
    # Nothing outside the folder Claude Code runs in: "..", "~/", absolute paths elsewhere.
    "outside": {
        "CLAUDE.md": "@../outside.md @~/home.md @/etc/hostname @inside.md\n",
        "../outside.md": "outside\n",
        "inside.md": "inside\n",
    },
    # Relative to the importing file's folder.
    "relative": {
        "CLAUDE.md": "@docs/guide.md\n",
        "docs/guide.md": "Guide @style.md and @../top.md\n",
        "docs/style.md": "Style\n",
        "top.md": "Top\n",
        "style.md": "not this one\n",
    },
    # YAML frontmatter is not shown, in the file itself or in an imported one.
    "frontmatter": {
        "CLAUDE.md": "---\ntitle: main\n---\nMain @fm.md\n",
        "fm.md": "---\nowner: docs\n---\nImported body\n",
    },
    # Frontmatter hotplex would refuse: an unclosed block is text, invalid YAML is dropped.
    "frontmatter-broken": {
        "CLAUDE.md": "---\n# Rules\nUnclosed @bad-yaml.md @unclosed.md\n",
        "bad-yaml.md": "---\n: : bad [\n---\nAfter bad YAML\n",
        "unclosed.md": "---\nnot: closed\nStill text\n",
    },
    "frontmatter-invalid-yaml": {
        "CLAUDE.md": "---\nkey: [unclosed\n---\nBody @a.md\n",
        "a.md": "A\n",
    },
    # HTML comment blocks are not shown; a comment inside a line or a code block is.
    "comments": {
        "CLAUDE.md": "Top <!-- inline --> kept\n<!-- whole\nblock -->\nafter\n```\n<!-- in code -->\n"
        "```\n@imported.md\n",
        "imported.md": "Body\n<!-- gone -->\nend\n",
    },
    # Each text is trimmed; BOM and CRLF are read as text (hotplex: LF, no BOM).
    "whitespace": {
        "CLAUDE.md": "\n\n   Indented first line\n@ws.md @crlf.md @bom.md\n\n\n",
        "ws.md": "\n\n\tTabbed\nlast   \n\n",
        "crlf.md": "line1\r\nline2\r\n",
        "bom.md": "\ufeffWith BOM\n",
    },
    # CLAUDE.md, then .claude/CLAUDE.md, then .claude/rules/**/*.md (not those scoped by
    # paths:), a shared import once across them; CLAUDE.local.md is private (hotplex leaves it
    # out); AGENTS.md and sub/CLAUDE.md are not read at start.
    "layout": {
        "CLAUDE.md": "Root @shared.md\n",
        ".claude/CLAUDE.md": "Folder @shared.md @x.md\n",
        ".claude/x.md": "X in .claude\n",
        ".claude/rules/style.md": "Style rule @shared.md\n",
        ".claude/rules/more/tests.md": "Tests rule\n",
        ".claude/rules/scoped.md": '---\npaths:\n  - "src/**"\n---\nScoped rule\n',
        "shared.md": "Shared\n",
        "CLAUDE.local.md": "Private\n",
        "AGENTS.md": "Agents\n",
        "sub/CLAUDE.md": "Nested\n",
    },
    # A CLAUDE.md that is a symlink (to agents/AGENTS.md, so one file serves every tool), an
    # imported symlink and a file in a linked folder: imports are relative to the folder the
    # file really is in.
    "symlinks": {
        "CLAUDE.md": Link("agents/AGENTS.md"),
        "agents/AGENTS.md": "Shared rules @p.md @../top.md @guide.md @../lib/x.md\n",
        "lib": Link("vendor/lib"),
        "vendor/lib/x.md": "X @../z.md\n",
        "z.md": "z at the top\n",
        "vendor/z.md": "z beside the linked folder's target\n",
        "agents/p.md": "p beside the link's target\n",
        "agents/guide.md": Link("../docs/guide.md"),
        "docs/guide.md": "Guide @style.md\n",
        "docs/style.md": "style beside the guide\n",
        "p.md": "p beside the link\n",
        "style.md": "style beside CLAUDE.md\n",
        "agents/style.md": "style beside the guide's link\n",
        "top.md": "Top\n",
    },
}


def write_case(root: Path, name: str) -> Path:
    """The case's files under ``root/name`` (``../x`` lands beside it); the folder."""
    folder = root / name
    for rel, content in CASES[name].items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def captured_entries(text: str, folder: Path) -> list[tuple[str, str]]:
    """(project path, text) of each project file in Claude Code's memory message, in its order;
    CLAUDE.local.md (private) is left out, as hotplex does, and texts get LF line ends."""
    matches = list(_ENTRY.finditer(text))
    entries = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else text.find("</system")
        body = text[match.end() : end if end >= 0 else len(text)]
        if match.group(2) == PRIVATE_LABEL:
            continue
        path = Path(match.group(1)).relative_to(folder.resolve()).as_posix()
        entries.append((path, body.replace("\r\n", "\n").strip("\n")))
    return entries


def comparable(entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Claude Code lists .claude/rules in directory order, which differs between file systems;
    hotplex sorts them by path. Everything else keeps its order."""
    rules = sorted(e for e in entries if e[0].startswith(".claude/rules/"))
    order = iter(rules)
    return [next(order) if e[0].startswith(".claude/rules/") else e for e in entries]


def loaded(entries: list[tuple[str, str]]) -> tuple[list[str], str]:
    """(files in order, their texts joined by a blank line): what an artifact can be compared by."""
    return [path for path, _ in entries], "\n\n".join(text for _, text in entries)


def hotplex_loaded(folder: Path, *import_args: str) -> tuple[list[str], str]:
    """``hotplex import`` (in place unless told), ``build`` and ``check`` in ``folder``; the files
    of the claude-code target's sections made from Claude Code's files (``imports = "claude"``),
    named from where the originals are, and their texts joined by a blank line."""
    from hotplex.cli import main

    for args in (["import", *import_args], ["build"], ["check"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = main(["-C", str(folder), *args])
        assert status == 0, out.getvalue()
    manifest = tomllib.loads((folder / "hotplex.toml").read_text(encoding="utf-8"))
    claude = {s["name"] for s in manifest["source"] if s.get("imports") == "claude"}
    prefix = manifest["project"].get("sources", "agent-configs").rstrip("/") + "/"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-C", str(folder), "stats", "cc", "--json"]) == 0
    artifact = json.loads(out.getvalue())["artifacts"][0]
    xml = (folder / artifact["path"]).read_text(encoding="utf-8")
    files, texts = [], []
    for section in artifact["sections"]:
        if section["name"] not in claude:
            continue
        tag = re.escape(section["name"])
        match = re.search(rf"^<{tag}>\n[^\n]*\n(.*?)\n</{tag}>$", xml, re.S | re.M)
        assert match, f"no <{section['name']}> in {xml}"
        files += [f.removeprefix(prefix) for f in section["files"]]
        texts.append(match.group(1))
    return files, "\n\n".join(texts)


def recorded() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))
