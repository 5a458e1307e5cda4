"""A request's query and JSON body read and checked before the service sees it: only the query
parameters the route takes, each once; the body's size (413 past ``--body-limit``), UTF-8 without
a byte-order mark, JSON that names no key twice and holds no lone surrogate, only the keys the
route takes, at most ``MAX_FILES`` files, each key of the right type; each refusal a
``BadRequest`` at its place in the request."""

from __future__ import annotations

import codecs
import json
from collections.abc import Mapping

import anyio
from hotplex.errors import HotplexError, Span, suggest
from starlette.datastructures import QueryParams
from starlette.requests import ClientDisconnect, Request
from starlette.types import Receive, Scope

POLICIES = ("error", "block")


# Files in one request's `overlay` or `files`: a user's own files and a few years of days. Each
# key costs the library a path check before the first one can be refused, so the count is
# checked before anything else of the body.
MAX_FILES = 1000
# Bytes of a body parsed on the event loop (about 80 µs of JSON); a larger one in a thread.
INLINE_PARSE = 32 * 1024


# Past the body limit the connection closes after the answer: a client that waited for
# "100 Continue" still has its body to send, which would be read as the next request. A body in
# a coding not read is answered with the one that is (RFC 9110 §15.5.16).
_HEADERS = {413: {"Connection": "close"}, 415: {"Accept-Encoding": "identity"}}


class BadRequest(Exception):
    """A request refused before the service sees it, with the place of what is wrong in it."""

    def __init__(
        self, message: str, where: Span | None, hint: str | None = None, status: int = 400
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error = HotplexError.single(message, where, hint)
        self.headers = _HEADERS.get(status)

    @classmethod
    def of(cls, error: HotplexError) -> BadRequest:
        """A check of the library's, placed in the request, refusing it."""
        refused = cls(str(error), None)
        refused.error = error
        return refused


def body_at(key: str | None = None) -> Span:
    return Span("request body", key=key)


def query_at(key: str) -> Span:
    return Span("request", key=key)


def check_query(query: QueryParams, names: tuple[str, ...]) -> None:
    """Refused unless ``query`` holds only ``names``, each at most once: a misspelt parameter
    (``?plaform=slack``) would otherwise be ignored and the base artifact served."""
    seen: set[str] = set()
    for name, _value in query.multi_items():
        if name not in names:
            raise BadRequest(
                "unknown query parameter",
                query_at(name),
                suggest(name, names)
                or (f"parameters: {', '.join(names)}" if names else "it takes none"),
            )
        if name in seen:
            raise BadRequest("given twice: which is meant?", query_at(name))
        seen.add(name)


def text(body: Mapping[str, object], key: str, required: bool = False) -> str | None:
    """A string that may be empty (a profile not written yet)."""
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        what = "missing" if key not in body else f"{kind(value)}, not a string"
        raise BadRequest(f"{key!r} is {what}", body_at(key))
    return value


async def json_body(request: Request, known: tuple[str, ...]) -> dict[str, object]:
    """The body as a JSON object of ``known`` keys (``json_of``)."""
    return await json_of(request.scope, request.receive, request.app.state.body_limit, known)


async def json_of(
    scope: Scope, receive: Receive, limit: int, known: tuple[str, ...]
) -> dict[str, object]:
    """The body ``receive`` brings as a JSON object of ``known`` keys; past INLINE_PARSE bytes
    parsed in a worker thread (a megabyte of JSON takes milliseconds the event loop owes to
    other requests). A smaller one is parsed here: the trip to a thread and back costs more
    than its parse (70 µs against 20 µs for the 8.5 KB of a per-user compile,
    benchmarks/bench_serve.py)."""
    data = await _body(scope, receive, limit)
    if len(data) <= INLINE_PARSE:
        return _parse(data, known)
    return await anyio.to_thread.run_sync(_parse, data, known)


def _no_constant(name: str) -> object:
    """``NaN``, ``Infinity`` and ``-Infinity`` are Python's, not JSON's (RFC 8259 has no such
    number): refused as text that is not JSON."""
    raise _NotJsonNumber(name)


class _NotJsonNumber(ValueError):
    pass


def _parse(data: bytes, known: tuple[str, ...]) -> dict[str, object]:
    try:
        # No key takes a number: an integer is read as a float, which Python reads at any
        # length (int() refuses more than 4,300 digits).
        body = json.loads(
            _utf8(data), object_pairs_hook=_object, parse_int=float, parse_constant=_no_constant
        )
    except json.JSONDecodeError as exc:
        where = Span.at_offset("request body", exc.doc, exc.pos)
        raise BadRequest(f"not JSON: {exc.msg}", where) from None
    except _NotJsonNumber as exc:
        raise BadRequest(f"not JSON: {exc} is no JSON number (RFC 8259)", body_at()) from None
    except RecursionError:
        raise BadRequest("not JSON this server reads: nested too deeply", body_at()) from None
    if not isinstance(body, dict):
        raise BadRequest(f"the body is {kind(body)}, not a JSON object", body_at())
    _known_keys(body, known)
    for key, value in body.items():
        if isinstance(value, dict) and len(value) > MAX_FILES:
            raise BadRequest(
                f"{len(value)} files: at most {MAX_FILES} in one request",
                body_at(key),
            )
    _unicode(body)
    return body


def _utf8(data: bytes) -> str:
    """The body as UTF-8 text (RFC 8259: JSON between systems is UTF-8, without a byte-order
    mark), decoded here: ``json.loads`` given bytes guesses UTF-16 or UTF-32 from the NUL
    bytes of the first characters and drops any BOM, reading another text than a proxy or a
    guard in front that reads UTF-8. JSON holds no raw NUL, so one is the first sign of
    UTF-16 or UTF-32 (whose BOMs are no UTF-8 at all)."""
    bom = codecs.BOM_UTF8
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start
    else:
        offset = 0 if data.startswith(bom) else data.find(b"\0")
        if offset < 0:
            return text
    what = "a byte-order mark" if data.startswith(bom) else f"byte {data[offset]:#04x}"
    raise BadRequest(f"not UTF-8 text: {what} at offset {offset}", body_at())


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object; a key given twice in it is refused, not read as its last value: a proxy
    or a guard in front that reads the first would see another request than this server."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise BadRequest(
                    f"the key {key!r} is given twice in one object: which value is meant?",
                    body_at(),
                )
            seen.add(key)
    return found


