"""Where a zero-width joiner (ZWJ) or non-joiner (ZWNJ) changes what is shown, so that it is
text, not a hidden bit: the hidden-text scan (``hidden.py``) tests the patterns here at each one,
and asks ``Joiners`` about each they do not pass.

- a ZWJ inside an emoji ZWJ sequence Unicode recommends (RGI: 👨‍👩‍👧, 🏳️‍🌈), the whole run
  of emoji it joins being one (``emoji-zwj-sequences.txt``, from the ``emoji`` package);
  a ZWJ between two other emoji shows them side by side, as without it;
- a ZWNJ between two letters of one joining script that would join (RFC 5892's CONTEXTJ rule:
  Persian کتاب‌ها); letters of two scripts are shaped apart and never join (adversary14 D13);
- a ZWJ beside a letter that joins on that side, where what is on its other side would not join
  it anyway: the letter's joined form shown alone (Unicode ch. 23, joining controls: ب + ZWJ
  initial, ZWJ + ب + ZWJ medial, ZWJ + ب final), as text teaching Arabic, Persian or Urdu letters
  writes it (adversary16 D10); between two letters that join, or beside TATWEEL, it shows nothing;
- a ZWJ or ZWNJ after a virama and before a consonant of its script, where Unicode's core spec
  (ch. 12, 13, 16) names what it shows: the half form (क्‍ष) or the virama shown (क्‌ष), in the
  Indic scripts from Devanagari to Sinhala but Tamil, whose pulli shows either way but in க்‌ஷ;
  Khmer's COENG and Myanmar's stacking virama, not its visible ASAT. Not before an independent
  vowel, a Latin letter or a space, nor in scripts that form no conjuncts with them (Thai,
  Tibetan, Balinese, Javanese: adversary14 D12);
- a ZWJ before a virama only where a script defines it: Bengali RA's ya-phala (র‍্য), Sinhala's
  touching letters (ක‍්ව);
- after a Malayalam virama, whatever follows, a ZWJ when the consonant before has a chillu: the
  chillu as Unicode encoded it before 5.1 (ന്‍ for ൻ), and a ZWNJ: the virama shown, as older
  Malayalam text writes it at a word's end (ആണ്‌).
- a ZWJ after Bengali TA and its virama, whatever follows: KHANDA TA as Unicode encoded it
  before 4.1 (ত্‍ for ৎ).
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
VS15 = "\ufe0e"
_MALAYALAM_VIRAMA = "\u0d4d"
_BENGALI_VIRAMA, _BENGALI_TA = "\u09cd", "\u09a4"
_SEQUENCES = os.path.join(os.path.dirname(__file__), "emoji-zwj-sequences.txt")
_KHMER_COENG, _MYANMAR_VIRAMA = "\u17d2", "\u1039"
_TAMIL_KSSA = ("\u0b95\u0bcd", "\u0bb7")  # KA and its pulli, then SSA: க்ஷ or க்‌ஷ

# The scripts whose letters join (Joining_Type D, L, R or C); a test checks none is missing.
JOINING_SCRIPTS = (
    *("Arabic", "Syriac", "Nko", "Mongolian", "Mandaic", "Manichaean", "Psalter_Pahlavi"),
    *("Hanifi_Rohingya", "Sogdian", "Old_Uyghur", "Adlam", "Phags_Pa", "Chorasmian"),
)
# Visible ones only: ZWJ is join-causing (type C) and most invisible characters transparent (T).
_JOINS_AFTER = r"[\p{Joining_Type=D}\p{Joining_Type=L}\p{Joining_Type=C}]--\p{DI}"
_JOINS_BEFORE = r"[\p{Joining_Type=D}\p{Joining_Type=R}\p{Joining_Type=C}]--\p{DI}"
_TRANSPARENT = r"[\p{Joining_Type=T}--\p{DI}]"


def _joining(script: str) -> str:
    """A ZWNJ between two letters of ``script`` that would join, transparent marks aside."""
    return (
        rf"(?<=[[{_JOINS_AFTER}]&&\p{{scx={script}}}]{_TRANSPARENT}*\u200C)"
        rf"(?={_TRANSPARENT}*[[{_JOINS_BEFORE}]&&\p{{scx={script}}}])"
    )


# ZWJ after a letter joining what follows, before nothing that joins; or the mirror image.
_JOINING_FORM = (
    rf"(?<=[[\p{{Joining_Type=D}}\p{{Joining_Type=L}}]--\p{{DI}}]{_TRANSPARENT}*\u200D)"
    rf"(?!{_TRANSPARENT}*[{_JOINS_BEFORE}])"
    rf"|(?<![{_JOINS_AFTER}]{_TRANSPARENT}*\u200D)"
    rf"(?={_TRANSPARENT}*[[\p{{Joining_Type=D}}\p{{Joining_Type=R}}]--\p{{DI}}])"
)

# Persian می + ZWNJ + خواهم: Arabic letters, passed by the hidden-text pattern itself (a page of
# Persian may hold thousands); the other joining scripts are compiled at their first ZWNJ.
# After ALEF, which joins nothing after it, a ZWNJ shows nothing.
ARABIC_JOINING = _joining("Arabic")
# The first word of their letters' names: SYRIAC LETTER BETH, PHAGS-PA LETTER KA.
_NAMED_SCRIPTS = {
    script.upper().replace("_", "-" if script == "Phags_Pa" else " ").split()[0]: script
    for script in JOINING_SCRIPTS
    if script != "Arabic"
}
_MARKS, _TATWEEL = frozenset(("Mn", "Me")), "\u0640"
# The Indic blocks U+0900–U+0DFF hold one script each (Devanagari … Sinhala): there a joiner
# between a virama and a consonant of the same block is passed by the hidden-text pattern itself,
# as written here, with no call per joiner (a page of Hindi may hold thousands). Tamil's pulli
# (U+0B80–U+0BFF) is left to ``Joiners``.
_BLOCKS = [f"\\u{start:04X}-\\u{start + 0x7F:04X}" for start in range(0x0900, 0x0E00, 0x80)]
_AFTER_VIRAMA = "|".join(
    rf"(?<=[[{block}]&&\p{{ccc=9}}][\u200C\u200D])(?=[[{block}]&&\p{{InSC=Consonant}}])"
    for block in _BLOCKS
    if block != "\\u0B80-\\u0BFF"
)
INDIC = (
    rf"(?<=[\u0900-\u0DFF][\u200C\u200D])(?:{_AFTER_VIRAMA}"  # one test for other text
    r"|(?<=\u09B0\u200D)(?=\u09CD)"  # Bengali RA, ZWJ, virama: ya-phala (র‍্য)
    r"|(?<=[\u0D9A-\u0DC6]\u200D)(?=\u0DCA))"  # Sinhala consonant, ZWJ, al-lakuna: touching
)


class Joiners:
    """The ZWJs and ZWNJs of one text used as Unicode intends (the cases above); the text's
    runs of emoji joined by ZWJs are found once, when first asked about."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._emoji: _EmojiJoins | None = None

    def intended(self, at: int) -> bool:
        """Whether the ZWJ or ZWNJ ``text[at]`` is used as Unicode intends."""
        text = self.text
        before = text[at - 1] if at > 0 else ""
        after = text[at + 1] if at + 1 < len(text) else ""
        if text[at] == ZWNJ and _joins_elsewhere(text, at):
            return True
        if before in (_KHMER_COENG, _MYANMAR_VIRAMA) and _consonant(after):
            return _script(before) == _script(after)
        if (text[at - 2 : at], after) == _TAMIL_KSSA:
            return True
        if before == _MALAYALAM_VIRAMA and at > 1:
            return text[at] == ZWNJ or text[at - 2] in _chillu_bases()
        if before == _BENGALI_VIRAMA and text[at - 2 : at] == _BENGALI_TA + before:
            return text[at] == ZWJ
        if text[at] != ZWJ:
            return False
        if _joining_form()(text, at + 1) is not None:
            return True
        sequences = self._emoji_joins()[0]
        last = bisect.bisect(sequences, (at, len(text))) - 1
        return last >= 0 and at < sequences[last][1]

    def between_other_emoji(self) -> list[int]:
        """Where a ZWJ joins emoji into a run that is no RGI sequence (😀 ZWJ 😀)."""
        return self._emoji_joins()[1]

    def text_styled(self) -> list[int]:
        """Where a VS15 (text style) is written inside a run of emoji joined by ZWJs: no RGI
        sequence holds one (🏃‍♀︎ is 🏃‍♀ and a VS15 a reader does not see: adversary14 D14)."""
        return self._emoji_joins()[2]

    def _emoji_joins(self) -> _EmojiJoins:
        if self._emoji is None:
            self._emoji = _emoji_joins(self.text)
        return self._emoji


