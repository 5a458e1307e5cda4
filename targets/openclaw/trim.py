"""How OpenClaw cuts one bootstrap file to its budget, on UTF-16 unit strings.

2026.9 keeps a head and a tail around a marker (AGENTS.md: head, a digest of its policy lines,
tail); the seed keeps 70% head and 20% tail. Texts here are *unit strings*: Python strings in
which every astral character is replaced by its surrogate pair, so that ``len``, slicing and
regular expressions behave exactly as on a JavaScript string (see ``openclaw_context``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Final, NamedTuple

AGENTS_FILE: Final = "AGENTS.md"

_HEAD_RATIO: Final = 0.75  # of the content budget left after the marker
_TAIL_RATIO: Final = 0.25
_MIN_TRIMMED_CONTENT_CHARS: Final = 16  # under this, the compact marker replaces the full one
_AGENTS_HEAD_RATIO: Final = 0.45
_AGENTS_DIGEST_RATIO: Final = 0.35
_AGENTS_TAIL_RATIO: Final = 0.15
_DIGEST_MAX_LINE_CHARS: Final = 240
_CLAMP_NO_ELLIPSIS_MAX: Final = 3  # a clamp budget this small gets no "…"
_SEED_HEAD_RATIO: Final = 0.7
_SEED_TAIL_RATIO: Final = 0.2

# How each truncation is described in InjectedFile.cut.
_AGENTS_STYLE: Final = (
    f"head {_AGENTS_HEAD_RATIO:.0%} / policy digest {_AGENTS_DIGEST_RATIO:.0%}"
    f" / tail {_AGENTS_TAIL_RATIO:.0%}"
)
_HEAD_TAIL_STYLE: Final = f"head {_HEAD_RATIO:.0%} / tail {_TAIL_RATIO:.0%}"
_COMPACT_STYLE: Final = f"{_HEAD_TAIL_STYLE}, compact marker"
_SEED_STYLE: Final = f"head {_SEED_HEAD_RATIO:.0%} / tail {_SEED_TAIL_RATIO:.0%}"

# JavaScript's WhiteSpace and LineTerminator code points: what trimEnd(), trim() and \s remove.
_JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
WS: Final = f"[{_JS_WHITESPACE}]"
_NON_WS: Final = f"[^{_JS_WHITESPACE}]"
_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")
_LINE_BREAK: Final = re.compile(r"\r?\n")
_WS_RUN: Final = re.compile(f"{WS}+")
# The policy-digest line tests. OpenClaw matches them with JavaScript's /iu flags, under which
# "ſ" (U+017F) and "K" (U+212A) fold to "s" and "k"; folding those two first lets ASCII
# case-insensitive matching (and its \b) agree exactly.
_JS_IU_FOLD: Final = str.maketrans({"\u017f": "s", "\u212a": "k"})
_DIGEST_STRUCTURAL: Final = re.compile(f"^(?:#{{1,6}}|{WS}*[-*+]|{WS}*[0-9]+[.)]){WS}+{_NON_WS}")
_HIGH_PRIORITY_WORDS: Final = (
    r"AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|security|secret"
    r"|credential"
)
# Mandatory markers in other scripts, matched anywhere in a line (no word boundary). "🔴" is
# written as its surrogate pair because patterns run on unit strings. Taken from the 2026.9 line
# of OpenClaw; the vectors (simplified-Chinese filler) exercise none of them.
_HIGH_PRIORITY_MARKS: Final = "\ud83d\udd34|禁止|嚴禁|不得|絕不|絕對不|切勿"
_OTHER_POLICY_MARKS: Final = "必須|務必|一律|紅線"
_DIGEST_KEYWORD: Final = re.compile(
    rf"\b(?:{_HIGH_PRIORITY_WORDS}|owner|test|validation|command|commit|push|github|pr)\b"
    rf"|{_HIGH_PRIORITY_MARKS}|{_OTHER_POLICY_MARKS}",
    re.ASCII | re.IGNORECASE,
)
_DIGEST_HIGH_PRIORITY: Final = re.compile(
    rf"\b(?:{_HIGH_PRIORITY_WORDS})\b|{_HIGH_PRIORITY_MARKS}", re.ASCII | re.IGNORECASE
)
_DIGEST_FENCE: Final = re.compile(f"^{WS}*(?:`{{3,}}|~{{3,}})")


class _Trim(NamedTuple):
    """Result of trimming one file: its content and the truncation style, None if untouched."""

    units: str
    style: str | None


def trim_2026_9(units: str, name: str, max_chars: int) -> _Trim:
    """Fit one file into ``max_chars``: AGENTS.md by policy digest, others head + tail."""
    trimmed = trim_end(units)
    if len(trimmed) <= max_chars:
        return _Trim(trimmed, None)
    if name.lower() == AGENTS_FILE.lower():
        return _Trim(_trim_agents(trimmed, max_chars), _AGENTS_STYLE)
    return _trim_head_tail(trimmed, name, max_chars)


def _trim_head_tail(trimmed: str, name: str, max_chars: int) -> _Trim:
    """Keep head and tail around a marker, within ``max_chars`` including marker and newlines."""
    total = len(trimmed)

    def full(head: int, tail: int) -> str:
        return (
            f"\n[...truncated, read {name} for full content...]\n"
            f"…(truncated {name}: kept {head}+{tail} chars of {total})…\n"
        )

    def compact(head: int, tail: int) -> str:
        return f"[…truncated {head}+{tail}/{total}]"

    spare = max_chars - len(full(0, 0)) - _separators(1, 1, full(0, 0))
    marker_for = full if spare >= _MIN_TRIMMED_CONTENT_CHARS else compact
    head, tail = _fit_head_tail(max_chars, marker_for)
    marker = marker_for(head, tail)
    tail_units = _slice_safe(trimmed, -tail) if tail > 0 else ""
    parts = [p for p in (_slice_safe(trimmed, 0, head), marker, tail_units) if p]
    rendered = ("\n" if "\n" in marker else "").join(parts)
    style = _HEAD_TAIL_STYLE if marker_for is full else _COMPACT_STYLE
    return _Trim(_truncate_safe(rendered, max_chars), style)


def _fit_head_tail(max_chars: int, marker_for: Callable[[int, int], str]) -> tuple[int, int]:
    """Choose head/tail sizes: split what the marker leaves, then shave any overflow.

    The marker embeds the sizes, so its length depends on them; OpenClaw iterates three times
    toward a fixed point, shaves the tail (then the head) if still over, and keeps at least one
    head character when that alone fits.
    """
    head = tail = 0
    marker = marker_for(head, tail)
    for _ in range(3):
        budget = max(0, max_chars - len(marker) - _separators(head, tail, marker))
        next_head, next_tail = math.floor(budget * _HEAD_RATIO), math.floor(budget * _TAIL_RATIO)
        next_marker = marker_for(next_head, next_tail)
        if (next_head, next_tail, len(next_marker)) == (head, tail, len(marker)):
            break
        head, tail, marker = next_head, next_tail, next_marker
    length = head + tail + len(marker) + _separators(head, tail, marker)
    while length > max_chars and (tail > 0 or head > 0):
        if tail > 0:
            tail = max(0, tail - (length - max_chars))
        else:
            head = max(0, head - (length - max_chars))
        marker = marker_for(head, tail)
        length = head + tail + len(marker) + _separators(head, tail, marker)
    if head == 0 and tail == 0:
        single = marker_for(1, 0)
        if 1 + len(single) + _separators(1, 0, single) <= max_chars:
            head = 1
    return head, tail


def _separators(head: int, tail: int, marker: str) -> int:
    """Newlines joining head, marker and tail: one per non-empty side, none for the compact form."""
    return (int(head > 0) + int(tail > 0)) if "\n" in marker else 0


def _trim_agents(trimmed: str, max_chars: int) -> str:
    """Cut AGENTS.md to head + a digest of its policy lines + tail, within ``max_chars``.

    Rules buried in the middle of AGENTS.md would otherwise be lost, so OpenClaw lifts policy-
    looking lines into a digest, then shrinks tail, head and digest in turn until it all fits.
    """
    head = math.floor(max_chars * _AGENTS_HEAD_RATIO)
    tail = math.floor(max_chars * _AGENTS_TAIL_RATIO)
    digest_budget = math.floor(max_chars * _AGENTS_DIGEST_RATIO)
    digest = _policy_digest(trimmed, digest_budget)
    rendered = _render_agents_cut(trimmed, head, tail, digest)
    while len(rendered) > max_chars and (tail > 0 or head > 1 or digest_budget > 0):
        overflow = len(rendered) - max_chars
        if tail > 0:
            tail = max(0, tail - overflow)
        elif head > 1:
            head = max(1, head - overflow)
        else:
            digest_budget = max(0, digest_budget - overflow)
            digest = _policy_digest(trimmed, digest_budget)
        rendered = _render_agents_cut(trimmed, head, tail, digest)
    return _truncate_safe(rendered, max_chars)


def _render_agents_cut(trimmed: str, head: int, tail: int, digest: tuple[str, int]) -> str:
    """Join the AGENTS.md pieces, skipping empty ones, one per line."""
    text, omitted = digest
    parts = (
        _slice_safe(trimmed, 0, head),
        f"[...truncated, read {AGENTS_FILE} for full content...]",
        f"[Policy digest from {AGENTS_FILE}]" if text else "",
        text,
        f"[...{omitted} more policy lines omitted...]" if omitted > 0 else "",
        f"…(truncated {AGENTS_FILE}: kept {head}+policy {len(text)}+{tail} chars"
        f" of {len(trimmed)})…",
        _slice_safe(trimmed, -tail) if tail > 0 else "",
    )
    return "\n".join(part for part in parts if part)


class _DigestUnit(NamedTuple):
    """A policy line with the line that introduces it, if any, and whether it is high priority."""

    text: str
    high: bool


def _policy_digest(trimmed: str, budget: int) -> tuple[str, int]:
    """Pick policy units, high-priority first, that fit ``budget``; also count those left out.

    Selected units keep their original order; each after the first costs one newline.
    """
    if budget <= 0:
        return "", 0
    units = _digest_units(trimmed)
    selected: set[int] = set()
    used = 0
    high = [index for index, unit in enumerate(units) if unit.high]
    for index in [*high, *range(len(units))]:
        cost = len(units[index].text) + (1 if selected else 0)
        if index not in selected and used + cost <= budget:
            selected.add(index)
            used += cost
    texts = [unit.text for index, unit in enumerate(units) if index in selected]
    return "\n".join(texts), len(units) - len(texts)


def _digest_units(trimmed: str) -> list[_DigestUnit]:
    """Split AGENTS.md into digest candidates, each framed by the plain line just before it.

    A line such as "Example policy:" only makes sense with the rule it introduces, so the one
    non-candidate line directly above a candidate travels with it; a blank line or a code fence
    line breaks that link (and fences never enter the digest).
    """
    units: list[_DigestUnit] = []
    frame: str | None = None
    for line in map(_digest_line, _LINE_BREAK.split(trimmed)):
        if not line or _DIGEST_FENCE.match(line):
            frame = None
        elif _is_policy_line(line):
            text = line if frame is None else f"{frame}\n{line}"
            units.append(_DigestUnit(text, bool(_DIGEST_HIGH_PRIORITY.search(_fold(line)))))
            frame = None
        else:
            frame = line
    return units


def _digest_line(line: str) -> str:
    """Collapse whitespace and cap a digest line at its maximum length."""
    normalized = _WS_RUN.sub(" ", line.strip(_JS_WHITESPACE))
    if len(normalized) <= _DIGEST_MAX_LINE_CHARS:
        return normalized
    return _truncate_safe(normalized, _DIGEST_MAX_LINE_CHARS - 1) + "…"


def _is_policy_line(line: str) -> bool:
    """Headings, list items and lines naming policy words are digest candidates."""
    return bool(_DIGEST_STRUCTURAL.search(line) or _DIGEST_KEYWORD.search(_fold(line)))


def _fold(line: str) -> str:
    """Apply the two non-ASCII case folds JavaScript's /iu flags add (see ``_JS_IU_FOLD``)."""
    return line.translate(_JS_IU_FOLD)


