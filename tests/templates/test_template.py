"""Template syntax: the code-region pre-pass, parsing into nodes, and every syntax error message.

Error tests compare the whole rendered problem (location, message, source line, caret, hint), the
way Ninja's manifest_parser_test checks its errors: the text is the user interface.
"""

from __future__ import annotations

import pytest
from hotplex.errors import EXIT_CONFIG, HotplexError
from hotplex.templates import grammar as template_grammar
from hotplex.templates import parse as template
from hotplex.templates.parse import (
    ESCAPE_HINT,
    BoolOp,
    Branch,
    Compare,
    Filter,
    If,
    Include,
    Literal,
    Member,
    Not,
    Output,
    Text,
    Var,
    code_regions,
    has_template_syntax,
    parse,
)

ESCAPE = f"  hint: {ESCAPE_HINT}"
TAG_HINT = "  hint: hotplex tags are if/elif/else/endif, include and raw/endraw; " + ESCAPE_HINT
ARITY = "filter 'default' takes exactly one argument, as in default(\"text\")"


def error_of(text: str, file: str = "SOUL.md") -> str:
    with pytest.raises(HotplexError) as info:
        parse(text, file)
    assert info.value.exit_status == EXIT_CONFIG
    assert len(info.value.problems) == 1
    return info.value.render()


def code_of(text: str) -> list[str]:
    return [text[start:end] for start, end in code_regions(text)]


# --- the pre-pass: where template syntax is recognised ----------------------------------------


def test_plain_text_parses_without_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_lark() -> None:
        raise AssertionError("lark was invoked")

    monkeypatch.setattr(template, "parser", no_lark)
    text = "# Title\n\nSome {braces} and 100% {ok}\n```\n{{ in code }}\n```\n`{% x %}` ${{ a }}\n"
    assert parse(text, "f.md").nodes == (Text(text),)
    assert parse("", "f.md").nodes == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", False),
        ("{{ x }}", True),
        ("{% if x %}{% endif %}", True),
        ("{# note #}", True),
        ("{ {x} } {x}", False),
        ("`{{ x }}`", False),
        ("```\n{{ x }}\n```", False),
        ("~~~\n{% if %}\n~~~", False),
        ("${{ secrets.TOKEN }}", False),
        ("${{ a }} {{ b }}", True),
        ("```\n{{ x }}\n```\n{{ y }}", True),
    ],
)
def test_has_template_syntax(text: str, expected: bool) -> None:
    assert has_template_syntax(text) is expected


def test_backtick_and_tilde_fences() -> None:
    text = "a\n```py\n{{ x }}\n```\nb\n~~~\n{{ y }}\n~~~\nc"
    assert code_of(text) == ["```py\n{{ x }}\n```\n", "~~~\n{{ y }}\n~~~\n"]


def test_fence_closes_only_with_same_character_at_least_as_long() -> None:
    text = "````\n```\n~~~~\n{{ x }}\n`````  \nafter\n"
    assert code_of(text) == ["````\n```\n~~~~\n{{ x }}\n`````  \n"]


def test_nested_looking_fence_is_content() -> None:
    text = "~~~~md\n```liquid\n{% image src %}\n```\n~~~~\n{{ x }}"
    assert code_of(text) == ["~~~~md\n```liquid\n{% image src %}\n```\n~~~~\n"]


def test_closing_fence_with_trailing_text_does_not_close() -> None:
    text = "```\n``` not a close\n{{ x }}\n```\n{{ y }}"
    assert code_of(text) == ["```\n``` not a close\n{{ x }}\n```\n"]


def test_unclosed_fence_runs_to_end_of_file() -> None:
    text = "intro {{ a }}\n```yaml\nname: {{ b }}\n"
    assert code_of(text) == ["```yaml\nname: {{ b }}\n"]


def test_fence_indent_up_to_three_spaces() -> None:
    text = "   ```\n{{ x }}\n   ```\n    ```\n{{ y }}\n"
    assert code_of(text) == ["   ```\n{{ x }}\n   ```\n"]
    assert code_of("\t```\n{{ y }}\n") == []


def test_backtick_fence_info_with_backtick_is_inline_code() -> None:
    assert code_of("``` a`b\n{{ x }}\n") == []


def test_inline_code_spans_of_several_lengths() -> None:
    text = "a `{{ x }}` b ``{% if ` %}`` c ```{# `` #}``` d"
    assert code_of(text) == ["`{{ x }}`", "``{% if ` %}``", "```{# `` #}```"]


def test_code_span_needs_a_run_of_exactly_the_same_length() -> None:
    assert code_of("``a` {{ x }} ```b``") == ["``a` {{ x }} ```b``"]
    assert code_of("`` {{ x }} ```") == []


