"""Where truncation is decided: the per-file and total budgets of XML workers.

Sections are limited first each to ``per_file``, then to ``total``: cumulatively in document
order (``share = "order"``) or by max-min fair shares (``"fair"``, ``fair_shares``). The memory
section's daily logs fill what its budget leaves after MEMORY.md, whole days newest first
(``fit_days``). Sizes are counted in the manifest's unit (characters or UTF-8 bytes); a cut never
splits a grapheme cluster (``graphemes``: a flag, an emoji sequence, a letter and its accents, so
never a UTF-8 sequence or a surrogate pair either) nor an ``&lt;`` the sanitizer wrote, and leaves
no hidden text the whole text does not hold. A cut section ends with ``TRUNCATION_MARKER``
(counted inside the budget) when its budget holds the marker and some text; a smaller budget
keeps as much text as fits, without the marker, so a budget is always spent (a tight total never
yields an empty document). Every cut is returned as a ``Truncation``: nothing is ever shortened
silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from hotplex.errors import HotplexError, Problem, Span
from hotplex.records import Truncation
from hotplex.scanning import hidden
from hotplex.scanning.sanitize import ESCAPED_LT, open_tag_tail
from hotplex.text import graphemes
from hotplex.text.measure import measure

if TYPE_CHECKING:
    from hotplex.manifest.model import Limits
    from hotplex.records import Day, Logs

TRUNCATION_MARKER = "\n\n[… truncated by hotplex: the rest of this section exceeded its size limit]"
# Below this many units of room beside the marker, a cut section keeps text, not the marker.
MIN_USEFUL_ROOM = 64
# How much of a line around a cut decides whether the cut shows hidden text the line does not.
_HIDDEN_CONTEXT = 256


def _prefix_within(text: str, budget: int, unit: str) -> str:
    """The longest prefix of whole grapheme clusters whose size is at most ``budget``, that shows
    no hidden text the whole text does not (a ZWNJ kept without the letter it joins)."""
    if unit == "chars":
        cut = budget
    else:
        codec, width = ("utf-8", 1) if unit == "bytes" else ("utf-16-le", 2)
        cut = len(text.encode(codec)[: budget * width].decode(codec, errors="ignore"))
    cut = graphemes.floor(text, min(cut, len(text)))
    while cut > 0 and _hides_at_end(text, cut):
        cut = graphemes.floor(text, cut - 1)
    prefix = text[:cut]
    # Do not leave half of an escape behind ("&l" reads as garbage and hides the tag's '<').
    for keep in range(1, len(ESCAPED_LT)):
        if prefix.endswith(ESCAPED_LT[:keep]) and text.startswith(ESCAPED_LT, cut - keep):
            return prefix[:-keep]
    return prefix


def _hides_at_end(text: str, cut: int) -> bool:
    """Whether ``text`` cut at ``cut`` has hidden text where the whole line has none: a
    character used as Unicode intends only with what follows it (a ZWNJ before a joining letter,
    a right-to-left mark on a line whose right-to-left letters come later)."""
    start = max(text.rfind("\n", 0, cut) + 1, cut - _HIDDEN_CONTEXT)
    kept = hidden.scan(text[start:cut])
    if not kept:
        return False
    end = text.find("\n", cut)
    whole = text[start : min(end if end >= 0 else len(text), cut + _HIDDEN_CONTEXT)]
    return bool({m.start for m in kept} - {m.start for m in hidden.scan(whole)})


def cut(text: str, budget: int, unit: str) -> str:
    """``text`` reduced to ``budget`` units: its head and the marker when the budget holds both,
    else as much of its head as fits (a bare marker would say less than the text it replaces)."""
    room = budget - measure(TRUNCATION_MARKER, unit)
    marked = room >= MIN_USEFUL_ROOM
    # The sanitizer left "</memory<" alone (no tag: the name runs on); cut after "</memory", the
    # marker's line break would end the name and make it a tag. A cut never ends in "<name".
    prefix = _prefix_within(text, room if marked else budget, unit).rstrip()
    prefix = prefix[: open_tag_tail(prefix)].rstrip()
    prefix = prefix[: graphemes.floor(text, len(prefix))]  # the strip may leave half a cluster
    return prefix + TRUNCATION_MARKER if marked else prefix


def cut_style(text: str) -> str:
    """A cut's ``Truncation.style``: "marker", "head" (no room for the marker) or "dropped"."""
    if not text:
        return "dropped"
    return "marker" if text.endswith(TRUNCATION_MARKER) else "head"


