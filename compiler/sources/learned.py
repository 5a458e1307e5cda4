"""The learned section of a profile (USER.md): its lines as written, and what reaches the worker.

``hotplex learn`` (``hotplex.learning``) owns one block of the file, between two marker lines;
every line outside it is the person's and never changes::

    <!-- hotplex:learned -->
    ## Learned facts

    - editor: prefers tabs <!-- learned 2026-11-30 from session-42, confirmed 2026-12-01 -->
    <!-- /hotplex:learned -->

One fact a list item: its key, ``": "``, its value, and its provenance in a trailing HTML
comment (the date it was learned, the source that said it, the date it was last confirmed when
later). A person may edit, add or delete items by hand in that form.

What reaches the worker is the facts alone (``- editor: prefers tabs``) under the heading: the
marker lines and the provenance comments are dropped by the reader. The source is an id of the
gateway's (meaningless to a model, and text a gateway passed along), and the dates would change
the compiled document, its digest and every prompt cache built on it, at each re-confirmation.

``read_block`` is the one reader of the block, for ``hotplex learn`` and for a build alike, so
the two cannot disagree: a line of the block that is neither blank, a heading nor a fact, a key
that is no key, the same key twice, a date that is no day (or a confirmation before the
learning), a value broken across lines, a block never closed or a second block is an error with
its line, never a fact silently dropped nor a marker passed to the worker.

The block is never rendered as a template, whatever the file's frontmatter says: a learned
``{{ x }}`` or ``{% include %}`` is text (``set_aside`` hides it from the renderer, ``put_back``
restores it). This module sits below the document stage so the reader can do both; the merge
itself is ``hotplex.learning``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hotplex.errors import HotplexError, Problem, Span
from hotplex.sources import learned_keys

START = "<!-- hotplex:learned -->"
END = "<!-- /hotplex:learned -->"
HEADING = "## Learned facts"
_DATE = r"\d{4}-\d{2}-\d{2}"
# The source: an id (a session, a channel), no blank, no comma, no '<' or '>'.
SOURCE = r"[A-Za-z0-9._:@/#+=-]{1,128}"
_FACT = re.compile(
    r"- (?P<key>[^:\n]+?): (?P<value>.+?)"
    rf" <!-- learned (?P<learned>{_DATE})(?: from (?P<source>{SOURCE}))?"
    rf"(?:, confirmed (?P<confirmed>{_DATE}))? -->[ \t]*"
)


_DAY = re.compile(_DATE)
# What would end a line of the block, or its provenance comment, inside a value.
_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def line_break(value: str) -> str | None:
    """The first character of ``value`` that would end its line of the block, or None."""
    return next((b for b in _BREAKS if b in value), None)


def day_problem(date: object) -> str | None:
    """Why ``date`` is no YYYY-MM-DD day of the calendar, or None."""
    if not isinstance(date, str) or not _DAY.fullmatch(date):
        return f"the date must be YYYY-MM-DD, not {date!r}"
    import datetime  # only for a learned block's dates: most builds read none

    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        return f"{date} is no day of the calendar"
    return None


class Line(NamedTuple):
    """One fact line as written: its key and value as they stand, its provenance."""

    key: str
    value: str
    learned: str
    source: str | None
    confirmed: str  # the learned date when the line names none


def parse_line(line: str) -> Line | None:
    """The fact a line of the block holds, or None when it is no fact line."""
    found = _FACT.fullmatch(line)
    if found is None:
        return None
    learned = found["learned"]
    return Line(
        found["key"], found["value"], learned, found["source"], found["confirmed"] or learned
    )


def fact_line(key: str, value: str, learned: str, source: str | None, confirmed: str) -> str:
    """A fact as its line is written (``parse_line``'s inverse)."""
    origin = f" from {source}" if source else ""
    later = f", confirmed {confirmed}" if confirmed != learned else ""
    return f"- {key}: {value} <!-- learned {learned}{origin}{later} -->"


class Block(NamedTuple):
    start: int  # the index of its start marker line
    end: int  # the index of its end marker line
    facts: dict[str, Line]  # by the key as compared (``learned_keys.canonical``), in file order


def read_block(lines: list[str], file: str, first_line: int = 1) -> Block | None:
    """The learned block of ``lines`` (a file's, or its body's when its first line is the
    file's ``first_line``), or None when they hold none; every problem of it at once, each at
    its line of the file."""
    markers = [i for i, line in enumerate(lines) if line.strip() in (START, END)]
    if markers and _may_hide_code(lines, markers):
        code = _code_lines(lines)
        markers = [i for i in markers if i not in code]
    if not markers:
        return None

    def at(index: int) -> Span:
        return Span(file, first_line + index, 1, source_line=lines[index])

    start = markers[0]
    if lines[start].strip() == END:
        raise HotplexError.single(
            "an end marker with no learned block open", at(start), f"the block starts at {START}"
        )
    end = next((i for i in markers[1:] if lines[i].strip() == END), None)
    if end is None:
        raise HotplexError.single(f"the learned block is never closed: add a line {END}", at(start))
    problems: list[Problem] = []
    hint = f"move its facts into the block at line {first_line + start}"
    second = False  # a second block is open: its end marker is no problem of its own
    for index in markers[1:]:
        if index == end:
            continue
        if lines[index].strip() == START:
            problems.append(Problem("a second learned block: a file holds one", at(index), hint))
            second = True
        elif second:
            second = False
        else:
            problems.append(Problem("an end marker with no learned block open", at(index)))
    facts: dict[str, Line] = {}
    shapes: dict[str, Line] = {}  # by skeleton
    for index in range(start + 1, end):
        line = lines[index]
        if not line.strip() or line.startswith("#") or line.strip() == START:
            continue
        problem = _fact_problem(line, facts, shapes)
        if problem is not None:
            problems.append(Problem(problem[0], at(index), problem[1]))
    if problems:
        raise HotplexError(sorted(problems, key=lambda p: p.span.line if p.span else 0))
    return Block(start, end, facts)


# A fence's opening line (up to three blanks, then ``` or ~~~), or a line indented as code.
_FENCE = re.compile(r" {0,3}(?:```|~~~)")
_INDENTED = re.compile(r"(?: {4}|\t| {1,3}\t)")


def _may_hide_code(lines: list[str], markers: list[int]) -> bool:
    """Whether a marker line may be code (an example the person wrote, in a fence or indented):
    only then is the file parsed."""
    return any(_INDENTED.match(lines[i]) for i in markers) or any(
        _FENCE.match(line) for line in lines
    )


def _code_lines(lines: list[str]) -> set[int]:
    """The indexes of the lines CommonMark reads as code (fenced or indented): a marker there is
    the person's text, an example of the block, never the block."""
    from hotplex.text.commonmark import parser

    code: set[int] = set()
    for token in parser().parse("\n".join(lines)):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
    return code


def _fact_problem(
    line: str, facts: dict[str, Line], shapes: dict[str, Line]
) -> tuple[str, str | None] | None:
    """What is wrong with a line of the block (a message and a hint), or None when it is a
    fact: then ``facts`` (and ``shapes``, by its key's skeleton) holds it."""
    fact = parse_line(line)
    if fact is None:
        return (
            "a line of the learned block that is no fact",
            "write it as '- key: value <!-- learned YYYY-MM-DD -->', or move it out of the block",
        )
    key, why = learned_keys.canonical(fact.key)
    broken = line_break(fact.value)
    wrongs = (
        None if broken is None else f"the value breaks its line ({broken}): a fact is one line",
        day_problem(fact.learned),
        day_problem(fact.confirmed),
        f"confirmed before it was learned ({fact.confirmed} < {fact.learned})"
        if fact.confirmed < fact.learned
        else None,
        why,
        f"the key {key!r} is a fact twice in the block" if key in facts else None,
    )
    wrong = next(filter(None, wrongs), None)
    if wrong is not None or key is None:
        return wrong or "no key", None
    twin = shapes.setdefault(learned_keys.skeleton(fact.key), fact)
    if twin is not fact:
        return learned_keys.look_alike(
            fact.key, twin.key, "in the block"
        ), "one key, one spelling: keep one"
    facts[key] = fact
    return None


def worker_line(line: str) -> str | None:
    """What the worker reads of one line of the block: None for a marker, a fact without its
    provenance, any other line as written."""
    if line.strip() in (START, END):
        return None
    fact = parse_line(line)
    return line if fact is None else f"- {fact.key}: {fact.value}"


class SetAside(NamedTuple):
    body: str  # the text with each line of the block replaced by a placeholder line
    token: str  # the placeholders' stem, found nowhere in the text
    lines: list[str | None]  # what each placeholder stands for (None: nothing)


def set_aside(body: str, file: str, first_line: int, taken: str | None = None) -> SetAside | None:
    """``body`` (of ``file``, from its line ``first_line``) with its learned block hidden from
    the template renderer, line for line (so that a template error after it keeps its line
    number), or None when it has no block. The placeholders' stem is found neither in ``body``
    nor in ``taken`` (the includer's text and stems, for a file a template includes)."""
    if START not in body and END not in body:
        return None
    lines = body.split("\n")
    found = read_block(lines, file, first_line)
    if found is None:
        return None
    start, stop = found.start, found.end + 1
    token = "hotplex-learned-line"
    seen = body if taken is None else taken
    while token in seen:
        token += "-"
    held = [worker_line(line) for line in lines[start:stop]]
    lines[start:stop] = [f"{token}{index}." for index in range(stop - start)]
    return SetAside("\n".join(lines), token, held)


def put_back(text: str, aside: SetAside) -> str:
    """The rendered ``text`` with the block's lines as the worker reads them."""
    pattern = re.compile(rf"{re.escape(aside.token)}(\d+)\.(\n?)")

    def restored(found: re.Match[str]) -> str:
        line = aside.lines[int(found[1])]
        return "" if line is None else line + found[2]

    return pattern.sub(restored, text)


def for_worker(body: str, file: str, first_line: int) -> str:
    """``body`` as the worker reads it: its learned block without markers or provenance."""
    aside = set_aside(body, file, first_line)
    return body if aside is None else put_back(aside.body, aside)
