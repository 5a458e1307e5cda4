"""The one change ``import --copy`` may make to a copy, so hotplex reads it as it was written.

Pure: text in, bytes and the list of changes out. A file with template-looking text outside code
gets ``template: false`` in its frontmatter (every other key and byte kept) or, when it already
says ``template: true``, each such piece wrapped in ``{% raw %}``; a first line ``---`` that opens
no valid frontmatter gets an empty frontmatter block, so it stays text. Files used in place are
never changed: the planner turns templates off for the project instead.
"""

from __future__ import annotations

import bisect
import re

from hotplex.importing.found import Text, foreign
from hotplex.templates import parse as template

_OPENER = re.compile(r"\{\{|\{%|\{#")
_CLOSER = {"{{": "}}", "{%": "%}", "{#": "#}"}


def rewrite(text: Text) -> tuple[bytes, tuple[str, ...]]:
    """The bytes to copy and what was changed (nothing: the original bytes)."""
    wrap = foreign(text) and text.meta.get("template") is not False
    opt_out = wrap and "template" not in text.meta
    changes = []
    if opt_out:
        changes.append("template: false (it holds {{ / {% / {# outside code)")
    elif wrap:
        changes.append("{% raw %} around the {{ / {% / {# outside code")
    if text.broken:
        changes.append("an empty frontmatter block, so its first line '---' stays text")
    if not changes:
        return text.data, ()
    body = text.body if opt_out or not wrap else _raw(text.body)
    return (_header(text, opt_out) + body).encode("utf-8"), tuple(changes)


def _header(text: Text, opt_out: bool) -> str:
    flag = "template: false\n" if opt_out else ""
    if text.broken or not text.header:
        return f"---\n{flag}---\n" if flag or text.broken else ""
    first = text.header.index("\n") + 1  # keep every key and byte of the user's block
    return text.header[:first] + flag + text.header[first:]


def _raw(body: str) -> str:
    """Each template-looking piece outside code wrapped in {% raw %}, so it renders as written."""
    regions = template.code_regions(body)
    starts = [start for start, _ in regions]
    out, pos = [], 0
    for match in _OPENER.finditer(body):
        if match.start() < pos or _inside(regions, match.start()):
            continue
        index = bisect.bisect_right(starts, match.start())
        code = starts[index] if index < len(starts) else len(body)
        end = _piece_end(body, match, code)
        while end < code and body[end] == "}":
            end += 1  # "{% endraw %}}" would make a "}}" that ends a ${{ … }} after the edit
        out += [body[pos : match.start()], "{% raw %}", body[match.start() : end], "{% endraw %}"]
        pos = end
    return "".join(out) + body[pos:]


def _inside(regions: list[tuple[int, int]], offset: int) -> bool:
    index = bisect.bisect_right(regions, (offset, float("inf"))) - 1
    return index >= 0 and regions[index][0] <= offset < regions[index][1]


def _piece_end(body: str, opener: re.Match[str], code: int) -> int:
    """Through the closer when it comes before any other opener and before the next code (where
    a {% endraw %} would be hidden), else just the opener."""
    close = body.find(_CLOSER[opener.group()], opener.end(), code)
    following = _OPENER.search(body, opener.end())
    if close < 0 or close + 2 > code or (following is not None and following.start() < close):
        return opener.end()
    end = close + 2
    return end if "endraw" not in body[opener.start() : end] else opener.end()
