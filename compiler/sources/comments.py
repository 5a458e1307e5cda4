"""HTML comments: text a rendered page does not show, but a model reads.

Real instruction files use ``<!-- … -->`` for notes to their maintainers, so comments are kept by
default; ``html_comments = "strip"`` (in ``[project]`` or a ``[[source]]``) removes them from what
a worker receives, as Claude Code does with CLAUDE.md. Either way ``hotplex stats`` counts the
characters each file holds inside comments, so a reviewer sees when most of a file is hidden.

A comment is what a Markdown renderer hides: from ``<!--`` outside code (fenced blocks and code
spans, as for templates) to the first ``-->`` after it (``<!-->`` closes itself, as in HTML), or
to the end of the text when none follows.
"""

from __future__ import annotations

import bisect

from hotplex.templates.code_regions import code_regions

_OPEN, _CLOSE = "<!--", "-->"


def regions(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) offsets of the comments in ``text``."""
    start = text.find(_OPEN)
    if start < 0:
        return []
    code = code_regions(text)
    found: list[tuple[int, int]] = []
    while start >= 0:
        index = bisect.bisect_right(code, (start, len(text))) - 1
        if index >= 0 and code[index][0] <= start < code[index][1]:
            start = text.find(_OPEN, code[index][1])  # code, not a comment
            continue
        close = text.find(_CLOSE, start + 2)
        end = len(text) if close < 0 else close + len(_CLOSE)
        found.append((start, end))
        start = text.find(_OPEN, end)
    return found


def hidden_chars(text: str) -> int:
    """How many characters of ``text`` sit inside comments."""
    return sum(end - start for start, end in regions(text))


def strip(text: str) -> str:
    """``text`` without its comments; a comment alone on its lines takes those lines with it, so
    no blank line is left where it was."""
    pieces: list[str] = []
    last = 0
    for start, end in regions(text):
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        alone = not text[line_start:start].strip() and not text[end:line_end].strip()
        if alone and line_start >= last:
            start, end = line_start, min(line_end + 1, len(text))
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
