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

The block is never rendered as a template, whatever the file's frontmatter says: a learned
``{{ x }}`` or ``{% include %}`` is text (``set_aside`` hides it from the renderer, ``put_back``
restores it). This module sits below the document stage so the reader can do both; the merge
itself is ``hotplex.learning``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

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


def bounds(lines: list[str]) -> tuple[int, int] | None:
    """The indexes of the block's start and end marker lines, or None when the file has none
    (a start with no end runs to the end of the file: ``end`` is then ``len(lines)``)."""
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == START)
    except StopIteration:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == END), len(lines))
    return start, end


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


def set_aside(body: str, taken: str | None = None) -> SetAside | None:
    """``body`` with its learned block hidden from the template renderer, line for line (so
    that a template error after it keeps its line number), or None when it has no block. The
    placeholders' stem is found neither in ``body`` nor in ``taken`` (the includer's text and
    stems, for a file a template includes)."""
    if START not in body:
        return None
    lines = body.split("\n")
    found = bounds(lines)
    if found is None:
        return None
    start, end = found
    stop = min(end + 1, len(lines))
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


def for_worker(body: str) -> str:
    """``body`` as the worker reads it: its learned block without markers or provenance."""
    aside = set_aside(body)
    return body if aside is None else put_back(aside.body, aside)
