"""The facts a caller gives (``KEY=VALUE`` arguments, a JSON list, the API's mappings), read
into ``Given`` records or refused with the place of what is wrong (``facts[2].value``).

A shape problem is an error for the whole call: a key that is no key (``keys.canonical``), the
same key twice, a value that cannot be one line of the block, a date that is no date. What the
guard finds in a well-formed fact is not: that fact alone is refused (``merge.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from hotplex.errors import HotplexError, Problem, Span, suggest
from hotplex.sources import learned_keys as keys
from hotplex.sources.learned import SOURCE, day_problem, line_break

FACT_KEYS = ("key", "value", "source")
# The most facts one call takes: each is scanned alone, and in the whole profile when the
# profile with all of them holds something new (``merge.py``).
MOST_FACTS = 200
_SOURCE = re.compile(SOURCE)


class Given(NamedTuple):
    key: str  # canonical
    written: str  # the key as the caller wrote it (the guard reads it so)
    value: str
    source: str | None
    place: str  # how messages name it: facts[2]
    learned: str | None = None  # a restored fact keeps the date it was first learned


def checked_date(date: object, where: Span) -> str:
    """``date`` as YYYY-MM-DD: the caller's (hotplex never reads the clock)."""
    wrong = day_problem(date)
    if wrong is not None:
        raise HotplexError.single(wrong, where, "the day the facts were said")
    assert isinstance(date, str)
    return date


def checked_source(source: object, where: Span) -> str | None:
    if source is None:
        return None
    if not isinstance(source, str) or not _SOURCE.fullmatch(source):
        raise HotplexError.single(
            f"the source must be an id of 1 to 128 letters, digits and ._:@/#+=-, not {source!r}",
            where,
            "a session or channel id, e.g. session-42",
        )
    return source


def from_arguments(pairs: Iterable[str]) -> list[dict[str, str]]:
    """``KEY=VALUE`` arguments as the JSON list's objects."""
    facts = []
    for index, pair in enumerate(pairs):
        key, equals, value = pair.partition("=")
        if not equals:
            raise HotplexError.single(
                f"{pair!r} is no KEY=VALUE", Span("arguments", key=f"facts[{index}]")
            )
        facts.append({"key": key, "value": value})
    return facts


def read(facts: object, source: str | None, file: str = "facts") -> list[Given]:
    """The facts of a JSON list (objects of ``key``, ``value`` and an optional ``source``), or
    of a mapping of key to value; every problem at once, each with its place in ``file``."""
    if isinstance(facts, Mapping):
        facts = [{"key": k, "value": v} for k, v in facts.items()]
    if not isinstance(facts, list | tuple):
        raise HotplexError.single(
            'the facts must be a list of {"key": ..., "value": ...} objects',
            Span(file),
        )
    if len(facts) > MOST_FACTS:
        raise HotplexError.single(
            f"{len(facts)} facts in one call: at most {MOST_FACTS}",
            Span(file),
            "a conversation teaches a few; split a bulk import into several calls",
        )
    problems: list[Problem] = []
    given: list[Given] = []
    seen: dict[str, str] = {}
    shapes: dict[str, Given] = {}  # by the key's skeleton
    for index, item in enumerate(facts):
        place = f"facts[{index}]"
        try:
            fact = _one(item, place, file, source)
        except HotplexError as exc:
            problems += exc.problems
            continue
        first = seen.setdefault(fact.key, place)
        if first != place:
            problems.append(
                Problem(
                    f"the key {fact.key!r} is given twice (also as {first}): which value is meant?",
                    Span(file, key=f"{place}.key"),
                )
            )
            continue
        twin = shapes.setdefault(keys.skeleton(fact.written), fact)
        if twin is not fact:
            message = keys.look_alike(fact.written, twin.written, f"at {twin.place}")
            problems.append(Problem(message, Span(file, key=f"{place}.key")))
            continue
        given.append(fact)
    if problems:
        raise HotplexError(problems)
    return given


def _one(item: object, place: str, file: str, source: str | None) -> Given:
    def at(key: str | None = None) -> Span:
        return Span(file, key=place if key is None else f"{place}.{key}")

    if not isinstance(item, Mapping):
        raise HotplexError.single(f"{place} is not an object of key and value", at())
    for name in item:
        if name not in FACT_KEYS:
            hint = suggest(str(name), FACT_KEYS) or "keys: " + ", ".join(FACT_KEYS)
            raise HotplexError.single(f"unknown key {name!r}", at(str(name)), hint)
    written, value = item.get("key"), item.get("value")
    for name, text in (("key", written), ("value", value)):
        if not isinstance(text, str):
            raise HotplexError.single(f"{place}.{name} is missing or not a string", at(name))
    assert isinstance(written, str) and isinstance(value, str)
    from hotplex.fs import lone_surrogate

    for name, text in (("key", written), ("value", value)):
        lone = lone_surrogate(text)
        if lone is not None:
            raise HotplexError.single(
                f"not Unicode text (a lone surrogate U+{ord(lone):04X})",
                at(name),
                "bytes that are no UTF-8, or a JSON \\ud800-\\udfff escape without its pair",
            )
    key, why = keys.canonical(written)
    if key is None:
        # quoted, not repr'd: the message shows its invisible character as <U+200B>, as all do
        raise HotplexError.single(f"{why}: '{written}'", at("key"), "keys are visible words")
    value = value.strip(" \t")
    if not value:
        raise HotplexError.single(f"the value of {key!r} is empty", at("value"))
    broken = line_break(value)
    if broken is not None:
        raise HotplexError.single(
            f"the value of {key!r} breaks its line ({broken}): a fact is one line",
            at("value"),
            "split it into several facts",
        )
    if "<!--" in value or "-->" in value:
        raise HotplexError.single(
            f"the value of {key!r} holds an HTML comment mark, which the line's provenance uses",
            at("value"),
        )
    own = checked_source(item.get("source", source), at("source"))
    return Given(key, written, value, own, place)
