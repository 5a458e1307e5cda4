"""Compacted daily memory, as a build reads it: ``memory/compacted/2026-10.md`` and its header.

``hotplex memory compact`` (``hotplex.memory``) folds the days older than ``[memory]
compact_after_days`` into one file per month in the ``compacted/`` folder beside the days. The
file is a source, committed like the days: a build reads it, never writes it. Its frontmatter
says which days it covers, each with its size in bytes and the start of its SHA-256::

    ---
    compacted: "2026-10"
    compactor: builtin
    body: "9c1d0e4f2a3b5c6d"
    days:
      "2026-10-01.md": "412 3f2a9c0d1e2b4a5c"
    ---

A covered day whose size on disk is still the one written is not read as a day (its entries are
in the month's file); one that grew or shrank since is read as a day again, and the build warns
(``memory compact`` folds it in). Only the size is compared by a build, from the folder's
listing: a build never opens a day it does not need. ``body`` is the start of the SHA-256 of the
text below the frontmatter as hotplex wrote it: ``memory compact``, compacting the month again,
keeps a text that no longer matches (a person's edit) whole in the history first.

Beside the months, two folders no artifact reads: ``compacted/history/`` (append-only: the
entries a month's digest had no room for, whole) and ``archive/`` (the days ``memory compact
--archive`` moved out of the logs folder). The unread-file report knows both.

A month's text sits under its heading (``## 2026-10 (compacted)``) among the days' headings
(``## 2026-10-14``): a heading of its own at those levels would read as a day no log holds. A
build demotes each to ``###`` (``demoted``); a worker's answer holding one is refused.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping

from hotplex.errors import HotplexError, Span
from hotplex.fs import sha256
from hotplex.sources.frontmatter import trim
from hotplex.text import commonmark

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime

COMPACTED_FOLDER = "compacted"  # beside the days: <logs folder>/compacted/2026-10.md
HISTORY_FOLDER = "compacted/history"  # append-only, read by no artifact
ARCHIVE_FOLDER = "archive"  # days moved out by `memory compact --archive`, read by no artifact
COMMAND = "hotplex memory compact"
_MONTH = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])\.md")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
# A line that may open (ATX) or underline (setext) a heading: only such a text is parsed.
_MAYBE_HEADING = re.compile(r"^ {0,3}(?:#|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)
_ATX_MARKS = re.compile(r"( {0,3})#{1,2}(?=[ \t]|$)")
_COVER = re.compile(r"[0-9]+ [0-9a-f]+")  # a day's value in a header: "SIZE DIGEST"


def is_month(name: str) -> bool:
    """Whether a file name of the compacted folder names a month (``2026-10.md``)."""
    return _MONTH.fullmatch(name) is not None


def months_in(listing: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """The compacted months of a listing of the compacted folder, newest first."""
    return tuple(sorted((f for f in listing if is_month(f[0])), reverse=True))


def folder_of(logs_folder: str, kind: str) -> str:
    """``compacted``, ``compacted/history`` or ``archive`` under the logs' folder (a path)."""
    return posixpath.normpath(posixpath.join(logs_folder, kind))


def day_date(name: str) -> datetime.date:
    """The date a day's file name starts with (``2026-11-29-standup.md``); names are days."""
    import datetime  # only where days are counted: a build with no daily logs never does

    found = _DATE.match(name)
    assert found is not None, name
    return datetime.date(int(found[1]), int(found[2]), int(found[3]))


def past_age(names: Iterable[str], newest: str, after_days: int) -> list[str]:
    """The day names more than ``after_days`` days older than the day ``newest``: counted from
    the newest day's name, never the clock, so the same days give the same answer."""
    last = day_date(newest)
    return [n for n in names if (last - day_date(n)).days > after_days]


def covered(
    meta: Mapping[str, object], month: str, display: str, text: Callable[[], str]
) -> dict[str, tuple[int, str]]:
    """The days a compacted month's frontmatter lists: name -> (size, digest start). A month
    covers none of another month's days (a header edited to name the newest day hides no day):
    those days are read. A key of the wrong type or shape is an error at its line (found in
    ``text()``, the file's text, asked only then), not a month quietly covering nothing."""
    wrong = _wrong_key(meta, month)
    if wrong is not None:
        path, message = wrong
        line, column = _key_place(text(), path)
        raise HotplexError.single(
            message,
            Span(display, line, column, key=".".join(path)),
            hint=f"fix the frontmatter, or remove it and run {COMMAND} to write it again",
        )
    days = meta.get("days")
    found = {}
    for name, value in days.items() if isinstance(days, Mapping) else ():
        size, _, digest = value.partition(" ")
        if name.startswith(f"{month}-"):
            found[name] = (int(size), digest)
    return found


