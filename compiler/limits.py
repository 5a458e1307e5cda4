"""Where truncation is decided: the per-file and total budgets of XML workers.

Sections are limited in document order, first each to ``per_file``, then cumulatively to
``total``. Sizes are counted in the manifest's unit (characters or UTF-8 bytes); a cut never
splits a character (so never a UTF-8 sequence or a surrogate pair) nor an ``&lt;`` the sanitizer
wrote. A cut section ends with ``TRUNCATION_MARKER`` (counted inside the budget) and every cut is
returned as a ``Truncation``: nothing is ever shortened silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import HotplexError, Problem, Span
from .records import Truncation
from .sanitize import ESCAPED_LT, open_tag_tail

if TYPE_CHECKING:
    from .model import Limits

TRUNCATION_MARKER = "\n\n[… truncated by hotplex: the rest of this section exceeded its size limit]"
# Below this many units of room, a section is dropped rather than reduced to a bare marker.
MIN_USEFUL_ROOM = 64


def measure(text: str, unit: str) -> int:
    """Size in a unit: "chars" (code points), "bytes" (UTF-8) or "utf16" (JavaScript's length)."""
    if unit == "bytes":
        return len(text.encode("utf-8"))
    if unit == "utf16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def _prefix_within(text: str, budget: int, unit: str) -> str:
    """The longest prefix of whole characters whose size is at most ``budget``."""
    if unit == "chars":
        cut = budget
    else:
        encoded = text.encode("utf-8")[:budget]
        cut = len(encoded.decode("utf-8", errors="ignore"))
    prefix = text[:cut]
    # Do not leave half of an escape behind ("&l" reads as garbage and hides the tag's '<').
    for keep in range(1, len(ESCAPED_LT)):
        if prefix.endswith(ESCAPED_LT[:keep]) and text.startswith(ESCAPED_LT, cut - keep):
            return prefix[:-keep]
    return prefix


def cut(text: str, budget: int, unit: str) -> str:
    """``text`` reduced to ``budget`` units including the marker; '' when too small to be useful."""
    room = budget - measure(TRUNCATION_MARKER, unit)
    if room < MIN_USEFUL_ROOM:
        return ""
    # The sanitizer left "</memory<" alone (no tag: the name runs on); cut after "</memory", the
    # marker's line break would end the name and make it a tag. A cut never ends in "<name".
    prefix = _prefix_within(text, room, unit).rstrip()
    prefix = prefix[: open_tag_tail(prefix)]
    return prefix.rstrip() + TRUNCATION_MARKER


@dataclass(frozen=True)
class Limited:
    name: str
    files: tuple[str, ...]
    text: str


def apply(sections: list[Limited], limits: Limits) -> tuple[list[Limited], list[Truncation]]:
    """Limit ``sections`` in order; with ``overflow = "error"`` any cut is an error instead."""
    unit = limits.unit
    remaining = limits.total
    kept: list[Limited] = []
    cuts: list[Truncation] = []
    for section in sections:
        text = section.text
        size = measure(text, unit)
        for limit, budget in (("per_file", limits.per_file), ("total", remaining)):
            if size > budget:
                before, text = size, cut(text, budget, unit)
                size = measure(text, unit)
                style = "marker" if text else "dropped"
                cuts.append(
                    Truncation(section.name, section.files, limit, before, size, unit, style)
                )
        remaining -= size
        if text:
            kept.append(Limited(section.name, section.files, text))
    if cuts and limits.overflow == "error":
        raise HotplexError([_overflow(c, limits) for c in cuts])
    return kept, cuts


def _overflow(cut: Truncation, limits: Limits) -> Problem:
    """A cut that ``overflow = "error"`` refuses, placed in the file that is too long; the
    built-in META-COGNITION block has no file, and is no fault of the manifest either."""
    over = (
        f"{cut.before} {cut.unit} exceed limits.{cut.limit} "
        f'({getattr(limits, cut.limit, cut.before)}) and limits.overflow = "error"'
    )
    if not cut.files:
        return Problem(
            f"the built-in META-COGNITION block: {over}",
            hint=f'raise limits.{cut.limit}, set limits.overflow = "truncate", or replace the'
            ' block with a shorter one ([metacognition] file = "META.md", or enabled = false)',
        )
    return Problem(
        over,
        Span(cut.files[0]),
        hint='shorten the file, raise the limit, or set limits.overflow = "truncate"',
    )