def _joins_elsewhere(text: str, at: int) -> bool:
    """Whether the ZWNJ ``text[at]`` is between two letters of one joining script but Arabic
    (Syriac, N'Ko, ...) that would join; the script is told by the letter before it, past marks
    and TATWEELs (Syriac uses Arabic's), and its pattern compiled at its first ZWNJ."""
    back = at - 1
    while back >= 0 and (unicodedata.category(text[back]) in _MARKS or text[back] == _TATWEEL):
        back -= 1
    name = unicodedata.name(text[back], "") if back >= 0 else ""
    script = _NAMED_SCRIPTS.get(name.partition(" ")[0])
    return script is not None and _joining_in(script)(text, at + 1) is not None


@functools.cache
def _joining_in(script: str) -> Any:
    import regex

    return regex.compile(_joining(script), regex.V1).match


@functools.cache
def _joining_form() -> Any:
    import regex

    return regex.compile(_JOINING_FORM, regex.V1).match


def _consonant(char: str) -> bool:
    return char != "" and _consonants()(char) is not None


@functools.cache
def _consonants() -> Any:
    import regex

    return regex.compile(r"\p{InSC=Consonant}", regex.V1).match


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


# The spans of a text's RGI emoji ZWJ sequences, where it has a ZWJ joining emoji outside them,
# and where a VS15 inside a run of joined emoji.
_EmojiJoins = tuple[list[tuple[int, int]], list[int], list[int]]