def _wrong_key(meta: Mapping[str, object], month: str) -> tuple[tuple[str, ...], str] | None:
    """The first key of a month's frontmatter (its path) whose value hotplex never writes, and
    why; None when each is as written (or absent: a month written by hand covers no day)."""
    named = meta.get("compacted", month)
    if not isinstance(named, str):
        return ("compacted",), f'compacted must be the month as text, "{month}"'
    if named != month:
        return ("compacted",), f"compacted names {named}, but the file is {month}'s"
    for key in ("compactor", "body"):
        if not isinstance(meta.get(key, ""), str):
            return (key,), f"{key} must be text, as hotplex writes it"
    days = meta.get("days", {})
    if not isinstance(days, Mapping):
        return ("days",), 'days must be a mapping of day file names to "SIZE DIGEST"'
    for name, value in days.items():
        if not isinstance(value, str) or _COVER.fullmatch(value) is None:
            return ("days", str(name)), (
                f'days.{name} must be "SIZE DIGEST" (as "412 3f2a9c0d1e2b4a5c"), not {value!r}'
            )
    return None


def _key_place(text: str, path: tuple[str, ...]) -> tuple[int | None, int | None]:
    """The 1-based line and column of the value at ``path`` in a file's YAML frontmatter, by
    PyYAML's composer (the reader python-frontmatter uses); (None, None) when not found."""
    import yaml

    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0)
    node = yaml.compose("\n".join(lines[1:end]), Loader=yaml.SafeLoader)
    for key in path:
        pairs = node.value if isinstance(node, yaml.MappingNode) else []
        node = next((v for k, v in pairs if str(k.value) == key), None)
        if node is None:
            return None, None
    return node.start_mark.line + 2, node.start_mark.column + 1


def month_file(month: str, compactor: str, days: Mapping[str, tuple[int, str]], body: str) -> str:
    """A compacted month's file: its frontmatter, every value quoted (``2026-10`` stays text),
    then ``body``, whose digest the frontmatter keeps (``body_digest``)."""
    lines = ["---", f'compacted: "{month}"', f"compactor: {compactor}"]
    lines += [f'body: "{body_digest(body)}"', "days:"]
    lines += [f'  "{name}": "{size} {digest}"' for name, (size, digest) in sorted(days.items())]
    return "\n".join([*lines, "---", body, ""])


def body_digest(body: str) -> str:
    """The start of the SHA-256 of a month's text as hotplex wrote it (blank lines around it
    aside): a text whose digest differs was edited since, and is kept when the month is
    compacted again."""
    return sha256(trim(body).encode("utf-8", "surrogatepass"))[:16]


def still_covered(
    months: Mapping[str, Mapping[str, tuple[int, str]]],
    sizes: Mapping[str, int],
    after_days: int | None,
) -> set[str]:
    """The days (names in the logs folder, with their sizes) a compacted month covers as they
    are now: listed in a month's header with the size they still have, and past the age (a
    header edited to name a recent day hides none; with no age set, every day listed)."""
    found = {
        name
        for days in months.values()
        for name, (size, _) in days.items()
        if sizes.get(name) == size
    }
    if after_days is None or not found:
        return found
    return set(past_age(found, max(sizes, key=day_date), after_days))


def section_headings(text: str) -> list[tuple[int, int]]:
    """The headings of ``text`` at a day's or a month's level (h1, h2, outside any list, quote
    or code), each as its lines (first, past its last), ``\n``-separated, 0-based; by
    markdown-it-py, the CommonMark reading the scans use, not a pattern of our own."""
    if _MAYBE_HEADING.search(text) is None:
        return []
    tokens = commonmark.parser().parse(text)
    return [
        (t.map[0], t.map[1])
        for t in tokens
        if t.type == "heading_open" and t.level == 0 and t.tag in ("h1", "h2") and t.map
    ]


def demoted(text: str) -> str:
    """``text`` with each heading ``section_headings`` finds made an h3: ``## x`` -> ``### x``,
    a setext heading's lines joined after ``### `` and its underline dropped."""
    found = section_headings(text)
    if not found:
        return text
    lines = text.split("\n")
    for first, last in reversed(found):
        atx = _ATX_MARKS.match(lines[first])
        if atx is not None:
            lines[first] = f"{atx[1]}###{lines[first][atx.end() :]}"
        else:
            title = " ".join(line.strip() for line in lines[first : last - 1])
            lines[first:last] = [f"### {title}"]
    return "\n".join(lines)
