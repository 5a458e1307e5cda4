"""A profile's text split into the person's lines and the learned block's facts, and joined
back: the lines outside the block come back byte for byte, the block is written from its facts
alone (sorted by key), so its bytes depend on nothing but the facts and their dates.

A block edited by hand is read as strictly as it is written: a line that is neither blank, a
heading nor a fact, a key that is no key, the same key twice, a date that is no date, or a block
never closed is an error with its line, never a fact silently dropped.
"""

from __future__ import annotations

from typing import NamedTuple

from hotplex.errors import HotplexError, Problem, Span
from hotplex.learning import keys
from hotplex.learning.facts import checked_date
from hotplex.learning.report import Fact
from hotplex.sources import learned


class Profile(NamedTuple):
    before: list[str]  # the lines before the block (all of them when there is none)
    facts: dict[str, Fact]  # the block's facts by key
    after: list[str] | None  # the lines after the block; None: the file has no block
    # "\r" when the file's lines end in CRLF: the block's lines are written so too, and every
    # other line keeps its own ending, as written.
    eol: str = ""


def parse(text: str, file: str) -> Profile:
    lines = text.split("\n")
    eol = "\r" if "\r\n" in text else ""
    found = learned.bounds(lines)
    if found is None:
        return Profile(lines, {}, None, eol)
    start, end = found
    if end == len(lines):
        raise HotplexError.single(
            f"the learned block is never closed: add a line {learned.END}",
            Span(file, start + 1, 1, source_line=lines[start]),
        )
    problems: list[Problem] = []
    facts: dict[str, Fact] = {}
    for index in range(start + 1, end):
        line = lines[index].removesuffix("\r")
        where = Span(file, index + 1, 1, source_line=line)
        if not line.strip() or line.startswith("#"):
            continue
        fact = learned.parse_line(line)
        if fact is None:
            problems.append(
                Problem(
                    "a line of the learned block that is no fact",
                    where,
                    "write it as '- key: value <!-- learned YYYY-MM-DD -->', or move it out"
                    " of the block",
                )
            )
            continue
        key, why = keys.canonical(fact.key)
        try:
            checked_date(fact.learned, where)
            checked_date(fact.confirmed, where)
        except HotplexError as exc:
            problems += exc.problems
            continue
        if key is None:
            problems.append(Problem(why or "no key", where))
        elif key in facts:
            problems.append(Problem(f"the key {key!r} is a fact twice in the block", where))
        else:
            facts[key] = Fact(key, fact.value, fact.learned, fact.source, fact.confirmed)
    if problems:
        raise HotplexError(problems)
    return Profile(lines[:start], facts, lines[end + 1 :], eol)


def block(facts: dict[str, Fact], eol: str = "") -> list[str]:
    """The block's lines for these facts (each ending in ``eol`` before its line feed)."""
    items = [
        learned.fact_line(f.key, f.value, f.learned, f.source, f.confirmed)
        for _key, f in sorted(facts.items())
    ]
    lines = [learned.START, learned.HEADING, *(["", *items] if items else []), learned.END]
    return [line + eol for line in lines]


def join(profile: Profile, facts: dict[str, Fact]) -> str:
    """The profile's text with its block holding ``facts``; a file without one gets it at its
    end, after a blank line."""
    eol = profile.eol
    if profile.after is not None:
        return "\n".join([*profile.before, *block(facts, eol), *profile.after])
    before = list(profile.before)
    if before and before[-1] == "":
        before.pop()  # the text's final line end
    elif before and eol and not before[-1].endswith(eol):
        before[-1] += eol  # the last line had no ending: it gets the file's
    spacer = [eol] if before else []
    return "\n".join([*before, *spacer, *block(facts, eol), ""])


def worker_size(fact: Fact) -> int:
    """What a fact costs the budget: its line as the worker reads it, with its line end."""
    return len(f"- {fact.key}: {fact.value}\n")