def _emoji_joins(text: str) -> _EmojiJoins:
    """The spans of ``text``'s RGI emoji ZWJ sequences, in order, where it has a ZWJ joining
    emoji outside them, and where a VS15 in a run of joined emoji. The whole run of emoji and
    ZWJs around a ZWJ is the sequence, VS16s aside (fully and minimally qualified, as
    emoji-test.txt calls them, are both for interchange and show the same) and VS15s aside
    (each a finding of its own)."""
    sequences = _zwj_sequences()
    inside: list[tuple[int, int]] = []
    outside: list[int] = []
    styled: list[int] = []
    for run in _emoji_runs()(text):
        written = run.group()
        styled.extend(run.start() + i for i, c in enumerate(written) if c == VS15)
        if written.replace(_VS16, "").replace(VS15, "") in sequences:
            inside.append(run.span())
        else:
            outside.extend(run.start() + i for i, c in enumerate(written) if c == ZWJ)
    return inside, outside, styled


@functools.cache
def _emoji_runs() -> Any:
    """Each run of two or more emoji (a pictograph, maybe modified, maybe VS16'd or VS15'd) joined
    by ZWJs."""
    import regex

    emoji = r"\p{Extended_Pictographic}\p{Emoji_Modifier}?[\uFE0E\uFE0F]?"
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
