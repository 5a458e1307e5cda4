"""URLs as a browser resolves them: the WHATWG URL standard (ada-url), against an ``https://``
page. ``http:evil.example/x``, ``https:\\\\evil.example``, ``/\\evil.example``,
``//evil.example``, or a scheme with a tab or a line break in it all leave the page's host; a
relative URL stays on it.
"""

from __future__ import annotations

import html
import re

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
# "//", which names the same host and query. GFM links "www." after "_" too (emphasis). And a
# scheme that addresses someone with no host (``ADDRESSING``): linkify.js (Element, many web
# chats) links ``mailto:a@evil.example?body=…`` in prose with its query, GFM ``mailto:`` and
# ``xmpp:`` with their address, a phone's chat app ``tel:`` and ``sms:``.
ADDRESSING = ("mailto", "sms", "tel", "xmpp")
BARE = re.compile(
    r"(?:(?:\b[A-Za-z][A-Za-z0-9+.-]{0,63}:)?[/\\][/\\]|(?:\b|(?<=_))(?=www\.)"
    rf"|\b(?:{'|'.join(ADDRESSING)}):)[^\s<>\"'`()\[\]{{}}|\\^]+",
    re.ASCII | re.IGNORECASE,
)
WWW = re.compile(r"www\.", re.IGNORECASE)

# What a renderer decodes in a URL before it fetches it: CommonMark's backslash escapes of ASCII
# punctuation and character references (HTML's too, in an attribute; ``&quest`` without its ";"
# is decoded, a little wider than CommonMark).
_ESCAPE_OR_REFERENCE = re.compile(
    r"\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{0,31});?"
)


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
    """``url`` as a renderer fetches it: backslash escapes and character references decoded."""
    if "&" not in url and "\\" not in url:
        return url
    return _ESCAPE_OR_REFERENCE.sub(lambda m: m["escaped"] or html.unescape(m.group()), url)

