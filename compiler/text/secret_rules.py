"""The shapes of likely credentials: each rule, and a scan of a text for every match of them.

A leaf: it imports only the standard library, the memo and ``vendor_keys``, so anything that must
redact a secret (``errors.py``, which renders every message) can use it without importing the
places and problems of ``secrets.py``, which names where a match was written and how to report it.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from hotplex.text import memo, vendor_keys


def _has_digit_or_symbol(secret: str) -> bool:
    """Identifiers, words and dotted names (``password=password``, ``token: string``) are code."""
    return any(c.isdigit() or not (c.isalnum() or c in "_-.") for c in secret)


def _in_caseless_script(secret: str) -> bool:
    """A letter of a script without case (Han, kana, Hangul, Thai…): prose, which in Chinese and
    Japanese runs on without a blank, so a count in it (``第3步``) is no secret's digit."""
    return not secret.isascii() and any(c.isalpha() and c.lower() == c.upper() for c in secret)


# Words that stand for a secret in documentation rather than being one.
_PLACEHOLDER_WORD = re.compile(
    r"your|example|placeholder|redacted|changeme|dummy|xxxx|\.\.\.", re.IGNORECASE
)
# A value wrapped as a variable or a template (``${…}``, ``{{…}}``, ``<…>``, ``%…%``) or masked
# (``********``): a placeholder by its shape, unless what it holds is a real-looking value.
_WRAPPED = re.compile(r"^[$<%{\[(]|\*\*\*")
_PLACEHOLDER_OR_MASK = re.compile(rf"{_PLACEHOLDER_WORD.pattern}|\*\*\*", re.IGNORECASE)
# What a real value has and a name lacks: a digit run followed by letters twice in one word
# (``Xk9mP2vL``); a name has one at most (``DB_PASSWORD2``, ``b64encode``, ``k8s``, ``x509v3``).
_MIXED = re.compile(r"[0-9]++[a-z]++[0-9]++[a-z]", re.IGNORECASE)
# What a value is, not the value: a YAML tag (``password: !vault |``, the value on the lines
# after) or alias (``*db_password``), a path (``PWD=/home/dev``, ``password_file=~/.pgpass``,
# ``./secrets/token``, ``C:\Users\dev``), a duration (``1h30m``), a colour (``#3b82f6``), a
# time (``2024-08-06T10:00:00Z``, ``12:30:00``), a secret store's reference, which is written
# instead of the secret (``op://vault/item/field``, ``vault:secret/data/db#pw``, an AWS ARN, a
# GCP ``projects/…/secrets/…``), a key's algorithm (``rsa4096``). Not a URL: see webhooks.
_KIND_OF_VALUE = re.compile(
    r"!!?[a-z_]++|\*[a-z_][\w-]*+"
    r"|(?:~|\.\.?|[a-z]:|(?:/|\\{1,2})[\w.-]++)(?:(?:/|\\{1,2})[\w.-]++)++[/\\]?"
    r"|(?:[0-9]++(?:\.[0-9]++)?(?:ns|us|ms|[smhdwy]))++|#[0-9a-f]{3,8}+"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}[t ][0-9:.]++(?:z|[+-][0-9:]++)?|[0-9]{1,2}(?::[0-9]{2}){1,2}+"
    r"|(?:op|vault|secret|gcpsm|azkv)://\S++|vault:\S++|arn:aws[\w-]*+:(?:secretsmanager|ssm):\S++"
    r"|projects/[^/\s]++/secrets/\S++|(?:rsa|dsa|ecdsa|ed|sha|aes)[0-9]{3,5}+",
    re.IGNORECASE,
)
# A lower-case name whose digits are versions, sizes or dates (``gpt-4o-2024-08-06``,
# ``claude-3-5-sonnet-20241022``, ``1.2.3-rc1``, ``128k-context``, ``v2beta3``): parts between
# ``-``, ``.`` or ``_`` of letters or of digits, or marked (``4o``, ``8x7b``, ``p50k``), three or
# more or one marked. Two plain parts are a weak password as often (``summer-2024``, ``admin_1``).
_PLAIN = r"(?:[a-z]++|[0-9]++)"
_MARKED = r"(?:[a-z]{1,2}+[0-9]++k?+|[0-9]++(?:x[0-9]++)?[a-z]{1,2}+)"
_PART = rf"(?:{_MARKED}|{_PLAIN})"
_NUMBERED_NAME = re.compile(
    rf"v[0-9]++(?:alpha|beta)[0-9]*+|{_PART}(?:[-._]{_PART}){{2,}}+"
    rf"|{_MARKED}[-._]{_PART}|{_PLAIN}[-._]{_MARKED}"
)


