"""Where a zero-width joiner (ZWJ) or non-joiner (ZWNJ) changes what is shown, so that it is
text, not a hidden bit: the hidden-text scan (``hidden.py``) asks here for each one that is not
between two joining letters (that case is a pattern of its own there).

- a ZWJ inside an emoji ZWJ sequence Unicode recommends (RGI: 👨‍👩‍👧, 🏳️‍🌈), the whole run
  of emoji it joins being one (``emoji-zwj-sequences.txt``, from the ``emoji`` package);
  a ZWJ between two other emoji shows them side by side, as without it;
- a ZWJ or ZWNJ after a virama and before a letter of the virama's script (क्‍ष, half forms;
  क्‌ष, the virama shown), or after a letter and before a virama of its script (Bengali র‍্য);
  before a Latin letter or a space it joins nothing;
- after a Malayalam virama, whatever follows, a ZWJ when the consonant before has a chillu: the
  chillu as Unicode encoded it before 5.1 (ന്‍ for ൻ), and a ZWNJ: the virama shown, as older
  Malayalam text writes it at a word's end (ആണ്‌).
- a ZWJ after Bengali TA and its virama, whatever follows: KHANDA TA as Unicode encoded it
  before 4.1 (ত্‍ for ৎ).

A script is told by the first word of a character's Unicode name (DEVANAGARI LETTER KA,
DEVANAGARI SIGN VIRAMA): Python's ``unicodedata`` has no Script property.
"""

from __future__ import annotations

import bisect
import functools
import os
import unicodedata
from typing import Any

ZWJ = "\u200d"
ZWNJ = "\u200c"
_VS16 = "\ufe0f"
_VIRAMA = 9  # the canonical combining class of a virama
_MALAYALAM_VIRAMA = "\u0d4d"
_BENGALI_VIRAMA, _BENGALI_TA = "\u09cd", "\u09a4"
_SEQUENCES = os.path.join(os.path.dirname(__file__), "emoji-zwj-sequences.txt")
# The Indic blocks U+0900–U+0DFF hold one script each (Devanagari … Sinhala): there a joiner
# between a virama and a letter of the same block is passed by the hidden-text pattern itself,
# as written here, with no call per joiner (a page of Hindi may hold thousands).
_BLOCKS = [f"\\u{start:04X}-\\u{start + 0x7F:04X}" for start in range(0x0900, 0x0E00, 0x80)]
_IN_BLOCK = "|".join(
    rf"(?<=[[{block}]&&{first}][\u200C\u200D])(?=[[{block}]&&{then}])"
    for block in _BLOCKS
    for first, then in ((r"\p{ccc=9}", r"\p{L}"), (r"\p{L}", r"\p{ccc=9}"))
)
INDIC = rf"(?<=[\u0900-\u0DFF][\u200C\u200D])(?:{_IN_BLOCK})"  # one test for other text


class Joiners:
    """The ZWJs and ZWNJs of one text used as Unicode intends (the cases above); the text's
    runs of emoji joined by ZWJs are found once, when first asked about."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._emoji: tuple[list[tuple[int, int]], list[int]] | None = None

    def intended(self, at: int) -> bool:
        """Whether the ZWJ or ZWNJ ``text[at]`` is used as Unicode intends."""
        text = self.text
        before = text[at - 1] if at > 0 else ""
        after = text[at + 1] if at + 1 < len(text) else ""
        if _virama(before) and _letter(after) and _script(before) == _script(after):
            return True
        if _virama(after) and _letter(before) and _script(before) == _script(after):
            return True
        if before == _MALAYALAM_VIRAMA and at > 1:
            return text[at] == ZWNJ or text[at - 2] in _chillu_bases()
        if before == _BENGALI_VIRAMA and text[at - 2 : at] == _BENGALI_TA + before:
            return text[at] == ZWJ
        if text[at] != ZWJ:
            return False
        sequences = self._emoji_joins()[0]
        last = bisect.bisect(sequences, (at, len(text))) - 1
        return last >= 0 and at < sequences[last][1]

    def between_other_emoji(self) -> list[int]:
        """Where a ZWJ joins emoji into a run that is no RGI sequence (😀 ZWJ 😀)."""
        return self._emoji_joins()[1]

    def _emoji_joins(self) -> tuple[list[tuple[int, int]], list[int]]:
        if self._emoji is None:
            self._emoji = _emoji_joins(self.text)
        return self._emoji


def _virama(char: str) -> bool:
    return char != "" and unicodedata.combining(char) == _VIRAMA


def _letter(char: str) -> bool:
    return char != "" and unicodedata.category(char).startswith("L")


def _script(char: str) -> str:
    return unicodedata.name(char, "").partition(" ")[0]


@functools.cache
def _chillu_bases() -> frozenset[str]:
    """The consonants of Malayalam's chillus (MALAYALAM LETTER CHILLU NN: NNA)."""
    names = (unicodedata.name(chr(c), "") for c in range(0x0D00, 0x0D80))
    return frozenset(
        unicodedata.lookup(f"MALAYALAM LETTER {name.rpartition(' ')[2]}A")
        for name in names
        if name.startswith("MALAYALAM LETTER CHILLU ")
    )


def _emoji_joins(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """The spans of ``text``'s RGI emoji ZWJ sequences, in order, and where it has a ZWJ
    joining emoji outside them. The whole run of emoji and ZWJs around a ZWJ is the sequence,
    VS16s aside (qualified or not, it shows the same; a VS16 is judged on its own)."""
    sequences = _zwj_sequences()
    inside: list[tuple[int, int]] = []
    outside: list[int] = []
    for run in _emoji_runs()(text):
        written = run.group()
        if (written.replace(_VS16, "") if _VS16 in written else written) in sequences:
            inside.append(run.span())
        else:
            outside.extend(run.start() + i for i, c in enumerate(written) if c == ZWJ)
    return inside, outside


@functools.cache
def _emoji_runs() -> Any:
    """Each run of two or more emoji (a pictograph, maybe modified, maybe VS16'd) joined by ZWJs."""
    import regex

    emoji = r"\p{Extended_Pictographic}\p{Emoji_Modifier}?\uFE0F?"
    return regex.compile(rf"{emoji}(?:\u200D{emoji})+", regex.V1).finditer


@functools.cache
def _zwj_sequences() -> frozenset[str]:
    """Every RGI emoji ZWJ sequence without its VS16s, as ``emoji-zwj-sequences.txt`` lists
    them (written by ``.ci/emoji-zwj-sequences``); read at the first ZWJ between emoji."""
    with open(_SEQUENCES, encoding="utf-8") as lines:
        return frozenset(
            "".join(chr(int(c, 16)) for c in line.split())
            for line in lines
            if not line.startswith("#")
        )
