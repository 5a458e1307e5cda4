"""Whether a link's URL carries data to its host (``link-url-data``, ``image-url-data``): its
query's names and values, its fragment and its user-info, read as written and as the server
reads them, and the parameters a URL with no host holds in its address (``sms:…&body=…``). Its
path is not read (ids of the token alphabet are ordinary there)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

# A link's query value (or fragment) this long is data, whatever it holds.
LONG_VALUE = 100
# A run of the base64 alphabet this long, mixing capitals, small letters and digits, is encoded.
ENCODED_RUN = 32
_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{ENCODED_RUN},}}=*", re.ASCII)


def carries(url: str) -> bool:
    """Whether a name or value of the query, the fragment or the user-info is data: as written
    and as the server reads it, percent-escapes decoded (``%41`` between pieces of a token joins
    them again). A name carries data as well as a value does: ``?<token>=1`` reaches the server. And
    a token split over several names and values (``?aB3xQ9zK&R8sT1uW6``, or ``%3D``/``%26``
    inside a name) is read whole: the coded pieces next to each other, joined. A URL with no
    host has parameters before its ``?`` too: iOS reads ``sms:+15551234567&body=<token>``."""
    rest, _, fragment = url.partition("#")
    address, _, query = rest.partition("?")
    if _HOSTLESS.match(address) is not None:
        query = "&".join((*_PARAMETER.split(address, 1)[1:], query))
    values = [piece for part in _PARAMETER.split(query) for piece in part.split("=", 1) if piece]
    user = _user_info(rest)
    return any(
        _data(value, unquote(value) if "%" in value else value)
        for value in (*values, fragment, user)
    ) or any(
        _mixed(joined)
        for coded in (query, user)
        for joined in _coded_runs(unquote(coded) if "%" in coded else coded)
    )


# A URL whose scheme no "//" follows (an absolute one: a wide scan's, or as a browser resolved
# it), and what starts parameters in its address.
_HOSTLESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?![/\\]{2})")
_PARAMETER = re.compile("[&;]")

# A URL's authority: after its scheme and slashes, up to its path, query or fragment.
_AUTHORITY = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:[/\\]*|[/\\]{2})([^/\\?#]*)")


def _user_info(url: str) -> str:
    """What a URL sends before its host's ``@`` (``https://<token>@evil.example/``: the preview's
    request carries it, adversary16 D4); a user's name is short and plain. The path is not read:
    ordinary links hold ids of the same alphabet there (a Google Docs id, a blob's SHA)."""
    found = _AUTHORITY.match(url)
    return found.group(1).rpartition("@")[0] if found is not None else ""


# What cuts a token into pieces: any character that is no letter or digit of a value nor of
# base64's alphabet (``+ / _ -`` join a run as they stand), a run of them once: a query's
# separators, the marks a value may hold unescaped (``.``, ``*``, ``'``, ``(``, ``$``, ``@``:
# adversary16 D5, adversary17 D4), ``?``, ``|``, an escaped space; a server strips any of them.
# A letter of another script is a word's, and ends a run as a word does. A piece of base64, and
# one of words (``campaignId``, ``Active2``): a token's pieces are seldom words, a parameter's
# name or value seldom else.
_QUERY_SEPARATOR = re.compile(r"[^\w+/-]+")
_BASE64_PIECE = re.compile(r"[A-Za-z0-9+/_-]+")
_WORDS = re.compile(r"(?:[A-Z]?+[a-z]++|[0-9]++|[_-])++")  # possessive: no backtracking


def _coded_runs(query: str) -> Iterator[str]:
    """The query's runs of coded pieces (names and values next to each other, each of the base64
    alphabet mixing two of capitals, small letters and digits, no words), each joined, when at
    least ``ENCODED_RUN`` long: a piece of a token cut in ten may lack digits (adversary14 D4),
    a word (``utm_source``, ``campaignId``), words a ``+`` spaces (``12+asyncio``) or a number
    ends a run: plain parameters never join."""
    run: list[str] = []
    for piece in [*_QUERY_SEPARATOR.split(query), ""]:
        if _coded(piece):
            run.append(piece)
        elif run:
            if len(run) > 1 and sum(map(len, run)) >= ENCODED_RUN:
                yield "".join(run)
            run = []


def _coded(piece: str) -> bool:
    kinds = sum(any(map(kind, piece)) for kind in (str.isupper, str.islower, str.isdigit))
    return (
        kinds >= 2
        and _BASE64_PIECE.fullmatch(piece) is not None
        and not _WORDS.fullmatch(piece)
        and not _spaced_words(piece)
    )


def _data(value: str, decoded: str) -> bool:
    """Whether a value is long, counted in characters as the server reads it (a five-word
    Russian search is 31 of them, 180 written: adversary16 D7), or holds a coded run, as written
    or decoded (as written, without its escapes' digits)."""
    return len(decoded) >= LONG_VALUE or any(
        _mixed(run.group()) and not _spaced_words(run.group())
        for value in dict.fromkeys((_ESCAPE.sub("%", value), decoded))
        for run in _RUN.finditer(value)
    )


# A percent-escape: as written, its two hex digits are no letters of the value (``C%2B%2B+for``
# is ``C++ for``, not a run ``2B+for``); decoded, they are the character they stand for.
_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")


def _spaced_words(run: str) -> bool:
    """Whether a run is words a form's ``+`` spaces (``q=React+Hooks+useEffect+Example2024``, a
    search): base64's ``+`` stands between pieces that are seldom all words (5 tokens in 150,000
    random ones of 44 characters holding a ``+``)."""
    return "+" in run and all(
        not word or _WORDS.fullmatch(word) or _ACRONYM.fullmatch(word) for word in run.split("+")
    )


_ACRONYM = re.compile(r"[A-Z]{1,5}[0-9]*")  # ``C``, ``AWS``, ``HTTP2``


def _mixed(word: str) -> bool:
    """Whether ``word`` mixes capitals, small letters and digits."""
    return (
        any(c.isupper() for c in word)
        and any(c.islower() for c in word)
        and any(c.isdigit() for c in word)
    )
