"""URLs as a browser resolves them: the WHATWG URL standard (ada-url), against an ``https://``
page. ``http:evil.example/x``, ``https:\\\\evil.example``, ``/\\evil.example``,
``//evil.example``, or a scheme with a tab or a line break in it all leave the page's host; a
relative URL stays on it.
"""

from __future__ import annotations

import bisect
import html
import re
from typing import NamedTuple

# The page a rendered answer is shown on. ".invalid" is reserved (RFC 2606): no URL written to
# a real host resolves to it, so a URL whose host is this one was relative.
PAGE = "https://hotplex.invalid/"
_PAGE_HOST = "hotplex.invalid"
_PLAIN_PAGE = "http://hotplex.invalid/"
# A URL as a browser takes one for absolute: "//", or a backslash for either slash ("/\\host");
# or GFM's extended autolink "www.…" (chat apps link it too, and fetch its preview unclicked).
# A scheme is read at most 64 characters back from its ":": unbounded, a word boundary inside a
# long run of letters, digits and "+" (a base64 data: URL) read the run to its end from each
# boundary, the square of its length (adversary12 D13); a longer "scheme" is matched from the
# "//", which names the same host and query. And a scheme that addresses someone with no host
# (``ADDRESSING``): linkify.js (Element, many web chats) links ``mailto:a@evil.example?body=…``
# in prose with its query, GFM ``mailto:`` and ``xmpp:`` with their address, a phone's chat app
# ``tel:`` and ``sms:``. GFM links "www." after "_" too (emphasis), a linkifier of the rendered
# text "mailto:".
ADDRESSING = ("mailto", "sms", "tel", "xmpp")
_URL_RUN = r"[^\s<>\"'`()\[\]{}|\\^]+"
_ADDRESSED = rf"(?:{'|'.join(ADDRESSING)}):"
BARE = re.compile(
    r"(?:(?:\b[A-Za-z][A-Za-z0-9+.-]{0,63}:)?[/\\][/\\]"
    rf"|(?:\b|(?<=_))(?:(?=www\.)|{_ADDRESSED})){_URL_RUN}",
    re.ASCII | re.IGNORECASE,
)
# A bare addressing URL alone, read in a text as shown (``shown_text``).
BARE_ADDRESSED = re.compile(rf"(?:\b|(?<=_)){_ADDRESSED}{_URL_RUN}", re.ASCII | re.IGNORECASE)


def _spelt(character: str) -> str:
    """``character`` of a scheme as CommonMark text may spell it: itself in either case, a
    numeric reference (decimal or hex, leading zeros), and a colon escaped or ``&colon;``."""
    forms = [re.escape(c) for c in {character, character.upper()}]
    for code in {ord(character), ord(character.upper())}:
        forms += [f"&#0{{0,6}}{code};", f"&#[xX]0{{0,5}}(?i:{code:x});"]
    return "(?:" + "|".join(forms + ([r"\\:", "&colon;"] if character == ":" else [])) + ")"


# An addressing scheme and its colon as a text may spell them, a character at a time: read
# in the text as shown only where one is written with a reference or an escape.
# The lookahead lets each position that starts none of them fail at once.
_SPELT_SCHEMES = "|".join("".join(map(_spelt, f"{scheme}:")) for scheme in ADDRESSING)
ADDRESSED_SPELT = re.compile(rf"(?=[&MSTXmstx])(?<![A-Za-z0-9])(?:{_SPELT_SCHEMES})")
WWW = re.compile(r"www\.", re.IGNORECASE)

# What a renderer decodes in a URL before it fetches it: CommonMark's backslash escapes of ASCII
# punctuation and character references (HTML's too, in an attribute; ``&quest`` without its ";"
# is decoded, a little wider than CommonMark).
_ESCAPE_OR_REFERENCE = re.compile(
    r"\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{0,31});?"
)


def scheme_start(text: str, start: int) -> int:
    """Where the URL ``BARE`` matched at ``start`` in ``text`` starts as a renderer reads it: at
    its scheme when that is written with a reference or an escape in it (``https&#58;//``,
    ``ht&#116;ps://``, ``https\\://``), which ``BARE``, reading the text as written, matched
    past (adversary19 D6: such a URL was placed past the reference)."""
    reference = text[start - 1 : start] == ";" and text.rfind("&", max(start - 34, 0), start) >= 0
    if not reference and not (text[start - 2 : start - 1] == "\\" and text[start - 1] in ":+.-"):
        return start
    before = text[max(start - _SCHEME_WRITTEN, 0) : start][::-1]
    head = start - len(_SCHEME_CHARACTERS.match(before)[0])
    # The rest of a scheme and its "://" (a character past its "//" written as such: a text of
    # ``\://x`` repeated decoded 70 characters for each of its URLs).
    slashes = text.find("//", start, start + 70)
    block = _decode(text, head, min(slashes + 3 if slashes >= 0 else start + 70, len(text)))
    for m in BARE.finditer(block.text) if block is not None else ():
        written = block.written_at(m.start(), False)
        if written >= start:
            break
        if m.end() > block.decoded_at(start):  # the URL matched at ``start``, read from before
            return written
    return start


# A scheme is read at most 64 characters back, each written as a reference at most 12 long.
_SCHEME_WRITTEN = 64 * 12
_SCHEME_CHARACTERS = re.compile(r"[A-Za-z0-9+.:;#&\\-]*")


def linked(bare: str) -> str:
    """A URL ``BARE`` matched as it is linked: GFM's ``www.…`` as ``http://www.…``."""
    return "http://" + bare if WWW.match(bare) else bare


