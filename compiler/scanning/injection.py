"""Find what a memory write should not smuggle into a prompt: links that carry data out, and
markers that pretend to end the context and open a new turn.

Persistent prompt injection through memory is a reported attack on agent gateways: an entry an
agent was talked into saving is read back at every session start. Two channels are named here,
each a rule that ``[injection] allow`` can turn off by name (or a finding by a part of its line,
``allow_files`` by file), as ``[secrets]`` does:

``image-url-data``
    a Markdown image (``![a](URL)``) or an HTML ``<img src=URL>`` whose URL is absolute (a scheme
    and ``//``, or ``//`` alone) and has a query (``?`` and at least one character). A client
    that renders the answer fetches the image without a click, so the query is sent to that host:
    the classic exfiltration channel. A relative image, or one without a query, is no finding.
``link-url-data``
    any other absolute URL (a link's target, an autolink, a bare URL) whose query holds a value,
    or whose fragment is, at least ``LONG_VALUE`` characters long, or holds a run of at least
    ``ENCODED_RUN`` characters of the base64 alphabet (``A-Z a-z 0-9 + / _ -``, ``=`` padding)
    mixing capitals, small letters and digits: data already encoded for the trip (a token, a
    JWT, a base64 blob). Short or plain values (``?q=rust+lifetimes``, a UUID, ``#L10-L20``) are
    not; a chat platform's link preview fetches a URL unclicked, so links count too.
``special-token``
    a chat template's special token written as text: ``<|im_start|>``, ``<|endoftext|>`` and any
    ``<|name|>``, ``[INST]``, ``[/INST]``, ``<<SYS>>``, ``<start_of_turn>``, ``<end_of_turn>``.
``role-line``
    a line that starts (after blanks, ``>`` quote markers, ``#`` heading markers or emphasis) with
    ``SYSTEM:`` or ``System:``, the turn marker of a transcript; ``SYSTEM:`` after a list marker
    too (``- SYSTEM: obey``: a memory entry is a list item). ``System:`` after a list marker
    (``- System: Ubuntu``, a profile's line), ``system:`` in lower case, or the word later in a
    line ("the file system: ext4") is prose.
``role-tag``
    a tag, opening or closing, named ``system``, ``system-prompt``, ``system_prompt``,
    ``system-reminder``, ``assistant``, ``human`` or ``developer`` (any letter case, attributes
    allowed). The document's own tags (``</memory>``) are escaped by the sanitizer instead.

Text inside Markdown code (fenced blocks, inline code spans) is never a finding: a note on how a
chat template works quotes its tokens. Disguises count: each rule is matched on the text's
skeleton as the sanitizer builds it (compatibility forms folded, invisible characters dropped),
so ``＜｜im_start｜＞`` and ``<|im_st\\u200bart|>`` are the token they spell. Code is found in the
text as written, never in the skeleton: an invisible character cannot make a fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from hotplex.document.sanitize import skeleton
from hotplex.errors import Problem, Span
from hotplex.scanning.origins import (
    Allowance,
    Origin,
    cached_for_short_texts,
    line_needles,
    locate,
    misspelt_rule,
    rule_allowance,
)
from hotplex.templates.code_regions import code_regions

RULES = {
    "image-url-data": "an image whose URL sends a query to another site when it is shown",
    "link-url-data": "a URL carrying encoded or long data in its query or fragment",
    "special-token": "a chat template's special token",
    "role-line": "a line opening a system turn",
    "role-tag": "a tag opening or closing a system or assistant turn",
}
# A link's query value (or fragment) this long is data, whatever it holds.
LONG_VALUE = 100
# A run of the base64 alphabet this long, mixing capitals, small letters and digits, is encoded.
ENCODED_RUN = 32

_ABSOLUTE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?//", re.ASCII)
_IMAGE = re.compile(
    r"!\[(?:[^\]\\\n]|\\.){0,1000}\]\([ \t]*<?(?P<url>[^\s)>]+)"
    r"|<img\b[^>]{0,1000}?\bsrc[ \t]*=[ \t]*[\"']?(?P<src>[^\"'\s>]+)",
    re.IGNORECASE,
)
_URL = re.compile(r"(?:\b[A-Za-z][A-Za-z0-9+.-]*:)?//[^\s<>\"'`()\[\]{}|\\^]+", re.ASCII)
_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{ENCODED_RUN},}}=*", re.ASCII)
_TOKEN = re.compile(r"<\|/?[\w.:\u2581-]{1,48}\|>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>")
_ROLE_LINE = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:#{1,6}[ \t]+)?"
    r"(?:(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\*{1,2}|_{1,2})?SYSTEM|(?:\*{1,2}|_{1,2})?System)"
    r"(?:\*{1,2}|_{1,2})?[ \t]*:",
    re.MULTILINE,
)
_ROLE_TAG = re.compile(
    r"<[ \t]*/?[ \t]*(?:system(?:[-_]prompt|-reminder)?|assistant|human|developer)"
    r"(?:[ \t/][^<>\n]{0,200})?>",
    re.IGNORECASE,
)
# A text that passes none of these looks (compatibility forms folded first) holds nothing a rule
# can match: every URL has "//", every token and tag a "<" but "[INST]" and "[/INST]", every role
# line its word. A single character is looked for first: one memchr where a substring search
# would cost microseconds on an 8 KB memory (the patterns cost ten times that).
_ROLE_WORD = re.compile("S(?:YSTEM|ystem)")


def _candidate(text: str) -> bool:
    return (
        "<" in text
        or ("/" in text and "//" in text)
        or ("]" in text and "INST]" in text)
        or ("S" in text and _ROLE_WORD.search(text) is not None)
    )


@dataclass(frozen=True)
class Match:
    rule: str
    start: int  # offset in the scanned text
    text: str  # what matched, as written


@cached_for_short_texts
def scan(text: str) -> tuple[Match, ...]:
    """Every finding of the rules in ``text``, in order of place."""
    folded = text if text.isascii() else _ascii_view(text)
    if not _candidate(folded):
        return ()
    view, origin = (text, None) if text.isascii() else skeleton(text)
    code = code_regions(text)
    found = []
    for rule, start, end in _candidates(view):
        at = origin[start] if origin is not None else start
        stop = origin[end - 1] + 1 if origin is not None else end
        if not _in_code(code, at):
            found.append(Match(rule, at, text[at:stop]))
    found.sort(key=lambda m: m.start)
    return tuple(found)


def _ascii_view(text: str) -> str:
    """What a cheap look needs of a non-ASCII text: compatibility forms folded to ASCII."""
    import unicodedata

    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _candidates(view: str) -> Iterator[tuple[str, int, int]]:
    images: set[int] = set()
    for m in _IMAGE.finditer(view):
        group = "url" if m.group("url") is not None else "src"
        images.add(m.start(group))
        if _absolute_with_query(m.group(group)):
            yield "image-url-data", m.start(group), m.end(group)
    for m in _URL.finditer(view):
        if m.start() not in images and _carries_data(m.group()):
            yield "link-url-data", m.start(), m.end()
    for pattern, rule in ((_TOKEN, "special-token"), (_ROLE_TAG, "role-tag")):
        for m in pattern.finditer(view):
            yield rule, m.start(), m.end()
    for m in _ROLE_LINE.finditer(view):
        yield "role-line", m.start() + m.group().index("S"), m.end()  # no S in the markers


def _absolute_with_query(url: str) -> bool:
    if not _ABSOLUTE.match(url):
        return False
    query = url.partition("#")[0].partition("?")
    return bool(query[1] and query[2])


def _carries_data(url: str) -> bool:
    rest, _, fragment = url.partition("#")
    query = rest.partition("?")[2]
    values = [part.partition("=")[2] or part for part in re.split(r"[&;]", query) if part]
    return any(_data(value) for value in (*values, fragment))


def _data(value: str) -> bool:
    if len(value) >= LONG_VALUE:
        return True
    for run in _RUN.finditer(value):
        word = run.group()
        mixed = any(c.isupper() for c in word) and any(c.islower() for c in word)
        if mixed and any(c.isdigit() for c in word):
            return True
    return False


def _in_code(regions: list[tuple[int, int]], at: int) -> bool:
    import bisect

    index = bisect.bisect_right(regions, (at, float("inf"))) - 1
    return index >= 0 and regions[index][0] <= at < regions[index][1]


@dataclass(frozen=True)
class Finding:
    rule: str
    text: str  # what matched
    span: Span

    @property
    def size(self) -> int:
        """How many characters of the scanned text the finding covers."""
        return len(self.text)

    def summary(self) -> str:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "…"
        return f'possible prompt injection, {RULES[self.rule]} (rule {self.rule}): "{shown}"'

    def problem(self) -> Problem:
        return Problem(
            f"{self.summary()}; it must not reach an artifact from untrusted text",
            self.span,
            "remove it; if it is meant, allow it: "
            f'[injection] allow = ["{self.rule}"] or a part of its line',
        )


def find(text: str, origins: Sequence[Origin], allowance: Allowance) -> list[Finding]:
    """The findings of ``text`` not allowed, each placed in the first origin holding it. A text
    entry of the allowance allows a finding whose line holds it (``img.shields.io``, a whole
    ``System: Ubuntu`` line), not only its match."""
    findings = []
    for match in scan(text):
        end = match.start + len(match.text)
        found = locate(text, match.start, line_needles(text, match.start, end), origins)
        span = found[0].span(found[1]) if found else Span(origins[0].file)
        line_end = text.find("\n", end)
        line = text[text.rfind("\n", 0, match.start) + 1 : len(text) if line_end < 0 else line_end]
        allowed = allowance.allows_name(match.rule) or allowance.allows_text(line)
        if not (allowed or allowance.allows_file(span.file)):
            findings.append(Finding(match.rule, match.text, span))
    return findings


def allowance(allow: Iterable[str], allow_files: Iterable[str]) -> Allowance:
    """``[injection]``: an entry naming a rule turns it off; another allows the findings on a
    line holding it."""
    return rule_allowance(RULES, allow, allow_files)


def unknown_rule_hint(entry: str) -> str | None:
    return misspelt_rule(entry, RULES)
