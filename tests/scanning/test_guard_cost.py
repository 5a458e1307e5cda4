"""The guard's readings stay near linear in the text on markup written to make them square:
counted in what they look at (characters fed to html.parser, destinations searched), never
timed. The attack pass's texts: 40 KB of "<img " took 16 s, of "[a](" 10 s."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hotplex.scanning import fetched, injection, raw_text, stylesheets, urls
from hotplex_testing import instances_made
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture
def fed(monkeypatch) -> list[int]:
    """The length of every piece the readings feed html.parser."""
    pieces: list[int] = []
    feed = fetched._Collector.feed

    def counted(self, data: str) -> None:
        pieces.append(len(data))
        feed(self, data)

    monkeypatch.setattr(fetched._Collector, "feed", counted)
    return pieces


@pytest.mark.parametrize("unit", ["<img ", '<a href="', "<x y='", "< a "])
def test_an_unfinished_tag_is_fed_once_with_what_finishes_it(fed, unit) -> None:
    """A guard's text is a piece of a page that goes on, so its last tag is read finished
    (``fetched.FINISHED``); html.parser is then fed the text once, where with no ">" at all it
    looked for the end of each "<" to the text's end (the square of its length)."""
    text = unit * 4000
    fetched.read(text)
    assert sum(fed) <= len(text) + len(fetched.FINISHED)


@pytest.mark.parametrize("unit", ["<span hidden><!--", "<b><!--", "<!-- --!x>", "x<!--y-->z<!--"])
def test_a_comment_never_closed_is_not_searched_for_its_close(monkeypatch, unit) -> None:
    """At its end, html.parser took each "<!--" with no close for text and looked for the next
    one's close to the text's end again: 1 MB of ``<span hidden><!--`` took a minute. A comment
    no close starts after is known at once (``html_reader``); a closed one is searched as ever."""
    searched: list[int] = []
    real = HTMLParser.parse_comment

    def counted(self, i: int, report: bool = True) -> int:
        end = real(self, i, report)  # where the comment ends, or -1: searched to the end
        searched.append((end if end >= 0 else len(self.rawdata)) - i)
        return end

    monkeypatch.setattr(HTMLParser, "parse_comment", counted)
    text = unit * 4000
    injection.scan(text)
    assert sum(searched) <= 2 * len(text)


@pytest.mark.parametrize(
    "unit", ["mail&#116;o:", "mailto&#58;", "mailto\\:", "mail&#116;o:a@b?x=", 'mail&#116;o:"']
)
def test_a_run_of_schemes_written_with_references_is_decoded_once(monkeypatch, unit) -> None:
    """adversary22 D8: each scheme of a run was decoded with the rest of the run, ``mail&#116;o:``
    repeated to 100 KB took 71 s; a run is decoded once, every URL it shows read there."""
    decoded: list[int] = []
    shown_text = urls.shown_text

    def counted(text: str, start: int, end: int):
        decoded.append(end - start)
        return shown_text(text, start, end)

    monkeypatch.setattr(urls, "shown_text", counted)
    text = unit * 4000
    injection.scan(text)
    assert 0 < sum(decoded) <= len(text)


def test_raw_text_past_the_last_closing_bracket_is_still_read(fed) -> None:
    text = "<style>*{background:url(https://evil.example/x)}" + "<img " * 100
    # (the quote that finishes a last tag, fetched.FINISHED, is a string of the CSS here: at
    # most a relative URL of the page's own)
    assert [f.host for f in fetched.read(text).fetches if urls.foreign(f.host)] == ["evil.example"]
    assert sum(fed) <= 2 * len(text)


def test_nested_raw_text_is_read_within_the_budget(raw_ends) -> None:
    """Raw text nested in raw text thousands deep, each level read again to the end: each
    reading searched the rest for its end tag (the square of the text), now looked through once
    a pattern, so it is read whole; a budget too small for it still leaves it unread."""
    text = "<title><style>" * 4000
    assert fetched.read(text).unread is None
    assert sum(ends.searched for ends in raw_ends) <= 4 * len(text)
    assert fetched.read(text, budget=fetched.Budget(len(text))).unread is not None


