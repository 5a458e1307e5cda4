"""The hidden-text scan reads character references as a renderer does (adversary17 D11):
``&#x202E;``, ``&zwnj;`` or ``&rlm;`` is the character it stands for, judged by the same rules
where it stands and reported where the reference is written; prose with ordinary references
passes, and a text without ``&`` is scanned once, as written."""

from __future__ import annotations

import pytest
from hotplex import Project
from hotplex.scanning import as_read, hidden, injection, rendered
from hotplex.scanning.origins import Allowance, Origin
from hotplex.text import memo
from hotplex_testing import instances_made
from hypothesis import given
from hypothesis import strategies as st


def findings(text: str) -> list[tuple[str, str, int, int, int]]:
    with memo.uncached():
        found = hidden.find(text, [Origin(text, "USER.md")], Allowance())
    return [(f.rule, f.chars, f.span.line, f.span.column, f.size) for f in found]


@pytest.mark.parametrize(
    "written, rule, chars",
    [
        ("&#x202E;", "bidi-control", "\u202e"),
        ("&#8238;", "bidi-control", "\u202e"),
        ("&#x2066;", "bidi-control", "\u2066"),
        ("&#x200B;", "invisible-character", "\u200b"),
        ("&ZeroWidthSpace;", "invisible-character", "\u200b"),
        ("&zwnj;", "invisible-character", "\u200c"),
        ("&rlm;", "bidi-mark", "\u200f"),
        ("&#xE0048;&#xE0049;", "tag-characters", "\U000e0048\U000e0049"),
        ("&#x200B;\u200b", "invisible-character", "\u200b\u200b"),  # one run, half raw
    ],
)
def test_a_reference_to_a_hidden_character_is_found_where_it_is_written(written, rule, chars):
    text = f"Intro.\n- a{written}b\n"
    assert findings(text) == [(rule, chars, 2, 4, len(written))]


def test_a_check_reports_a_reference_at_its_place(make_project):
    root = make_project(
        {"agent-configs/USER.md": "User.\n"},
        manifest='[[target]]\nname = "cc"\nworker = "claude-code"\n',
    )
    report = Project.load(root).check({"USER.md": "Notes.\nx a&#x202E;evil&#x202C;b\n"})
    assert [(f.rule, f.line, f.column) for f in report.findings] == [
        ("bidi-control", 2, 4),
        ("bidi-control", 2, 16),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Tom &amp; Jerry &mdash; a&nbsp;b, &lt;b&gt;, &#169; 2026, caf&eacute;, &uuml;ber.\n",
        "کتاب&zwnj;ها و می&zwnj;روم\n",  # the Persian plural and prefix: ZWNJ between letters
        "क्&zwj;ष and &#x1F469;&zwj;&#x1F4BB;\n",  # a half form; an RGI emoji ZWJ sequence
        "Escaped: \\&#x202E; and &amp;#x200B; are shown as written.\n",
        "A flag: &#x1F3F4;&#xE0067;&#xE0062;&#xE0065;&#xE006E;&#xE0067;&#xE007F;\n",
    ],
)
def test_ordinary_references_are_no_findings(text):
    assert findings(text) == []


# Letters of both directions, digits, blanks, joining letters, emoji, and the hidden characters
# each rule judges: any of them may be written as a reference.
_ALPHABET = [*"ab 12.שלום بها\n", "\U0001f469", "\U0001f4bb", "\u0915", "\u094d"]
_HIDDEN = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202e", "\u2066", "\ufe0f"]
_PIECES = st.lists(st.tuples(st.sampled_from(_ALPHABET + _HIDDEN), st.booleans()), max_size=30)


@given(_PIECES)
def test_a_character_written_as_a_reference_is_judged_as_written_raw(pieces):
    """The same findings, rule, characters and place, whichever hidden characters are written as
    references: each reference stands where its character would."""
    spelt = [f"&#x{ord(c):X};" if ref and c in _HIDDEN else c for c, ref in pieces]
    raw, written = "".join(c for c, _ in pieces), "".join(spelt)
    starts = [len("".join(spelt[:i])) for i in range(len(spelt) + 1)]
    with memo.uncached():
        expected = [(m.rule, m.chars, starts[m.start]) for m in hidden.scan(raw)]
        found = [(m.rule, m.chars, m.start) for m in hidden.scan(written)]
    assert found == expected


def test_only_a_text_with_a_reference_to_a_hidden_character_is_read_again(monkeypatch):
    readings = instances_made(monkeypatch, as_read, "Reading")
    with memo.uncached():
        hidden.scan("a\u200bb <b>x</b> \\_ [](x)\n" * 100)
        hidden.scan("Tom &amp; Jerry &mdash; caf&eacute;\n" * 100)
        assert readings == []
        hidden.scan("Tom &amp; Jerry&#x200B;\n" * 100)
    assert len(readings) == 1


@pytest.mark.parametrize(
    "text, found",
    [
        # Code wherever the text lands shows a reference as written: no hidden character.
        ("Notes.\n\nPersian joins with `&zwnj;` between letters.\n", False),
        ("Notes.\n\n```html\na&#x202E;b&#8203;\n```\n", False),
        # A code span on the first lines may continue a paragraph of the text before; an
        # indented block may continue one too: neither is code wherever the text lands.
        ("`&zwnj;` first\n", True),
        ("Notes.\n\n    a&#8203;b\n", True),
        # A character written raw is hidden in code too.
        ("Notes.\n\n`a\u200bb` raw\n", True),
    ],
)
def test_a_reference_in_code_shows_as_written(text, found):
    assert bool(findings(text)) is found


def test_a_text_both_scans_render_is_parsed_once(monkeypatch):
    """The injection scan and the hidden-text scan (a reference in code) each ask the parse of
    one text: it is made once (``rendered.read``, cached as ``as_read.read`` is)."""
    renderings = instances_made(monkeypatch, rendered, "Code")
    text = 'a &#x202E; and <img src="https://evil.example/x.png"> `&zwnj;`\n'
    with memo.uncached():
        injection.scan(text)
        hidden.scan(text)
    assert len(renderings) == 1
