"""Hermes Agent's prompt-injection scan, predicted: the rules as data, worked out by probing the
real program (``tools.threat_patterns.scan_for_threats`` of hermes-agent 0.19.0, fed texts and
read for its findings; tests/fixtures/hermes-agent-0.19.0-scan.jsonl holds every probe and what
Hermes answered, and tests/integration/test_hermes_agent.py asks the installed program again).

Hermes scans each context file (SOUL.md among them) whole, in its ``context`` scope, and
replaces a file that matches with ``[BLOCKED: …]``; it scans each memory entry on its own in its
``strict`` scope, which adds rules about SSH keys and its own ``.env``, and replaces the entry.
The patterns here are hotplex's, written to agree with every probe: words are case-blind and
any run of blanks or line breaks separates them, as Hermes's did.
"""

from __future__ import annotations

import re
from typing import NamedTuple

VERSION = "0.19.0"
CONTEXT, STRICT = "context", "strict"
_FLAGS = re.IGNORECASE


class Rule(NamedTuple):
    name: str  # the finding Hermes names in its [BLOCKED: …] line
    pattern: re.Pattern[str]
    scopes: tuple[str, ...] = (CONTEXT, STRICT)


def _words(*alternatives: str) -> str:
    return r"\s+".join(alternatives)


_SECRET_VARIABLE = r"\$\{?\w*(?:key|token|secret|password|credential)"
RULES = (
    Rule(
        "prompt_injection",
        re.compile(
            r"\bignore\s+(?:\w+\s+){0,3}?(?:previous|prior|above|all)\s+instructions\b", _FLAGS
        ),
    ),
    Rule(
        "disregard_rules",
        re.compile(
            _words(
                r"\bdisregard",
                r"(?:your|all|any)",
                r"(?:\w+\s+)?(?:instructions|rules|guidelines)\b",
            ),
            _FLAGS,
        ),
    ),
    Rule("role_hijack", re.compile(_words(r"\byou", "are", "now", r"(?:a|an|the)", r"\w"), _FLAGS)),
    Rule(
        "role_pretend",
        re.compile(_words(r"\bpretend", r"(?:you\s+are|to\s+be|that\s+you\s+are)", r"\w"), _FLAGS),
    ),
    Rule(
        "bypass_restrictions",
        re.compile(
            _words(
                r"\bact",
                "as",
                r"(?:if|though)",
                "you",
                "have",
                "no",
                r"(?:restrictions|limits|rules)\b",
            ),
            _FLAGS,
        ),
    ),
    Rule("deception_hide", re.compile(_words(r"\bdo", "not", "tell", "the", r"user\b"), _FLAGS)),
    Rule(
        "html_comment_injection",
        re.compile(
            r"<!--(?:(?!-->).)*?(?:ignore|system|secret|override|hidden).*?-->", _FLAGS | re.S
        ),
    ),
    Rule("exfil_curl", re.compile(rf"\bcurl\b[^\n]*?{_SECRET_VARIABLE}", _FLAGS)),
    Rule("exfil_wget", re.compile(rf"\bwget\b[^\n]*?{_SECRET_VARIABLE}", _FLAGS)),
    Rule("read_secrets", re.compile(r"\bcat\s+\S*\.env", _FLAGS)),
    Rule("ssh_backdoor", re.compile(r"authorized_keys", _FLAGS), (STRICT,)),
    Rule("ssh_access", re.compile(r"(?:~|\$HOME)/\.ssh\b", _FLAGS), (STRICT,)),
    Rule("hermes_env", re.compile(r"~/\.hermes/\.env", _FLAGS), (STRICT,)),
)
# Each of these alone is a finding ``invisible_unicode_U+XXXX`` in both scopes.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u202a\u202b\u202c\u202d\u202e\u2060\u2062\u2063\u2064"
    "\u2066\u2067\u2068\u2069\ufeff"
)


class Finding(NamedTuple):
    rule: str
    offset: int  # where in the text it starts


def scan(text: str, scope: str) -> tuple[Finding, ...]:
    """What Hermes would find in ``text`` scanned in ``scope``: each rule once, at its first
    match, rules in order, then each invisible character once."""
    found = []
    for rule in RULES:
        match = rule.pattern.search(text) if scope in rule.scopes else None
        if match is not None:
            found.append(Finding(rule.name, match.start()))
    seen = set()
    for at, char in enumerate(text):
        if char in INVISIBLE and char not in seen:
            seen.add(char)
            found.append(Finding(f"invisible_unicode_U+{ord(char):04X}", at))
    return tuple(found)
