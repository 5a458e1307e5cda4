"""Find likely credentials in what an artifact will contain, and say which source line holds them.

Agent files are written by people and by agents (MEMORY.md), and artifacts are copied into
prompts, logs and repositories, so a key pasted into a source must stop the build (a HotPlex rule:
never leak API keys, tokens or passwords). The scan runs on each source file *as rendered* for a
job, so a secret in a comment or an untaken ``{% if %}`` branch is not reported while one arriving
through a variable is; each match is then traced back to the text it was copied from (the file,
an included file, a ``[vars]`` value, a manifest note) to name its file:line:column or key path.
The text is searched as written and as a model or a renderer reads it (adversary16 D8): a key
written with a Markdown escape (``ghp\\_…``, as editors export every ``_``), a character reference
or markup that renders as nothing inside it is the key all the same.

Every rule names a shape (``secret_rules.py``, a leaf every message's redaction uses);
``[secrets] allow`` in the manifest turns a rule off by name or allows a finding whose secret is
a given string, whole (adversary16 D14: the documentation's example key allowed every key block
holding it), and ``allow_files`` allows every finding in the files its globs match.
Messages never repeat a secret whole: it and its source line are redacted before they reach a
terminal or a CI log.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from hotplex.errors import Problem, Span, redacted
from hotplex.scanning import as_read
from hotplex.scanning.confusables import skeleton
from hotplex.scanning.origins import (
    Allowance,
    Origin,
    Places,
    locate,
    misspelt_rule,
    rule_allowance,
)
from hotplex.text.memo import cached_for_short_texts
from hotplex.text.secret_rules import RULE_NAMES, Match, redact, scan


class Finding(NamedTuple):
    rule: str
    description: str
    secret: str  # as written in the scanned text
    shown: str  # as a reader reads it: escapes and references decoded, empty markup dropped
    span: Span
    assembled: bool = False  # formed by template rendering: in no source text as a whole

    @property
    def size(self) -> int:
        """How many characters of the scanned text the finding covers."""
        return len(self.secret)

    def problem(self) -> Problem:
        how = ", assembled by template expressions" if self.assembled else ""
        return Problem(
            f"possible secret, {self.description} (rule {self.rule}{how}): "
            f"{redact(self.secret)}; it must not reach an artifact",
            self.span,
            "remove it (and revoke it if it was real); if it is not a secret, allow it: "
            f'[secrets] allow = ["{self.rule}"] or the secret itself, whole',
        )


def allowance(allow: Iterable[str], allow_files: Iterable[str]) -> Allowance:
    """``[secrets]``: an entry naming a rule turns it off; another allows the findings that are
    it, whole (a documentation key), never one holding it (a key block, a longer password)."""
    return rule_allowance(RULE_NAMES, allow, allow_files)


def _allowed(allowance: Allowance, finding: Finding) -> bool:
    return (
        allowance.allows_name(finding.rule)
        or finding.secret in allowance.texts
        or finding.shown in allowance.texts
        or allowance.allows_file(finding.span.file)
    )


def find(text: str, origins: Sequence[Origin], allowance: Allowance) -> list[Finding]:
    """The findings of ``text`` not allowed, each placed in the first origin holding its secret.

    A secret in no origin was assembled by rendering; it is placed at the first origin's file.
    """
    findings = []
    places = Places()
    for found in matches(text):
        finding = _place(text, found, origins, places)
        if not _allowed(allowance, finding):
            findings.append(finding)
    return findings


class Found(NamedTuple):
    """A match of the rules in ``text`` as written or as read, and where it is written."""

    start: int  # in the text as written
    written: str  # the secret as written there: ``ghp\\_…``
    match: Match  # in the text as read: its ``secret`` is ``ghp_…``


@cached_for_short_texts
def matches(text: str) -> tuple[Found, ...]:
    """Every likely credential of ``text``, in order: as written, and as a model or a renderer
    reads it (``as_read``), placed where it starts as written. The text read is built only for a
    text holding what may be read otherwise, and only the lines where it differs are searched:
    the scan of a plain text costs what it did."""
    found = [Found(m.start, m.secret, m) for m in scan(text)]
    if not as_read.may_differ(text):
        return tuple(found)
    read = as_read.read(text)
    if not read.changes:
        return tuple(found)
    starts = [f.start for f in found]
    ends = [f.start + len(f.written) for f in found]
    replaced: set[int] = set()
    read_found = []
    # The stretches to search, as lines of one text (a match other than a key block's is on one
    # line, and a key block's stretch runs to the end): one scan, not one a stretch.
    stretches = [(start, end) for start, end in read.windows() if read.text[start:end].strip()]
    joined = "\n".join(read.text[start:end] for start, end in stretches)
    joined_starts = list(
        itertools.accumulate((end - start + 1 for start, end in stretches), initial=0)
    )
    for start, stop, match in _scan_read(joined):
        i = bisect.bisect_right(joined_starts, start) - 1
        shift = stretches[i][0] - joined_starts[i]
        begin, after = read.written_start(start + shift), read.written_end(stop + shift)
        # Found as written already: kept, unless only a part of it was (``sk-ant-…<!-- -->…``,
        # whose rest the message's line would show unredacted).
        overlapped = range(bisect.bisect_right(ends, begin), bisect.bisect_left(starts, after))
        if not overlapped or (
            starts[overlapped[0]] >= begin
            and ends[overlapped[-1]] <= after
            and after - begin > ends[overlapped[-1]] - starts[overlapped[0]]
        ):
            replaced.update(overlapped)
            read_found.append(Found(begin, text[begin:after], match))
    kept = [f for i, f in enumerate(found) if i not in replaced]
    return tuple(sorted(kept + read_found, key=lambda f: f.start))


def _scan_read(view: str) -> Iterator[tuple[int, int, Match]]:
    """The matches in a stretch of the text read, with where each starts and ends there; the
    characters that render as nothing (a zero-width space a reference wrote, a soft hyphen)
    dropped (``skeleton``)."""
    if view.isascii():
        yield from ((m.start, m.start + len(m.secret), m) for m in scan(view))
        return
    folded, origin = skeleton(view)
    for m in scan(folded):
        yield origin[m.start], origin[m.start + len(m.secret) - 1] + 1, m


def _place(text: str, found: Found, origins: Sequence[Origin], places: Places) -> Finding:
    rule = found.match.rule
    at = locate(text, found.start, [(found.written, 0)], origins, places)
    span, assembled = places.span(at, origins), at is None
    return Finding(
        rule.name,
        rule.description,
        found.written,
        found.match.secret,
        _redacted(span, found.written),
        assembled,
    )


def _redacted(span: Span, secret: str) -> Span:
    """The place and the line shown under the message without the secret: a file's name (a
    day's heading) or a key path (an agent's name) may hold it too. The line is kept around the
    secret (``Span.around``): each of a long line's secrets redacted in the whole line cost the
    square of the line. Another secret there written disguised is redacted too: a message's
    rendering redacts those written whole only."""
    shown = redact(secret)

    def clean(text: str | None) -> str | None:
        return None if text is None else _read_redacted(text.replace(secret, shown))

    span = span.around(len(secret))
    return span.replace(
        file=span.file.replace(secret, shown),
        key=clean(span.key),
        source_line=clean(span.source_line),
    )


class Redactor:
    """The secrets of one text, found when a finding first quotes it, for the excerpts its
    findings of other kinds quote: each secret that reaches into an excerpt redacted whole
    first, so the cut that makes the excerpt keeps no piece of one (adversary21 D2: a hidden
    character's 20 characters of context ended inside a token, which the message's redaction
    then no longer recognised)."""

    def __init__(self, text: str, unseen: Sequence[Any] = ()) -> None:
        """``unseen``: the runs of hidden characters the text holds (``hidden.scan``'s, in order).
        A key split by one is read without them too (adversary22 D15: a token split by U+202E,
        a bell or a tag character, a key block's line with a zero-width space, each quoted from
        within by the hidden character's own finding)."""
        self.text = text
        self._unseen = unseen
        self._found: tuple[Found, ...] | None = None
        self._ends: list[int] = []

    def excerpt(self, start: int, stop: int) -> str:
        """``text[start:stop]``, each secret reaching into it redacted (``errors.redacted``)."""
        found = ((f.start, f.written) for f in self._reaching(start, stop))
        return redacted(self.text, start, stop, found)

    def _reaching(self, start: int, stop: int) -> list[Found]:
        """The secrets (``matches``, in order; they do not overlap) that reach into
        ``text[start:stop]``."""
        if self._found is None:
            self._found = _merged([*matches(self.text), *self._split_by_unseen()])
            self._ends = [f.start + len(f.written) for f in self._found]
        reaching, i = [], bisect.bisect_right(self._ends, start)
        while start < stop and i < len(self._found) and self._found[i].start < stop:
            reaching.append(self._found[i])
            i += 1
        return reaching

    def _split_by_unseen(self) -> list[Found]:
        """The secrets of the text read without its hidden characters, placed where written."""
        pieces, at, places, shifts = [], 0, [], [0]  # each run's place in the text read, and
        for run in self._unseen:  # how many characters are dropped up to it (the first: none)
            pieces.append(self.text[at : run.start])
            places.append(run.start - shifts[-1])
            shifts.append(shifts[-1] + run.stop - run.start)
            at = run.stop
        if not places:
            return []
        pieces.append(self.text[at:])
        found = []
        for f in matches("".join(pieces)):
            end = f.start + len(f.written)
            # The runs before its first character, and before its end.
            begin = f.start + shifts[bisect.bisect_right(places, f.start)]
            end += shifts[bisect.bisect_left(places, end)]
            found.append(Found(begin, self.text[begin:end], f.match))
        return found


def _merged(found: list[Found]) -> tuple[Found, ...]:
    """``found`` in order, those that overlap as one (the first's match): an excerpt redacts
    each whole."""
    merged: list[Found] = []
    for f in sorted(found, key=lambda f: f.start):
        end = f.start + len(f.written)
        if merged and f.start < merged[-1].start + len(merged[-1].written):
            last = merged[-1]
            if end > last.start + len(last.written):
                text = last.written + f.written[last.start + len(last.written) - f.start :]
                merged[-1] = Found(last.start, text, last.match)
        else:
            merged.append(f)
    return tuple(merged)


def _read_redacted(text: str) -> str:
    """``text`` with each secret it holds written other than as read redacted."""
    for found in matches(text) if as_read.may_differ(text) else ():
        if found.written != found.match.secret:
            text = text.replace(found.written, redact(found.written))
    return text


def unknown_rule_hint(entry: str) -> str | None:
    """For an allow entry that looks like a misspelt rule name: "did you mean …", else None."""
    return misspelt_rule(entry, RULE_NAMES)