def clamp_to_budget(units: str, budget: int) -> str:
    """Cut text to ``budget`` units, ending it with "…" when there is room for one."""
    if budget <= 0:
        return ""
    if len(units) <= budget:
        return units
    if budget <= _CLAMP_NO_ELLIPSIS_MAX:
        return _truncate_safe(units, budget)
    return _truncate_safe(units, budget - 1) + "…"


def trim_seed(units: str, name: str, max_chars: int) -> _Trim:
    """The seed's trimBootstrapContent: 70% head, marker, 20% tail.

    SEED-SILENT on surrogate pairs: its excerpt slices plainly, which can split a pair into a
    lone surrogate that no UTF-8 file can hold; we cut before the pair instead (head) or after it
    (tail). As in the excerpt, a tail size of 0 slices ``slice(-0)``: the whole text.
    """
    trimmed = trim_end(units)
    if len(trimmed) <= max_chars:
        return _Trim(trimmed, None)
    head = math.floor(max_chars * _SEED_HEAD_RATIO)
    tail = math.floor(max_chars * _SEED_TAIL_RATIO)
    marker = (
        f"\n[...truncated, read {name} for full content...]\n"
        f"…(truncated {name}: kept {head}+{tail} chars of {len(trimmed)})…\n"
    )
    content = "\n".join((_slice_safe(trimmed, 0, head), marker, _slice_safe(trimmed, -tail)))
    return _Trim(content, _SEED_STYLE)


