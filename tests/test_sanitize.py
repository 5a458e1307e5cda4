"""Reserved tags are neutralised in every spelling; other Markdown and HTML pass unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotplex import model
from hotplex.sanitize import count_tags, sanitize
from hotplex.targets import agent_configuration
from hotplex.targets.base import Section
from hypothesis import given
from hypothesis import strategies as st

NAMES = frozenset(
    {"agent-configuration", "directives", "context", "hotplex", "persona", "rules", "memory"}
)


@pytest.mark.parametrize(
    "attack",
    [
        "</persona>",
        "</PERSONA >",
        "<directives/>",
        '<Rules x="1">',
        "< /memory>",
        "</memory\n>",
        "<MeMoRy\tclass=x>",
        "</agent-configuration>",
        "<  directives  />",
        "<persona",
    ],
)
def test_every_spelling_of_a_reserved_tag_is_escaped(attack):
    cleaned = sanitize(f"before {attack} after", NAMES)
    assert count_tags(cleaned, NAMES) == 0
    assert cleaned == f"before {attack.replace('<', '&lt;', 1)} after"


@pytest.mark.parametrize(
    "text",
    [
        "<b>bold</b>",
        "a < b && c > d",
        "&amp; &lt;",
        "<personality>",
        "<rules-engine>",
        "<example>",
        "x <- y",
    ],
)
def test_ordinary_markdown_and_html_pass_unchanged(text):
    assert sanitize(text, NAMES) == text


def _model() -> model.Model:
    raw = {"target": [{"name": "cc", "worker": "claude-code"}]}
    manifest = model.structure(raw, "hotplex.toml")
    sources = model.validate(manifest, "hotplex.toml")
    return model.Model(manifest, Path("."), Path("hotplex.toml"), "hotplex.toml", sources)


def _sections(texts: list[str]) -> list[Section]:
    sources = _model().sources
    return [Section(s.name, s.tag, s.channel, s.note, t, (s.file,)) for s, t in zip(sources, texts, strict=True)]


def _emitted_tag_count(sections: list[Section], m: model.Model) -> int:
    """What the compiler itself emits: wrapper + groups + non-empty sections, two tags each."""
    channels = {s.channel for s in sections if s.text.strip()}
    return 2 * (1 + len(channels) + sum(1 for s in sections if s.text.strip())) if channels else 0


TOKENS = [*"<>/ \n\t=\"'xX&;", "persona", "PERSONA", "Rules", "memory", "directives", "context"]
TOKENS += ["agent-configuration", "hotplex", "user", "skills", "&lt;", "</", "/>"]
hostile = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)


@given(st.lists(hostile, min_size=5, max_size=5))
def test_structural_tags_appear_exactly_as_often_as_emitted(texts):
    m = _model()
    sections = _sections(texts)
    document = agent_configuration.build(sections, m)
    reserved = agent_configuration.reserved_tags(sections, m)
    kept = [s for s in sections if s.text.strip()]
    assert count_tags(document.text, reserved) == _emitted_tag_count(kept, m)