def _unicode(body: dict[str, object]) -> None:
    """Every string of the body (keys too) is Unicode text: JSON's escapes can spell a lone
    surrogate (``"\\ud800"``), which is no character and could reach no file. Walked without
    recursion: the parser's depth limit leaves no room for a recursive walk's frames."""
    pending: list[tuple[object, str]] = [(body, "")]
    while pending:
        value, key = pending.pop()
        if isinstance(value, dict):
            for name, item in value.items():
                pending.append((name, key))
                pending.append((item, f"{key}.{name}" if key else name))
        elif isinstance(value, list):
            pending.extend((item, key) for item in value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                shown = ascii(value[exc.start])
                raise BadRequest(
                    f"a lone surrogate ({shown}) in a string: not Unicode text",
                    body_at(ascii(key)[1:-1] or None),
                ) from None


async def _body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """The body, refused (413) once it passes ``limit`` bytes: from its Content-Length before
    reading, else while it streams in; ``ClientDisconnect`` when the client hangs up first."""
    declared = expects = b""
    codings = []
    for name, value in scope["headers"]:
        if name == b"content-length":
            declared = value
        elif name == b"expect":
            expects = value
        elif name in _CODED:
            codings += [(name, c.strip().lower()) for c in value.split(b",") if c.strip()]
    coded = [(name, c) for name, c in codings if c not in _CODED[name]]
    too_large = declared.isdigit() and int(declared) > limit
    if coded or too_large:
        refused = _coded(*coded[0]) if coded else _too_large(limit)
        # A client waiting for "100 Continue" has sent no body: reading would invite it (the
        # connection closes after the answer instead; adversary12 D12).
        if expects.lower() != b"100-continue":
            await _drained(receive)
        else:
            refused.headers = {**(refused.headers or {}), "Connection": "close"}
        raise refused
    chunks = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        if message["type"] != "http.request":
            continue
        chunk = message.get("body", b"")
        more = message.get("more_body", False)
        size += len(chunk)
        if size > limit:
            if more:
                await _drained(receive)
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def _drained(receive: Receive) -> None:
    """The rest of a refused body read and dropped, so that the 413 reaches the client: a
    connection closed with bytes of it unread (the 413 closes it; so does the end of an
    HTTP/1.0 request or a ``Connection: close`` one) is reset by the kernel, and the client,
    still sending, sees the reset, not the answer. Nothing is kept, and reading it costs less
    than the same bytes sent as requests under the limit, each read whole and parsed."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        if message["type"] == "http.request" and not message.get("more_body", False):
            return


# The codings a body may come in, by the header that names them: none but chunked transfer.
# A body named gzip (or any other) read as it is would be refused as "not UTF-8", or, not
# really compressed, accepted against what the client said (RFC 9110 §8.4: 415).
_CODED = {b"content-encoding": (b"identity",), b"transfer-encoding": (b"chunked", b"identity")}


def _coded(header: bytes, coding: bytes) -> BadRequest:
    name = header.decode("ascii").title()
    return BadRequest(
        f"the request body is in the {coding.decode('latin-1')!r} coding, which is not read",
        Span("request", key=name),
        "send the body as it is (UTF-8 JSON, no compression)",
        # An unknown transfer coding is 501 (RFC 9112 §6.1), an unknown content coding 415.
        status=501 if header == b"transfer-encoding" else 415,
    )


def _too_large(limit: int) -> BadRequest:
    return BadRequest(
        f"the request body is larger than {limit} bytes",
        None,
        "hotplex serve --body-limit BYTES allows larger ones",
        status=413,
    )


def _known_keys(body: Mapping[str, object], known: tuple[str, ...]) -> None:
    for key in body:
        if key not in known:
            raise BadRequest(
                "unknown key",
                body_at(key),
                suggest(key, known) or "keys: " + ", ".join(known),
            )


def string(body: Mapping[str, object], key: str, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        what = (
            "missing"
            if key not in body
            else "empty"
            if value == ""
            else f"{kind(value)}, not a string"
        )
        raise BadRequest(what, body_at(key))
    return value


def policy(body: Mapping[str, object]) -> str | None:
    """``on_finding``: absent or null, the manifest's ``[overlay] on_finding``."""
    value = string(body, "on_finding")
    if value is not None and value not in POLICIES:
        raise BadRequest(
            f"'error' or 'block', not {value!r}",
            body_at("on_finding"),
            suggest(value, POLICIES),
        )
    return value


def texts(body: Mapping[str, object], key: str) -> dict[str, str]:
    """An object of strings (file name -> text); absent: empty."""
    value = body.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"{kind(value)}, not an object of file name -> text", body_at(key))
    for name, text in value.items():
        if not isinstance(text, str):
            raise BadRequest(
                f"{kind(text)}, not a string: give the file's text",
                body_at(f"{key}.{name}"),
            )
    return value


def kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")