def _real_looking(value: str) -> bool:
    """A word of ``value`` is random-looking (``_MIXED``) and no name, path or other kind of
    value, or its words together are where none reads as prose (a key shown in groups,
    ``Xk9m P2vL 8qR4``): the one test a value gets where nothing around it says it is a secret."""
    if _PLACEHOLDER_WORD.search(value):
        return False
    words = value.split()
    if len(words) > 1 and not any(_prose_word(w) for w in words):
        words.append("".join(words))
    return any(
        _MIXED.search(word)
        and not (_KIND_OF_VALUE.fullmatch(word) or _NUMBERED_NAME.fullmatch(word))
        for word in words
    )


def _prose_word(word: str) -> bool:
    """Three letters or more as a sentence writes them: ``the``, ``Step``, ``UTC``."""
    return len(word) > 2 and word.isalpha() and (word.islower() or word.istitle() or word.isupper())


# Words every sentence has and a generated passphrase hardly ever does.
_LITTLE_WORD = re.compile(
    r"an?|the|and|or|not?|to|of|in|on|at|by|as|for|with|from|is|are|be|was|must|should|can|will"
    r"|does|do|this|that|it"
)


def _passphrase(words: list[str]) -> bool:
    """Four or more lower-case words and nothing else (``correct horse battery staple``); prose
    has capitals, digits, punctuation or little words (``does not match the confirmation``)."""
    return len(words) >= 4 and all(
        w.isascii() and w.isalpha() and w.islower() and not _LITTLE_WORD.fullmatch(w) for w in words
    )


def _plausible_value(secret: str) -> bool:
    """A value assigned to a key name: real-looking, a passphrase, or one word with a digit or a
    symbol that is no placeholder, kind of value, numbered name or prose."""
    words = secret.split()
    if len(words) != 1:
        return _real_looking(secret) or (
            _PLACEHOLDER_WORD.search(secret) is None and _passphrase(words)
        )
    word = words[0]  # a quoted one without the blanks around it
    if word.isdigit() or not _has_digit_or_symbol(word) or len(set(word)) < 3:
        return False
    if _MIXED.search(word):
        return _real_looking(word)
    return not (
        _PLACEHOLDER_WORD.search(word)
        or _KIND_OF_VALUE.fullmatch(word)
        or _NUMBERED_NAME.fullmatch(word)
        or _WRAPPED.search(word)
        or _in_caseless_script(word)
    )


def _not_placeholder(secret: str) -> bool:
    return _PLACEHOLDER_WORD.search(secret) is None and _WRAPPED.search(secret) is None


def _label_not_placeholder(block: str) -> bool:
    """A key block is a placeholder by its BEGIN line alone (``BEGIN XXXX PRIVATE KEY``): its
    body is random, and a placeholder word in it by chance must not hide the key."""
    return _not_placeholder(block.partition("\n")[0])


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
    plausible: Callable[[str], bool] = _not_placeholder
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
# A name ending in ``secret`` or ``token`` is one of them (``client_secret``, ``auth_token``,
# ``refresh-token``, ``csrftoken``: ``_GLUED_KEY``); only the keys ending otherwise are named:
# each is an anchor, a search of the whole text.
_KEY_NAME = (
    r"pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?key)?|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|token"
)