def to_units(text: str) -> str:
    """Replace every astral character by its surrogate pair, so ``len`` counts UTF-16 units."""

    def pair(match: re.Match[str]) -> str:
        offset = ord(match.group()) - 0x10000
        return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))

    return _ASTRAL.sub(pair, text)


def from_units(units: str) -> str:
    """Join surrogate pairs back into characters."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _is_high(unit: str) -> bool:
    """A leading surrogate: the first half of an astral character."""
    return "\ud800" <= unit <= "\udbff"


def _is_low(unit: str) -> bool:
    """A trailing surrogate: the second half of an astral character."""
    return "\udc00" <= unit <= "\udfff"


def _slice_safe(units: str, start: int, end: int | None = None) -> str:
    """JavaScript-style slice (negative start counts from the end) that never splits a pair."""
    size = len(units)
    begin = max(size + start, 0) if start < 0 else min(start, size)
    stop = size if end is None else min(end, size)
    if 0 < begin < size and _is_low(units[begin]) and _is_high(units[begin - 1]):
        begin += 1
    if 0 < stop < size and _is_high(units[stop - 1]) and _is_low(units[stop]):
        stop -= 1
    return units[begin:stop]


def _truncate_safe(units: str, limit: int) -> str:
    """Keep at most ``limit`` units without splitting a surrogate pair."""
    return units if len(units) <= limit else _slice_safe(units, 0, limit)


def trim_end(units: str) -> str:
    """JavaScript's ``String.prototype.trimEnd``."""
    return units.rstrip(_JS_WHITESPACE)
