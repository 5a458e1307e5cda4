"""Daily memory logs: ``[memory] logs = "memory/*.md"`` after MEMORY.md in the memory section.

Agents append to a log per day (``memory/2026-11-29.md``), so this is the part of the context that
grows without bound. The rules, each decided here or in ``limits.py`` and nowhere else:

- Days: a file the glob matches is a day when its name is a date (``is_day``); any other is
  reported by ``unused.py``, and a glob matching a source's file is an error.
- Order: newest first by file name, never by the clock, so a build is reproducible.
- Entries: a top-level list item (with its indented continuation) or a paragraph; a heading is
  structure, not an entry. An entry that appears verbatim in a newer day is kept only there.
- Reading: days are read newest first only while their text could still fit the section's
  budget (``read_bound``); older days are listed, never opened, and reported as left out with
  their size on disk. 1,000 days cost one folder listing and the few files the budget can use.
  A day larger than the read cap is read from its end (``Inputs.logs``), from its first entry.
- Templates are off (agents write these files, not the operator), frontmatter is stripped, the
  secret and hidden-text scans run as for any source. A day's name (its file name without
  ``.md``) becomes its heading, so it is text of the document too: one line (a line break or any
  other control character in it is an error naming the file), its suffix after the date scanned
  like the file's text.
- Fitting (``limits.fit_days``): whole days while they fit; when the newest day alone does not,
  its newest entries (the end of the file) on entry boundaries.

The glob's folder is an input of the build (``folder/``, its digest covering every day's name
and size: notes.md beside them is no input), so a new or removed day rebuilds the artifacts
whose memory section reads logs, and a no-op build notices one through the folder's stamp. The
glob's folder part is literal (no wildcards): one folder, one stamp.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from hotplex.generated import attrs
from hotplex.manifest.vocabulary import DAY_FORMS, LOG_SOURCE, split_glob
from hotplex.records import Day, Logs, Unread
from hotplex.sources.compacted import COMPACTED_FOLDER, folder_of, is_month, months_in

if TYPE_CHECKING:
    from hotplex.errors import Span
    from hotplex.manifest.model import Model, Source
    from hotplex.records import Section, Truncation
    from hotplex.sources.reader import Reader

_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
# A day's file name: its date, then optionally a suffix after '-', '_' or '.', then ".md".
_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[-_.][^/]*)?\.md", re.IGNORECASE)
# Controls (line feed among them) and the Unicode line and paragraph separators.
_NOT_IN_A_LINE = frozenset({"Cc", "Zl", "Zp"})


def full_text(curated: str, days: Iterable[Day]) -> str:
    """A section's text with every day it read: what it would hold with room for all. The
    compacted months come between the curated text and the days."""
    return "\n\n".join(t for t in (curated, *(d.text() for d in in_text_order(days))) if t)


def in_text_order(days: Iterable[Day]) -> list[Day]:
    """The days with entries as the section's text shows them: the compacted months first (the
    curated text's older neighbours), then the days, each newest first."""
    kept = [d for d in days if d.entries]
    return [d for d in kept if d.month] + [d for d in kept if not d.month]


def mapped(logs: Logs | None, change: Callable[[str], str]) -> Logs | None:
    """``logs`` with ``change`` applied to every heading name and entry (the sanitizer)."""
    if logs is None:
        return None
    days = tuple(
        attrs.evolve(d, name=change(d.name), entries=tuple(change(e) for e in d.entries))
        for d in logs.days
    )
    return Logs(days, logs.unread, change(logs.curated))


# Whether a path is a day is asked of every day by each stage that meets it (the folder's
# listing, the unused-file report, the cuts' lines): 1,000 days, 6,000 questions.
@functools.lru_cache(maxsize=1 << 14)
def is_day(path: str) -> bool:
    """Whether a file is a daily log by its name: a calendar date (``2026-11-29.md``), optionally
    followed by a suffix (``2026-11-29-standup.md``). By the name alone, never the clock, so a
    build is reproducible; anything else the logs glob matches is not a day."""
    found = _DAY.fullmatch(path.replace("\\", "/").rpartition("/")[2])
    if found is None:
        return False
    year, month, day = int(found[1]), int(found[2]), int(found[3])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    return 1 <= month <= 12 and 1 <= day <= month_days[month - 1]


def days_glob(model: Model) -> str | None:
    """The logs glob as a path of the project (``agent-configs/memory/*.md``); None without."""
    glob = model.manifest.memory.logs
    if glob is None:
        return None
    folder, pattern = split_glob(glob)
    return f"{model.source_path(folder)}/{pattern}"


def in_glob(glob_path: str, path: str) -> bool:
    """Whether ``path`` (as the build names it) is matched by the logs glob ``days_glob``: in
    its folder, matched by its pattern; a day or not."""
    folder, pattern = posixpath.split(glob_path)
    head, name = posixpath.split(path)
    return head == folder and fnmatch.fnmatchcase(name, pattern)