def test_code_span_does_not_cross_a_blank_line() -> None:
    assert code_of("a ` {{ x }}\n  \n` b") == []
    assert code_of("a ` {{ x }}\nstill ` b") == ["` {{ x }}\nstill `"]


def test_escaped_backtick_opens_nothing() -> None:
    assert code_of(r"\` {{ x }} `y`") == ["`y`"]
    assert code_of(r"\\`{{ x }}`") == ["`{{ x }}`"]


def test_github_actions_expression_is_not_a_template() -> None:
    text = "token: ${{ secrets.TOKEN }} and ${{ github.sha }}"
    assert code_of(text) == ["${{ secrets.TOKEN }}", "${{ github.sha }}"]
    assert code_of("only ${{ open ${{ twice") == ["${{", "${{"]
    assert code_of("${{ a\n\n}} {{ b }}") == ["${{"]  # the closer must be in the paragraph


def test_code_regions_hide_every_opener_but_keep_offsets() -> None:
    text = "`{{ a }}`\n{{ b }}"
    nodes = parse(text, "f.md").nodes
    assert nodes == (Text("`{{ a }}`\n"), Output(Var("b", 13)))


# --- parsing -------------------------------------------------------------------------------


def test_output_with_chained_filters() -> None:
    nodes = parse('{{ name | lower | default("x") | trim }}', "f.md").nodes
    lower = Filter(Var("name", 3), "lower", (), 10)
    default = Filter(lower, "default", (Literal("x"),), 18)
    assert nodes == (Output(Filter(default, "trim", (), 33)),)


def test_if_elif_else_tree() -> None:
    text = "{% if a == 'x' %}A{% elif b != \"y\" %}B{% else %}C{% endif %}"
    (node,) = parse(text, "f.md").nodes
    assert node == If(
        (
            Branch(Compare("==", Var("a", 6), Literal("x")), (Text("A"),)),
            Branch(Compare("!=", Var("b", 26), Literal("y")), (Text("B"),)),
            Branch(None, (Text("C"),)),
        )
    )


def test_boolean_operators_and_precedence() -> None:
    text = '{% if not a or b and (c in ["x", d,] or e not in []) %}{% endif %}'
    (node,) = parse(text, "f.md").nodes
    member = Member(Var("c", 22), (Literal("x"), Var("d", 33)), False)
    inner = BoolOp("or", (member, Member(Var("e", 40), (), True)))
    expected = BoolOp("or", (Not(Var("a", 10)), BoolOp("and", (Var("b", 15), inner))))
    assert node == If((Branch(expected, ()),))


def test_include_comment_and_raw() -> None:
    text = 'a{% include "shared/x.md" %}b{# gone #}c{% raw %}{{ kept }}{% endraw %}'
    nodes = parse(text, "f.md").nodes
    assert nodes == (
        Text("a"),
        Include("shared/x.md", 1, standalone=False),
        Text("b"),
        Text("c"),
        Text("{{ kept }}"),
    )


def test_tags_may_span_lines_and_omit_spaces() -> None:
    nodes = parse("{%if\n  x\n%}y{%endif%}{{z|upper}}", "f.md").nodes
    assert nodes == (
        If((Branch(Var("x", 7), (Text("y"),)),)),
        Output(Filter(Var("z", 23), "upper", (), 25)),
    )


def test_template_is_immutable() -> None:
    parsed = parse("{{ x }}", "f.md")
    with pytest.raises(AttributeError):
        parsed.nodes = ()  # type: ignore[misc]
    assert hash(parsed) == hash(parse("{{ x }}", "f.md"))


# --- the whitespace rule, as nodes ------------------------------------------------------------


def test_standalone_tag_lines_disappear() -> None:
    text = "a\n  {% if x %}  \nb\n\t{% endif %}\nc\n"
    assert parse(text, "f.md").nodes == (
        Text("a\n"),
        If((Branch(Var("x", 10), (Text("b\n"),)),)),
        Text("c\n"),
    )


def test_standalone_include_is_marked() -> None:
    nodes = parse('x\n  {% include "a.md" %}\ny {% include "b.md" %}\n', "f.md").nodes
    assert nodes == (
        Text("x\n"),
        Include("a.md", 4, standalone=True),
        Text("y "),
        Include("b.md", 27, standalone=False),
        Text("\n"),
    )


# --- errors: exact location, caret and wording ------------------------------------------------


def test_unclosed_if_names_where_it_opened() -> None:
    text = "# Soul\n\nIntro\n{% if platform == 'slack' %}\nSlack only\n"
    assert error_of(text) == (
        "SOUL.md:4:1: unclosed {% if %} opened at SOUL.md:4:1: "
        "the file ends before its {% endif %}\n"
        "    {% if platform == 'slack' %}\n"
        "    ^"
    )


