"""An Agent Skill in a program's listing: what each line may hold, and what the program keeps
of it (its cap of one entry, its budget of the whole listing), as a ``worker.SkillsPlace``
declares them."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from hotplex.errors import Problem, Span
from hotplex.records import Skill, SkillRow
from hotplex.scanning import sanitize
from hotplex.scanning.confusables import prototype_text
from hotplex.text.measure import measure

SKILL_FILE = "SKILL.md"
# A skill's line of a listing with a budget (``SkillsPlace.listing_budget``), and its line by
# name alone past the budget: Claude Code's, the one program with such a budget.
LINE = "- {name}: {entry}"
NAME_LINE = "- {name}"
# A line break of any kind: a program lists a description on one line of its own.
_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_TAG = re.compile(r"<\s*/?\s*[A-Za-z][\w:-]*")  # what could open or close a wrapper


def listing_safe(text: str) -> str | None:
    """Why ``text`` (a description, or another key a program lists) cannot be listed in one
    entry (None: it can): a line break would start a forged entry (``- other: …``), a tag could
    close the program's wrapper."""
    if _BREAK.search(text):
        return "a listed text is one line: a line break would start another entry of the listing"
    if _TAG.search(text):
        return "a listed text holds no tag: '<…' could open or close the program's wrapper"
    return None


def listing_problems(skill: Skill, place: Any, program: str) -> list[Problem]:
    """Each text ``program`` lists (``place``: its ``worker.SkillsPlace``) that could not be one
    entry of its listing: a line break or tag beside the description, or in any listed text a
    spelling of the wrapper the listing sits in."""
    skill_md = f"{skill.folder}/{SKILL_FILE}"
    problems = []
    for key, text in skill.texts:
        if key not in place.listed:
            continue
        why = listing_safe(text) if key != "description" else None
        if why is None and place.wrapper and spells(text, place.wrapper):
            why = f"a listed text must not spell <{place.wrapper}>, the listing's wrapper"
        if why is not None:
            where = dict(skill.places).get(key, Span(skill_md, key=key))
            problems.append(Problem(f"{why} ({program} lists '{key}')", where))
    return problems


# Brackets a reader takes for '<' and '>' that UTS #39 gives a prototype of their own (the
# angle-bracket family: U+2329, U+27E8, U+3008 all read as U+276C): read as the ASCII ones.
_ANGLES = str.maketrans({"\u276c": "<", "\u276d": ">"})


def spells(text: str, tag: str) -> bool:
    """Whether ``text`` spells the tag ``tag`` in any spelling the reserved-tag sanitizer knows
    (``scanning.sanitize``: any case, blanks, fullwidth forms, zero-width characters), or in
    look-alikes of its brackets and letters (UTS #39's prototypes: ``‹/sуstem-reminder›`` with
    angle quotation marks and a Cyrillic у, ``〈/system-reminder〉``). A listed text cannot
    be escaped (the program lists it as written), so such a text is refused, not neutralised."""
    if sanitize.count_tags(text, {tag}):
        return True
    if text.isascii():
        return False
    return bool(sanitize.count_tags(prototype_text(text).translate(_ANGLES), {tag}))


def listing_entry(skill: Skill, listed: tuple[str, ...], joiner: str) -> str:
    """The text a program lists for ``skill``: its ``listed`` keys' texts, joined."""
    texts = dict(skill.texts)
    return joiner.join(texts[key] for key in listed if texts.get(key))


class Listed(NamedTuple):
    """A skill's line of a program's listing, as it sizes it (``SkillsPlace``)."""

    skill: Skill
    entry: int  # the entry's size before the program's cap, in ``entry_unit``
    line: int  # its line's size (the entry cut at the cap), in ``listing_unit``
    name_line: int  # the size of its line by name only


def listed(skills: tuple[Skill, ...], place: Any) -> list[Listed]:
    """Each skill's line as ``place`` (a ``worker.SkillsPlace``) lists it."""
    rows = []
    for skill in skills:
        entry = listing_entry(skill, place.listed, place.joiner)
        size = measure(entry, place.entry_unit)
        if place.entry_cap is not None and size > place.entry_cap:
            entry = _head(entry, place.entry_cap - 1, place.entry_unit) + "\u2026"
        line = LINE.format(name=skill.name, entry=entry)
        short = NAME_LINE.format(name=skill.name)
        unit = place.listing_unit
        rows.append(Listed(skill, size, measure(line, unit), measure(short, unit)))
    return rows


def row(listed_row: Listed, place: Any, listed: str) -> SkillRow:
    """A skill as a program that loads skills carries it (``listed``: how it lists it)."""
    skill = listed_row.skill
    return SkillRow(
        skill.name,
        listed_row.entry,
        place.entry_cap,
        place.entry_unit,
        len(skill.files),
        sum(len(f.data) for f in skill.files),
        tuple(f.path for f in skill.files if f.kind == "script"),
        listed,
    )


def listing_cuts(rows: list[Listed], place: Any) -> list[Listed]:
    """The skills the program lists by name only, its listing over its budget: room for each
    one's name first, then whole lines as they come while they fit (the program's own order when
    none has been used yet: by name, as code points order them, "deploy" before "deploy-check",
    where the sources folder's listing has "deploy-check/" first)."""
    if place.listing_budget is None:
        return []
    left = place.listing_budget - place.listing_own - sum(r.name_line + 1 for r in rows)
    cut = []
    for row in sorted(rows, key=lambda r: r.skill.name):
        if row.line - row.name_line <= left:
            left -= row.line - row.name_line
        else:
            cut.append(row)
    return cut


def _head(text: str, most: int, unit: str) -> str:
    """The first ``most`` units of ``text`` (a character cut in two is left out)."""
    if unit == "utf16":
        return text.encode("utf-16-le")[: 2 * most].decode("utf-16-le", "ignore")
    if unit == "bytes":
        return text.encode()[:most].decode("utf-8", "ignore")
    return text[:most]