class Limited(NamedTuple):
    name: str
    files: tuple[str, ...]
    text: str
    # The memory section's daily logs: ``text`` holds them all; the limits keep ``logs.curated``
    # and then the whole days that fit.
    logs: Logs | None = None


def fair_shares(demands: list[int], total: int, names: list[str]) -> list[int]:
    """Max-min fair (water-filling) split of ``total``: a demand at most an equal share of what
    is left is met in full, the rest share what remains evenly. The remainder of that division
    (fewer units than sections) goes one unit each in the order of ``names``, never of position:
    the whole total is spent (30 sections and a total of 20 still get 20 units), and the same
    sections in another order get the same shares."""
    shares = [0] * len(demands)
    pending = sorted(range(len(demands)), key=lambda i: demands[i])
    left = total
    while pending:
        share = left // len(pending)
        if demands[pending[0]] > share:
            extra = sorted(pending, key=lambda i: names[i])[: left - share * len(pending)]
            for i in pending:
                shares[i] = share + (i in extra)
            break
        first = pending.pop(0)
        shares[first] = demands[first]
        left -= demands[first]
    return shares


def apply(sections: list[Limited], limits: Limits) -> tuple[list[Limited], list[Truncation]]:
    """Limit ``sections``: each to ``per_file`` first, then to the total, spent in document order
    (``share = "order"``) or max-min fair (``"fair"``, ``_fair_budgets``). With ``overflow =
    "error"`` any cut of a section's own text is an error instead; days of a daily log left out
    are not (logs grow by design, and the days that fit are the point)."""
    unit = limits.unit
    fair = limits.share == "fair"
    budgets = _fair_budgets(sections, limits) if fair else []
    remaining = limits.total
    kept: list[Limited] = []
    cuts: list[Truncation] = []
    day_cuts: list[Truncation] = []
    for index, section in enumerate(sections):
        budget, rule = (budgets[index], "share") if fair else (remaining, "total")
        text, own, days = _fit(section, limits, budget, rule)
        cuts += own
        day_cuts += days
        remaining -= measure(text, unit)
        if text and text is section.text and section.logs is None:
            kept.append(section)  # kept whole: the same one, which a document's pieces reuse
        elif text:
            kept.append(Limited(section.name, section.files, text))
    if cuts and limits.overflow == "error":
        raise HotplexError([_overflow(c, limits) for c in cuts])
    return kept, cuts + day_cuts


def _fit(
    section: Limited, limits: Limits, budget: int, rule: str
) -> tuple[str, list[Truncation], list[Truncation]]:
    """One section within ``per_file`` and ``budget`` (what ``rule`` leaves it): its text, the
    cuts of its own text and the days of its logs left out."""
    unit = limits.unit
    text = section.logs.curated if section.logs is not None else section.text
    size = measure(text, unit)
    cuts: list[Truncation] = []
    for limit, room in (("per_file", limits.per_file), (rule, budget)):
        if size > room:
            before, text = size, cut(text, room, unit)
            size = measure(text, unit)
            cuts.append(
                Truncation(section.name, section.files, limit, before, size, unit, cut_style(text))
            )
    if section.logs is None:
        return text, cuts, []
    binding = "per_file" if limits.per_file <= budget else rule
    text, dropped = fit_days(section, text, min(limits.per_file, budget), unit, binding)
    return text, cuts, dropped