def test_unclosed_inner_if_is_the_one_reported() -> None:
    text = "{% if a %}\n  x {% if b %}y{% else %}z\n{% endif %}\n"
    assert error_of(text).splitlines()[0] == (
        "SOUL.md:1:1: unclosed {% if %} opened at SOUL.md:1:1: the file ends before its {% endif %}"
    )
    text = "{% if a %}\n  x {% if b %}y{% else %}z\n"
    assert error_of(text).splitlines()[:3] == [
        "SOUL.md:2:5: unclosed {% if %} opened at SOUL.md:2:5: the file ends before its "
        "{% endif %}",
        "      x {% if b %}y{% else %}z",
        "        ^",
    ]


@pytest.mark.parametrize("tag", ["{% endif %}", "{% else %}", "{% elif x %}"])
def test_block_tag_without_if(tag: str) -> None:
    name = "{% elif %}" if "elif" in tag else tag
    assert error_of(f"text\n  {tag}\n") == (
        f"SOUL.md:2:3: unexpected {name}: no {{% if %}} is open\n      {tag}\n      ^"
    )


def test_else_after_else() -> None:
    text = "{% if a %}A\n{% else %}B\n{% else %}C\n{% endif %}"
    assert error_of(text) == (
        "SOUL.md:3:1: unexpected {% else %}: the {% if %} opened at SOUL.md:1:1 already has its "
        "{% else %}\n"
        "    {% else %}C\n"
        "    ^\n"
        "  hint: {% else %} comes last, right before {% endif %}"
    )


def test_unknown_filter_suggests() -> None:
    assert error_of("Hi {{ name | uper }}") == (
        "SOUL.md:1:14: unknown filter 'uper' — did you mean 'upper'?\n"
        "    Hi {{ name | uper }}\n"
        "                 ^\n"
        "  hint: filters: upper(), lower(), trim(), default(…)"
    )
    assert error_of("{{ x | json }}").splitlines()[0] == "SOUL.md:1:8: unknown filter 'json'"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{{ x | upper("a") }}', "filter 'upper' takes no arguments"),
        ("{{ x | trim(x, y) }}", "filter 'trim' takes no arguments"),
        ("{{ x | default }}", ARITY),
        ('{{ x | default("a", "b") }}', ARITY),
    ],
)
def test_filter_arguments(text: str, message: str) -> None:
    assert error_of(text).splitlines()[0] == f"SOUL.md:1:8: {message}"


def test_unterminated_output() -> None:
    assert error_of("line one\nsay {{ name\nmore {% if x %}{% endif %}") == (
        "SOUL.md:2:5: unterminated '{{': expected '}}' to close it\n"
        "    say {{ name\n"
        "        ^\n" + ESCAPE
    )


def test_unterminated_statement_tag() -> None:
    assert error_of("a {% if x\n") == (
        "SOUL.md:1:3: unterminated '{% if': expected '%}' to close it\n    a {% if x\n      ^\n"
        + ESCAPE
    )
    assert (
        error_of("a {%").splitlines()[0]
        == "SOUL.md:1:3: unterminated '{%': expected a tag name and '%}'"
    )


def test_unterminated_comment() -> None:
    assert error_of("ok\n  {# note\nmore") == (
        "SOUL.md:2:3: unterminated comment: '{#' has no closing '#}'\n      {# note\n      ^"
    )


def test_unclosed_and_stray_raw() -> None:
    assert error_of("x\n{% raw %}\n{{ y }}\n") == (
        "SOUL.md:2:1: unclosed {% raw %}: the file ends before its {% endraw %}\n"
        "    {% raw %}\n"
        "    ^"
    )
    assert error_of("{% endraw %}") == (
        "SOUL.md:1:1: unexpected {% endraw %}: no {% raw %} is open\n    {% endraw %}\n    ^"
    )


def test_liquid_tag_in_prose_explains_both_ways_out() -> None:
    text = 'Shortcodes:\n\n{% image "url", "alt text" %}\n'
    assert error_of(text) == (
        'SOUL.md:3:1: unknown tag \'image\'\n    {% image "url", "alt text" %}\n    ^\n' + TAG_HINT
    )


def test_unknown_tag_suggests_and_for_is_unknown() -> None:
    assert error_of("{% inclde 'a.md' %}").splitlines()[0] == (
        "SOUL.md:1:1: unknown tag 'inclde' — did you mean 'include'?"
    )
    assert (
        error_of("{% for x in xs %}{% endfor %}").splitlines()[0]
        == "SOUL.md:1:1: unknown tag 'for'"
    )


