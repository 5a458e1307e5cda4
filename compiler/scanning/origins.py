"""What the content scans share: where a match in rendered text was written and what the manifest
allows (their cache is ``memo.py``).

The secret scan (``secrets.py``) and the hidden-text scan (``hidden.py``) both search a file's
text *as rendered for a job* and must name the place the user wrote what they found: the file, an
included file, a variable's value or a note in the manifest (each an ``Origin``). Both let the
manifest allow findings by name, by a part of their text or by the file they are in
(an ``Allowance``).
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from hotplex.errors import Lines, Span, suggest
from hotplex.scanning.confusables import ascii_view


class Origin(NamedTuple):
    """A text a rendered file may have copied a match from, and how to name a place in it."""

    text: str
    file: str  # display path of the file, or the manifest's for a manifest value
    first_line: int = 1  # line of text[0] in ``file`` (frontmatter moves a body down)
    key: str | None = None  # manifest key path, for a value from the manifest
    named: bool = False  # ``text`` is the file's name (a day's heading), not a line of it
    # Where a ``key``'s value is written in ``file`` (line, column), when it is a file's
    # (a SKILL.md frontmatter value written with a YAML escape: ``"\u200b"``).
    written: tuple[int, int] | None = None

    def span(self, offset: int, lines: Lines | None = None) -> Span:
        """The place of ``offset`` of ``text`` (``lines``: its line starts, when a scan places
        many offsets in it)."""
        if self.key is not None and self.written is not None:
            return Span(self.file, *self.written, key=self.key)
        if self.key is not None or self.named:
            return Span(self.file, key=self.key)
        at = (lines or Lines(self.text)).span(self.file, offset)
        return Span(self.file, at.line + self.first_line - 1, at.column, source_line=at.source_line)


class Places:
    """The places of one scan's findings: each origin's lines are counted once, not once a
    finding (a file of thousands of findings cost the square of them)."""

    def __init__(self) -> None:
        self._lines: dict[int, Lines] = {}  # by the id of an origin's text, alive in the scan
        # by needle, where the last match found with it was placed: (origin's index, offset)
        self._last: dict[str, tuple[int, int]] = {}

    def next_place(
        self, needle: str, found: tuple[Origin, int], origins: Sequence[Origin]
    ) -> tuple[Origin, int]:
        """Where the match ``locate`` placed at ``found`` (the first place ``needle`` is
        written) was written, a scan's matches taken in order: a needle met again is placed at
        the next place it is written after the last (the third of three equal lines at the
        third), or at the last when none follows, never all at the first. Each search starts
        where the last ended: a needle's places cost one read of the text, not one each."""
        last = self._last.get(needle)
        index, at = (origins.index(found[0]), found[1]) if last is None else last
        if last is not None:
            for later in range(index, len(origins)):
                start = at + 1 if later == index else 0
                following = origins[later].text.find(needle, start)
                if following >= 0:
                    index, at = later, following
                    break
        self._last[needle] = index, at
        return origins[index], at

    def span(self, found: tuple[Origin, int] | None, origins: Sequence[Origin]) -> Span:
        """Where ``locate`` found a match; the first origin's file when nowhere."""
        if found is None:
            return Span(origins[0].file)
        origin, offset = found
        lines = self._lines.get(id(origin.text))
        if lines is None:
            lines = self._lines[id(origin.text)] = Lines(origin.text)
        return origin.span(offset, lines)


def locate(
    text: str,
    start: int,
    needles: Iterable[tuple[str, int]],
    origins: Sequence[Origin],
    places: Places | None = None,
) -> tuple[Origin, int] | None:
    """Where a match at ``start`` of the scanned ``text`` was written: an origin whose text is
    ``text`` itself holds it right there (an unrendered file: two equal lines each keep their
    own place); else the first origin holding the first findable needle, and the offset there
    of the match. Each needle is a piece of the rendered text around the match, with the
    match's index in it; the most telling (longest) come first. None when no origin holds any:
    the match was assembled by rendering. With a scan's ``places``, a needle written more than
    once is placed at each occurrence (``Places.next_place``): a key on 150 lines, 150 places."""
    for origin in origins:
        if origin.text == text and origin.key is None and not origin.named:
            return origin, start
    for needle, point in needles:
        for origin in origins:
            at = origin.text.find(needle)
            if at >= 0:
                if places is not None and origin.key is None and not origin.named:
                    origin, at = places.next_place(needle, (origin, at), origins)
                return origin, at + point
    return None


