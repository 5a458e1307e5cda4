"""Find text a reviewer cannot see in what an artifact will contain, and say where it was written.

Rules files are a known supply-chain attack surface ("Rules File Backdoor"): characters that no
editor, diff or review shows can carry instructions a model reads, or reorder what the reviewer
sees (Trojan Source, CVE-2021-42574). Every file passes through hotplex on its way into a system
prompt, so, like the secret scan, this scan runs on each file *as rendered for a job* (and on the
manifest's notes), and a finding stops the build with its file:line:column and the code point.

Each rule is decided from Unicode data (``regex`` exposes the Unicode Character Database:
``Default_Ignorable_Code_Point``, ``Extended_Pictographic``, ``Joining_Type``, the canonical
combining class, the bidi class; the ``emoji`` package ships the emoji sequences Unicode
recommends), never from a list of example characters. A character reference (``&#x202E;``,
``&rlm;``) is judged as the character it stands for, where it stands in the text as read
(``as_read``), and placed where it is written (adversary17 D11):

``control-character``
    a C0 or C1 control (general category Cc) other than tab, line feed and carriage return: an
    ANSI escape sequence (``ESC [8m`` conceals what follows) or a backspace rewrites what a
    terminal shows of a file or a diff. And LINE and PARAGRAPH SEPARATOR (U+2028, U+2029): an
    editor starts a line there that Markdown, and the role-line rule, do not (adversary14 D10).

``bidi-control``
    an embedding, override or isolate (bidi class LRE, RLE, LRO, RLO, PDF, LRI, RLI, FSI, PDI):
    always a finding.
``bidi-mark``
    the marks LRM, RLM, ALM (the other ``Bidi_Control`` characters): fine on a line holding
    right-to-left letters (bidi class R or AL) where one can change what is shown
    (``bidi_marks``), never two in a row; a finding elsewhere.
``tag-characters``
    the Tags block (U+E0000–U+E007F), which spells ASCII invisibly: a finding, shown decoded,
    except a whole emoji tag sequence Unicode recommends (RGI: the flags of England, Scotland,
    Wales), taken from the ``emoji`` package's data. Any other run of tags, however short and
    whatever emoji it follows, is a finding: short runs side by side spell a sentence too.
``variation-selector``
    a ``Variation_Selector`` is fine only right after a character it varies, in a sequence Unicode
    registered (``variation-sequences.txt``, written by ``.ci/variation-sequences``): VS1–VS14 as
    StandardizedVariants.txt (Unicode 17.0.0) lists them, VS15/VS16 after a character
    emoji-variation-sequences.txt (Emoji 17.0) names (a keycap base, ``0``–``9``, ``#``, ``*``, only
    before the keycap U+20E3: alone it shows nothing else), VS17–VS256 as the Ideographic Variation
    Database (2022-09-13) registers them (葛 + VS17). Any other is shown as nothing yet read by a
    model: one per visible character is a hidden channel (8 bits after each CJK ideograph, 4 after
    each emoji). A Mongolian free variation selector stays fine once after any visible Mongolian
    character: their registered sequences are being revised (UTN #57; FVS4, encoded in 14.0, has
    none yet), and real Mongolian text uses more. A second selector in a row is a finding (runs of
    them encode bytes; a decodable run is shown decoded).
``invisible-character``
    every other ``Default_Ignorable_Code_Point`` (what Unicode says a renderer shows as nothing):
    zero-width space, word joiner, invisible operators, a byte-order mark after the start,
    fillers, the combining grapheme joiner, the soft hyphen; and every other format character
    (Cf) but the prepended concatenation marks, which show a sign: the interlinear annotation
    marks (U+FFF9–U+FFFB), the Egyptian hieroglyph format controls. ZWJ and ZWNJ are fine only
    where they change what is shown (``joiners.py``): ZWJ inside an RGI emoji ZWJ sequence, ZWJ
    or ZWNJ between a virama and a consonant where the script defines a conjunct, ZWJ making a
    Malayalam chillu; ZWNJ between two letters of one script that would join (RFC 5892's
    CONTEXTJ rule: the Persian plural ``کتاب`` + ZWNJ + ``ها``; not after ALEF); ZWJ beside a
    letter that joins on that side and nothing that would join it anyway (its joined form shown
    alone: ``ب`` + ZWJ). The letters
    and the marks between must be visible: ZWJ is join-causing and a zero-width space
    transparent, yet neither vouches for a ZWNJ.
    The Mongolian vowel separator is fine between a Mongolian letter and a final A or E.
    The 66 noncharacters (U+FDD0–U+FDEF, U+FFFE, U+10FFFF, …), never to be assigned, too.

Only default-ignorable characters and controls are candidates (bidi controls and tags are
default-ignorable), found by ``re`` over their code point ranges (``ignorables``); the intended
uses are one pattern (``INTENDED``) the regex engine checks after a joiner or a Mongolian
selector only (or, where candidates are dense, at every candidate in its own pass), a selector's
sequence one set look-up (the table read at the first selector), so the scan costs about one
pass over the text.

``[unicode] allow`` takes code points (``U+200B``), character names (``ZERO WIDTH SPACE``) or
rule names; ``allow_files`` takes globs, as ``[secrets]`` does.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from hotplex.errors import Lines, Problem, Span, suggest
from hotplex.scanning import as_read, bidi_marks, joiners, origins, rendered, secrets
from hotplex.scanning.ignorables import (
    CONTROL,
    INTENDED,
    INVISIBLE,
    SEPARATORS,
    candidates,
    flagged,
    references,
)
from hotplex.scanning.origins import Allowance, Origin, Places, line_needles, locate
from hotplex.scanning.smuggled import decode_selectors, decode_tags
from hotplex.text.memo import cached_for_short_texts

RULES = {
    "control-character": "a control character, which a terminal obeys rather than shows",
    "bidi-control": "a bidirectional override, embedding or isolate, which reorders the text shown",
    "bidi-mark": "a bidirectional mark that orders nothing shown",
    "tag-characters": "Unicode tag characters, invisible letters a model reads",
    "variation-selector": "a variation selector with no character to vary",
    "invisible-character": "an invisible character",
}
_EMBEDDINGS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_CANCEL_TAG = "\U000e007f"
_ASCII_CONTROL = re.compile(f"[{CONTROL}]")
# A NUL (in a text given as such: a file holding one is refused as binary) is never allowed: a
# program reading the artifact as a C string would end it there.
NUL_HINT = "remove it: a NUL ends the text for a program that reads it as a C string"
# Shown in an excerpt: this much of the line on either side, and at most this many code points.
_CONTEXT = 20
_SHOWN = 4

# Every other selector is judged by Unicode's registered sequences (``_registered``).
# The keycap bases: their registered VS15/VS16 change nothing shown but before U+20E3 (a
# keycap), so "2" + VS16 is the digit, a state per digit a model reads (adversary12 D1).
_KEYCAP_BASES = frozenset("#*0123456789")
_SEQUENCES = os.path.join(os.path.dirname(__file__), "variation-sequences.txt")


@functools.cache
def _unicode() -> Any:
    """The Unicode properties, compiled once; ``regex`` is imported only for a text holding a
    candidate."""
    import regex

    def prop(expression: str) -> Any:
        """Whether a character has the property: ``regex`` asked once a character (a call costs
        a thousand instructions, a look-up a few dozen; a text holds few distinct candidates)."""
        match = regex.compile(expression, regex.V1).match
        return functools.lru_cache(maxsize=4096)(lambda char: match(char) is not None)

    return _Properties(
        intended=regex.compile("|".join(INTENDED), regex.V1).match,
        hidden=regex.compile(
            rf"(?:[{INVISIBLE}{CONTROL}\x80-\x9f{SEPARATORS}](?!{'|'.join(INTENDED)}))+",
            regex.V1,
        ),
        ignorable=prop(f"[{INVISIBLE}]"),
        tag=prop(r"\p{Block=Tags}"),
        bidi_control=prop(r"\p{Bidi_Control}"),
        right_to_left=regex.compile(
            r"[[\p{Bidi_Class=R}\p{Bidi_Class=AL}]--\p{Bidi_Control}]", regex.V1
        ).search,
        selector=prop(r"\p{Variation_Selector}"),
    )


class _Properties(NamedTuple):
    intended: Any  # after a default-ignorable character, whether it is used as intended
    hidden: Any  # runs of default-ignorable characters not used as intended
    ignorable: Any
    tag: Any
    bidi_control: Any
    right_to_left: Any
    selector: Any


class Match(NamedTuple):
    rule: str
    start: int  # offset of the hidden run in the scanned text, as written
    chars: str  # consecutive characters of one rule, as read
    written: str = ""  # the run as written, when it is otherwise (``&#x202E;``)

    @property
    def stop(self) -> int:
        return self.start + len(self.written or self.chars)


@cached_for_short_texts
def scan(text: str) -> tuple[Match, ...]:
    """Every run of hidden characters in ``text``, in order, placed where it is written; in a
    text holding a character reference that reads as a candidate, as read (``as_read``:
    ``&#x202E;`` renders as the override, judged as it where it stands). A text without such a
    reference costs one scan."""
    if "&" not in text or references().search(text) is None:
        return _scan_written(text)
    # The text read is judged whole, each character in its context as read, the invisible
    # characters this scan judges read as written (a run of them, raw and as references, is one
    # finding); what the reading drops (a tag, a comment, a soft hyphen) is judged as written.
    read = as_read.Reading(text, invisible=True)
    found: list[Match] = []
    for match in _scan_written(read.text):
        start, end = read.written_start(match.start), read.written_end(match.stop)
        written = text[start:end]
        found.append(
            Match(match.rule, start, match.chars, "" if written == match.chars else written)
        )
    stops = [m.stop for m in found]
    found += [
        match
        for match in _scan_written(text)
        if read.dropped(match.start) and not _overlaps(found, stops, match)
    ]
    if any(_referenced(m) for m in found):  # code shows a reference as written: no character
        code = rendered.read(text).code
        found = [m for m in found if not (_referenced(m) and code.holds(m.start))]
    return tuple(sorted(found, key=lambda m: m.start))


def _referenced(match: Match) -> bool:
    """Whether ``match`` is written only as references (``&zwnj;``), no character of it raw."""
    return bool(match.written) and not any(char in match.written for char in match.chars)


def _overlaps(found: list[Match], stops: list[int], match: Match) -> bool:
    """Whether ``match`` overlaps one of ``found``, in order and apart, whose ends are ``stops``."""
    i = bisect.bisect_right(stops, match.start)
    return i < len(stops) and found[i].start < match.stop


def _scan_written(text: str) -> tuple[Match, ...]:
    """Every run of hidden characters in ``text`` as written. ASCII text costs one look for a
    control, other text one ``re`` pass over the candidates' ranges."""
    first = (_ASCII_CONTROL if text.isascii() else candidates().quick).search(text)
    if first is None:
        return ()
    props = _unicode()
    found: list[Match] = []
    directions, joins = _Directions(text, props), joiners.Joiners(text)
    for start, end in flagged(text, first.start(), props.intended, props.hidden):
        found.extend(_runs(text, start, end, props, directions, joins))
    if joiners.ZWJ in text:  # and each ZWJ it passed between emoji that are no RGI sequence
        starts = {m.start for m in found}
        others = (at for at in joins.between_other_emoji() if at not in starts)
        found += [Match("invisible-character", at, joiners.ZWJ) for at in others]
        styled = (at for at in joins.text_styled() if at not in starts)
        found += [Match("invisible-character", at, joiners.VS15) for at in styled]
        found.sort(key=lambda m: m.start)
    return tuple(found)


class _Directions:
    """Whether a line of a text holds a right-to-left letter, looked for once a line: a line of
    thousands of marks was searched whole for each of them (the square of its length)."""

    def __init__(self, text: str, props: _Properties) -> None:
        self.text, self.props = text, props
        self.lines: Lines | None = None  # counted at the first mark
        self.known: dict[int, bool] = {}

    def right_to_left(self, at: int) -> bool:
        if self.lines is None:
            self.lines = Lines(self.text)
        index = self.lines.index(at)
        if index not in self.known:
            self.known[index] = self.props.right_to_left(self.lines.line(index)) is not None
        return self.known[index]


def _runs(
    text: str,
    start: int,
    end: int,
    props: _Properties,
    directions: _Directions,
    joins: joiners.Joiners,
) -> Iterator[Match]:
    """Consecutive flagged characters of one rule become one match."""
    current: tuple[str, int] | None = None
    at = start
    while at < end:
        if props.tag(text[at]):  # a whole run of tag characters is judged together
            stop = at
            while stop < end and props.tag(text[stop]):
                stop += 1
            rule = None if _emoji_tag_sequence(text, at, stop) else "tag-characters"
        else:
            stop, rule = at + 1, _rule(text, at, props, directions, joins)
        if current is not None and rule != current[0]:
            yield Match(current[0], current[1], text[current[1] : at])
            current = None
        if rule is not None and current is None:
            current = (rule, at)
        at = stop
    if current is not None:
        yield Match(current[0], current[1], text[current[1] : end])


def _rule(
    text: str, at: int, props: _Properties, directions: _Directions, joins: joiners.Joiners
) -> str | None:
    """The rule a control or a default-ignorable character (not a tag) breaks, or None for a
    mark where it orders text, a selector in a registered variation sequence or a joiner
    where it joins (``joiners``)."""
    char = text[at]
    if unicodedata.category(char) == "Cc" or char in SEPARATORS:
        return "control-character"
    if props.bidi_control(char):
        if unicodedata.bidirectional(char) in _EMBEDDINGS:
            return "bidi-control"
        shows = directions.right_to_left(at) and bidi_marks.shows(text, at)
        return None if shows else "bidi-mark"
    if char in (joiners.ZWJ, joiners.ZWNJ):
        return None if joins.intended(at) else "invisible-character"
    if props.selector(char):
        base = text[at - 1] if at > 0 else ""
        varies = char in _registered().get(base, "")
        if base in _KEYCAP_BASES:  # a digit, # or * shows a selector only as a keycap's
            varies = varies and text.startswith("\u20e3", at + 1)
        return None if varies else "variation-selector"
    return "invisible-character"


@functools.cache
def _registered() -> dict[str, str]:
    """Each base of a variation sequence Unicode registered, and the selectors registered with
    it; read at the first selector a scan meets. A line of ``variation-sequences.txt`` gives
    selectors, as ranges, and the bases registered with each of them."""
    registered: dict[str, str] = {}
    with open(_SEQUENCES, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            selectors, bases = line.split(";")
            chosen = "".join(chr(c) for span in selectors.split(",") for c in _span(span))
            registered.update(dict.fromkeys((chr(int(b, 16)) for b in bases.split()), chosen))
    return registered


def _span(written: str) -> range:
    """``E0100-E0102`` (or one code point) as the range of code points it names."""
    first, _, last = written.strip().partition("-")
    return range(int(first, 16), int(last or first, 16) + 1)


def _emoji_tag_sequence(text: str, start: int, stop: int) -> bool:
    """Whether the tags ``text[start:stop]``, with the character before them, are a whole emoji
    tag sequence Unicode recommends."""
    return start > 0 and text[start - 1 : stop] in emoji_tag_sequences()


@functools.cache
def emoji_tag_sequences() -> frozenset[str]:
    """Every RGI emoji tag sequence (its base, tags, CANCEL TAG): the subdivision flags. Unicode's
    list as the ``emoji`` package ships it, imported only once a build meets tag characters."""
    import emoji

    return frozenset(
        sequence[_first_tag(sequence) - 1 :]
        for sequence in emoji.EMOJI_DATA
        if sequence.endswith(_CANCEL_TAG)
    )


def _first_tag(sequence: str) -> int:
    return next(i for i, c in enumerate(sequence) if 0xE0000 <= ord(c) <= 0xE007F)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def describe(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: the code point and its Unicode name."""
    name = unicodedata.name(char, "")
    return f"{code_point(char)} {name}" if name else code_point(char)


def visible(text: str) -> str:
    """``text`` with every character that does not show itself written as ``<U+202E>``."""
    if text.isascii() and text.isprintable():
        return text
    ignorable = _unicode().ignorable
    return "".join(f"<{code_point(c)}>" if not c.isprintable() or ignorable(c) else c for c in text)


class Finding(NamedTuple):
    rule: str
    chars: str  # as read
    excerpt: str  # the line around the characters, each shown as <U+XXXX>
    span: Span
    size: int  # how many characters of the scanned text the finding covers

    def summary(self) -> str:
        return f'hidden text, {self._what()} (rule {self.rule}){self._decoded()}: "{self.excerpt}"'

    @property
    def allow_entry(self) -> str:
        """The narrowest ``[unicode] allow`` entry that lets this finding through."""
        distinct = set(self.chars)
        return code_point(self.chars[0]) if len(distinct) == 1 else self.rule

    def problem(self) -> Problem:
        hint = (
            NUL_HINT
            if "\0" in self.chars
            else f'remove it; if it is meant, allow it: [unicode] allow = ["{self.allow_entry}"]'
            " or allow_files"
        )
        return Problem(f"{self.summary()}; it must not reach an artifact", self.span, hint)

    def _what(self) -> str:
        if len(self.chars) == 1:
            return describe(self.chars)
        distinct = list(dict.fromkeys(self.chars))
        shown = ", ".join(describe(c) for c in distinct[:2])
        more = ", …" if len(distinct) > 2 else ""
        return f"{len(self.chars)} characters ({shown}{more})"

    def _decoded(self) -> str:
        if self.rule == "tag-characters" and decode_tags(self.chars).strip():
            return f' that spell "{decode_tags(self.chars)}"'
        decoded = decode_selectors(self.chars) if self.rule == "variation-selector" else None
        return f' that encode "{decoded}"' if decoded else ""


def _excerpt(redactor: secrets.Redactor, match: Match) -> str:
    """The line around the characters, a secret in it redacted before the cut (``Redactor``)."""
    text, start, end = redactor.text, match.start, match.stop
    # The line's ends are looked for within the context alone: a line may be a megabyte.
    first = max(text.rfind("\n", max(start - _CONTEXT, 0), start) + 1, start - _CONTEXT)
    line_end = text.find("\n", end, end + _CONTEXT)
    last = line_end if line_end >= 0 else end + _CONTEXT
    more = f"…({len(match.chars)} characters)" if len(match.chars) > _SHOWN else ""
    run = "".join(f"<{code_point(c)}>" for c in match.chars[:_SHOWN]) + more
    return visible(redactor.excerpt(first, start)) + run + visible(redactor.excerpt(end, last))


def _needles(text: str, match: Match) -> Iterator[tuple[str, int]]:
    """Pieces of the rendered text around ``match``, longest first, to find where it was written;
    last, its first character alone: a run that rendering assembled ("\x1f{{ x }}\x08" with x
    empty) is in no source whole, but where it begins is still a place to name."""
    yield from line_needles(text, match.start, match.stop)
    if len(match.chars) > 1 and not match.written:
        yield match.chars[0], 0


def find(text: str, origins: Sequence[Origin], allowance: Allowance) -> list[Finding]:
    """The findings of ``text`` not allowed, each placed where its characters were written."""
    findings, found = [], scan(text)
    places, redactor = Places(), secrets.Redactor(text, found)
    for match in found:
        found = locate(text, match.start, _needles(text, match), origins, places)
        span = places.span(found, origins)
        # The line itself is not shown: a terminal would obey the characters it holds.
        excerpt, size = _excerpt(redactor, match), match.stop - match.start
        finding = Finding(match.rule, match.chars, excerpt, _hidden_line(span), size)
        if not _allowed(allowance, finding):
            findings.append(finding)
    return findings


def _hidden_line(span: Span) -> Span:
    return Span(span.file, span.line, span.column, span.key)


def _allowed(allowance: Allowance, finding: Finding) -> bool:
    return "\0" not in finding.chars and (
        allowance.allows_name(finding.rule)
        or all(allowance.allows_name(code_point(c)) for c in finding.chars)
        or allowance.allows_file(finding.span.file)
    )


def allow_entry(entry: str) -> str | None:
    """An ``[unicode] allow`` entry as the allowance knows it: a rule name, or ``U+XXXX`` for a
    code point or a character name; None when it is neither."""
    if entry in RULES:
        return entry
    written = re.fullmatch(r"[Uu]\+([0-9A-Fa-f]{4,6})", entry.strip())
    if written is not None:
        value = int(written.group(1), 16)
        return f"U+{value:04X}" if value <= 0x10FFFF else None
    try:
        return code_point(unicodedata.lookup(entry.strip()))
    except KeyError:
        return None


def allowance(allow: Iterable[str], allow_files: Iterable[str]) -> Allowance:
    """``[unicode]``: the rules and code points allowed, and the files whose findings are."""
    names = (allow_entry(e) for e in allow)
    return Allowance(frozenset(n for n in names if n is not None), (), tuple(allow_files))


def reported(name: str) -> bool:
    """Whether an allowed ``U+XXXX`` is a character a rule can report: a control other than tab,
    line feed and carriage return, or a default-ignorable character. Allowing any other is a
    mistake (an emoji, a letter) that would change nothing."""
    char = chr(int(name[2:], 16))
    controls = f"[{CONTROL}\x80-\x9f{SEPARATORS}]"
    return bool(re.fullmatch(controls, char)) or bool(_unicode().ignorable(char))


def unknown_entry_hint(entry: str) -> str:
    if len(entry) == 1:  # the character itself, pasted
        return f'name it by its code point: "{code_point(entry)}"'
    return (
        origins.misspelt_rule(entry, RULES)
        or suggest(entry, sorted(RULES))
        or (
            'name a code point ("U+200B"), a character ("ZERO WIDTH SPACE") or a rule: '
            + ", ".join(RULES)
        )
    )
