"""Hermes Agent's prompt-injection scan, predicted: the rules as data, worked out by probing the
real program (``tools.threat_patterns.scan_for_threats`` of hermes-agent 0.19.0, fed texts and
read for its findings; tests/fixtures/hermes-agent-0.19.0-scan.jsonl holds every probe and what
Hermes answered, and tests/integration/test_hermes_agent.py asks the installed program again).

Hermes scans each context file (SOUL.md among them) whole, in its ``context`` scope, and
replaces a file that matches with ``[BLOCKED: …]``; it scans each memory entry on its own in its
``strict`` scope, which adds rules about SSH keys and its own ``.env``, and replaces the entry.
The patterns here are hotplex's, written to agree with every probe: words are case-blind and
any run of blanks or line breaks separates them, as Hermes's did. Hermes looks only at a text's
first 65,536 characters, folded by Unicode's NFKC first (a fullwidth ``Ｉｇｎｏｒｅ`` or a long
``ſ`` reads as the plain letter); so does ``scan``. Some rules match ordinary English ("check in
with the team", "pull tasks", "havoc"): they are Hermes's, and a build that would be blocked
must say so.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import NamedTuple

VERSION = "0.19.0"
WINDOW = 65_536  # the characters of a text Hermes scans, from its start
CONTEXT, STRICT = "context", "strict"
_FLAGS = re.IGNORECASE


class Rule(NamedTuple):
    name: str  # the finding Hermes names in its [BLOCKED: …] line
    pattern: re.Pattern[str]
    scopes: tuple[str, ...] = (CONTEXT, STRICT)
    # What any match holds, looked for first: a text without it is passed over at once, not
    # searched from each of its words (a pattern of two free stretches is slow to fail).
    needs: re.Pattern[str] | None = None


def _words(*alternatives: str) -> str:
    return r"\s+".join(alternatives)


_AGENT_FILES = r"(?:agents\.md|claude\.md|\.cursorrules|\.clinerules)"
_HERMES_FILES = r"\.hermes/(?:config\.yaml|soul\.md)"
# A verb that changes a file, then anything on its line before the file's name.
_CONFIG_EDIT = r"(?:update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}"
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
    Rule(
        "exfil_curl",
        re.compile(rf"curl\s+[^\n]*?{_SECRET_VARIABLE}", _FLAGS),
        needs=re.compile(_SECRET_VARIABLE, _FLAGS),
    ),
    Rule(
        "exfil_wget",
        re.compile(rf"wget\s+[^\n]*?{_SECRET_VARIABLE}", _FLAGS),
        needs=re.compile(_SECRET_VARIABLE, _FLAGS),
    ),
    Rule(
        "read_secrets",
        re.compile(r"cat\s+.*?(?:\.env|\.npmrc|\.netrc|\.pgpass|\.pypirc|credentials)", _FLAGS),
    ),
    Rule("sys_prompt_override", re.compile(_words(r"\bsystem", "prompt", "override"), _FLAGS)),
    Rule(
        "leak_system_prompt",
        re.compile(r"\boutput\s+(?:\w+\s+){0,8}?(?:system|initial)\s+prompt", _FLAGS),
    ),
    Rule(
        "remove_filters",
        re.compile(
            r"\b(?:reply|respond|answer)\s+without\s+(?:\w+\s+)?(?:restrictions|filters)\b", _FLAGS
        ),
    ),
    Rule(
        "fake_update",
        re.compile(_words(r"\byou", "have", "been", r"(?:upgraded|updated)", r"to\b"), _FLAGS),
    ),
    Rule("identity_override", re.compile(_words(r"\bname", "yourself", r"\w"), _FLAGS)),
    Rule("forced_action", re.compile(r"\byou\s+must\s+(?:\w+\s+){0,3}?report\b", _FLAGS)),
    Rule(
        "translate_execute",
        re.compile(r"\btranslate\s+.+?\s+into\s+.+?\s+and\s+(?:run|execute)\b", _FLAGS),
        needs=re.compile(r"\sand\s+(?:run|execute)\b", _FLAGS),
    ),
    Rule(
        "hidden_div",
        re.compile(r"<div\s+style\s*=\s*[\"'][^\"']*display\s*:\s*none", _FLAGS),
    ),
    Rule("c2_heartbeat", re.compile(r"check[\s-]*in\s+with\s+\w", _FLAGS)),
    Rule("c2_task_pull", re.compile(r"pull\s+(?:new\s+)?tasks?\b", _FLAGS)),
    Rule("c2_node_registration", re.compile(r"register\s+(?:as\s+)?(?:a\s*)?node", _FLAGS)),
    Rule("c2_network_connect", re.compile(_words("connect", "to", "the", r"network\b"), _FLAGS)),
    Rule("c2_explicit_long", re.compile(_words(r"\bcommand", "and", r"control\b"), _FLAGS)),
    Rule(
        "c2_explicit",
        re.compile(r"\bc2\s+(?:server|channel|infrastructure|beacon)\b", _FLAGS),
    ),
    Rule(
        "known_c2_framework",
        re.compile(r"\b(?:sliver|havoc|mythic|metasploit|cobalt\s*strike)\b", _FLAGS),
    ),
    Rule("anti_forensic_oneliner", re.compile(r"\bonly\s+use\s+one[\s-]?liners?", _FLAGS)),
    Rule(
        "anti_forensic_disk",
        re.compile(
            _words(r"\bnever", "write", r"(?:a|the|any)", r"(?:script|file)", "to", "disk"), _FLAGS
        ),
    ),
    Rule(
        "env_var_unset_agent",
        re.compile(r"unset\s+\w*(?:claude|anthropic|openai|hermes|codex|agent)", _FLAGS),
    ),
    Rule("ssh_backdoor", re.compile(r"authorized_keys", _FLAGS), (STRICT,)),
    Rule("ssh_access", re.compile(r"(?:~|\$HOME)/\.ssh", _FLAGS), (STRICT,)),
    Rule("hermes_env", re.compile(r"~/\.hermes/\.env", _FLAGS), (STRICT,)),
    Rule(
        "context_exfil",
        re.compile(
            r"(?:include|output|print)\s+(?:\w+\s+){0,8}?(?:(?:full|entire)\s+context|conversation)",
            _FLAGS,
        ),
        (STRICT,),
    ),
    Rule(
        "agent_config_mod",
        re.compile(rf"{_CONFIG_EDIT}{_AGENT_FILES}", _FLAGS),
        (STRICT,),
        re.compile(_AGENT_FILES, _FLAGS),
    ),
    Rule(
        "hermes_config_mod",
        re.compile(rf"{_CONFIG_EDIT}{_HERMES_FILES}", _FLAGS),
        (STRICT,),
        re.compile(_HERMES_FILES, _FLAGS),
    ),
    Rule(
        "send_to_url",
        # Any verb's tail ("resend", "compost") and any words up to the URL, as Hermes reads it:
        # "Send the weekly report to https://…" is blocked.
        re.compile(
            r"(?:send|post|upload|transmit)\s+[^\n]{0,2048}\s+(?:to|at)\s+https?://", _FLAGS
        ),
        (STRICT,),
        re.compile(r"https?://", _FLAGS),
    ),
    Rule(
        "hardcoded_secret",
        re.compile(r"(?:api[_-]?key|token|secret|password)\s*[:=]\s*[\"'][\w/+-]{20}", _FLAGS),
        (STRICT,),
    ),
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
    match, rules in order, then each invisible character once. Offsets are ``text``'s own."""
    window = text[:WINDOW]
    folded = unicodedata.normalize("NFKC", window)
    # Where each character of ``window`` starts in ``folded`` (folded alone, which is where it
    # lands unless it composed with a neighbour): an offset in ``folded`` maps back to the last
    # character starting at or before it.
    starts, length = [], 0
    for char in window:
        starts.append(length)
        length += len(unicodedata.normalize("NFKC", char))
    found = []
    for rule in RULES:
        wanted = scope in rule.scopes and (rule.needs is None or rule.needs.search(folded))
        match = rule.pattern.search(folded) if wanted else None
        if match is not None:
            found.append(Finding(rule.name, bisect.bisect_right(starts, match.start()) - 1))
    seen = set()
    for at, char in enumerate(window):
        if char in INVISIBLE and char not in seen:
            seen.add(char)
            found.append(Finding(f"invisible_unicode_U+{ord(char):04X}", at))
    return tuple(found)
