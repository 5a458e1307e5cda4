"""ZWJ and ZWNJ: fine only where they change what is shown (an RGI emoji ZWJ sequence, a virama
beside a letter of its script, two letters that would join); anywhere else each is one hidden
bit, and a run of them a message (adversary12 D11).

The RGI sequences are read here from the data file itself and from the ``emoji`` package, the
joining types from ``regex``'s Unicode data, not through the scanner.
"""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import emoji
import pytest
import regex
from hotplex import Project
from hotplex.scanning import hidden, joiners
from hotplex_testing import REPO, copy_example
from hypothesis import given
from hypothesis import strategies as st

ZWJ, ZWNJ, VS16 = "\u200d", "\u200c", "\ufe0f"
DATA = Path(hidden.__file__).with_name("emoji-zwj-sequences.txt")


def listed() -> list[str]:
    return [
        "".join(chr(int(c, 16)) for c in line.split())
        for line in DATA.read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]


LISTED = listed()
PICTOGRAPHS = [
    e for e in emoji.EMOJI_DATA if len(e) == 1 and regex.match(r"\p{Extended_Pictographic}", e)
]


def joiner_findings(text: str) -> list[str]:
    return [m.chars for m in hidden.scan(text) if m.rule == "invisible-character"]


def flagged(text: str, at: int) -> bool:
    """Whether a finding of ``text`` covers the character at ``at``."""
    return any(m.start <= at < m.start + len(m.chars) for m in hidden.scan(text))


# --- the tester's payloads --------------------------------------------------------------------

PAYLOADS = {
    "zwj-between-emoji": "- 😀\u200d😀 😂\u200d🤣 ✅\u200d✅\n",
    "zwj-after-virama-before-latin": "- क्\u200da\n",
    "zwnj-after-alef": "- ا\u200cا\n",
    "zwj-between-flags": "🇯🇵\u200d🇯🇵",
    "family-and-one-more": "👨\u200d👩\u200d👧\u200d👦\u200d👦",
    "zwj-ending-a-family": "👨\u200d👩\u200d👧\u200d",
    "zwj-after-virama-at-the-end": "क्\u200d ",
    "zwj-after-virama-before-another-script": "क्\u200dক",
    "zwj-before-virama-after-latin": "a\u200d्",
    "zwj-after-a-malayalam-consonant-with-no-chillu": "പ്\u200d ",
    "zwnj-after-bengali-ta-and-virama": "হঠাত্\u200c ",
    "zwnj-after-a-letter-that-joins-nothing-after-it": "دار\u200cو",
}


def test_the_testers_payload_is_blocked_by_check(tmp_path):
    project = Project.load(copy_example(tmp_path))
    report = project.check({"MEMORY.md": "".join(PAYLOADS.values())})
    assert not report.ok
    assert {f.rule for f in report.findings} == {"invisible-character"}


# --- ordinary text ----------------------------------------------------------------------------

ORDINARY = {
    "persian": (
        "من می\u200cخواهم این کتاب\u200cها را بخوانم. نمی\u200cدانم آن\u200cها کجا هستند؛"
        " به\u200cعنوان برنامه\u200cریزی، تصمیم\u200cگیری و پیش\u200cبینی هم\u200cاکنون"
        " می\u200cآید. ویژگی\u200cهای خانه\u200cها بی\u200cنظیر است."
    ),
    "arabic": "مرحبا بالعالم، هذه تجربة للنص العربي مع التشكيل: كَتَبَ الطالبُ الدرسَ.",
    "hindi": "हिन्दी: क्\u200dष, क्\u200cष, र्\u200dय, शिक्षा, विज्ञान, द्\u200dव।",
    "bengali": "বাংলা: র\u200d্যাব, ক্\u200cষ, র\u200d্যাপিড, বিজ্ঞান, হঠাত্\u200d, হঠাৎ।",
    "malayalam": "അവന്\u200d വന്നു, അവള്\u200d ആണ്\u200c; ക്\u200cക; ഉണ്ട്\u200c. എന്റെ",
    "sinhala": "ශ්\u200dරී ලංකා, ක්\u200dරියා, ව්\u200dයාපාරය, ක\u200d්\u200dව",
    "persian-urdu": "کتاب\u200cها، می\u200cروم؛ یہ کتاب\u200cیں ۲۰۲۶ میں",
    "tamil": "கற்க கசடறக் கற்பவை கற்றபின் நிற்க அதற்குத் தக; க்\u200cஷ",
    "gujarati-oriya-telugu-kannada": "ક્\u200dષ ક્\u200cષ ତ୍\u200cକ ల్\u200cల ಕ್\u200dಷ",
    "emoji-families": "👨\u200d👩\u200d👧\u200d👦 👩\u200d👩\u200d👦 🧑\u200d🧑\u200d🧒 👩\u200d👦",
    "emoji-professions": (
        "👩\u200d⚕\ufe0f 👨🏽\u200d🚀 🧑\u200d🍳 🧑🏿\u200d💻 👮\u200d♀\ufe0f 🤷🏾\u200d♂\ufe0f"
        " 🏃🏾\u200d♀\ufe0f\u200d➡\ufe0f 🧑🏻\u200d❤\ufe0f\u200d💋\u200d🧑🏼"
    ),
    "emoji-objects-and-animals": "❤\ufe0f\u200d🔥 🐦\u200d🔥 🍋\u200d🟩 🐻\u200d❄\ufe0f 😶\u200d🌫",
    "flags": "🏳\ufe0f\u200d🌈 🏳\ufe0f\u200d⚧\ufe0f 🏴\u200d☠\ufe0f 🇯🇵 🇮🇳",
    "keycaps": "1\ufe0f⃣ #\ufe0f⃣ *\ufe0f⃣ 9⃣",
    "two-sequences-side-by-side": "👩\u200d👩\u200d👧👨\u200d👩\u200d👧",
}