@pytest.fixture
def styled(monkeypatch) -> list[int]:
    """The length of every style sheet the readings tokenize."""
    pieces: list[int] = []
    parse = stylesheets.tinycss2().parse_component_value_list

    def counted(css: str, *args):
        pieces.append(len(css))
        return parse(css, *args)

    monkeypatch.setattr(stylesheets.tinycss2(), "parse_component_value_list", counted)
    return pieces


def test_a_year_of_notes_mentioning_a_style_element_is_read_whole(styled) -> None:
    """adversary4 #10, #11: a year of a developer's days, each mentioning ``<style>`` in prose,
    read together. Each mention is raw text to the end read again; each reading tokenized the
    rest as CSS (the quotes of ``fetched.FINISHED`` make every tail a style sheet to read): a
    year took 48 s, and past a hundred days the budget ran out: unread-markup on an arbitrary
    day of notes that fetch nothing."""
    text = "\n\n".join(
        f"- moved the <style> block of page {i} into head.html\n- customer asked, ticket {i}"
        for i in range(365)
    )
    seen = fetched.read(text)
    assert seen.unread is None
    assert [f for f in seen.fetches if urls.foreign(f.host)] == []
    assert sum(styled) <= 4 * len(text)


# The pattern _odd_destination replaces: the same answer, looked for from every "](" to the end.
_REFERENCE = re.compile(r"\](?:\(|:)[ \t\n]*<?[^\s)>]*?(?::(?!//)|\\|&)")


@given(st.text(st.sampled_from(list("](:/\\&<> \n\ta.[h")), max_size=24))
def test_an_odd_destination_is_found_as_the_reference_pattern_finds_it(text) -> None:
    assert injection._odd_destination(text) == (_REFERENCE.search(text) is not None)


def test_each_destination_run_is_searched_about_once(monkeypatch) -> None:
    runs: list[int] = []
    match = injection._DESTINATION_RUN.match

    class Counted:
        def match(self, text: str, at: int):
            found = match(text, at)
            runs.append(found.end() - at)
            return found

    monkeypatch.setattr(injection, "_DESTINATION_RUN", Counted())
    text = "[a](" * 8000
    assert not injection._odd_destination(text)
    assert sum(runs) <= 2 * len(text)


@pytest.fixture
def raw_ends(monkeypatch) -> list[raw_text.Ends]:
    """Every cache of raw-text ends the readings make, to count what it searched."""
    return instances_made(monkeypatch, raw_text, "Ends")


def _style_in_prose(mentions: int) -> str:
    return "- I like the <style> tag in HTML\n" * mentions


@pytest.mark.parametrize("mentions", [3000, 10000])
def test_a_note_naming_style_thousands_of_times_is_read_whole(raw_ends, mentions) -> None:
    """Each mention opens raw text to the end, read again from there: each reading searched the
    rest for the end tag and was charged for it again (k·n/128 in all), a false unread-markup
    past about 1,500 mentions. The end is searched and the raw text charged once."""
    text = _style_in_prose(mentions)
    seen = fetched.read(text)
    assert seen.unread is None
    assert [f for f in seen.fetches if urls.foreign(f.host)] == []
    assert sum(ends.searched for ends in raw_ends) <= 2 * len(text)


def test_twice_the_mentions_of_style_cost_twice() -> None:
    from test_findings_cost import _calls

    small, large = _style_in_prose(1000), _style_in_prose(2000)
    assert _calls(fetched.read, large) <= 2.2 * _calls(fetched.read, small)


def test_raw_text_nested_past_the_budget_is_left_unread(monkeypatch) -> None:
    """Each reading of raw text nested in raw text copies the rest of the HTML (html.parser holds
    it), so the readings grow with the text and their copies with its square: the budget charges
    the copies and stops them at a number of readings that does not grow with the text."""
    readings: list[int] = []
    read = fetched._Collector.read

    def counted(self, html: str, base: int) -> None:
        readings.append(base)
        read(self, html, base)

    monkeypatch.setattr(fetched._Collector, "read", counted)
    assert fetched.read("<title><style>" * 20000).unread is not None
    assert len(readings) <= 2 * fetched._READ_FACTOR * raw_text.COPY_RATE