@functools.lru_cache(maxsize=1 << 14)
def is_day_of(glob_path: str, path: str) -> bool:
    """Whether ``path`` is a day of the logs glob ``days_glob``: matched, named by a date."""
    return in_glob(glob_path, path) and is_day(path)


def days_in(
    glob_path: str, folder: str, listing: Iterable[tuple[str, int]]
) -> tuple[tuple[str, int], ...]:
    """The entries (name, size) of a listing of ``folder`` that are days of the logs glob
    ``days_glob`` (none unless it is the glob's folder): ``is_day_of`` of each, the folder
    compared once."""
    head, pattern = posixpath.split(glob_path)
    if folder == folder_of(head, COMPACTED_FOLDER):
        return months_in(listing)
    if folder != head:
        return ()
    return tuple(f for f in listing if fnmatch.fnmatchcase(f[0], pattern) and is_day(f[0]))


def days_among(glob_path: str, paths: Iterable[str]) -> set[str]:
    """The paths (each spelled one way, as the build names them) that are days of the logs glob
    ``days_glob``: ``is_day_of`` of each, the glob split once."""
    prefix, pattern = f"{posixpath.dirname(glob_path)}/", posixpath.basename(glob_path)
    names = {p: p[len(prefix) :] for p in paths if p.startswith(prefix)}
    return {
        p
        for p, name in names.items()
        if "/" not in name and fnmatch.fnmatchcase(name, pattern) and is_day(name)
    }


def list_folder(path: str) -> tuple[tuple[str, int], ...] | None:
    """Every regular file of a folder as (name, size in bytes), sorted by name; None when the
    folder does not exist."""
    try:
        with os.scandir(path) as it:
            found = [(e.name, e.stat().st_size) for e in it if e.is_file()]
    except (FileNotFoundError, NotADirectoryError):
        return None
    return tuple(sorted(found))


def matching(listing: Iterable[tuple[str, int]], pattern: str) -> list[tuple[str, int]]:
    """The days of a listing the glob's file pattern matches, newest (greatest name) first;
    a matched file whose name is no date is not a day (``unused.py`` reports it)."""
    days = [(name, size) for name, size in listing if fnmatch.fnmatchcase(name, pattern)]
    return sorted(((name, size) for name, size in days if is_day(name)), reverse=True)


def whole_entries(tail: str) -> str:
    """The end of a day read from the middle: from the first line that surely starts an entry
    or a heading (the first line, and what follows it, may be the rest of an older entry). An
    odd number of code fences means the read began inside a fenced block: start after it."""
    lines = tail.split("\n")
    fences = [index for index, line in enumerate(lines) if _FENCE.match(line)]
    first = fences[0] + 1 if len(fences) % 2 else 1
    after_blank = False
    for index, line in enumerate(lines[first:], first):
        starts = _LIST_ITEM.match(line) or _HEADING.match(line) or (after_blank and line[:1] != " ")
        if line.strip() and line[:1] != "\t" and starts:
            return "\n".join(lines[index:])
        after_blank = not line.strip()
    rest = "\n".join(lines[first:])
    return rest if rest.strip() else tail  # all one entry's end: the newest entry, cut


@functools.lru_cache(maxsize=4096)
def entries(text: str) -> tuple[tuple[str, bool, str], ...]:
    """``text`` split into top-level blocks, each with whether it is an entry (a list item or a
    paragraph, which a newer day may repeat) rather than a heading, and the line breaks before
    it in ``text`` (one in a tight list). Cached: a gateway compiles the same days for every
    user."""
    return tuple(
        ("\n".join(lines).rstrip(), is_entry, gap) for _, lines, is_entry, gap in blocks(text)
    )


def blocks(text: str) -> list[tuple[int, list[str], bool, str]]:
    """The top-level blocks of ``text`` (``entries``): each block's first line (0-based), its
    lines (consecutive in ``text``; a blank line outside a fence as ``""``), whether it is an
    entry, and the line breaks before it. A list item holds its indented lines (a nested list
    too); a fenced code block belongs to the block it opens in and runs to its closing fence, or
    to the end of the text."""
    found: list[tuple[int, list[str], bool, str]] = []
    fence: str | None = None
    blanks = 0
    in_item = False
    for index, line in enumerate(text.split("\n")):
        if fence is not None:
            found[-1][1].append(line)
            if line.lstrip().startswith(fence):
                fence = None
            continue
        if not line.strip():
            blanks += 1
            continue
        item = _LIST_ITEM.match(line) is not None
        heading = _HEADING.match(line) is not None
        continues = in_item and line[0] in " \t"
        if not found or item or heading or (blanks and not continues) or found[-1][2] is False:
            found.append((index, [], not heading, "\n" * (blanks + 1)))
            in_item = item
        else:
            found[-1][1].extend([""] * blanks)
        found[-1][1].append(line)
        blanks = 0
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
    return found