@pytest.mark.parametrize("name", list(ORDINARY))
def test_ordinary_text_is_no_finding(name):
    assert hidden.scan(ORDINARY[name]) == ()


def test_every_listed_sequence_passes_qualified_or_not():
    qualified = [e for e in emoji.EMOJI_DATA if ZWJ in e]
    assert hidden.scan(" ".join(LISTED)) == ()
    assert hidden.scan(" ".join(qualified)) == ()


@given(st.sampled_from(PICTOGRAPHS), st.sampled_from(PICTOGRAPHS))
def test_a_zwj_between_two_emoji_passes_only_in_a_listed_sequence(first, second):
    text = f"a {first}{ZWJ}{second} b"
    listed_pair = (first + ZWJ + second).replace(VS16, "") in LISTED
    assert (joiner_findings(text) == []) == listed_pair


@pytest.mark.parametrize(
    ("text", "at"),
    [("- 🏃\u200d♀\ufe0e\n", 5), ("- 👁\ufe0e\u200d🗨\n", 3), ("🏳\ufe0e\u200d🌈", 1)],
)
def test_a_vs15_inside_an_emoji_zwj_sequence_is_a_finding(text, at):
    """adversary14 D14: no RGI sequence holds a VS15, so one there shows nothing a reader sees;
    the sequence's ZWJ is still passed."""
    assert [(m.rule, m.start) for m in hidden.scan(text)] == [("invisible-character", at)]


def test_the_qualified_spellings_of_a_sequence_and_a_lone_vs15_stay_clean():
    """Fully and minimally qualified (VS16s or not: emoji-test.txt's two spellings for
    interchange) pass; a VS15 registered after a single emoji is its text style."""
    assert hidden.scan("- 👁️‍🗨️ 👁‍🗨 👁️‍🗨 👁‍🗨️ and ♀\ufe0e ❤\ufe0e\n") == ()


def test_a_long_run_of_joined_emoji_is_one_finding_a_zwj():
    text = "😀" + (ZWJ + "😀") * 5000
    assert joiner_findings(text) == [ZWJ] * 5000


# The viramas of the nine Indic scripts of the BMP, each at xx4D of its block (KA at xx15).
VIRAMAS = [chr(c) for c in range(0x094D, 0x0E00, 0x80) if unicodedata.combining(chr(c)) == 9]
CONSONANT = regex.compile(r"\p{InSC=Consonant}")


@given(st.sampled_from(VIRAMAS), st.sampled_from([ZWJ, ZWNJ]), st.characters())
def test_after_a_virama_a_joiner_passes_only_before_a_consonant_of_its_script(
    virama, joiner, after
):
    """Malayalam aside: there a ZWJ after KA and its virama is the chillu ൿ, a ZWNJ the virama
    shown, whatever follows. Tamil's pulli shows either way (but in KSSA)."""
    text = chr(ord(virama) - 0x4D + 0x15) + virama + joiner + after
    script = unicodedata.name(virama).split()[0]
    ours = bool(CONSONANT.match(after)) and unicodedata.name(after, "").split(" ")[0] == script
    expected = (ours and script != "TAMIL") or script == "MALAYALAM"
    expected = expected or (script == "TAMIL" and after == "\u0bb7")  # KSSA: Tamil's own
    assert flagged(text, 2) != expected


