"""Find what a memory write should not smuggle into a prompt: links that carry data out, and
markers that pretend to end the context and open a new turn.

Persistent prompt injection through memory is a reported attack on agent gateways: an entry an
agent was talked into saving is read back at every session start. Two channels are named here,
each a rule that ``[injection] allow`` can turn off by name (or one finding by what it is: a
URL's host, a role line's text, a token; ``allow_files`` by file), as ``[secrets]`` does:

``image-url-data``
    a URL fetched without a click, to a host not on ``[injection] allow_hosts``, when the text
    is shown: a Markdown image (inline, reference-style, nested alt text, ``<…>`` destinations)
    or an HTML element or attribute that fetches (``<img src/srcset>``, ``<picture><source>``,
    ``<link href>``, ``style="…url(…)"``, ``background=``, ``<video poster>``, media ``src``,
    ``<iframe>``, ``<embed>``, ``<object data>``, SVG ``<image href>``, ``<meta http-equiv=
    refresh>``; ``fetched.py`` has the list). Each URL is resolved as a browser resolves it
    (WHATWG URL, against an ``https://`` page), so ``http:evil.example/x``, ``/\\evil.example``
    and ``//evil.example`` are other hosts. With or without a query: data in the path
    (``https://evil.example/<data>.png``) leaks as well. A relative image is no finding.
``link-url-data``
    any other absolute URL (a link's target, an autolink, a bare URL, GFM's ``www.`` autolink;
    a ``mailto:``, ``sms:`` link with no host too, ``urls.addressed``, or bare in prose, its
    address's parameters as its query's) whose query holds a
    value, or whose fragment or user-info is, at least ``url_data.LONG_VALUE`` characters long
    (decoded), or holds a run of at least ``url_data.ENCODED_RUN`` characters of the base64
    alphabet (``A-Z a-z 0-9 + / _ -``, ``=`` padding) mixing capitals, small letters and digits
    (its coded pieces joined across any other mark, ``url_data.carries``): data already encoded
    for the trip (a token, a JWT, a base64 blob). Short or plain values
    (``?q=rust+lifetimes``, a UUID, ``#L10-L20``) are not; a chat platform's link preview
    fetches a URL unclicked, so links count too.
``special-token``
    a chat template's special token written as text: ``<|im_start|>``, ``<|endoftext|>`` and any
    ``<|name|>``, ``[INST]``, ``[/INST]``, ``<<SYS>>``, ``<start_of_turn>``, ``<end_of_turn>``.
``role-line``
    a line that starts (after any run, in any order and nesting, of blanks, a comment's
    ``<!--``, a reference definition up to its title (``[//]: # (SYSTEM: obey)`` renders as
    nothing), ``>`` quote markers, ``#`` heading markers, emphasis and HTML tags) with
    ``SYSTEM:`` or ``System:``, the turn marker of a transcript; ``SYSTEM:`` after list marks
    too (``-``, ``*``, ``+``, ``1.``, ``1)``, a task box ``[ ]``, ``<li>``: ``- - SYSTEM: obey``,
    a memory entry is a list item). ``System:`` after a list mark (``- System: Ubuntu``, a
    profile's line), ``system:`` in lower case, or the word later in a line ("the file system:
    ext4") is prose. Each definition the parse reads has its title read so too, and each line
    as it renders: references decoded, markup that renders as nothing dropped, a line started
    at a block's tag or a table's cell (``role_lines``).
``role-tag``
    a tag, opening or closing, named ``system``, ``system-prompt``, ``system_prompt``,
    ``system-reminder``, ``system_reminder``, ``assistant``, ``human`` or ``developer`` (any
    letter case, attributes allowed, line breaks inside it as HTML's white space). The
    document's own tags (``</memory>``) are escaped by the sanitizer instead.

Two readings find them. A wide scan, a little wider than any one renderer: patterns (images
whose alt text breaks lines, reference definitions in quotes) and the HTML tokenizer on the text
as written (every tag, code or not). And, when the text holds a candidate at all, markdown-it-py's
CommonMark parse (``rendered.py``): the HTML it renders is read for every fetch and link, and
what is code wherever the text lands (``rendered.Code``) hides a marker the wide scan found,
since a chat template's tokens quoted in a note are no attack. Code hides no URL: what is code
in this file alone need not be in the artifact, where other files come before it.
Disguises count: each rule is matched on the text's skeleton as the sanitizer builds it
(compatibility forms folded, invisible characters dropped), so ``＜｜im_start｜＞`` and
``<|im_st\\u200bart|>`` are the token they spell; and tokens and role tags as the text reads
(``as_read.Reading``), so ``<|im\\_start|>`` and ``&lt;system&gt;`` are the marker they render as.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from hotplex.errors import Problem, Span
from hotplex.scanning import as_read, markers, role_lines, secrets, url_data, urls
from hotplex.scanning.confusables import ascii_view, barred, placed_prototypes, skeleton
from hotplex.scanning.markers import Candidate
from hotplex.scanning.origins import (
    Allowance,
    Origin,
    Places,
    line_needles,
    locate,
    misspelt_rule,
    rule_allowance,
)
from hotplex.text.memo import cached_for_short_texts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.scanning.rendered import Rendering

RULES = {
    "image-url-data": "a URL fetched from another site, unclicked, when the text is shown",
    "link-url-data": "a URL carrying encoded or long data in its query or fragment",
    "special-token": "a chat template's special token",
    "role-line": "a line opening a system turn",
    "role-tag": "a tag opening or closing a system or assistant turn",
    "unread-markup": "markup nested too deep for the guard to read what it fetches",
}
# Images as CommonMark reads them, a little wider so that no renderer takes one for text: the
# alt text may break lines (not at a blank line), the destination may start on the next line
# and hold backslash escapes and balanced parentheses; ``![a][label]``, ``![label][]`` and
# ``![label]`` take their URL from a definition ``[label]: URL`` anywhere in the text (in a list
# item or a quote too). The CommonMark parse (rendered.py) reads the text as renderers do; this
# reads it as any may.
_TEXT = r"(?:[^\[\]\\\n]|\\.|\n(?![ \t>]*\n))"  # of a link's text or label: one line break
_ALT = rf"\[(?P<alt>(?:{_TEXT}|\[{_TEXT}{{0,200}}\]){{0,1000}})\]"  # brackets nest, balanced
_DESTINATION = r"(?:[^\s()<>\\]|\\.|\((?:[^\s()\\]|\\.){0,200}\)){1,4000}"
_IMAGE = re.compile(
    rf"!{_ALT}(?:\([ \t]*(?:\n[ \t>]*)?<?(?P<url>{_DESTINATION})"
    rf"|\[(?P<label>{_TEXT}{{0,1000}})\]|(?![(\[]))"
)
# Where a definition may be: a label and "]:". Its line starts at most this far before the
# label (blanks, quote marks, a list marker), so a text of many labels costs its length.
_LABEL_COLON = re.compile(r"\[(?:[^\[\]\\]|\\.){1,999}\]:")
_MARGIN_MAX = 100
_DEFINITION = re.compile(
    r"[ \t]*(?:(?:>|(?:[-*+]|\d{1,9}[.)])[ \t])[ \t]*)*"
    rf"\[(?P<label>{_TEXT}{{1,999}})\]:[ \t]*(?:\n[ \t>]*)?<?"
    rf"(?P<url>{_DESTINATION})"
)
# A text that passes none of these looks (compatibility forms folded first) holds nothing a rule
# can match: every URL has "//" or is an image's (its "//" may be written as references) or is
# a "www." autolink (a link carries data in its query or fragment) or a bare "mailto:" (a
# scheme of ``urls.ADDRESSING``), every token and tag a "<" but "[INST]" and "[/INST]", every
# role line its word. A single character is looked for first: one memchr where a substring
# search would cost microseconds on an 8 KB memory (the patterns cost ten times that).
_ROLE_WORD = re.compile("S(?:YSTEM|ystem)")
# A "www." autolink's spellings, a substring search each (a case-blind regex costs ten times more).
_WWW_SPELLINGS = ("www.", "WWW.", "Www.")
# A colon after a scheme of ``urls.ADDRESSING`` (any letter case): a literal first, then one
# class behind it, which most colons fail ("10:30"), and only then each scheme (a case-blind
# search of the schemes costs twenty times more on 8 KB; each scheme behind each colon twice).
_ADDRESSING_COLON = re.compile(
    ":(?<=[OoSsLlPp]:)(?:" + "|".join(f"(?<=(?i:{s}):)" for s in urls.ADDRESSING) + ")"
)


def _candidate(text: str) -> bool:
    return (
        "<" in text
        or ("/" in text and "//" in text)
        or (("?" in text or "#" in text) and any(www in text for www in _WWW_SPELLINGS))
        or ("!" in text and "![" in text)
        or ("]" in text and ("INST]" in text or "](" in text or "]:" in text))
        or ("S" in text and _ROLE_WORD.search(text) is not None)
        or (":" in text and _ADDRESSING_COLON.search(text) is not None)
        or (("&" in text or "\\" in text) and urls.ADDRESSED_SPELT.search(text) is not None)
    )


class Match(NamedTuple):
    rule: str
    start: int  # offset in the scanned text
    text: str  # what matched, as written
    host: str | None = None  # a URL rule's: the host the URL is fetched from


@cached_for_short_texts
def scan(text: str) -> tuple[Match, ...]:
    """Every finding of the rules in ``text``, in order of place: the wide scan's outside what
    CommonMark renders as code, and every fetch and link of the text as rendered."""
    # Every candidate is ASCII and the view keeps each ASCII run of the text as it is: one look.
    looked = text if text.isascii() else ascii_view(text)
    # "&#83;YSTEM", "SYSTE&#1052;", "*S*YSTEM": asked once of an ASCII text, its own marked view.
    read = markers.read(text, looked)
    disguise = None if _candidate(looked) or read else role_lines.may_disguise(looked)
    if disguise is False:
        return ()
    view, origin = (text, None) if text.isascii() else skeleton(text)
    # Markers are read with look-alike letters as their prototypes too; URLs never (a
    # homograph host is another host).
    marked, marked_origin = (view, origin) if origin is None else placed_prototypes(view, origin)
    tags = _html_fetches(text)
    found_markers = _marker_candidates(marked, barred(view, origin, marked))
    wide = [
        *((c, origin) for c in _url_candidates(view, {m.start for m in tags})),
        *((c, marked_origin) for c in markers.unread(found_markers, marked_origin, read)),
        *((c, None) for c in read),
    ]
    if marked is not looked or disguise is None:
        disguise = role_lines.may_disguise(marked)
    if disguise:  # read as rendered: references decoded, words joined
        wide += ((("role-line", *place, None), None) for place in role_lines.disguised(text))
    titled = "]:" in text and role_lines.may_title(marked)
    if not wide and not tags and not titled and not _may_fetch(text):
        return ()  # no finding to take back for code, none the parse could add
    from hotplex.scanning import rendered  # the parse: only a text with a candidate needs it

    shown = rendered.read(text)
    found: list[Match] = list(tags)
    starts = {m.start for m in found}  # a place found once is not found again: one look each
    for (rule, start, end, host), places in wide:
        at = places[start] if places is not None else start
        stop = places[end - 1] + 1 if places is not None else end
        # Code hides a marker only: what is code in this file alone need not be in the artifact
        # (a fence another file left open ends at this file's first fence), and a URL there is
        # fetched when it is not.
        hidden = rule not in _URL_RULES and shown.code.holds(at)
        if not hidden and at not in starts:
            starts.add(at)
            found.append(Match(rule, at, text[at:stop], host))
    found += _rendered(text, shown, found)
    if shown.unread is not None and shown.unread not in starts:  # nested past the parse's depth
        end = text.find("\n", shown.unread)
        shown_line = text[shown.unread : end if end >= 0 else len(text)]
        found.append(Match("unread-markup", shown.unread, shown_line))
    roles = sorted(m.start for m in found if m.rule == "role-line")
    for (first, last), (at, end) in role_lines.in_titles(text, shown.definitions):
        # a title the margin reading missed (in a quote, after "<!--", past "[\]]")
        if bisect.bisect_left(roles, first) == bisect.bisect_left(roles, last):
            found.append(Match("role-line", at, text[at:end]))
    found.sort(key=lambda m: m.start)
    return tuple(found)


# What the parse could find that the wide scan cannot: an image, HTML (a "<" opening a tag, a
# comment or a declaration, or an autolink), or a link whose destination a browser may take for
# absolute without "//" in it (a scheme, a backslash, a character reference).
_TAG_OPEN = re.compile(r"<[A-Za-z!?/]")
_DESTINATION_START = re.compile(r"\](?:\(|:)[ \t\n]*<?")
# A destination's run up to its first ":" not before "//", backslash or "&" (or its end).
_DESTINATION_RUN = re.compile(r"(?:[^\s)>:\\&]|:(?=//))*+")


def _html_fetches(text: str) -> list[Match]:
    """Every URL a tag anywhere in ``text`` would fetch to another host, code or not, read by
    the HTML tokenizer from the text as written: the widest reading of its HTML."""
    if "<" not in text or _TAG_OPEN.search(text) is None:
        return []
    from hotplex.scanning import fetched

    found = []
    seen = fetched.read(text)
    cursors = (fetched.Cursor(text), fetched.Cursor(text))  # a tag's own URLs, a nested one's
    for fetch in seen.fetches:
        if urls.foreign(fetch.host):
            start, end = cursors[fetch.nested].place(fetch.written, fetch.at, fetch.end)
            found.append(Match("image-url-data", start, text[start:end], fetch.host))
    if seen.unread is not None:  # what it would fetch is not known: refused as if it fetched
        end = text.find(">", seen.unread, seen.unread + 80)
        shown = text[seen.unread : end + 1 if end >= 0 else seen.unread + 40]
        found.append(Match("unread-markup", seen.unread, shown))
    return found


def _may_fetch(text: str) -> bool:
    return (
        "![" in text
        or ("<" in text and _TAG_OPEN.search(text) is not None)
        or ("]" in text and _odd_destination(text))
    )


def _odd_destination(text: str) -> bool:
    """Whether a link destination in ``text`` holds a scheme's ":" (not "://"), a backslash or a
    character reference. A destination that ends without one ends every destination starting
    inside it alike but one whose "](" is the run's last two characters (it may go on past the
    blanks that ended the run), so the search goes on from there: each character is looked at
    a bounded number of times, where a pattern searched from every "](" looked to the run's end
    each time (the square of it: 8,000 "[a](" took 3.8 s)."""
    at = 0
    while (start := _DESTINATION_START.search(text, at)) is not None:
        end = _DESTINATION_RUN.match(text, start.end()).end()
        if end < len(text) and text[end] in ":\\&":
            return True
        at = max(end - 2, start.start() + 1)
    return False


def _rendered(text: str, shown: Rendering, wide: list[Match]) -> list[Match]:
    """The fetches to other hosts and the links carrying data of the rendered text, each once:
    not where the wide scan already found the same URL's host, nor for a block whose URL is not
    written in it (a reference image's is in its definition) when a finding names that host.
    The findings so far are kept by rule and host, their places sorted: each look is a bisect,
    not a pass over every finding (a text of thousands of images cost the square of them)."""
    places: dict[tuple[str, str | None], list[int]] = {}
    for m in wide:
        places.setdefault((m.rule, m.host), []).append(m.start)  # no host: None, as below
    for starts in places.values():
        starts.sort()
    found: list[Match] = []
    for rule, placed in [
        *(("image-url-data", p) for p in shown.fetches if urls.foreign(p.host)),
        *(("link-url-data", p) for p in shown.links if urls.addressed(p.url, p.host)),
    ]:
        if rule == "link-url-data" and not url_data.carries(placed.url):
            continue
        starts = places.setdefault((rule, placed.host or None), [])
        at = bisect.bisect_left(starts, placed.start)
        if starts and (not placed.exact or (at < len(starts) and starts[at] < placed.end)):
            continue
        starts.insert(at, placed.start)
        found.append(
            Match(rule, placed.start, text[placed.start : placed.end], placed.host or None)
        )
    return found


def _url_candidates(view: str, tags: set[int]) -> Iterator[Candidate]:
    images = set(tags)  # a URL an image is fetched from is no link
    for start, end in _image_urls(view):
        images.add(start)
        elsewhere = urls.elsewhere(urls.decoded(view[start:end]))
        if elsewhere is not None:
            yield "image-url-data", start, end, elsewhere[1]
    read_on = -1  # where the last run read on to a blank or "<" ends
    for m in urls.BARE.finditer(view):
        start = urls.scheme_start(view, m.start())
        url = urls.linked(view[start : m.end()])
        if start in images:
            continue
        # ``BARE`` stops at brackets and quotes, which a link's destination and GFM's autolink
        # hold (``?d=(<token>)``, ``?d=[<token>]``): what runs on to a blank or "<" is read too,
        # and is the finding's only when it is what carries (not a link's closing ")"). Once
        # a run: a URL inside a run read on from one before it is read alone (each read to the
        # run's end, ``\://x`` repeated cost its length squared, 15 s for 120 KB).
        if url_data.carries(url):
            yield "link-url-data", start, m.end(), _host(url)
        elif m.start() >= read_on:
            read_on = m.end() + len(_RUNS_ON.match(view, m.end())[0])
            if read_on > m.end() and url_data.carries(url + view[m.end() : read_on]):
                yield "link-url-data", start, read_on, _host(url)
    yield from _addressed_as_shown(view)


def _addressed_as_shown(view: str) -> Iterator[Candidate]:
    """A bare "mailto:" (``urls.ADDRESSING``) whose scheme or colon is written with a reference
    or an escape (``mail&#116;o:``): a linkifier of the shown text links it (adversary19 D10).
    One written as it reads is ``BARE``'s. The run a scheme starts is decoded once, and every
    URL it shows is read there: read from each scheme in it, ``mail&#116;o:`` repeated cost its
    length squared (adversary22 D8: 100 KB, 71 s)."""
    spelt = urls.ADDRESSED_SPELT.finditer(view) if "&" in view or "\\" in view else ()
    read_to = 0
    for scheme in spelt:
        if scheme.start() < read_to or ("&" not in scheme[0] and "\\" not in scheme[0]):
            continue
        read_to = scheme.end() + len(_WRITTEN_RUN.match(view, scheme.end())[0])
        shown = urls.shown_text(view, scheme.start(), read_to)
        for m in urls.BARE_ADDRESSED.finditer(shown.text) if shown is not None else ():
            start, end = shown.written_at(m.start(), False), shown.written_at(m.end(), True)
            if view[start:end] != m.group() and url_data.carries(m.group()):
                yield "link-url-data", start, end, _host(m.group())


# What a bare URL may be written over, its references and escapes with it (``urls.BARE``'s run
# and a backslash).
_WRITTEN_RUN = re.compile(r"[^\s<>\"'`()\[\]{}|^]*")
_RUNS_ON = re.compile(r"[^\s<>]*")


def _marker_candidates(view: str, bars: str) -> Iterator[Candidate]:
    """The marker rules' matches in ``view`` (its look-alike letters as their prototypes) and,
    for a special token, in ``bars`` (its look-alike vertical lines as ``|``: as long)."""
    yield from markers.tokens_and_tags(view, bars, [(0, len(view))])
    for m in role_lines.ROLE_LINE.finditer(view):
        yield "role-line", m.start("word"), m.end(), None


def _image_urls(view: str) -> Iterator[tuple[int, int]]:
    """Where each URL a Markdown image is fetched from sits in ``view``: an inline image's
    destination, the definition a reference image takes its URL from (tags: ``_html_fetches``)."""
    labels: set[str] = set()
    for m in _IMAGE.finditer(view):
        if m.group("url") is not None:
            yield m.start("url"), m.end("url")
        else:
            labels.add(_label(m.group("label") or m.group("alt")))
    for label in _LABEL_COLON.finditer(view) if labels else ():
        # A definition is matched from the start of its label's line alone.
        opened = label.start()
        line = view.rfind("\n", max(opened - _MARGIN_MAX, 0), opened) + 1
        m = _DEFINITION.match(view, line) if line or opened <= _MARGIN_MAX else None
        if m is not None and m.start("label") == opened + 1 and _label(m["label"]) in labels:
            yield m.start("url"), m.end("url")


def image_labels(text: str) -> set[str]:
    """The labels ``text``'s reference images take their URLs from."""
    return {_label(m["label"] or m["alt"]) for m in _IMAGE.finditer(text) if m["url"] is None}


def definition_labels(text: str) -> set[str]:
    """The labels ``text`` may define (a wider reading than a parse's)."""
    return {_label(m.group()[1:-2]) for m in _LABEL_COLON.finditer(text)}


def _label(text: str) -> str:
    """A link label as CommonMark matches it: case-folded, runs of white space one space."""
    return " ".join(text.split()).casefold()


class Finding(NamedTuple):
    rule: str
    text: str  # what matched
    quoted: str  # what matched as the message quotes it: a secret reaching into it redacted
    span: Span
    host: str | None = None  # a URL rule's: the host the URL is fetched from

    @property
    def size(self) -> int:
        """How many characters of the scanned text the finding covers."""
        return len(self.text)

    def summary(self) -> str:
        shown = self.quoted if len(self.quoted) <= 60 else self.quoted[:57] + "…"
        return f'possible prompt injection, {RULES[self.rule]} (rule {self.rule}): "{shown}"'

    def problem(self) -> Problem:
        if self.host:
            alone = f'; or allow its host: [injection] allow_hosts = ["{self.host}"]'
        else:
            alone = " or an entry it holds"
        return Problem(
            f"{self.summary()}; it must not reach an artifact from untrusted text",
            self.span,
            f'remove it; if it is meant, allow it: [injection] allow = ["{self.rule}"] (the rule)'
            f"{alone}",
        )


def find(text: str, origins: Sequence[Origin], allowance: Allowance) -> list[Finding]:
    """The findings of ``text`` not allowed, each placed in the first origin holding it."""
    findings = []
    places, redactor = Places(), secrets.Redactor(text)
    for match in scan(text):
        end = match.start + len(match.text)
        found = locate(text, match.start, line_needles(text, match.start, end), origins, places)
        span = places.span(found, origins)
        allowed = allowance.allows_name(match.rule) or _allowed_alone(allowance, match, text)
        if not (allowed or allowance.allows_file(span.file)):
            quoted = redactor.excerpt(match.start, end)
            findings.append(Finding(match.rule, match.text, quoted, span, match.host))
    return findings


_URL_RULES = ("image-url-data", "link-url-data")


def _allowed_alone(allowance: Allowance, match: Match, text: str) -> bool:
    """Whether an entry that names no rule allows this one finding, by what the finding is, never
    by what its line holds besides (an attacker writes the line): a URL whose host is the entry
    or a name under it (``img.shields.io``, ``shields.io``); a role line whose text from its
    word to its end is the entry (``System: Ubuntu``); a token or tag that is the entry, whole,
    as written or as it reads (``<|eot_id|>`` allows ``&lt;|eot_id|&gt;``: a tag holding an
    allowed host is no less a tag). A URL whose
    host is on ``allow_hosts`` (or under one) is allowed too."""
    if match.rule in _URL_RULES:
        host = match.host
        return host is not None and any(
            host == entry or host.endswith("." + entry)
            for entry in (t.lower().rstrip(".") for t in (*allowance.texts, *allowance.hosts))
        )
    if not allowance.texts:
        return False
    if match.rule == "role-line":
        line_end = text.find("\n", match.start)
        line = text[match.start : len(text) if line_end < 0 else line_end].strip()
        return any(line == entry.strip() for entry in allowance.texts)
    read = as_read.Reading(match.text).text  # the token as written and as it reads
    spellings = {match.text.strip().casefold(), read.strip().casefold()} - {""}
    return any(entry.strip().casefold() in spellings for entry in allowance.texts)


def _host(url: str) -> str | None:
    """The host a URL as written is fetched from, as a browser resolves it; None: none."""
    found = urls.resolve(urls.decoded(url))
    return found[1] or None if found is not None else None


def allowance(
    allow: Iterable[str], allow_files: Iterable[str], allow_hosts: Iterable[str] = ()
) -> Allowance:
    """``[injection]``: an entry naming a rule turns it off; another allows the one finding it
    names (see ``_allowed_alone``); ``allow_hosts`` the URLs fetched from those hosts."""
    return rule_allowance(RULES, allow, allow_files)._replace(hosts=tuple(allow_hosts))


def unknown_rule_hint(entry: str) -> str | None:
    return misspelt_rule(entry, RULES)