def read_days(
    listed: list[tuple[str, int]],
    folder: str,
    load: Callable[[str], str | None],
    measure: Callable[[str], int],
    bound: int | None,
    months: Iterable[tuple[str, str, str]] = (),
) -> Logs:
    """Read days newest first while what was read could still fit ``bound`` units (None: read
    every day); remove from each day the entries a newer day holds verbatim. ``months``: the
    compacted months (display, month, text), newest first, read already; older than every day,
    they follow the days and lose the entries a day holds."""
    seen: set[str] = set()
    days: list[Day] = []
    unread: list[Unread] = []
    used = 0
    for name, size in listed:
        display = posixpath.normpath(posixpath.join(folder, name))
        if bound is not None and used > bound:
            unread.append(Unread(display, size))
            continue
        body = load(display)
        if body is None:  # gone since the listing: a later build sees the new listing
            continue
        day = _new_entries(display, posixpath.splitext(name)[0], body, seen)
        days.append(day)
        used += measure(day.text()) + 2
    for display, month, body in months:
        days.append(attrs.evolve(_new_entries(display, month, body, seen), month=True))
    return Logs(tuple(days), tuple(unread))


def _new_entries(display: str, name: str, body: str, seen: set[str]) -> Day:
    """A day with the entries ``seen`` in a newer one left out (and added to ``seen``)."""
    kept, gaps, new, repeated = [], [], False, False
    for block, is_entry, gap in entries(body):
        if is_entry and block in seen:
            repeated = True
            continue
        if is_entry:
            seen.add(block)
            new = True
        kept.append(block)
        gaps.append(gap)
    if repeated and not new:  # headings alone left: nothing a newer day does not hold
        kept, gaps = [], []
    return Day(display, name, tuple(kept), body, tuple(gaps))


def attach(resolver: Reader, source: Source, section: Section | None) -> Section | None:
    """The memory source's section with its daily logs (``sources.resolve``'s one hook): read
    through the job's ``Inputs``, scanned like any source, no templates. Imports here: the
    touched path imports this module, and uses these only once a project has logs."""
    from hotplex.errors import Span
    from hotplex.records import Section
    from hotplex.scanning.origins import Origin
    from hotplex.sources import comments
    from hotplex.sources.frontmatter import trim
    from hotplex.text.measure import measure

    model, job = resolver.model, resolver.job
    folder_glob, pattern = split_glob(model.manifest.memory.logs)
    folder = model.source_path(folder_glob)
    span = Span(model.manifest_display, key="memory.logs")
    html = source.html_comments or model.manifest.project.html_comments
    worker = job.worker
    resolver.consulted.append(f"{folder}/")
    labels: dict[str, str] = {}  # a day -> how messages name it (an overlay: its label)

    def load(display: str) -> str | None:
        loaded = resolver.file(display, span)
        if loaded is None:
            return None
        labels[display] = loaded.display
        body = loaded.body
        if loaded.tail:  # the read began mid-entry: its cut reports what is left of the day
            body = whole_entries(loaded.body)
            skipped = measure(loaded.body, "bytes") - measure(body, "bytes")
            read = resolver.truncations[-1]
            resolver.truncations[-1] = attrs.evolve(read, after=max(read.after - skipped, 0))
        text = trim(comments.strip(body) if html == "strip" else body)

        def origins() -> list[Origin]:
            line = resolver.inputs.tail_line(display, span) if loaded.tail else loaded.body_line
            return [Origin(loaded.body, loaded.display, line)]

        resolver.guard(text, origins, display)
        if not loaded.tail:  # a capped day's first line costs a read: a worker's finding there
            resolver.written += origins()  # is placed in the document it builds
        return text

    listed = matching(resolver.inputs.listing(f"{folder}/", span), pattern)
    months, covered = compacted_months(resolver, folder, span, load)
    listed = [day for day in listed if day[0] not in covered]
    budgets = worker.section_budgets(job.target, model.manifest, source.name)
    bound = None
    if worker.daily_logs == "section":
        curated = measure(section.text, budgets.unit) if section is not None else 0
        limit = min(b for b in (budgets.per_file, budgets.total, 1 << 62) if b is not None)
        bound = max(limit - curated, 0)
    logs = read_days(listed, folder, load, lambda t: measure(t, budgets.unit), bound, months)
    for day in logs.days:
        if day.month:  # named by hotplex from a file name that is a month
            continue
        label = labels.get(day.display, day.display)
        check_name(day.name, label)
        suffix = name_suffix(day.name)
        resolver.guard(suffix, lambda s=suffix, f=label: [Origin(s, f, named=True)], day.display)
    if section is None:
        if not logs.days and not logs.unread:
            return None
        section = Section(source.name, source.tag, source.channel, source.note, "", ())
    logs = attrs.evolve(logs, curated=section.text)
    if worker.daily_logs == "files":
        return attrs.evolve(section, logs=logs)
    return attrs.evolve(section, text=full_text(section.text, logs.days), logs=logs)


