"""The characters the hidden-text scan (``hidden``) judges, and where Unicode intends the
invisible ones: the scan finds them with the standard library's ``re`` over code point ranges
generated from ``regex``'s data (``hidden-candidates.txt``), and asks ``regex`` about the context
of the few that could be intended only.
"""

from __future__ import annotations

import functools
import html.entities
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from hotplex.scanning import joiners

# Controls a text file holds as layout (tab, line feed, carriage return) are not findings.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
SEPARATORS = "\u2028\u2029"  # line and paragraph separator: a new line in an editor
# What a renderer shows as nothing: the default-ignorable characters, and the format characters
# (general category Cf) that are not, but for the prepended concatenation marks, which show a
# sign (U+0600 ARABIC NUMBER SIGN): the interlinear annotation marks, the Egyptian format controls.
# The noncharacters (U+FFFE, U+10FFFF, ...) too: never assigned, shown as nothing or a box.
INVISIBLE = (
    r"\p{Default_Ignorable_Code_Point}[\p{Cf}--\p{Prepended_Concatenation_Mark}]"
    r"\p{Noncharacter_Code_Point}"
)

# Where a default-ignorable character is used the way Unicode intends, written as the context
# around it once it is read: each alternative looks back over the character (and its base) and,
# where it must, ahead. Only characters at default-ignorable positions are ever tested; a ZWJ or
# ZWNJ that none of them passes is judged by ``joiners`` (emoji, viramas).
INTENDED = (
    # ZWJ between two emoji, the first maybe modified or VS16'd (a run of them that is no RGI
    # sequence is a finding all the same: ``scan`` reads the runs after, in one pass)
    r"(?<=\p{Extended_Pictographic}[\p{Emoji_Modifier}\uFE0F]?\u200D)(?=\p{Extended_Pictographic})",
    joiners.ARABIC_JOINING,  # a ZWNJ between two Arabic letters that would join
    joiners.INDIC,  # a joiner between a virama and a consonant of its Indic block
    # a Mongolian free variation selector after a Mongolian letter (a second one follows a
    # selector, not a letter: never more than one)
    r"(?<=[\p{Script=Mongolian}&&\p{L}][\u180B-\u180D\u180F])",
    # the Mongolian vowel separator, between a letter (maybe varied) and a final A or E it
    # separates (ᠬᠠᠷ + MVS + ᠠ, "black"): Mongolian spelling (adversary12 D2)
    r"(?<=[\p{Script=Mongolian}--\p{Default_Ignorable_Code_Point}][\u180B-\u180D\u180F]?"
    r"\u180E)(?=[\u1820\u1821])",
)

# The candidates: the controls and what ``INVISIBLE`` matches, as the code point ranges
# ``.ci/hidden-candidates`` wrote from ``regex``'s data: the standard library's ``re`` finds them
# with a table look-up a character, and ``regex`` is imported for a text holding one.
_CANDIDATES = os.path.join(os.path.dirname(__file__), "hidden-candidates.txt")
# ``re`` tests a character against each range of a class past its table of the BMP, in turn: the
# quick pattern takes whole planes 3 to 16 (their candidates are few and sparse: each plane's
# two noncharacters, the tags, the supplementary selectors) and a run holding one of their
# characters is read again with the exact ranges.
_SPARSE = 0x2FFFE
# A ``regex`` call costs about what its pattern's pass over this many characters does.
_DENSE = 32
# The only candidates an ``INTENDED`` alternative can pass: each looks back over one of them.
_MAY_BE_INTENDED = frozenset("\u180b\u180c\u180d\u180e\u180f\u200c\u200d")


class Candidates(NamedTuple):
    quick: re.Pattern[str]  # a run of candidates, and of any character past U+2FFFD
    exact: re.Pattern[str]  # a run of candidates


@functools.cache
def candidates() -> Candidates:
    with open(_CANDIDATES, encoding="utf-8") as lines:
        spans = [[int(code, 16) for code in line.split("-")] for line in lines if line[0] != "#"]
    exact = "".join("-".join(f"\\U{code:08X}" for code in span) for span in spans)
    quick = "".join(
        "-".join(f"\\U{code:08X}" for code in span) for span in spans if span[0] < _SPARSE
    )
    control = f"{CONTROL}\x80-\x9f{SEPARATORS}"
    return Candidates(
        re.compile(f"[{control}{quick}\\U{_SPARSE:08X}-\\U0010FFFF]+"),
        re.compile(f"[{control}{exact}]+"),
    )


@functools.cache
def references() -> re.Pattern[str]:
    """A character reference that may read as a candidate: a numeric one, or a name HTML gives
    one (``&zwnj;``, ``&rlm;``, ``&shy;``), looked for before a text is read as rendered."""
    exact = candidates().exact
    names = [name for name, chars in html.entities.html5.items() if exact.search(chars)]
    return re.compile("&(?:#|" + "|".join(re.escape(n) for n in names if n.endswith(";")) + ")")


def _candidate_runs(text: str, start: int) -> Iterator[tuple[int, int]]:
    quick, exact = candidates()
    for run in quick.finditer(text, start):
        if max(run.group()) < chr(_SPARSE):
            yield run.span()
        else:
            yield from (m.span() for m in exact.finditer(text, *run.span()))


def flagged(
    text: str, start: int, intended: Callable[[str, int], object], pattern: Any
) -> Iterator[tuple[int, int]]:
    """Each run of candidates from ``start`` on not used as intended: the runs of ``pattern``,
    ``(?:[candidates](?!INTENDED))+`` in ``regex``'s classes, which tests them at every
    character. Where candidates are sparse, ``re`` finds them and ``intended`` (``INTENDED``
    compiled) is asked after each one it could pass; where they are dense, a call a candidate
    costs more than the pattern's own pass, which reads the text from there."""
    runs: list[tuple[int, int]] = []
    for run in _candidate_runs(text, start):
        runs.append(run)
        if len(runs) * _DENSE > run[0] - start + _DENSE * 32:
            yield from (m.span() for m in pattern.finditer(text, start))
            return
    for run_start, run_end in runs:
        if _MAY_BE_INTENDED.isdisjoint(text[run_start:run_end]):
            yield run_start, run_end
            continue
        begun = None
        for at in range(run_start, run_end):
            if text[at] in _MAY_BE_INTENDED and intended(text, at + 1):
                if begun is not None:
                    yield begun, at
                begun = None
            elif begun is None:
                begun = at
        if begun is not None:
            yield begun, run_end