NOTHING_CHANGES = {  # adversary14 D12, D13
    "tamil-pulli-zwnj": "- க்\u200cக\n",
    "tamil-pulli-zwj": "- க்\u200dக\n",
    "thai-phinthu": "- ก\u0e3a\u200cข\n",
    "tibetan-halanta": "- ཀ\u0f84\u200cཀ\n",
    "myanmar-asat": "- င\u103a\u200cက\n",
    "balinese-adeg-adeg": "- ᬓ\u1b44\u200cᬓ\n",
    "javanese-pangkon": "- ꦏ\ua9c0\u200cꦏ\n",
    "tai-tham-sakot": "ᨠ᩠\u200cᨠ",
    "zwj-before-a-devanagari-virama": "- क\u200d्ष\n",
    "zwnj-before-a-devanagari-virama": "- क\u200c्ष\n",
    "zwj-before-a-tamil-pulli": "- க\u200d்க\n",
    "zwj-before-a-virama-at-a-word-end": "- क\u200d् \n",
    "zwnj-before-an-independent-vowel": "- क्\u200cअ\n",
    "bengali-zwnj-before-an-independent-vowel": "- ক্\u200cঅ\n",
    "zwnj-before-avagraha": "- क्\u200cऽ\n",
    "zwj-before-om": "- क्\u200dॐ\n",
    "arabic-then-nko": "- ب\u200cߊ\n",
    "arabic-then-mongolian": "- ب\u200cᠠ\n",
    "syriac-then-arabic": "- ܒ\u200cب\n",
    "arabic-then-syriac": "- ب\u200cܒ\n",
    "nko-then-arabic": "- ߊ\u200cب\n",
}


@pytest.mark.parametrize("name", [*PAYLOADS, *NOTHING_CHANGES])
def test_a_joiner_that_changes_nothing_shown_is_a_finding(name):
    """The tester's payloads (adversary12 D11), and the scripts and places where a joiner
    changes nothing (adversary14 D12, D13)."""
    assert joiner_findings({**PAYLOADS, **NOTHING_CHANGES}[name]), name


def test_a_tamil_pulli_joiner_passes_in_kssa_only():
    assert hidden.scan("க்\u200cஷ க்\u200dஷ க்ஷ") == ()
    assert flagged("ச்\u200cஷ", 2)


@given(st.lists(st.sampled_from(["", ZWJ, ZWNJ]), min_size=12, max_size=12))
def test_tamil_as_people_write_it_holds_no_joiner_between_pulli_and_letter(joiners):
    """Thirukkural 391, a joiner (or none) after each pulli: each one is found."""
    words = "கற்க கசடறக் கற்பவை கற்றபின் நிற்க அதற்குத் தக".replace("\u0bcd", "\u0bcd\x00")
    parts = words.split("\x00")
    text = "".join(p + (joiners[i] if i < len(parts) - 1 else "") for i, p in enumerate(parts))
    assert len(joiner_findings(text)) == sum(1 for j in joiners[: len(parts) - 1] if j)


# Dual-joining letters of four joining scripts: BEH, Syriac BETH, N'Ko KA, Mongolian A.
DUAL_JOINING = {"\u0628": "Arabic", "\u0712": "Syriac", "\u07de": "Nko", "\u1820": "Mongolian"}


@given(st.sampled_from(list(DUAL_JOINING)), st.sampled_from(list(DUAL_JOINING)))
def test_a_zwnj_passes_between_letters_of_one_script_only(first, second):
    """Letters of two scripts are shaped apart and never join: a ZWNJ there shows nothing."""
    same = DUAL_JOINING[first] == DUAL_JOINING[second]
    assert (joiner_findings(f"- {first}{ZWNJ}{second}\n") == []) == same


def test_a_zwnj_between_two_of_each_dual_joining_letter_passes():
    """Every script's letters are told (the pattern for Arabic, their names for the others)."""
    dual = regex.compile(r"[\p{Joining_Type=D}--\p{DI}]", regex.V1)
    letters = [chr(c) for c in range(0x110000) if dual.match(chr(c))]
    assert len(letters) > 300
    assert [c for c in letters if joiner_findings(c + ZWNJ + c)] == []


def test_every_joining_letter_is_of_a_listed_script():
    """``JOINING_SCRIPTS`` covers every character that joins (Unicode data, not examples)."""
    joins = regex.compile(
        r"[[\p{Joining_Type=D}\p{Joining_Type=L}\p{Joining_Type=R}]--\p{DI}]", regex.V1
    )
    scripts = [regex.compile(rf"\p{{scx={s}}}") for s in joiners.JOINING_SCRIPTS]
    missing = [
        hex(c)
        for c in range(0x110000)
        if joins.match(chr(c)) and not any(s.match(chr(c)) for s in scripts)
    ]
    assert missing == []


# Join-causing (C): TATWEEL, which joins on both sides.
JOINS_AFTER = regex.compile(r"\p{Joining_Type=D}|\p{Joining_Type=L}|\p{Joining_Type=C}")
JOINS_BEFORE = regex.compile(r"\p{Joining_Type=D}|\p{Joining_Type=R}|\p{Joining_Type=C}")
ARABIC = [c for c in map(chr, range(0x0620, 0x064B)) if c.isalpha()]


