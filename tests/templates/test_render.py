"""Rendering: variables, filters, conditions, includes, the whitespace rule; fuzzed robustness."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hotplex.errors import EXIT_CONFIG, HotplexError, Span
from hotplex.templates.parse import might_have_syntax
from hotplex.templates.render import IncludedSource, Rendered, render
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Property tests run 200 examples by default; HOTPLEX_FUZZ_EXAMPLES raises that for long runs.
settings.register_profile(
    "hotplex-fuzz",
    max_examples=int(os.environ.get("HOTPLEX_FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
FUZZ = settings.get_profile("hotplex-fuzz")

VARS = {"platform": "slack", "worker": "claude-code", "target": "cc", "name": "Ada", "empty": ""}


class Files:
    """An include loader over a dict, recording the calls it gets."""

    def __init__(self, files: dict[str, str | tuple[str, bool]]) -> None:
        self.files = files
        self.calls: list[tuple[str, Span]] = []

    def __call__(self, path: str, span: Span) -> IncludedSource:
        self.calls.append((path, span))
        found = self.files.get(path)
        if found is None:
            raise HotplexError.single(f"include '{path}' does not exist", span)
        body, is_template = found if isinstance(found, tuple) else (found, True)
        return IncludedSource(f"shared/{path}", body, is_template)


def run(text: str, variables: dict[str, str] | None = None, **files: str) -> Rendered:
    return render(text, "SOUL.md", VARS if variables is None else variables, Files(dict(files)))


def out(text: str, variables: dict[str, str] | None = None, **files: str) -> str:
    return run(text, variables, **files).text


def error_of(text: str, variables: dict[str, str] | None = None, **files: str) -> str:
    with pytest.raises(HotplexError) as info:
        run(text, variables, **files)
    assert info.value.exit_status == EXIT_CONFIG
    return info.value.render()


# --- variables and filters ------------------------------------------------------------------


def test_plain_text_is_returned_as_is() -> None:
    text = "# Soul\n\nBe kind. {braces} 100%\n"
    assert run(text) == Rendered(text, (), frozenset())


def test_rendering_plain_or_code_only_text_does_not_import_lark() -> None:
    script = (
        "import sys\n"
        "from hotplex.templates.render import render\n"
        "text = '# T\\n```\\n{{ x }}\\n```\\n`{% y %}` ${{ z }}\\n'\n"
        "assert render(text, 'f.md', {}, None).text == text\n"
        "assert 'lark' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi {{ name }}!", "Hi Ada!"),
        ("{{name|upper}}", "ADA"),
        ("{{ name | lower }}", "ada"),
        ('{{ " x " | trim }}|', "x|"),
        ("{{ 'lit' }}", "lit"),
        ('{{ missing | default("none") }}', "none"),
        ('{{ empty | default("none") }}', "none"),
        ('{{ name | default("none") }}', "Ada"),
        ("{{ missing | default(name) | upper }}", "ADA"),
        ('{{ missing | upper | default("x") }}', "x"),
        ('{{ platform | default("base") }}', "slack"),
    ],
)
def test_outputs_and_filters(text: str, expected: str) -> None:
    assert out(text) == expected


def test_platform_is_empty_for_the_base_artifact() -> None:
    base = dict(VARS, platform="")
    assert out('[{{ platform | default("base") }}]', base) == "[base]"
    assert out("{% if platform %}P{% else %}none{% endif %}", base) == "none"


def test_undefined_variable_suggests_a_defined_name() -> None:
    assert error_of("Project: {{ projct }}", {"project": "x"}) == (
        "SOUL.md:1:13: undefined variable 'projct' — did you mean 'project'?\n"
        "    Project: {{ projct }}\n"
        "                ^\n"
        '  hint: define it under [vars] in the manifest, or write {{ projct | default("…") }} '
        "for a fallback"
    )


def test_undefined_variable_in_a_condition_and_without_suggestion() -> None:
    assert error_of("\n{% if zzz == 'a' %}{% endif %}").splitlines()[0] == (
        "SOUL.md:2:7: undefined variable 'zzz'"
    )


def test_default_argument_is_evaluated_only_when_needed() -> None:
    assert out("{{ name | default(nope) }}") == "Ada"
    assert "undefined variable 'nope'" in error_of("{{ missing | default(nope) }}")


# --- conditions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ('platform == "slack"', True),
        ("platform == 'feishu'", False),
        ('platform != "slack"', False),
        ('platform in ["feishu", "slack"]', True),
        ("platform in []", False),
        ('platform not in ["feishu"]', True),
        ("not platform", False),
        ("empty", False),
        ("name", True),
        ('""', False),
        ('empty or name == "Ada"', True),
        ("name and empty", False),
        ('not (empty or name == "x")', True),
        ('platform == target or worker == "claude-code" and not empty', True),
        ("name in [target, name]", True),
        ('name | lower == "ada"', True),
    ],
)
def test_conditions(test: str, expected: bool) -> None:
    assert out(f"{{% if {test} %}}yes{{% else %}}no{{% endif %}}") == ("yes" if expected else "no")


def test_elif_chain_and_nesting() -> None:
    text = (
        '{% if platform == "feishu" %}F'
        '{% elif platform == "slack" %}S{% if name %}+{{ name }}{% endif %}'
        "{% else %}O{% endif %}"
    )
    assert out(text) == "S+Ada"
    assert out(text, dict(VARS, platform="x")) == "O"


def test_and_or_short_circuit_reads_only_what_it_needs() -> None:
    rendered = run("{% if name or missing %}y{% endif %}{% if empty and missing %}n{% endif %}")
    assert rendered.text == "y"
    assert rendered.variables == {"name", "empty"}


# --- whitespace rule --------------------------------------------------------------------------


def test_lines_holding_only_tags_disappear() -> None:
    text = "A\n{% if platform == 'slack' %}\nS\n{% else %}\nO\n{% endif %}\nB\n"
    assert out(text) == "A\nS\nB\n"


def test_indented_tags_and_trailing_spaces_still_count_as_alone() -> None:
    text = "- a\n  {% if name %}  \n  - b\n\t{% endif %}\t\n- c\n"
    assert out(text) == "- a\n  - b\n- c\n"


def test_tag_on_the_last_line_without_newline() -> None:
    assert out("A\n{% if name %}\nB\n{% endif %}") == "A\nB\n"


def test_tags_amid_text_remove_nothing_else() -> None:
    assert out("A {% if name %}B{% endif %} C\n") == "A B C\n"
    assert out("A\n{% if empty %}B{% endif %}\nC\n") == "A\n\nC\n"


def test_several_tags_on_one_line_count_as_alone() -> None:
    assert out("A\n{% if empty %}{% endif %} {# note #}\nB\n") == "A\nB\n"
    assert out("A\n{% if empty %}x{% endif %} {# note #}\nB\n") == "A\n \nB\n"  # "x" is text
    assert out("A\n{% if name %}{% if empty %}{% endif %}\nB\n{% endif %}\n") == "A\nB\n"


def test_comment_lines_disappear_including_multiline_comments() -> None:
    assert out("A\n{# one #}\nB\n  {# two\n  lines #}\nC\n") == "A\nB\nC\n"
    assert out("A {# inline #}B\n") == "A B\n"


def test_output_alone_on_a_line_keeps_its_line() -> None:
    assert out("A\n{{ empty }}\nB\n") == "A\n\nB\n"


def test_raw_keeps_content_verbatim_and_its_tag_lines_disappear() -> None:
    text = "A\n{% raw %}\n{{ x }} {% if %} {# c #}\n{% endraw %}\nB {% raw %}{{ y }}{% endraw %}\n"
    assert out(text) == "A\n{{ x }} {% if %} {# c #}\nB {{ y }}\n"


# --- code regions pass through byte for byte -----------------------------------------------------


def test_fenced_and_inline_code_pass_through() -> None:
    text = (
        "Name: {{ name }}\n"
        "```jinja\n{% for x in xs %}{{ x }}{% endfor %}\n```\n"
        "~~~\n{{ unclosed\n~~~\n"
        "Use `{{ var }}` or ``{% raw %}``.\n"
        "```liquid\n{% image 'u' %}\n"
    )
    assert out(text) == text.replace("{{ name }}", "Ada", 1)


def test_github_actions_expressions_pass_through() -> None:
    text = "run: echo ${{ secrets.TOKEN }} for {{ target }}\nkey: ${{ github.sha }}\n"
    assert out(text) == "run: echo ${{ secrets.TOKEN }} for cc\nkey: ${{ github.sha }}\n"


# --- includes -----------------------------------------------------------------------------------


def test_include_alone_on_its_line_ends_with_exactly_one_newline() -> None:
    files = {"a.md": "Alpha", "b.md": "Beta\n\n\n", "e.md": "\n"}
    text = 'x\n{% include "a.md" %}\n  {% include "b.md" %}\n{% include "e.md" %}\ny\n'
    assert out(text, **files) == "x\nAlpha\nBeta\ny\n"


def test_include_amid_text_is_inserted_as_is() -> None:
    assert out('[{% include "a.md" %}]', **{"a.md": "A\n"}) == "[A\n]"


def test_included_files_are_rendered_with_the_same_variables() -> None:
    files = {"a.md": "A {{ name }}\n{% include 'b.md' %}\n", "b.md": "B {{ platform }}\n"}
    rendered = run('{% include "a.md" %}\n{{ target }}\n', **files)
    assert rendered.text == "A Ada\nB slack\ncc\n"
    assert rendered.includes == ("shared/a.md", "shared/b.md")
    assert rendered.variables == {"name", "platform", "target"}


def test_include_opted_out_of_templating_is_verbatim() -> None:
    loader = Files({"gha.md": ("on: {{ not a template }}\n", False)})
    rendered = render('{% include "gha.md" %}\n', "SOUL.md", VARS, loader)
    assert rendered.text == "on: {{ not a template }}\n"
    assert rendered.includes == ("shared/gha.md",)


def test_include_inside_a_condition_is_loaded_only_when_taken() -> None:
    text = (
        '{% if platform == "slack" %}\n{% include "s.md" %}\n'
        '{% else %}\n{% include "o.md" %}\n{% endif %}\n'
    )
    loader = Files({"s.md": "Slack rules\n"})
    rendered = render(text, "SOUL.md", VARS, loader)
    assert rendered.text == "Slack rules\n"
    assert rendered.includes == ("shared/s.md",)
    assert [path for path, _ in loader.calls] == ["s.md"]


def test_includes_are_listed_once_in_first_seen_order() -> None:
    files = {"a.md": "{% include 'c.md' %}", "b.md": "b", "c.md": "c"}
    text = '{% include "a.md" %}{% include "b.md" %}{% include "c.md" %}'
    assert run(text, **files).includes == ("shared/a.md", "shared/c.md", "shared/b.md")


def test_loader_gets_the_path_and_the_span_of_the_tag() -> None:
    loader = Files({})
    with pytest.raises(HotplexError) as info:
        render('ok\n  {% include "../etc/passwd" %}\n', "SOUL.md", VARS, loader)
    assert loader.calls[0][0] == "../etc/passwd"
    assert info.value.render() == (
        "SOUL.md:2:3: include '../etc/passwd' does not exist\n"
        '      {% include "../etc/passwd" %}\n'
        "      ^"
    )


def test_include_cycle_names_the_chain() -> None:
    loader = Files({"a.md": "A\n{% include 'b.md' %}\n", "b.md": "B\n{% include 'a.md' %}\n"})
    with pytest.raises(HotplexError) as info:
        render('{% include "a.md" %}', "SOUL.md", VARS, loader)
    assert info.value.render() == (
        "shared/b.md:2:1: include cycle: SOUL.md → shared/a.md → shared/b.md → shared/a.md\n"
        "    {% include 'a.md' %}\n"
        "    ^"
    )


def test_self_include_is_a_cycle() -> None:
    loader = Files({"a.md": "{% include 'a.md' %}"})
    with pytest.raises(
        HotplexError, match=r"include cycle: SOUL\.md → shared/a\.md → shared/a\.md"
    ):
        render('{% include "a.md" %}', "SOUL.md", VARS, loader)


def test_endless_include_chain_is_an_error_not_a_crash() -> None:
    def chain(path: str, span: Span) -> IncludedSource:
        number = int(path[1:-3])
        return IncludedSource(path, f'{{% include "f{number + 1}.md" %}}\n', True)

    with pytest.raises(HotplexError) as info:
        render('{% include "f0.md" %}', "SOUL.md", VARS, chain)
    assert info.value.render().splitlines()[0] == (
        "SOUL.md:1:1: templates nest too deeply to render (includes within includes)"
    )


def test_errors_inside_an_include_point_into_that_file() -> None:
    message = error_of('{% include "a.md" %}', **{"a.md": "line\n{{ nme }}\n"})
    assert (
        message.splitlines()[0]
        == "shared/a.md:2:4: undefined variable 'nme' — did you mean 'name'?"
    )


# --- dependencies: variables read -------------------------------------------------------------


def test_variables_read_include_defaults_and_exclude_untaken_branches() -> None:
    text = '{{ missing | default("d") }}{% if platform == "x" %}{{ name }}{% else %}{{ target }}'
    text += "{% endif %}"
    rendered = run(text)
    assert rendered.text == "dcc"
    assert rendered.variables == {"missing", "platform", "target"}


def test_parsed_template_is_reused_across_renders() -> None:
    text = "{% if platform == 'slack' %}S{% else %}O{% endif %}"
    assert out(text) == "S"
    assert out(text, dict(VARS, platform="web")) == "O"


# --- properties ----------------------------------------------------------------------------------

# Fragments that reach the grammar's corners more often than uniform random text does.
WORDS = """
{{ }} {% %} {# #} { } % # ` `` ``` ~~~ ${{ $ if elif else endif include raw endraw
not and or in == != | upper default( ) ( [ ] , " ' "a.md" 'x' name missing é 中文
"""
PIECES = [*WORDS.split(), " ", "\n", "\n\n", "\t", "    ", "\\", "\r\n"]
TEMPLATE_TEXT = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=40).map("".join),
)


def _inside(span: Span, texts: dict[str, str]) -> bool:
    lines = texts[span.file].split("\n")
    if span.line is None or span.column is None or not 1 <= span.line <= len(lines):
        return False
    return 1 <= span.column <= len(lines[span.line - 1]) + 1


@FUZZ
@given(st.text().filter(lambda text: not might_have_syntax(text)))
def test_text_without_template_openers_renders_to_itself(text: str) -> None:
    assert run(text) == Rendered(text, (), frozenset())


@FUZZ
@given(st.text(alphabet=st.characters(blacklist_characters="`~")))
def test_anything_inside_a_closed_fence_renders_to_itself(content: str) -> None:
    text = f"````\n{content}\n````\n"
    assert out(text) == text


@FUZZ
@given(TEMPLATE_TEXT)
def test_any_text_renders_or_fails_with_a_positioned_problem(text: str) -> None:
    body = "inc {{ name }}\n"
    loader = Files({"a.md": body})
    try:
        render(text, "SOUL.md", VARS, loader)
    except HotplexError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.span is not None
            assert _inside(problem.span, {"SOUL.md": text, "shared/a.md": body}), problem.span