def line_needles(text: str, start: int, end: int) -> Iterator[tuple[str, int]]:
    """Pieces of ``text`` around ``text[start:end]``, longest first, to find where it was
    written: its whole line (the usual case, a line no template touched), then ever narrower
    windows. Each is cut when asked for: a match in an origin that is the text itself needs
    none (the line may be a megabyte, its matches thousands)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    # A match over lines may run over files (two files read together): its first line alone.
    first_end = text.find("\n", start, end)
    needles = []
    for limit in (line_end,) if first_end < 0 else (line_end, first_end):
        for reach in (len(text), 16, 4, 0):
            left, right = max(line_start, start - reach), min(limit, end + reach)
            needle = (text[left:right], start - left)
            if needle not in needles and needle[0]:
                needles.append(needle)
                yield needle


def written_at(span: Span, origins: Sequence[Origin]) -> Span | None:
    """Where the text at ``span`` was written: ``span`` a place in a document being built (its
    line kept as ``source_line``), the answer its place in the first origin holding that line,
    or a narrower piece of it around the column, or from the column on (a variable rendered
    before it); None when none holds any (rendering made it)."""
    if span.source_line is None or span.column is None:
        return None
    line, start = span.source_line, span.column - 1
    around = list(line_needles(line, start, start))
    after = [(line[start:], 0), (line[start : start + 16], 0)]
    needles = [(n, at) for n, at in [*around[:2], *after, *around[2:]] if n]
    found = locate(line, start, needles, origins)
    return None if found is None else found[0].span(found[1])


OVERLAY = "overlay:"  # how an ``allow_files`` glob names a user's overlaid file: by its label
# ``overlay:`` as a glob may misspell it: a '/' for the colon (``overlay/*``, unless a folder of
# the project is meant: ``overlay_slips``), or a word one or two edits from it (another case,
# ``overlays``, ``overlai``, look-alike letters) before a run of colons: a look-alike of ':' or
# ';' (the full-width '：'), doubled (``overlay::*``), blanks between.
_OVERLAY_FOLDER = re.compile(r"\s*overlay\s*/\s*(.*)", re.IGNORECASE | re.DOTALL)
_SLIP_EDITS = 2
_SLIP_PREFIX = 64  # where a colon after such a word can be, blanks and zero-width marks with it


def overlay_slip(glob: str) -> str | None:
    """The ``overlay:`` glob meant by an ``allow_files`` entry that misspells the prefix
    (``Overlay:*``, ``overlays:*``, ``overlay：*``, ``overlay::*``, ``overlay/*``) or names no
    file after it (``overlay:``); None for any other entry. Such an entry names no user's file
    (a label is matched after the exact prefix) and, but for ``overlay/*`` in a project with such
    a folder or a rare path with a colon, no project's; ``overlays/*`` names a folder, no slip."""
    folder = _OVERLAY_FOLDER.fullmatch(glob)
    if folder is not None:
        rest = folder.group(1)
    else:
        cut = next((i for i, c in enumerate(glob[:_SLIP_PREFIX]) if _is_colon(c)), None)
        word = ascii_view(glob[:cut]).strip().casefold() if cut is not None else ""
        if cut is None or _edits(word, OVERLAY[:-1]) > _SLIP_EDITS:
            return None
        start = next(
            (i for i in range(cut, len(glob)) if not (glob[i].isspace() or _is_colon(glob[i]))),
            len(glob),
        )
        rest = glob[start:]
    meant = OVERLAY + (rest or "*")
    return None if meant == glob else meant


def _is_colon(char: str) -> bool:
    """Whether ``char`` reads as the colon of ``overlay:``: ':', ';' or a look-alike."""
    return char in ":;" if char.isascii() else ascii_view(char) in (":", ";")


def _edits(word: str, target: str) -> int:
    """The Levenshtein distance of two short words; past ``_SLIP_EDITS``, any larger number."""
    if abs(len(word) - len(target)) > _SLIP_EDITS:
        return _SLIP_EDITS + 1
    previous = list(range(len(target) + 1))
    for i, letter in enumerate(word, 1):
        current = [i]
        for j, other in enumerate(target, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != other))
            )
        previous = current
    return previous[-1]


class Allowance(NamedTuple):
    """What a manifest table allows: findings by name (a rule, a code point), by their text, or
    by the file they are in (globs of project-relative paths; ``overlay:`` ones name a user's
    overlaid files, by label)."""

    names: frozenset[str] = frozenset()
    texts: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()  # hosts a URL may be fetched from, with the names under them
    overlays: frozenset[str] = frozenset()  # the labels of the users' files the text holds

    def allows_name(self, name: str) -> bool:
        return name in self.names

    def allows_file(self, file: str) -> bool:
        """Whether a glob allows the findings of ``file``. A user's overlaid file is reached only
        by a glob that names overlays (``overlay:*``), matched against ``overlay:`` and its
        label: a glob of the project's paths (``*.md``, ``**``) let every user's token through
        (adversary17 D13)."""
        if file not in self.overlays:
            return any(fnmatch.fnmatchcase(file, glob) for glob in self.files)
        label = file if file.startswith(OVERLAY) else OVERLAY + file
        return any(
            glob.startswith(OVERLAY) and fnmatch.fnmatchcase(label, glob) for glob in self.files
        )

    def for_overlays(self, labels: Iterable[str]) -> Allowance:
        """This allowance where the files named ``labels`` are a user's overlaid files."""
        return self._replace(overlays=frozenset(labels)) if labels else self


def rule_allowance(
    rules: Iterable[str], allow: Iterable[str], allow_files: Iterable[str]
) -> Allowance:
    """``[secrets]`` and ``[injection]``: an entry naming one of ``rules`` turns that rule off;
    any other allows the findings that are it (each scan says what a finding is)."""
    names = frozenset(rules)
    entries = tuple(allow)
    return Allowance(
        frozenset(e for e in entries if e in names),
        tuple(e for e in entries if e not in names and e),
        tuple(allow_files),
    )


def misspelt_rule(entry: str, rules: Iterable[str]) -> str | None:
    """For an allow entry that looks like a misspelt rule name: "did you mean …", else None.
    Taken as a finding's text, such an entry allowed nothing without a word (adversary17 D14,
    adversary19 D4). A rule is read by its letters and digits alone, look-alike letters read as
    the ones they show: ``Github_Token``, ``gіthub-token`` with a Cyrillic ``і``,
    ``githubtoken``, ``github—token`` with the em dash smart punctuation makes of ``--``, and
    ``role-line.`` are ``github-token`` and ``role-line``. A near miss (``role-lines``) is one
    only when written as a name; ``System: Ubuntu`` and ``role online`` are a finding's text."""
    names = sorted(rules)
    letters = _letters(entry)
    if entry in names or not letters:
        return None
    same = {_letters(name): name for name in names}.get(letters)
    if same is None and not _name_shaped(entry.strip(_EDGE_PUNCTUATION)):
        return None
    words = re.findall(r"[a-z0-9]+", ascii_view(entry).casefold())
    return suggest(same or "-".join(words), names, cutoff=0.8)


# Punctuation a list's entry picks up at its edges (``"role-lines."``, ``"role-lines,"``, an
# ideographic full stop): a near miss so edged is still written as a name.
_EDGE_PUNCTUATION = " .,;:!?\u3002\u3001\uff0e\uff0c"


def _letters(entry: str) -> str:
    """The letters and digits of ``entry``, casefolded, look-alikes as the ASCII they show;
    "" when one of them shows none (a word of another script: a text, not a rule)."""
    shown = [char if char.isascii() else ascii_view(char) for char in entry if char.isalnum()]
    if not all(shown):
        return ""
    return re.sub(r"[^a-z0-9]", "", "".join(shown).casefold())


def _name_shaped(entry: str) -> bool:
    """Whether ``entry`` is written as a rule name is: one word of letters and digits joined
    or edged by dashes of any kind, ``_`` or middle dots (``·``, ``・``, ``‧``). Words apart
    (``role online``) are a text, and so is a host (``roleline.com``: ``[injection] allow``
    holds hosts), though its letters alone are the rule's when they are (``role.line``)."""
    return all(
        char.isalnum() or char in "\u00b7\u30fb\u2027" or unicodedata.category(char) in {"Pd", "Pc"}
        for char in entry.strip()
    )
