"""Decoding and frontmatter stripping of source files."""

from __future__ import annotations

import pytest
import yaml
from hotplex.errors import HotplexError
from hotplex.sources.frontmatter import decode, normalise_newlines, strip
from hypothesis import given
from hypothesis import strategies as st


def test_bom_and_crlf_are_normalised():
    assert decode(b"\xef\xbb\xbfa\r\nb\rc\n", "F.md") == "a\nb\nc\n"


def test_non_utf8_names_the_byte_offset_and_line():
    with pytest.raises(HotplexError) as caught:
        decode(b"ok\nbad \xff here", "F.md")
    assert caught.value.render().startswith("F.md: not valid UTF-8 (byte 0xff at offset 7, line 2)")


def test_frontmatter_is_stripped_and_parsed():
    stripped = strip("---\nversion: 1\ntemplate: false\n---\n\n# Title\n", "F.md")
    assert stripped.meta == {"version": 1, "template": False}
    assert stripped.body == "\n# Title\n"
    assert stripped.body_line == 5


def test_unclosed_frontmatter_is_an_error_at_line_one():
    with pytest.raises(HotplexError) as caught:
        strip("---\nversion: 1\n# Title\n", "F.md")
    problem = caught.value.problems[0]
    assert (problem.span.file, problem.span.line, problem.span.column) == ("F.md", 1, 1)
    assert "unclosed frontmatter" in problem.message


def test_a_dashes_line_with_text_is_not_a_fence():
    text = "---（draft）\ntitle: x\n"
    assert strip(text, "F.md").body == text


def test_invalid_yaml_is_positioned():
    with pytest.raises(HotplexError) as caught:
        strip("---\nkey: [unclosed\nother: 1\n---\nbody", "F.md")
    assert caught.value.problems[0].span.line >= 2


def test_frontmatter_must_be_a_mapping():
    with pytest.raises(HotplexError, match="must be a mapping"):
        strip("---\n- a\n- b\n---\nbody", "F.md")


def test_text_without_frontmatter_is_untouched():
    assert strip("# Title\n---\nmore\n", "F.md").body == "# Title\n---\nmore\n"


scalars = st.one_of(
    st.integers(),
    st.booleans(),
    st.none(),
    st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20),
)
metas = st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), scalars, max_size=5)
bodies = (
    st.text(max_size=200)
    .map(lambda t: t.replace("\r", ""))
    .filter(lambda t: not t.startswith("---"))
)


@given(metas, bodies)
def test_strip_returns_exactly_the_body_and_metadata(meta, body):
    block = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) if meta else ""
    stripped = strip(f"---\n{block}---\n{body}", "F.md")
    assert stripped.body == body
    assert stripped.meta == meta


@given(bodies)
def test_an_opened_fence_without_a_close_is_always_a_positioned_error(body):
    lines = [ln for ln in body.split("\n") if ln.rstrip(" \t") not in ("---", "...")]
    with pytest.raises(HotplexError) as caught:
        strip("---\n" + "\n".join(lines), "F.md")
    assert caught.value.problems[0].span.line == 1


@pytest.mark.parametrize(
    ("block", "place"),
    [
        ("description: first\ndescription: second\n", (3, 1, "'description'", 2)),
        ("metadata:\n  a: '1'\n  a: '2'\n", (4, 3, "'a'", 3)),
        ("k: {a: 1, a: 2}\n", (2, 11, "'a'", 2)),
    ],
)
def test_a_key_written_twice_is_an_error_at_the_second(block, place):
    # PyYAML kept the last value without a word: the first, which a reader of the file sees,
    # was dropped.
    with pytest.raises(HotplexError) as caught:
        strip(f"---\n{block}---\nBody.\n", "F.md")
    (problem,) = caught.value.problems
    line, column, key, first = place
    assert (problem.span.line, problem.span.column) == (line, column)
    assert (
        problem.message == f"invalid frontmatter: key {key} written twice (first on line {first})"
    )


def test_a_merge_key_may_repeat_what_it_merges():
    stripped = strip("---\nbase: &b {a: 1}\nover:\n  <<: *b\n  a: 2\n---\n", "F.md")
    assert stripped.meta["over"] == {"a": 2}


@given(st.text(alphabet="ab\r\n\u2028", max_size=40))
def test_line_ends_are_normalised_as_replacing_crlf_then_cr_does(text):
    """The fast path for a text without a CR is the same answer, the text itself."""
    normalised = normalise_newlines(text)
    assert normalised == text.replace("\r\n", "\n").replace("\r", "\n")
    assert "\r" in text or normalised is text