def _fair_budgets(sections: list[Limited], limits: Limits) -> list[int]:
    """Each section's budget under ``share = "fair"``: its max-min fair share of the total, then
    what the sections leave unspent (whole days, whole characters) passed on to those still cut
    that could use it, fairly, and when no fair part lets one keep more, all of it to the first
    (by name) that can.
    At the end no section that was cut would keep one more unit given everything left unspent."""
    unit = limits.unit
    names = [s.name for s in sections]
    demands = [min(measure(s.text, unit), limits.per_file) for s in sections]
    budgets = fair_shares(demands, limits.total, names)

    def used(index: int, budget: int) -> int:
        return measure(_fit(sections[index], limits, budget, "share")[0], unit)

    sizes = [used(i, budget) for i, budget in enumerate(budgets)]
    while (spare := limits.total - sum(sizes)) > 0:
        # A section that would not grow given all that is spare (its next whole day is longer)
        # takes no part of it: its part would be left unspent, and the others cut the more.
        wanting = [
            i
            for i in range(len(sections))
            if sizes[i] < demands[i] and used(i, sizes[i] + spare) > sizes[i]
        ]
        extra = fair_shares(
            [demands[i] - sizes[i] for i in wanting], spare, [names[i] for i in wanting]
        )
        tries = [[(i, sizes[i] + more) for i, more in zip(wanting, extra, strict=True) if more]]
        tries += [[(i, sizes[i] + spare)] for i in sorted(wanting, key=lambda i: names[i])]
        for attempt in tries:
            grown = [(i, budget, used(i, budget)) for i, budget in attempt]
            grown = [(i, budget, size) for i, budget, size in grown if size > sizes[i]]
            for i, budget, size in grown:
                budgets[i], sizes[i] = budget, size
            if grown:
                break
        else:
            break
    return budgets


def _overflow(cut: Truncation, limits: Limits) -> Problem:
    """A cut that ``overflow = "error"`` refuses, placed in the file that is too long; the
    built-in META-COGNITION block has no file, and is no fault of the manifest either."""
    rule = _rule(cut.limit, limits)
    over = f'{cut.before} {cut.unit} exceed {rule} and limits.overflow = "error"'
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


def _rule(limit: str, limits: Limits) -> str:
    if limit == "share":
        return f'a fair share of limits.total ({limits.total}, share = "fair")'
    return f"limits.{limit} ({getattr(limits, limit)})"


def fit_days(
    section: Limited, text: str, budget: int, unit: str, limit: str
) -> tuple[str, list[Truncation]]:
    """``text`` followed by the section's days, newest first, while whole days fit ``budget``;
    the newest day, when it alone does not fit, keeps its newest entries. Every day left out
    (or cut) is a ``Truncation`` naming its file. Compacted months are kept after the days (they
    are older) and shown before them."""
    logs = section.logs
    parts = [text] if text else []
    months: list[str] = []  # the compacted months kept, shown between ``text`` and the days
    used = measure(text, unit)
    cuts: list[Truncation] = []
    days = [day for day in logs.days if day.entries]
    for day in logs.days:  # a day all repeated in newer ones adds nothing, and is said so
        if day.body.strip() and not day.entries:
            size = measure(day.body, unit)
            cuts.append(Truncation(section.name, (day.display,), limit, size, 0, unit, "repeat"))
    for position, day in enumerate(days):
        whole = day.text()
        before = measure(whole, unit)
        gap = 2 if parts or months else 0
        if used + gap + before <= budget:
            (months if day.month else parts).append(whole)
            used += gap + before
            continue
        kept, style = "", "dropped"
        if position == 0:
            kept, style = _newest_entries(day, budget - used - gap, unit, parts)
        if kept:
            (months if day.month else parts).append(kept)
            used += gap + measure(kept, unit)
        after = measure(kept, unit)
        cuts.append(Truncation(section.name, (day.display,), limit, before, after, unit, style))
        for older in days[position + 1 :]:
            size = measure(older.text(), unit)
            cuts.append(Truncation(section.name, (older.display,), limit, size, 0, unit, "dropped"))
        break
    for unread in logs.unread:
        if unread.size == 0:  # an empty day: nothing of it is left out
            continue
        cuts.append(
            Truncation(section.name, (unread.display,), limit, unread.size, 0, "bytes", "dropped")
        )
    if months:
        parts[1 if text else 0 : 1 if text else 0] = months
    return "\n\n".join(parts), cuts


def _newest_entries(day: Day, room: int, unit: str, before: list[str]) -> tuple[str, str]:
    """The day's heading and the longest run of its last entries that fits ``room``, and the
    cut's style; when not even the last entry fits and nothing is ``before`` it in the section,
    that entry cut (a split entry beats a section, and maybe a document, left empty)."""
    best = ""
    for first in range(len(day.entries) - 1, -1, -1):
        candidate = day.text(first)
        if measure(candidate, unit) > room:
            break
        best = candidate
    if not best and not before:
        best = cut(day.text(len(day.entries) - 1), room, unit)
        return best, cut_style(best)
    return best, "entries" if best else "dropped"