@given(st.sampled_from(ARABIC), st.sampled_from(ARABIC))
def test_a_zwnj_passes_only_between_two_letters_that_would_join(first, second):
    """RFC 5892's CONTEXTJ rule: the letter before joins after it, the one after joins before."""
    would_join = JOINS_AFTER.match(first) and JOINS_BEFORE.match(second)
    assert (joiner_findings(first + ZWNJ + second) == []) == bool(would_join)


# --- the data ---------------------------------------------------------------------------------


def test_the_data_names_its_source_and_every_line_is_an_rgi_zwj_sequence():
    header = DATA.read_text(encoding="utf-8").splitlines()[1]
    assert "emoji package 2.16.0 (Emoji 17.0)" in header
    known = {e.replace(VS16, "") for e in emoji.EMOJI_DATA if ZWJ in e}
    assert set(LISTED) <= known and len(LISTED) == len(set(LISTED)) > 1500


def test_the_generator_gives_back_the_committed_data():
    """The committed file is the generator's output with the package version it names."""
    if emoji.__version__ != "2.16.0":
        pytest.skip(f"emoji {emoji.__version__} installed, the data is from 2.16.0")
    written = subprocess.run(
        [sys.executable, str(REPO / ".ci" / "emoji-zwj-sequences")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert written == DATA.read_text(encoding="utf-8")


def test_the_emoji_package_is_not_imported_for_a_zwj():
    script = (
        "import sys\n"
        "from hotplex.scanning import hidden\n"
        "assert hidden.scan('👨\\u200d👩\\u200d👧 😀\\u200d😀') != ()\n"
        "assert 'emoji' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_outside_the_indic_blocks_the_script_is_told_by_the_names():
    """Khmer's COENG and Myanmar's stacking virama: read by ``joiners``, not the pattern's Indic
    blocks."""
    assert not flagged("ក្\u200dក", 2) and not flagged("က\u1039\u200cက", 2)
    assert flagged("ក្\u200da", 2) and flagged("က\u1039\u200cक", 2)


# --- a ZWJ showing a joining form (adversary16 D10) --------------------------------------------

JOINING_FORMS = {
    "medial-beh": "- الحرف \u200dب\u200d في الوسط\n",  # ـبـ
    "final-beh": "- الشكل \u200dب\n",
    "initial-beh": "- الشكل ب\u200d\n",
    "final-alef": "- \u200dا\n",  # ALEF joins before it: its final form
    "persian-initial-che": "- حرف چ\u200d در آغاز\n",
    "urdu-medial-heh-with-a-mark": "- \u200dہ\u064e\u200d\n",
    "syriac-medial-beth": "- \u200dܒ\u200d\n",
    "before-latin": "- ب\u200dx\n",
}


@pytest.mark.parametrize("name", list(JOINING_FORMS))
def test_a_zwj_beside_a_joining_letter_that_joins_nothing_else_there_passes(name):
    """Unicode's joining controls (ch. 23): a ZWJ shows a letter's joined form beside a letter
    that joins on that side and meets nothing it would join anyway."""
    assert joiner_findings(JOINING_FORMS[name]) == []


ZWJ_CHANGES_NOTHING = {
    "between-two-letters-that-join": "- ب\u200dب\n",
    "between-a-letter-and-tatweel": "- ب\u200dـ\n",
    "after-alef-at-a-word-end": "- ا\u200d \n",  # ALEF joins nothing after it
    "before-a-letter-joining-nothing-before": "- \u200d\u0621\n",  # HAMZA joins neither side
    "a-second-zwj": "- ب\u200d\u200d\n",
    "beside-latin-only": "- a\u200db\n",
    "beside-spaces": "- \u0645 \u200d \u0645\n",
}


@pytest.mark.parametrize("name", list(ZWJ_CHANGES_NOTHING))
def test_a_zwj_that_shows_no_joining_form_is_found(name):
    assert joiner_findings(ZWJ_CHANGES_NOTHING[name]), name


@given(st.sampled_from(ARABIC), st.sampled_from([" ", "", "x", "."]))
def test_a_zwj_after_an_arabic_letter_passes_only_where_it_joins_after(letter, after):
    """Found after a letter that joins nothing after it, or before a letter it would join;
    TATWEEL (join-causing) is a joined stroke already."""
    text = f"- {letter}{ZWJ}{after}\n"
    joins = JOINS_AFTER.match(letter) and letter != "\u0640"
    shows_a_form = joins and not JOINS_BEFORE.match(after or "\n")
    assert (joiner_findings(text) == []) == bool(shows_a_form)
