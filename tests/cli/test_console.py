"""``console.Shown``, the stream every write of the CLI goes through: what it changes, and what
it leaves as it is."""

from __future__ import annotations

import io

from hotplex import console
from hotplex.errors import visible
from hypothesis import given
from hypothesis import strategies as st


def _shown(text: str) -> str:
    stream = io.StringIO()
    console.Shown(stream).write(text)
    return stream.getvalue()


@given(st.text())
def test_every_character_is_written_as_errors_visible_shows_it_but_line_breaks_and_tabs(text):
    assert _shown(text) == "".join(c if c in "\n\t" else visible(c) for c in text)


@given(st.lists(st.text(), max_size=40))
def test_a_multi_line_write_is_shown_as_its_lines_one_at_a_time(lines):
    """A JSON report is one write of many lines: the same as writing them one by one."""
    assert _shown("\n".join(lines)) == "\n".join(map(_shown, lines))


def test_the_modules_own_colours_reach_the_stream_as_themselves(monkeypatch):
    terminal = io.StringIO()
    monkeypatch.setattr(terminal, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    coloured = console.colour("ok\x1b", "green", terminal)
    assert _shown(coloured) == "\x1b[32mok<U+001B>\x1b[0m"