def resolve(written: str) -> tuple[str, str] | None:
    """``written`` resolved as a browser resolves it on an ``https://`` page, or on an
    ``http://`` one where that names another host: (URL, host), the host "" when the URL names
    none; None when a browser would not parse it. A scheme with no slashes is relative on a page
    of that scheme only: ``https:evil.example`` is a path of an https page and the host
    evil.example from a client served over http (a local chat UI), as ``http:evil.example`` is
    from an https page."""
    import ada_url

    try:
        url = ada_url.URL(written, base=PAGE)
    except ValueError:
        return None
    if url.hostname == _PAGE_HOST:
        try:
            plain = ada_url.URL(written, base=_PLAIN_PAGE)
        except ValueError:  # "http:" with no host after it: no URL on an http page
            return url.href, url.hostname
        if plain.hostname != _PAGE_HOST:
            return plain.href, plain.hostname
    return url.href, url.hostname


def foreign(host: str) -> bool:
    """Whether a resolved URL's ``host`` is another than the page's own: it was absolute."""
    return bool(host) and host != _PAGE_HOST


def addressed(url: str, host: str) -> bool:
    """Whether a link's resolved ``url`` reaches someone when followed: it names another host,
    or is absolute with none (``mailto:``, ``sms:``, ``tel:``, ``xmpp:``: a click sends its query
    to whom it addresses, adversary17 D12). A ``data:`` URL is sent nowhere."""
    return foreign(host) or (not host and not url.startswith("data:"))


def elsewhere(written: str) -> tuple[str, str] | None:
    """(URL, host) of ``written`` when it resolves to another host than the page's own (an
    absolute URL, as a browser reads it), else None."""
    found = resolve(written)
    return found if found is not None and foreign(found[1]) else None


def decoded(url: str) -> str:
    """``url`` as a renderer fetches it: backslash escapes and character references decoded,
    one without its ";" too, as HTML decodes an attribute."""
    block = _decode(url, 0, len(url), lenient=True)
    return url if block is None else block.text


class Written:
    """Where a URL a parse read in a block of ``text`` is written: the block as CommonMark
    decodes a link's destination (backslash escapes, references ended by ";"), its offsets
    mapped back. A URL holding ``&amp;`` or ``&#x61;`` is written nowhere as it reads
    (adversary19 D8: such a finding was placed at its block's start). A block is decoded once,
    and only one holding "&" or "\\"; another is searched as it is."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._blocks: dict[int, _Decoded | None] = {}  # by a block's start

    def find(self, needle: str, start: int, at: int, end: int) -> tuple[int, int] | None:
        """Where ``needle`` is written in the block ``text[start:end]`` past ``at``, as it
        reads there: (its start, its end)."""
        if start not in self._blocks:
            self._blocks[start] = _decode(self.text, start, end)
        block = self._blocks[start]
        if block is None:
            found = self.text.find(needle, at, end)
            return (found, found + len(needle)) if found >= 0 else None
        found = block.text.find(needle, block.decoded_at(at))
        if found < 0:
            return None
        return block.written_at(found, False), block.written_at(found + len(needle), True)


def shown_text(text: str, start: int, end: int) -> _Decoded | None:
    """``text[start:end]`` as its rendering shows it, so far as a URL in it goes: backslash
    escapes and references ended by ";" decoded, each offset mapped back to where it is
    written; None when it reads as written. A linkifier of the shown text links
    ``mail&#116;o:…`` (adversary19 D10), whose scheme no search of the text as written finds."""
    return _decode(text, start, end)


def _decode(text: str, start: int, end: int, lenient: bool = False) -> _Decoded | None:
    """``text[start:end]`` decoded, as CommonMark decodes a destination (``lenient``: a
    reference without its ";" too); None when it reads as written."""
    if text.find("&", start, end) < 0 and text.find("\\", start, end) < 0:
        return None
    pieces, marks, size, at = [], [], 0, start
    for m in _ESCAPE_OR_REFERENCE.finditer(text, start, end):
        if m["escaped"] is None and not lenient and not m.group().endswith(";"):
            continue  # CommonMark decodes no reference without its ";"
        piece = m["escaped"] or html.unescape(m.group())
        pieces += (text[at : m.start()], piece)
        size += m.start() - at
        marks.append((size, size + len(piece), m.start(), m.end()))
        size, at = size + len(piece), m.end()
    return _Decoded("".join([*pieces, text[at:end]]), start, marks)


class _Decoded(NamedTuple):
    text: str
    start: int  # where the block starts in the text as written
    # Each decoded reference or escape: its start and end as decoded, and as written.
    marks: list[tuple[int, int, int, int]]

    def decoded_at(self, at: int) -> int:
        """The offset as decoded of the first character written at or after ``at``."""
        index = bisect.bisect_right(self.marks, at, key=lambda mark: mark[2]) - 1
        if index < 0:
            return at - self.start
        decoded_start, decoded_end, start, end = self.marks[index]
        return decoded_start if at == start else decoded_end + max(at - end, 0)

    def written_at(self, offset: int, ends: bool) -> int:
        """Where the character at ``offset`` as decoded is written (``ends``: where the one
        before it ends): a decoded reference's whole reference."""
        last = offset - ends
        index = bisect.bisect_right(self.marks, last, key=lambda mark: mark[0]) - 1
        if index < 0:
            return self.start + offset
        _, decoded_end, start, end = self.marks[index]
        if last < decoded_end:
            return end if ends else start
        return end + offset - decoded_end
