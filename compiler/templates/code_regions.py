"""Where Markdown code is: fenced blocks and inline code spans, and GitHub Actions' ``${{``.

Template syntax is recognised only outside these regions, so real instruction files (workflow
snippets, Vue or Jinja examples in fences) pass through unchanged. ``masked`` hides every ``{``
inside them and keeps the text's length, so every offset in the masked text is one in the file.
"""

from __future__ import annotations

import bisect
import functools
import re

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_INLINE = re.compile(r"\\[\\`]|`+|\$\{\{")
_BACKTICKS = re.compile(r"`+")
_MASK = "\x00"


def code_regions(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) offsets of fenced blocks, code spans and ``${{ … }}``."""
    regions: list[tuple[int, int]] = []
    stretch = pos = 0  # ``stretch``: where the current run of non-fenced lines began
    while (fence := _next_fence(text, pos)) is not None:
        start, after_line, marker = fence
        _inline_regions(text, stretch, start, regions)
        end = _fence_closing(text, after_line, marker)
        regions.append((start, end))
        stretch = pos = end
    _inline_regions(text, stretch, len(text), regions)
    return regions


def _next_fence(text: str, pos: int) -> tuple[int, int, str] | None:
    """(line start, next line start, fence marker) of the first opening fence at/after ``pos``."""
    while (match := _FENCE_OPEN.search(text, pos)) is not None:
        marker, info = match.groups()
        pos = match.end() + 1
        # CommonMark: a backtick fence's info string may not contain backticks (it is inline code).
        if marker[0] == "~" or "`" not in info:
            return match.start(), pos, marker
    return None


def _fence_closing(text: str, start: int, marker: str) -> int:
    """The offset just past the line that closes ``marker``, or the end of the text."""
    match = _closing_fence_re(marker[0], len(marker)).search(text, start)
    if match is None:
        return len(text)
    return min(match.end() + 1, len(text))


@functools.lru_cache(maxsize=64)
def _closing_fence_re(char: str, length: int) -> re.Pattern[str]:
    return re.compile(rf"^ {{0,3}}{re.escape(char)}{{{length},}}[ \t]*$", re.MULTILINE)


def _inline_regions(text: str, start: int, end: int, regions: list[tuple[int, int]]) -> None:
    """Append the code spans and ``${{ }}`` of ``text[start:end]`` (no fences in there).

    Inline code never crosses a blank line, so each is searched for within its paragraph; the
    paragraph and its backtick runs are only worked out when an opener is found in it.
    """
    pos = para_end = closeless = start
    runs: dict[int, list[int]] = {}
    for match in _INLINE.finditer(text, start, end):
        found = match.group()
        if match.start() < pos or found[0] == "\\":
            continue
        if match.start() >= para_end:
            blank = _BLANK_LINE.search(text, match.start(), end)
            para_end = closeless = end if blank is None else blank.start()
            runs = _backtick_runs(text, match.start(), para_end)
        if found[0] == "$":
            # After one "${{" found no "}}", later ones in the paragraph need not look again.
            close = text.find("}}", match.end(), para_end) if match.end() < closeless else -1
            closeless = match.end() if close < 0 else closeless
            region_end = close + 2 if close >= 0 else match.end()
        else:
            region_end = _closing_run(runs, len(found), match.end())
            if region_end is None:
                continue  # an unmatched backtick run is literal text
        regions.append((match.start(), region_end))
        pos = region_end


def _backtick_runs(text: str, start: int, end: int) -> dict[int, list[int]]:
    """Start offsets of the maximal backtick runs in ``text[start:end]``, by run length."""
    runs: dict[int, list[int]] = {}
    for run in _BACKTICKS.finditer(text, start, end):
        runs.setdefault(run.end() - run.start(), []).append(run.start())
    return runs


def _closing_run(runs: dict[int, list[int]], length: int, after: int) -> int | None:
    """End of the first run of exactly ``length`` backticks starting at or after ``after``."""
    starts = runs.get(length, [])
    index = bisect.bisect_left(starts, after)
    return starts[index] + length if index < len(starts) else None


def masked(text: str, regions: list[tuple[int, int]]) -> str:
    """``text`` with every ``{`` inside ``regions`` replaced, so code can never open a tag."""
    if not regions:
        return text
    parts: list[str] = []
    last = 0
    for start, end in regions:
        parts.append(text[last:start])
        parts.append(text[start:end].replace("{", _MASK))
        last = end
    parts.append(text[last:])
    return "".join(parts)