# An assignment's key may end a longer name (``DB_PASSWORD``, ``GITHUB_TOKEN``), glued too where
# the key is no English word's end (``PGPASSWORD``, ``dbPassword``, ``csrftoken``; not ``bypass``).
_GLUED_KEY = re.compile(r"[^\W_](?!pass(?:word|wd)|pwd|secret|token)")
# The operator, past a type annotation (``password: string = "…"``), and past an environment
# read whose default is the value (``os.getenv("PW", "…")``, ``process.env.PW || "…"``).
_TYPE = r"&?[a-z_][\w.]{0,40}+(?:[\[<][^\]>\n]{0,80}+[\]>])?"
# An environment read up to its default, from ``env`` on (``os.getenv(``, ``os.environ.get(``,
# ``ENV.fetch(``, ``env(`` take a name and the default, over lines too as a formatter wraps them;
# ``process.env.PW``, ``ENV["PW"]`` and a read without one go on with ``||``, ``??``, ``?:``,
# ``or`` or Ruby's block).
_GAP = r"\s{0,80}+"
_ENV_NAME = rf"{_GAP}[\"'][\w.-]{{1,80}}+[\"']{_GAP}"
_ENV_READ = (
    rf"env(?:iron)?(?:(?:\.get|\.fetch|\.setdefault)?\({_ENV_NAME}"
    rf"(?:,{_GAP}(?:default[ \t]*=)?|\)[ \t]*(?:\|\||\?\?|\?:|or\b|\{{))"
    rf"|(?:\.\w{{1,80}}+|\[{_ENV_NAME}\])[ \t]*(?:\|\||\?\?|or\b)){_GAP}"
)
# A shell's (and a compose file's) default: ``${SERVICE_AUTH:-…}``, ``${SERVICE_AUTH:=…}``.
_SHELL_DEFAULT = r"\$\{\w{1,80}+:?[-=]"
# A YAML property before the value, what it is and not the value: an anchor (``&pw``), a
# standard tag (``!!str``), any tag but Ansible's ``!vault`` before a block (``!secret |``). A
# custom tag before a word names where the value is (Home Assistant's ``!secret db_password``).
_YAML_PROPERTY = (
    r"(?:&[\w-]{1,40}+[ \t]++|!![a-z]{1,20}+[ \t]++|!(?!vault\b)[\w!/:.-]{1,40}+[ \t]++(?=[|>]))"
)
# Where a table's cell starts, the key alone in it (``cell``), bold or a code span too; a key
# alone in a code span elsewhere is ``span``.
# What closes a key written in Markdown: emphasis (``*password*``, ``_password_``, Slack's bold),
# strikethrough, a link's destination (``[password](#pw)``).
_KEY_CLOSED = r"\*{1,3}+|_{1,3}+|~~|\]\([^()\s]{0,200}+\)"
_CELL_START = r"(?<=\|)|(?<=\|[ \t`])|(?<=\|[ \t]`)|(?<=\|\*\*)|(?<=\|[ \t]\*\*)"
# The operator, in the full-width forms a CJK keyboard types too (``：``, ``＝``), and a blank
# after it a no-break or ideographic space as well; in Markdown it may be bold (``**password:**``).
# A table's cell holding only the key name (``cell``) is assigned the next cell:
# ``| password | … |``.
_ASSIGNED = (
    r"(?(cell)[ \t]{0,8}\||"
    rf"(?:[ \t]{{0,8}}:[ \t]{{0,8}}{_TYPE}[ \t]{{0,8}}=(?![=>])"
    r"|[ \t]{0,8}(?:=>|:=|[:=\uff1a\uff1d]))(?:\*\*)?)"
    rf"[ \t\u00a0\u3000]{{0,8}}(?:{_YAML_PROPERTY}{{1,2}}+)?(?:[\w.]{{0,40}}?{_ENV_READ})?"
)
# The value. A quoted one is read whole, to its closing quote (``q``): a blank in it must not
# hide it (``"Xk9mP2vL 8qR4wzT7"``, a passphrase); past a string prefix (``r"…"``, ``b"…"``,
# ``f"…"``, ``rb"…"``, Rust's ``r#"…"#``, C's ``L"…"`` and ``u8"…"``, C#'s ``@"…"``, ``$"…"``
# and ``"…"u8``) and a third of a triple quote (``"""…"""``,
# TOML's ``'''…'''``; ``triple``), whose value may start on the next line and is read to its
# line's end at most. A YAML block scalar's (``password: |``, ``>-``, ``|2``; ``block``) is its
# first line, indented (in a Markdown quote too). Else one word as written, or wrapped as a
# variable or a template (judged by what it holds).
_OPENING = (
    r"(?:(?P<block>[|>](?:[1-9][-+]?|[-+][1-9]?)?[ \t]*+(?:#[^\n]*+)?"
    r"\r?\n(?:[ \t>]*+\r?\n)*+[ \t>]*+(?<=[ \t]))"
    r"|(?:(?P<interpolated>[rb]?f[rb]?|\$@?|@\$)|[rbu]{1,2}+#{0,3}+|u8|l|@)?(?P<q>[\"'`])"
    r"(?P<triple>(?<=[\"'])(?P=q){2}+(?:[ \t]*+\r?\n[ \t]*+)?)?)?"
)
# A backslash escapes a quote; an interpolated string's value holds no "{": with one it is a
# template (``f"Bearer {token}"``, ``$"{pw}"``), not a secret.
_QUOTED_VALUE = (
    r"(?(interpolated)(?:\\.|(?!(?P=q))[^\r\n\\{]){6,200}+|(?:\\.|(?!(?P=q))[^\r\n\\]){6,200}+)"
)
_BLOCK_LINE = r"\S[^\r\n]{4,198}?\S(?=[ \t]*+(?:\r?\n|\Z))"
# A word of letters with sentence punctuation after it (``Required:``, ``Forgot?``,
# ``Expired!``, ``Required—min``, ``token:`` again, in full-width forms too) begins prose, a
# field's description.
_PROSE_START = r"[^\W\d_]++(?:[:?!]++(?!\S)|[\u2013\u2014\uff1a\uff1f\uff01])"
_WORD_VALUE = (
    r"(?:\$?\{[^\s{}]{1,200}+\}|\{\{[^{}\n]{1,200}+\}\}|<[^\s<>]{1,200}+>"
    rf"|(?!{_PROSE_START})[^\s\"'`,;(){{}}\[\]<>|]{{6,200}}+)"
)
# A word's value may follow a field's description's first word or an authorization's scheme
# (``password: Required: <value>``, ``token: Bearer <value>``): read past them, once.
_BEFORE_WORD = rf"(?(q)|(?(block)|(?:(?:{_PROSE_START}|bearer|basic)[ \t]{{1,8}}+)?))"
_VALUE = rf"{_BEFORE_WORD}(?P<secret>(?(q){_QUOTED_VALUE}|(?(block){_BLOCK_LINE}|{_WORD_VALUE})))"
# Where the value ends: its closing quote (a triple quote's, or its line's end), and no call or
# longer word after it.
_VALUE_END = r"(?(q)(?(triple)(?:(?P=q)|(?=\r?\n|\Z))|(?P=q)(?:u8)?))(?![(\w])"

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
        re.compile(  # key = value, or an XML element's text: <password>…</password>
            rf"(?:(?P<cell>{_CELL_START})|(?P<span>(?<=`)))?"
            rf"(?:{_KEY_NAME})(?:(?![a-z0-9_])|(?=_{{1,3}}+(?![a-z0-9_])))"
            rf"(?:(?P<element>>)|(?:[\"']|(?(span)`|(?(cell)`))|{_KEY_CLOSED})?{_ASSIGNED}{_OPENING})"
            rf"{_VALUE}(?(element)</|{_VALUE_END})"
        ),
        ("pass", "pwd", "secret", "api", "access", "private", "token"),
        fold=True,
        plausible=_plausible_value,
        inside_word=_GLUED_KEY,
    ),
    Rule(
        # An environment read's default under any name (``os.getenv("STRIPE", "…")``,
        # ``${STRIPE:-…}``): where no key name says a secret is meant, only a real-looking value
        # is one.
        "secret-assignment",
        "a real-looking default of an environment read",
        re.compile(rf"(?:{_ENV_READ}|{_SHELL_DEFAULT}){_OPENING}{_VALUE}{_VALUE_END}"),
        ("env", "${"),
        fold=True,
        plausible=_real_looking,
    ),
    Rule(
        "url-password",
        "a password inside a URL",
        re.compile(r"://[^\s:/@\"'`]*:(?P<secret>[^\s:/@\"'`]{3,}+)@"),
        ("://",),
        plausible=_plausible_value,
    ),
)
RULE_NAMES = frozenset(rule.name for rule in RULES)

# Every anchor of the rules that match the text as written, as one alternation (``searched``): a
# search (in C) finds the next place any of them starts, where a ``str.find`` per anchor (17) read
# the whole text each. In the lower-cased text the key names' first letters are the commonest
# ones, and a ``str.find`` per name (11) is faster than the alternation trying each of them.
_AS_WRITTEN = re.compile(
    "|".join(vendor_keys.searched(a) for rule in RULES if not rule.fold for a in rule.anchors)
)


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
    """Every offset where each of ``anchors`` occurs in ``text``, anchor by anchor."""
    for anchor in anchors:
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
            elif rule.plausible is _not_placeholder:
                # A match at a later place runs on as far, so it holds the same placeholder
                # word or mask while that is still ahead of it: no more plausible.
                ahead = [w.start() for w in _PLACEHOLDER_OR_MASK.finditer(secret)]
                if ahead:  # else only its first character wraps it: a later place may not
                    covered = (m.start(group), m.start(group) + ahead[-1] + 1)


def redact(secret: str) -> str:
    """Enough of a secret to recognise which one is meant (key prefixes are public), no more."""
    shown = min(12, len(secret) // 8)
    return f"{secret[:shown]}…({len(secret)} characters)"
