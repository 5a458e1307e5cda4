"""The shapes of likely credentials: each rule, and a scan of a text for every match of them.

A leaf: it imports only the standard library, the memo and its three neighbours
(``secret_values`` judges a match's value, ``assignment_rule`` holds the key = value shape,
``vendor_keys`` the keys of vendors' shapes), so
anything that must redact a secret (``errors.py``, which renders every message) can use it
without importing the places and problems of ``secrets.py``, which names where a match was
written and how to report it.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from hotplex.text import assignment_rule, memo, secret_values, vendor_keys


def _label_not_placeholder(block: str) -> bool:
    """A key block is a placeholder by its BEGIN line alone (``BEGIN XXXX PRIVATE KEY``): its
    body is random, and a placeholder word in it by chance must not hide the key."""
    return secret_values.not_placeholder(block.partition("\n")[0])


class Rule(NamedTuple):
    name: str
    description: str  # what a match is, for the message: "an Anthropic API key"
    # Tried where an anchor occurs; the secret itself is group "secret", else the whole match.
    pattern: re.Pattern[str]
    # Every match starts with one of these: only the few places they occur are tried (``_starts``,
    # ``str.find`` in the lower-cased text). None is a prefix of another.
    anchors: tuple[str, ...]
    # Match the lower-cased text (key names are case-blind: PASSWORD, Api_Key); the pattern and
    # the anchors are lower-case then.
    fold: bool = False
    plausible: Callable[[str], bool] = secret_values.not_placeholder
    # Matched at the character just before a match: a match there would start inside a longer
    # word. None when a match may start anywhere. A prefix too distinctive to occur in prose
    # (``ghp_``, ``sk-ant-``) is a boundary itself: ``x-ghp_…``, ``aws_AKIA…`` are caught.
    inside_word: re.Pattern[str] | None = None


_END = r"(?![A-Za-z0-9_-])"
# What may not come before a match: any word character or ``-`` (``mypassword=``); letters and
# digits (``desk-ant-…`` is a word, ``my-sk-ant-…`` a key); upper-case letters and digits (an
# all-capitals run holding ``AKIA`` is no key, ``awsAKIA…`` may be one).
_WORD = re.compile(r"[\w-]")
_ALNUM = re.compile(r"[^\W_]")
_CAPITAL_OR_DIGIT = re.compile(r"[A-Z0-9]")
# A private key's secret is its whole block, BEGIN to the END of its kind: an encrypted PEM has
# headers, a blank line and the base64 body; a key pasted into a list item or a quote is indented
# or marked, and a code fence may be broken inside it. Each line is matched whole and never tried
# again (possessive), so a try is linear. Where the END comes after lines that can be in a key
# (base64, headers, blank lines, fences, another kind's END), the block runs to it. Without it,
# the block is BEGIN, its headers and the run of base64 after them; past a blank line or a fence
# only a line as long as a key's lines (``_KEY_LINE`` characters; prose words are shorter) goes
# on with the block, so the block never takes in the paragraphs after a key cut short.
_KEY_LINE = 40
_KEY_LABEL = "-----{edge}(?P<kind>[A-Z0-9 ]{{0,40}})PRIVATE KEY(?: BLOCK)?-----"
_KEY_END = r"-----END(?P=kind)PRIVATE KEY(?: BLOCK)?-----"
_PEM_MARGIN = r"\n[ \t>]*+"
_PEM_BASE64 = r"[A-Za-z0-9+/=]++[ \t]*+(?=\n|\Z)"
_PEM_BODY = rf"(?:{_PEM_BASE64}|-----END [^\n]*+)"  # another kind's END: no end of this one
_PEM_HEADER = r"[A-Za-z][A-Za-z0-9-]*+:[^\n]*+"
_PEM_SEPARATOR = rf"{_PEM_MARGIN}(?:(?:```|~~~)[^\n]*+)?(?=\n|\Z)"  # a blank line or a fence
_PEM_ANY = (
    rf"{_PEM_MARGIN}(?!{_KEY_END})"
    rf"(?:{_PEM_BASE64}|{_PEM_HEADER}|(?:```|~~~|-----END )[^\n]*+|(?=\n|\Z))"
)
_PRIVATE_KEY = (
    _KEY_LABEL.format(edge="BEGIN")
    + rf"(?:(?:{_PEM_ANY})*+{_PEM_MARGIN}{_KEY_END}"
    + rf"|(?:{_PEM_MARGIN}{_PEM_HEADER})*+(?:{_PEM_MARGIN}{_PEM_BODY})*+"
    + rf"(?:(?:{_PEM_SEPARATOR})++{_PEM_MARGIN}(?=[A-Za-z0-9+/=]{{{_KEY_LINE}}})"
    + rf"(?:{_PEM_BASE64})(?:{_PEM_MARGIN}{_PEM_BODY})*+)*+)"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "anthropic-api-key",
        "an Anthropic API key",
        re.compile(r"sk-ant-[a-z0-9]+-[A-Za-z0-9_-]{20,}+"),
        ("sk-ant-",),
        inside_word=_ALNUM,
    ),
    Rule(
        "openai-api-key",
        "an OpenAI API key",
        re.compile(
            r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}+"
            r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48}" + _END + ")"
        ),
        ("sk-",),
        inside_word=_ALNUM,
    ),
    Rule(
        "github-token",
        "a GitHub token",
        re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36,}+|github_pat_[A-Za-z0-9_]{50,}+)"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Rule(
        "slack-token",
        "a Slack token",
        re.compile(r"(?:xox[abeoprs]-[A-Za-z0-9-]{10,}+|xapp-\d-[A-Za-z0-9-]{10,}+)"),
        ("xox", "xapp-"),
        inside_word=_ALNUM,
    ),
    Rule(
        "slack-webhook",
        "a Slack incoming-webhook URL",
        re.compile(
            r"(?:https://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}+"
        ),
        # Without its scheme too (adversary17 D10): notes and chat logs drop it, and the path is
        # the credential.
        ("https://hooks.slack.com/", "hooks.slack.com/"),
        inside_word=_WORD,
    ),
    Rule(
        "aws-access-key-id",
        "an AWS access key ID",
        re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        inside_word=_CAPITAL_OR_DIGIT,
    ),
    *(Rule(**key) for key in vendor_keys.KEYS),  # type: ignore[arg-type]
    Rule(
        "private-key",
        "a private key block",
        re.compile(_PRIVATE_KEY),
        ("-----BEGIN",),
        plausible=_label_not_placeholder,
        inside_word=_WORD,
    ),
    Rule(
        "secret-assignment",
        "a password, secret or token assigned a value",
        assignment_rule.KEY_ASSIGNED,
        assignment_rule.KEY_ANCHORS,
        fold=True,
        plausible=secret_values.plausible_value,
        inside_word=assignment_rule.GLUED_KEY,
    ),
    Rule(
        # Where no key name says a secret is meant, only a real-looking value is one.
        "secret-assignment",
        "a real-looking default of an environment read",
        assignment_rule.ENV_DEFAULT,
        assignment_rule.ENV_ANCHORS,
        fold=True,
        plausible=secret_values.real_looking,
    ),
    Rule(
        "secret-assignment",
        "a password given to a command",
        assignment_rule.COMMAND_LINE,
        assignment_rule.COMMAND_ANCHORS,
        fold=True,
        plausible=secret_values.plausible_value,
        inside_word=_WORD,
    ),
    Rule(
        "url-password",
        "a password inside a URL",
        re.compile(r"://[^\s:/@\"'`]*:(?P<secret>[^\s:/@\"'`]{3,}+)@"),
        ("://",),
        plausible=secret_values.plausible_value,
    ),
)
RULE_NAMES = frozenset(rule.name for rule in RULES)


def _alternation(anchors: Iterable[str]) -> str:
    """``anchors`` as one alternation, a branch per first character (``s(?:k-ant-|k-)|g…``):
    at each place the search tries, a branch per character, not an anchor after another (29)."""
    branches: dict[str, list[str]] = {}
    for first, rest in map(vendor_keys.searched, anchors):
        branches.setdefault(first, []).append(rest)
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in branches.items())


# Every anchor of the rules that match the text as written, as one alternation (``searched``): a
# search (in C) finds the next place any of them starts, where a ``str.find`` per anchor (17) read
# the whole text each. In the lower-cased text the key names' first letters are the commonest
# ones, and a ``str.find`` per name (11) is faster than the alternation trying each of them.
_AS_WRITTEN = re.compile(_alternation(a for rule in RULES if not rule.fold for a in rule.anchors))


class Match(NamedTuple):
    rule: Rule
    start: int  # offset of the secret in the scanned text
    secret: str
    text: str  # the whole match (for a key = value rule: both sides)


@memo.cached_for_short_texts
def scan(text: str) -> tuple[Match, ...]:
    """Every likely credential in ``text``, in order."""
    # U+0130 is the one character whose lower case is two characters; offsets must not move.
    lowered: str | None = None
    starts = _starts(text)
    found: list[Match] = []
    searches: dict[int, tuple[str, list[int]]] = {}  # by rule (its id): searched text, places
    for rule in RULES:
        if rule.fold:
            if lowered is None:
                lowered = text.replace("\u0130", "i").lower()
            searched, places = lowered, list(_found(lowered, rule.anchors))
        elif starts:
            searched, places = text, list(_at(text, rule.anchors, starts))
        else:
            continue
        searches[id(rule)] = (searched, places)
        found.extend(_matches(rule, text, searched, places))

    def tried_past(match: Match, after: int) -> Iterator[Match]:
        """``match``'s rule tried again at its places from ``after`` to the match's end."""
        searched, places = searches[id(match.rule)]
        end = match.start + len(match.secret)
        return _matches(match.rule, text, searched, (p for p in places if after <= p < end))

    return tuple(_first_per_place(found, tried_past))


def _first_per_place(
    found: list[Match], tried_past: Callable[[Match, int], Iterable[Match]]
) -> Iterator[Match]:
    """One finding per secret: ``GITHUB_TOKEN=ghp_…`` is a GitHub token, not also an assignment;
    of two at one place the longer, so a password that opens with a key is the password (an
    allowed key must not let the password holding it through). A secret left out for starting
    inside one kept before it hid the places of its rule within it (``_matches`` skips them):
    those past the kept one's end are tried then (``xoxb-…`` running into ``ghp_…ghp_…`` kept
    the Slack token, and the second GitHub token went unread)."""
    queue = [(m.start, -len(m.secret), order, m) for order, m in enumerate(found)]
    heapq.heapify(queue)
    added = len(queue)
    end = -1
    while queue:
        match = heapq.heappop(queue)[3]
        if match.start >= end:
            yield match
            end = match.start + len(match.secret)
        elif match.start + len(match.secret) > end and _whole_match(match.rule):
            for again in tried_past(match, end):
                added += 1
                heapq.heappush(queue, (again.start, -len(again.secret), added, again))


def _whole_match(rule: Rule) -> bool:
    """Whether the rule's secret is its whole match (``_matches`` skips places inside one)."""
    return "secret" not in rule.pattern.groupindex


