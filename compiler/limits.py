"""Where truncation is decided: the per-file and total budgets of XML workers.

Sections are limited in document order, first each to ``per_file``, then cumulatively to
``total``. Sizes are counted in the manifest's unit (characters or UTF-8 bytes); a cut never
splits a character (so never a UTF-8 sequence or a surrogate pair) nor an ``&lt;`` the sanitizer
wrote. A cut section ends with ``TRUNCATION_MARKER`` (counted inside the budget) and every cut is
returned as a ``Truncation``: nothing is ever shortened silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import HotplexError, Problem, Span
from .model import Limits
from .sanitize import ESCAPED_LT

TRUNCATION_MARKER = "\n\n[… truncated by hotplex: the rest of this section exceeded its size limit]"
# Below this many units of room, a section is dropped rather than reduced to a bare marker.
MIN_USEFUL_ROOM = 64
# The sanitizer left "</memory<" alone (no tag: the name runs on); cut after "</memory", the
# marker's line break would end the name and make it a tag. A cut never ends in "<name".
_OPEN_TAG_TAIL = re.compile(r"<[\s/]*[A-Za-z_][A-Za-z0-9_.-]*\Z")


@dataclass(frozen=True)
class Truncation:
    section: str  # the source's name
    files: tuple[str, ...]  # the files the section came from
    limit: str  # "per_file", "total" or "read" (a file larger than reading will ever need)
    before: int
    after: int
    unit: str

    def describe(self) -> str:
        files = ", ".join(self.files) or self.section
        # hotplex's own limits are manifest keys; a worker's (openclaw.max_chars) are named as is.
        limit = self.limit if "." in self.limit else f"limits.{self.limit}"
        if self.after == 0:
            return f"{files}: dropped ({self.before} {self.unit}); no room left in {limit}"
        return f"{files}: truncated {self.before} → {self.after} {self.unit} ({limit})"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Truncation:
        return cls(
            data["section"],
            tuple(data["files"]),
            data["limit"],
            data["before"],
            data["after"],
            data["unit"],
        )

    def to_json(self) -> dict[str, object]:
        return {
            "section": self.section,
            "files": list(self.files),
            "limit": self.limit,
            "before": self.before,
            "after": self.after,
            "unit": self.unit,
        }


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
    prefix = _OPEN_TAG_TAIL.sub("", _prefix_within(text, room, unit).rstrip())
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
                cuts.append(Truncation(section.name, section.files, limit, before, size, unit))
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
