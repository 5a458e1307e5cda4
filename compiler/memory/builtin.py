"""The built-in compactor: a month of daily logs folded into one file, offline and deterministic.

The rules (the README's "Compacting old days" states them for users):

- An entry is what the build counts as one (``logs.entries``: a top-level list item with its
  indented lines, or a paragraph); headings are structure and are not kept.
- Each entry is kept once across the month's days, with every day it was written on.
- An entry whose first line holds ``[durable]`` (any letter case) is kept whole, as written,
  under "Kept whole", grouped by the first day it was written on.
- Every other entry folds into one line of the month's digest: the days, then its text on one
  line (its list marker dropped, each run of blanks and line breaks one space), the whole line
  (its ``- 2026-10-24: `` included) at most ``LINE_CHARS`` characters. The digest holds at
  most ``[memory] digest_chars`` characters; the entries written last are kept first, then the
  lines are listed by the first day.
- An entry the digest has no room for, or whose line had to be shortened, goes whole to the
  month's history (``compacted/history/2026-10.md``, read by no artifact), and the digest ends
  with a line saying how many did. Nothing of a day is lost: each entry is in the month's file
  or in the history, and the days themselves stay unless ``--archive`` moves them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hotplex.generated import attrs
from hotplex.sources.logs import entries

DURABLE = "[durable]"
LINE_CHARS = 240  # a digest line, days included; a longer one is shortened, its entry to history
NOTE_CHARS = 100  # the digest's room kept for its last line, when entries go to the history
_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+")
_BLANKS = re.compile(r"\s+")
KEPT_HEADING = "### Kept whole"
DIGEST_HEADING = "### Digest"


@attrs.frozen
class Folded:
    """One month compacted: the body of its file and the entries for its history, each as
    (the day it was first written on, its text as written)."""

    body: str
    history: tuple[tuple[str, str], ...]


def is_durable(entry: str) -> bool:
    return DURABLE in entry.partition("\n")[0].lower()


def fold(entry: str) -> str:
    """An entry on one line: its list marker dropped, blanks and line breaks one space each."""
    return _BLANKS.sub(" ", _MARKER.sub("", entry.strip(), count=1)).strip()


def month_entries(days: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """Each entry of the days (name, text; oldest first) once, in the order first written,
    with the names of the days that hold it."""
    found: dict[str, list[str]] = {}
    for name, text in days:
        for block, is_entry, _ in entries(text):
            if is_entry and name not in found.setdefault(block, []):
                found[block].append(name)
    return found


def compact(month: str, days: Sequence[tuple[str, str]], budget: int, history: str) -> Folded:
    """The month's file body from its days (name without ``.md``, text; oldest first), its
    digest within ``budget`` characters; ``history`` names the history file in the note."""
    found = month_entries(days)
    durable = [e for e in found if is_durable(e)]
    kept_lines: list[str] = []
    shown = None
    for entry in durable:
        if found[entry][0] != shown:
            shown = found[entry][0]
            kept_lines.append(f"#### {shown}")
        kept_lines.append(entry)
    lines, to_history = _digest([e for e in found if not is_durable(e)], found, budget)
    if to_history:
        lines.append(f"- {len(to_history)} more entries of {month} are kept whole in {history}")
    parts = []
    if kept_lines:
        parts += [KEPT_HEADING, *kept_lines]
    if lines:
        parts += [DIGEST_HEADING, "\n".join(lines)]
    return Folded("\n\n".join(parts), tuple((found[e][0], e) for e in to_history))


def _digest(
    folded: list[str], found: dict[str, list[str]], budget: int
) -> tuple[list[str], list[str]]:
    """The digest's lines, by first day, and the entries that go to the history instead (no
    room, or a line shortened), in the order written. Room is kept for the note saying so."""
    line_of = {e: _line(found[e], fold(e)) for e in folded}
    shortened = {e for e in folded if not line_of[e].endswith(fold(e))}
    room = budget
    if sum(len(line) + 1 for line in line_of.values()) > budget:
        room -= NOTE_CHARS
    chosen: set[str] = set()
    used = 0
    for entry in sorted(folded, key=lambda e: found[e][-1], reverse=True):  # newest first
        size = len(line_of[entry]) + 1
        if used + size <= room:
            chosen.add(entry)
            used += size
    lines = [line_of[e] for e in folded if e in chosen]
    to_history = [e for e in folded if e not in chosen or e in shortened]
    return lines, to_history


def _line(days: list[str], text: str) -> str:
    """A digest line: the days (more than three as the first, the last and how many), then the
    entry on one line, the whole line shortened to ``LINE_CHARS``."""
    shown = ", ".join(days) if len(days) <= 3 else f"{days[0]} … {days[-1]} ({len(days)} days)"
    line = f"- {shown}: {text}"
    if len(line) > LINE_CHARS:
        line = line[: LINE_CHARS - 1].rstrip() + "…"
    return line
