"""Which files Claude Code loads from a CLAUDE.md, and the text it shows of each.

A source with ``imports = "claude"`` is read the way Claude Code 2.1.332 reads its memory files
(observed against a fake Messages API; every rule has a test in
tests/sources/test_claude_imports.py and is compared with the live CLI in
tests/integration/test_claude_imports_live.py):

- The file's own text is kept as written, ``@path`` included. Its entry, and each imported
  file's, is the text after the YAML frontmatter, without HTML comment blocks (a top-level block
  starting with ``<!--``; comments inside a line or a code block stay), trimmed. A file whose
  entry would be empty is left out, and its imports are not followed.
- An import is ``@`` at the start of a Markdown text run or after whitespace, outside code
  blocks, code spans and HTML (the remainder of an HTML comment block counts as text). Emphasis
  and link text start a run (``**@a.md**``, ``[@a.md](x)``); a link target does not. There are
  no tables or strikethrough (Markdown without GitHub's extensions). ``\\@`` is no import.
- The path runs to the next whitespace (``\\ `` is a space), loses a ``#fragment``, and keeps any
  trailing punctuation (``@a.md.`` names ``a.md.``). It must start with ``./``, ``~/``, ``/`` or
  a letter, digit, ``.``, ``_`` or ``-``. Its extension must be a text one (``TEXT_EXTENSIONS``,
  any case) or absent (``@Makefile``, ``@alice``).
- It is relative to the importing file's folder; for a symlink, the folder of the file it
  points to (a CLAUDE.md linked to agents/AGENTS.md imports from agents/). A file outside the
  project (``../x.md``, ``~/x.md``, an absolute path elsewhere, a symlink leading out) is not
  loaded, nor is a folder, a missing file or one over 4 MiB.
- Depth first: a file's entry comes right after the file that imports it, before the next
  import of the importer; each file once per session (across every source read this way), up to
  four imports deep.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hotplex.text import commonmark

# Claude Code loads at most this many levels: the file itself and four levels of imports.
MAX_DEPTH = 5
MAX_BYTES = 4 * 1024 * 1024
TEXT_EXTENSIONS = frozenset(
    re.findall(
        r"\S+",
        ".md .txt .text .json .yaml .yml .toml .xml .csv .html .htm .css .scss .sass .less .js "
        ".ts .tsx .jsx .mjs .cjs .mts .cts .py .pyi .pyw .rb .erb .rake .go .rs .java .kt .kts "
        ".scala .c .cpp .cc .cxx .h .hpp .hxx .cs .swift .sh .bash .zsh .fish .ps1 .bat .cmd .env "
        ".ini .cfg .conf .config .properties .sql .graphql .gql .proto .vue .svelte .astro .ejs "
        ".hbs .pug .jade .php .pl .pm .lua .r .dart .ex .exs .erl .hrl .clj .cljs .cljc .edn .hs "
        ".lhs .elm .ml .mli .f .f90 .f95 .for .cmake .make .makefile .gradle .sbt .rst .adoc "
        ".asciidoc .org .tex .latex .lock .log .diff .patch",
    )
)
# JavaScript's String.prototype.trim set (Python's strip also takes \x1c-\x1f and not U+FEFF).
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
_IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_VALID_START = re.compile(r"[A-Za-z0-9._-]")
_SKIPPED = frozenset({"fence", "code_block", "code_inline", "html_inline", "image"})


def body_of(text: str) -> str:
    """Claude Code's frontmatter rule for a decoded file: a first line ``---`` up to the next
    ``---`` line is dropped, valid YAML or not; with no closing line it is all text."""
    lines = text.split("\n")
    if lines and lines[0].rstrip(" \t") == "---":
        for index in range(1, len(lines)):
            if lines[index].rstrip(" \t") == "---":
                return "\n".join(lines[index + 1 :])
    return text


def js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def _comment_block(token: Any) -> bool:
    raw = token.content.lstrip()
    return token.type == "html_block" and raw.startswith("<!--") and "-->" in raw


def visible_text(body: str) -> str:
    """What Claude Code shows of a file's body (frontmatter already gone): trimmed, without
    top-level HTML comment blocks and the line ends right after them."""
    if "<!--" not in body:
        return js_trim(body)
    out, cursor = [], 0
    for token in commonmark.parser().parse(body):
        if token.level or not _comment_block(token):
            continue
        raw = token.content.rstrip("\n")  # the parser ends the last block with a newline
        start = body.find(raw, cursor)
        if start < 0:
            continue
        end = start + len(raw)
        while end < len(body) and body[end] == "\n":
            end += 1
        rest = _COMMENT.sub("", body[start:end])
        out.append(body[cursor:start] + (rest if js_trim(rest) else ""))
        cursor = end
    out.append(body[cursor:])
    return js_trim("".join(out))


def written_imports(body: str) -> list[str]:
    """The paths a body imports, as written (fragment cut, ``\\ `` unescaped), in order, once."""
    if "@" not in body:
        return []
    found: dict[str, None] = {}

    def scan(text: str) -> None:
        for match in _IMPORT.finditer(text):
            path = match.group(1).split("#", 1)[0].replace("\\ ", " ")
            if path and _well_formed(path):
                found.setdefault(path)

    def walk(tokens: list[Any]) -> None:
        for token in tokens:
            kind = token.type
            if kind in _SKIPPED:
                continue
            if kind == "html_block":
                if _comment_block(token):
                    rest = _COMMENT.sub("", token.content)
                    if js_trim(rest):
                        scan(rest)
                continue
            if kind == "text":
                scan(token.content)
            walk(token.children or ())

    escaped = body.replace("\\@", "\\\x00")  # an escaped "@" starts nothing
    walk(commonmark.parser().parse(escaped))
    return list(found)


def _well_formed(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and path != "/"):
        return True
    return bool(_VALID_START.match(path)) and not path.startswith("@")


def locate(written: str, importer: str, root: Path) -> str | None:
    """The project-relative file an import names, or None when Claude Code would not load it
    (another extension, outside the project, a folder, too big). A missing file is returned:
    it is a dependency, since creating it changes what Claude Code loads."""
    extension = posixpath.splitext(posixpath.basename(written))[1].lower()
    if extension and extension not in TEXT_EXTENSIONS:
        return None
    if written.startswith("~/"):
        return None
    top = os.path.normpath(root.absolute())
    real_top = os.path.realpath(top)
    if written.startswith("/"):
        absolute = os.path.normpath(written)
    else:
        # The folder of the file the importer is: a CLAUDE.md linked to agents/AGENTS.md
        # imports from agents/, as Claude Code resolves the link before reading.
        folder = os.path.relpath(
            os.path.dirname(os.path.realpath(os.path.join(top, importer))), real_top
        )
        absolute = os.path.normpath(os.path.join(top, folder, written))
    if os.path.commonpath([absolute, top]) != top or absolute == top:
        return None
    real = os.path.realpath(absolute)
    if os.path.commonpath([real, real_top]) != real_top:
        return None
    try:
        info = os.stat(absolute)
    except (FileNotFoundError, NotADirectoryError):
        return Path(os.path.relpath(absolute, top)).as_posix()
    except OSError:
        return None
    if not os.path.isfile(absolute) or info.st_size > MAX_BYTES:
        return None
    return Path(os.path.relpath(absolute, top)).as_posix()


def load_order(
    display: str,
    body: str,
    root: Path,
    read: Callable[[str], str | None],
    seen: set[str],
    importing: str | None = None,
    data: Callable[[str], bool] = lambda _path: False,
) -> list[tuple[str, str]]:
    """(file, text) for ``display`` and every file it imports, in Claude Code's order.

    ``read`` gives a project-relative file's body without frontmatter (None: it does not exist);
    ``seen`` holds the files already loaded this session and is updated. ``importing`` is the
    part of ``body`` whose imports are followed (all of it when None), and ``data(path)`` says
    an imported file is data whose own imports stay text: a user's overlaid file may not read
    the project's other files (another user's memory, ``.git/config``).
    """
    entries: list[tuple[str, str]] = []

    def visit(path: str, text: str | None, depth: int, importing: str | None) -> None:
        if path in seen or depth >= MAX_DEPTH:
            return
        seen.add(path)
        if text is None:
            text = read(path)
        shown = visible_text(text) if text is not None else ""
        if not shown:
            return
        entries.append((path, shown))
        if importing is None:
            importing = "" if depth and data(path) else text
        for written in written_imports(importing):
            target = locate(written, path, root)
            if target is not None:
                visit(target, None, depth + 1, None)

    visit(display, body, 0, importing)
    return entries