def compacted_months(
    resolver: Reader, folder: str, span: Span, load: Callable[[str], str | None]
) -> tuple[list[tuple[str, str, str]], set[str]]:
    """The compacted months beside the days (``compacted.py``), newest first, as (display,
    heading name, text), and the names of the days they cover as the days are now."""
    from hotplex.sources.compacted import covered, demoted, still_covered
    from hotplex.sources.frontmatter import decode

    def _text_of(display: str) -> str:  # a month's whole text, for the line of a bad key
        read = resolver.inputs.raw(display, span)
        return decode(read.data, display) if read is not None else ""

    where = folder_of(folder, COMPACTED_FOLDER)
    resolver.consulted.append(f"{where}/")
    months, coverage = [], {}
    for name, _ in resolver.inputs.listing(f"{where}/", span):
        display = f"{where}/{name}"
        loaded = resolver.file(display, span)
        text = load(display)
        if loaded is None or text is None:
            continue
        coverage[name] = covered(
            loaded.meta, name.removesuffix(".md"), loaded.display, lambda d=display: _text_of(d)
        )
        months.append((display, f"{name.removesuffix('.md')} (compacted)", demoted(text)))

    sizes = dict(resolver.inputs.listing(f"{folder}/", span))
    return months, still_covered(coverage, sizes, resolver.model.manifest.memory.compact_after_days)


def name_suffix(name: str) -> str:
    """What a day's name (its file name without ``.md``) adds to its date: text of the document,
    scanned on its own ("-" joins no key to it)."""
    return name[len("YYYY-MM-DD") + 1 :]


def check_name(name: str, file: str) -> None:
    """A day's name is its heading: a line break in it would end the heading and start entries
    (or a heading of another day) no file holds; any other control character is refused with it.
    ``file``: how messages name the day (its path, or an overlay's label)."""
    from hotplex.errors import HotplexError, Span
    from hotplex.fs import is_utf8
    from hotplex.scanning.hidden import describe

    bad = next((c for c in name if unicodedata.category(c) in _NOT_IN_A_LINE), None)
    if bad is not None:
        raise HotplexError.single(
            f"a day's file name is its heading, one line of text; this one holds {describe(bad)}",
            Span(file),
            hint=f"rename the file ({DAY_FORMS})",
        )
    if not is_utf8(name):  # its heading could be written nowhere
        raise HotplexError.single(
            "a day's file name is its heading, text; this one is not valid UTF-8 "
            "(a byte that is not shows as U+DCxx)",
            Span(file),
            hint=f"rename the file ({DAY_FORMS})",
        )


def describe_cuts(truncations: Iterable[Truncation]) -> list[str]:
    """Each cut as a line, the days left out past the first two folded into one line (1,000
    days of logs are one line, not a thousand); ``--json`` and ``stats --json`` list each."""
    lines, days, months = [], [], []
    for cut in truncations:
        if cut.after == 0 and cut.style == "dropped" and _is_day(cut):
            days.append(cut)
        elif cut.after == 0 and cut.style == "dropped" and _is_month(cut):
            months.append(cut)
        else:
            lines.append(cut.describe())
    return lines + _folded(days, "days") + _folded(months, "compacted months")


def _folded(cuts: list[Truncation], what: str) -> list[str]:
    """The first two cuts, and the rest as one line (three or fewer: each)."""
    if len(cuts) <= 3:  # a fold would name no fewer lines
        return [cut.describe() for cut in cuts]
    rest = cuts[2:]
    return [
        *(cut.describe() for cut in cuts[:2]),
        f"{len(rest)} older {what}, {rest[-1].files[0]} … {rest[0].files[0]}: dropped"
        + (f" in {rest[0].document}" if rest[0].document else "")
        + f"; no room left in {rest[0].limit_name}",
    ]


def _is_day(cut: Truncation) -> bool:
    return cut.section == LOG_SOURCE and len(cut.files) == 1 and is_day(cut.files[0])


def _is_month(cut: Truncation) -> bool:
    """A compacted month's cut (``compacted/2026-10.md``), folded as the days' are."""
    if cut.section != LOG_SOURCE or len(cut.files) != 1:
        return False
    folder, name = posixpath.split(cut.files[0])
    return posixpath.basename(folder) == COMPACTED_FOLDER and is_month(name)