def _starts(text: str) -> list[int]:
    """Every offset where an anchor of ``_AS_WRITTEN`` starts, overlapping ones too."""
    starts = []
    found = _AS_WRITTEN.search(text)
    while found is not None:
        starts.append(found.start(found.lastindex or 0))  # a group: read behind the search
        found = _AS_WRITTEN.search(text, found.start() + 1)
    return starts


def _at(text: str, anchors: tuple[str, ...], starts: list[int]) -> Iterator[int]:
    """The offsets in ``starts`` where each of ``anchors`` occurs, anchor by anchor."""
    for anchor in anchors:
        yield from (at for at in starts if text.startswith(anchor, at))


def _found(text: str, anchors: tuple[str, ...]) -> Iterator[int]:
    """Every offset where each of ``anchors`` occurs in ``text``, anchor by anchor. An anchor of
    letters beyond ASCII is not looked for in an ASCII text: CPython reads the text through for
    one of Latin-1 letters (``contraseña``; one of CJK letters it refuses at once)."""
    ascii_text = text.isascii()
    for anchor in anchors:
        if ascii_text and not anchor.isascii():
            continue
        at = text.find(anchor)
        while at >= 0:
            yield at
            at = text.find(anchor, at + 1)


def _matches(rule: Rule, text: str, searched: str, places: Iterable[int]) -> Iterator[Match]:
    """The rule's matches at ``places`` (in order, anchor by anchor). A place inside a secret
    this rule found already is not tried when the rule's secret is its whole match: a match
    there would start inside that secret, which ``_first_per_place`` drops, and each try runs
    to the run's end, so a prefix repeated (``sk-ant-`` × 8,000) cost its length squared
    (adversary18 D10). A rule whose secret follows a key (``secret-assignment``, a bounded
    value) is tried there too: ``api_token=api_token= <secret>`` holds a second secret after
    the first, whose key starts inside it."""
    whole = _whole_match(rule)
    group = 0 if whole else "secret"
    covered = (-1, -1)  # the last secret found, by offsets
    for at in places:
        if whole and covered[0] <= at < covered[1]:
            continue
        inside_word = (
            at > 0 and rule.inside_word is not None and rule.inside_word.match(searched, at - 1)
        )
        m = None if inside_word else rule.pattern.match(searched, at)
        if m is not None:
            secret = text[m.start(group) : m.end(group)]
            if rule.plausible(secret):
                covered = (m.start(group), m.end(group))
                yield Match(rule, m.start(group), secret, text[m.start() : m.end()])
            elif rule.plausible is secret_values.not_placeholder:
                # A match at a later place runs on as far, so it holds the same placeholder
                # word or mask while that is still ahead of it: no more plausible.
                ahead = [w.start() for w in secret_values.PLACEHOLDER_OR_MASK.finditer(secret)]
                if ahead:  # else only its first character wraps it: a later place may not
                    covered = (m.start(group), m.start(group) + ahead[-1] + 1)


def redact(secret: str) -> str:
    """Enough of a secret to recognise which one is meant (key prefixes are public), no more."""
    shown = min(12, len(secret) // 8)
    return f"{secret[:shown]}…({len(secret)} characters)"