def test_malformed_known_tag() -> None:
    assert error_of("{% if a %}{% else if b %}{% endif %}").splitlines()[:3] == [
        "SOUL.md:1:11: malformed {% else %}: expected '%}' after 'else'",
        "    {% if a %}{% else if b %}{% endif %}",
        "              ^",
    ]
    assert error_of("{% %}").splitlines()[0] == (
        "SOUL.md:1:1: expected a tag name after '{%' (if, elif, else, endif, include, raw)"
    )


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("{{ a b }}", 6, "bad expression in {{ … }}: unexpected 'b', expected '|' or '}}'"),
        (
            "{{ }}",
            4,
            "bad expression in {{ … }}: unexpected '}}', expected a variable name or "
            "a quoted string",
        ),
        ("{{ a.b }}", 5, "bad expression in {{ … }}: unexpected '.', expected '|' or '}}'"),
        (
            "{{ 'a' if x else 'b' }}",
            8,
            "bad expression in {{ … }}: unexpected 'if', expected '|' or '}}'",
        ),
        (
            "{% if %}{% endif %}",
            7,
            "bad expression in {% if … %}: unexpected '%}', expected a variable name, "
            "a quoted string, '(' or 'not'",
        ),
        (
            "{% if a = 'b' %}{% endif %}",
            9,
            "bad expression in {% if … %}: unexpected '=', expected '!=', '%}', '==', 'and', 'in', "
            "'not', 'or' or '|'",
        ),
        (
            "{% if a in 'b' %}{% endif %}",
            12,
            "bad expression in {% if … %}: unexpected 'b', expected '['",
        ),
        (
            "{% if a or %}{% endif %}",
            12,
            "bad expression in {% if … %}: unexpected '%}', expected a variable name, "
            "a quoted string, '(' or 'not'",
        ),
        (
            '{% if a in ["x", "y" %}{% endif %}',
            22,
            "bad expression in {% if … %}: unexpected '%}', expected ',', ']' or '|'",
        ),
        (
            "{% if a %}{% elif %}{% endif %}",
            19,
            "bad expression in {% elif … %}: unexpected '%}', expected a variable name, "
            "a quoted string, '(' or 'not'",
        ),
        (
            "{% include shared %}",
            12,
            "bad expression in {% include … %}: unexpected 'shared', expected a quoted string",
        ),
    ],
)
def test_bad_expressions(text: str, column: int, message: str) -> None:
    rendered = error_of(text)
    assert rendered.splitlines()[0] == f"SOUL.md:1:{column}: {message}"
    assert rendered.splitlines()[2] == "    " + " " * (column - 1) + "^"
    assert rendered.endswith(ESCAPE)


def test_nesting_limit_is_an_error_not_a_crash() -> None:
    deep = "{% if a %}" * 60 + "x" + "{% endif %}" * 60
    assert "template nests more than 50 levels deep" in error_of(deep)
    assert "nests more than" in error_of("{{ a" + " | upper" * 60 + " }}")
    assert "nests more than" in error_of("{% if " + "not " * 60 + "a %}{% endif %}")
    parse("{% if " + "(" * 200 + "a" + ")" * 200 + " %}{% endif %}", "f.md")  # flat: fine


def test_errors_use_original_text_inside_code_masked_regions() -> None:
    # The `{{` inside the code span is hidden from the parser, yet positions stay the file's.
    assert error_of("`{{`\n{{ x y }}").splitlines()[0] == (
        "SOUL.md:2:6: bad expression in {{ … }}: unexpected 'y', expected '|' or '}}'"
    )


# --- the grammar cache ----------------------------------------------------------------------


def test_grammar_is_cached_on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    template_grammar.parser.cache_clear()
    try:
        parse("{{ x }}", "f.md")
        assert list((tmp_path / "hotplex").glob("template-*.lark-cache"))
        template_grammar.parser.cache_clear()
        assert parse("{{ x }}", "f.md").nodes == (Output(Var("x", 3)),)  # loaded from the cache
    finally:
        template_grammar.parser.cache_clear()


def test_unusable_cache_dir_is_not_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    template_grammar.parser.cache_clear()
    try:
        assert parse("{{ x }}", "f.md").nodes == (Output(Var("x", 3)),)
    finally:
        template_grammar.parser.cache_clear()


def test_corrupt_cache_file_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    template_grammar.parser.cache_clear()
    try:
        parse("{{ x }}", "f.md")
        (cache,) = (tmp_path / "hotplex").glob("template-*.lark-cache")
        cache.write_bytes(cache.read_bytes()[:100])
        template_grammar.parser.cache_clear()
        assert parse("{{ x }}", "f.md").nodes == (Output(Var("x", 3)),)
    finally:
        template_grammar.parser.cache_clear()
