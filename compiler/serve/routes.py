"""The /v1 routes: query and JSON in, the service's records out as JSON (or a problem document).

Every input is checked here before the service sees it: a body over the limit (413), JSON that
does not parse, names a key twice or has the wrong shape (400, naming the key), more files than
``MAX_FILES``, a query parameter the route does not take, a ``timeout`` out of bounds (400). The
library checks the rest (overlay keys, findings) and says why, with a place.
"""

from __future__ import annotations

import base64
import codecs
import functools
import json
import math
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources

import anyio
from hotplex.errors import HotplexError, Span, shown, suggest
from hotplex.fs import sha256
from hotplex.serve import metrics
from hotplex.serve.problems import error_response
from hotplex.serve.service import Fault, Refused, Served
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

STATUS = {Fault.UNKNOWN: 404, Fault.BROKEN: 503, Fault.REQUEST: 400, Fault.FINDING: 422}
STALE_HEADER = "Hotplex-Stale"
WAIT_SECONDS = 30.0  # ?wait= without ?timeout=
MAX_WAIT_SECONDS = 300.0
COMPILE_KEYS = ("target", "platform", "overlay", "on_finding")
CHECK_KEYS = ("files", "target", "platform", "on_finding")
LEARN_KEYS = ("text", "facts", "date", "source", "file")
LEARN_REQUEST_KEYS = ("transcript", "target", "platform", "text", "file")
COMPACT_KEYS = ("days", "answer")
COMPACT_REQUEST_KEYS = ("days", "target", "platform")
POLICIES = ("error", "block")
# Files in one request's `overlay` or `files`: a user's own files and a few years of days. Each
# key costs the library a path check before the first one can be refused, so the count is
# checked before anything else of the body.
MAX_FILES = 1000


class BadRequest(Exception):
    """A request refused before the service sees it, with the place of what is wrong in it."""

    def __init__(
        self, message: str, where: Span | None, hint: str | None = None, status: int = 400
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error = HotplexError.single(message, where, hint)

    @classmethod
    def of(cls, error: HotplexError) -> BadRequest:
        """A check of the library's, placed in the request, refusing it."""
        refused = cls(str(error), None)
        refused.error = error
        return refused


def _query(key: str) -> Span:
    return Span("request", key=key)


def _body_at(key: str | None = None) -> Span:
    return Span("request body", key=key)


def takes(*names: str) -> Callable:
    """A route taking only these query parameters, each at most once: a misspelt one
    (``?plaform=slack``) would otherwise be ignored and the base artifact served."""

    def decorate(route: Callable[[Request], Awaitable[Response]]):
        @functools.wraps(route)
        async def checked(request: Request) -> Response:
            seen: set[str] = set()
            for name, _value in request.query_params.multi_items():
                if name not in names:
                    raise BadRequest(
                        "unknown query parameter",
                        _query(name),
                        suggest(name, names)
                        or (f"parameters: {', '.join(names)}" if names else "it takes none"),
                    )
                if name in seen:
                    raise BadRequest("given twice: which is meant?", _query(name))
                seen.add(name)
            return await route(request)

        return checked

    return decorate


@takes()
async def jobs(request: Request) -> Response:
    listed = await request.app.state.service.jobs()
    return JSONResponse(
        {
            "jobs": [
                {"target": t, "worker": w, "platform": p, "artifact": _artifact_url(t, p)}
                for t, w, p in listed
            ]
        }
    )


@takes("platform", "wait", "timeout")
async def artifact(request: Request) -> Response:
    service = request.app.state.service
    target = request.path_params["target"]
    platform = request.query_params.get("platform")
    if platform == "":
        raise BadRequest("empty", _query("platform"), "leave it out for the base artifact")
    wait = request.query_params.get("wait")
    timeout = _timeout(request.query_params.get("timeout"), wait is not None)
    if wait is None:
        served = await service.artifact(target, platform)
    else:
        etag = _etag(wait)
        metrics.WAITING.inc()
        try:
            served = await _unless_gone(request, service.changed(target, platform, etag, timeout))
        finally:
            metrics.WAITING.dec()
        if served is None:  # not compiled in time
            return Response(status_code=304, headers={"ETag": f'"{etag}"'})
        if served.digest == etag:  # nothing changed in time: the client's copy is current
            return Response(status_code=304, headers=_headers(served))
    headers = _headers(served)
    if served.stale is not None:
        metrics.STALE.inc()
    matches = _tags(request.headers.get("if-none-match", ""))
    if "*" in matches or served.digest in matches:
        return Response(status_code=304, headers=headers)
    return _json(artifact_json(served), headers)


@takes()
async def compile_(request: Request) -> Response:
    body = await _json_body(request, COMPILE_KEYS)
    target = _string(body, "target", required=True)
    assert target is not None
    platform = _string(body, "platform")
    overlay = _texts(body, "overlay")
    on_finding = _policy(body)
    served = await request.app.state.service.compile(target, platform, overlay, on_finding)
    for finding in served.artifact.findings:
        metrics.FINDINGS.labels("/v1/compile", finding.action).inc()
    return _json(artifact_json(served), _headers(served))


@takes()
async def check(request: Request) -> Response:
    body = await _json_body(request, CHECK_KEYS)
    files = _texts(body, "files")
    if not files:
        raise BadRequest(
            "missing or empty: nothing to check",
            _body_at("files"),
            'e.g. {"files": {"MEMORY.md": "..."}}',
        )
    target = _string(body, "target")
    platform = _string(body, "platform")
    on_finding = _policy(body)
    report = await request.app.state.service.check(files, target, platform, on_finding)
    for finding in report.findings:
        metrics.FINDINGS.labels("/v1/check", finding.action).inc()
    return _json(report.to_json(), {})


@takes()
async def learn(request: Request) -> Response:
    """Facts merged into the text the gateway sends; the new text and the report come back,
    with what was retired: the gateway keeps its users' profiles and histories itself."""
    body = await _json_body(request, LEARN_KEYS)
    text = _text(body, "text", required=True)
    assert text is not None
    if not isinstance(body.get("facts"), list):
        what = "missing" if "facts" not in body else f"{_kind(body['facts'])}, not an array"
        raise BadRequest(
            f"'facts' is {what}", _body_at("facts"), 'e.g. [{"key": "editor", "value": "tabs"}]'
        )
    from hotplex.learning.calls import checked_name
    from hotplex.learning.facts import checked_date, checked_source

    # Checked here as well as by ``Project.learn``, so that a problem is placed in the body.
    try:
        date = checked_date(_string(body, "date", required=True), _body_at("date"))
        source = checked_source(_string(body, "source"), _body_at("source"))
        file = checked_name(_string(body, "file") or "USER.md", _body_at("file"))
    except HotplexError as exc:
        raise BadRequest.of(exc) from None
    service = request.app.state.service
    report = await service.learn(body["facts"], date, text, file, source)
    for outcome in report.outcomes:
        metrics.LEARNED.labels(outcome.status).inc()
    return _json({**report.to_json(), "text": report.text}, {})


@takes()
async def learn_request(request: Request) -> Response:
    body = await _json_body(request, LEARN_REQUEST_KEYS)
    transcript = _text(body, "transcript", required=True)
    target = _string(body, "target", required=True)
    assert transcript is not None and target is not None
    platform = _string(body, "platform")
    text = _text(body, "text")
    from hotplex.learning.calls import checked_name

    try:  # placed in the body, as /v1/learn places it
        file = checked_name(_string(body, "file") or "USER.md", _body_at("file"))
    except HotplexError as exc:
        raise BadRequest.of(exc) from None
    service = request.app.state.service
    compiled = await service.learn_request(transcript, target, platform, text, file)
    return _json(compiled.to_json(), {})


@takes()
async def memory_compact(request: Request) -> Response:
    """Days in, each month's compacted file out (or, with an answer, the one month filed from
    it), with the days each covers: the gateway keeps the files."""
    body = await _json_body(request, COMPACT_KEYS)
    answer = _text(body, "answer")
    months = await request.app.state.service.compact_days(body.get("days"), answer)
    return _json({"months": [month.to_json() for month in months]}, {})


@takes()
async def memory_compact_request(request: Request) -> Response:
    body = await _json_body(request, COMPACT_REQUEST_KEYS)
    target = _string(body, "target", required=True)
    assert target is not None
    platform = _string(body, "platform")
    service = request.app.state.service
    compiled = await service.compaction_request(body.get("days"), target, platform)
    return _json(compiled.to_json(), {})


def _text(body: Mapping[str, object], key: str, required: bool = False) -> str | None:
    """A string that may be empty (a profile not written yet)."""
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        what = "missing" if key not in body else f"{_kind(value)}, not a string"
        raise BadRequest(f"{key!r} is {what}", _body_at(key))
    return value


async def healthz(request: Request) -> Response:
    """200 while the process answers, whatever the query (a probe may add its own parameters)."""
    return JSONResponse({"status": "ok"})


@takes()
async def readyz(request: Request) -> Response:
    count = await request.app.state.service.ready()
    return JSONResponse({"status": "ready", "jobs": count})


@takes()
async def metrics_route(request: Request) -> Response:
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)


@takes()
async def openapi(request: Request) -> Response:
    return Response(OPENAPI, media_type="application/json")


OPENAPI = resources.files("hotplex.serve").joinpath("openapi.json").read_bytes()


async def _unless_gone(request: Request, waiting: Awaitable[Served | None]) -> Served | None:
    """``waiting``'s answer, or None as soon as the client hangs up: a gateway that gave up
    leaves no request holding until its timeout. A refusal (an unknown platform, a broken
    project) leaves as itself, not wrapped in the task group's ExceptionGroup."""
    answer = None
    failed: Exception | None = None
    async with anyio.create_task_group() as group:

        async def hang_up() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(hang_up)
        try:
            answer = await waiting
        except Exception as exc:
            failed = exc
        group.cancel_scope.cancel()
    if failed is not None:
        raise failed
    return answer


def artifact_json(served: Served) -> dict[str, object]:
    """The artifact as ``hotplex build`` writes it: each file with its sha256 and size."""
    artifact = served.artifact
    return {
        "target": artifact.target,
        "worker": artifact.worker,
        "platform": artifact.platform,
        "path": artifact.path,
        "sha256": served.digest,
        "text": artifact.text,
        "files": [_file(path, data) for path, data in artifact.files.items()],
        "truncations": [cut.quoted_json() for cut in artifact.truncations],
        "warnings": [shown(w) for w in (*artifact.warnings, *served.warnings)],
        "findings": [finding.to_json() for finding in artifact.findings],
    }


def _file(path: str, data: bytes) -> dict[str, object]:
    out: dict[str, object] = {"path": path, "sha256": sha256(data), "bytes": len(data)}
    try:
        out["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        out["base64"] = base64.b64encode(data).decode("ascii")
    return out


def refused(request: Request, exc: Exception) -> Response:
    """A ``Refused`` from the service: its status; a BROKEN one is also what /readyz says."""
    assert isinstance(exc, Refused)
    status = STATUS[exc.fault]
    if exc.fault is Fault.FINDING:
        metrics.FINDINGS.labels(request.url.path, "error").inc(len(exc.error.problems))
    headers = {"Retry-After": "1"} if status == 503 else None
    return error_response(status, exc.error, headers)


def bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return error_response(exc.status, exc.error)


def _headers(served: Served) -> dict[str, str]:
    headers = {"ETag": f'"{served.digest}"', "Cache-Control": "no-cache"}
    if served.stale is not None:
        headers[STALE_HEADER] = "true"
    return headers


def _json(body: Mapping[str, object], headers: Mapping[str, str]) -> Response:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return Response(data, headers=dict(headers), media_type="application/json")


def _artifact_url(target: str, platform: str | None) -> str:
    from urllib.parse import quote

    url = f"/v1/artifacts/{quote(target, safe='')}"
    return url if platform is None else f"{url}?platform={quote(platform, safe='')}"


def _tags(header: str) -> list[str]:
    """The entity tags of an If-None-Match list, weak ones compared as strong (RFC 9110 13.1.2
    uses the weak comparison for If-None-Match)."""
    tags = []
    for part in header.split(","):
        tag = part.strip().removeprefix("W/")
        if tag:
            tags.append(tag.strip('"'))
    return tags


def _etag(text: str) -> str:
    """The ETag a ``?wait=`` names, quoted or not: a sha256 this server gave."""
    tag = text.removeprefix("W/").strip('"')
    if len(tag) != 64 or not all(c in "0123456789abcdef" for c in tag):
        raise BadRequest(
            "not an ETag of this server (64 hex digits, quoted or not)",
            _query("wait"),
            "pass the ETag header of the artifact you hold",
        )
    return tag


def _timeout(text: str | None, waiting: bool) -> float:
    if text is None:
        return WAIT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not waiting or not 0 < seconds <= MAX_WAIT_SECONDS:
        why = (
            f"a number of seconds, more than 0 and at most {MAX_WAIT_SECONDS:g}"
            if waiting
            else "only a request with ?wait= waits"
        )
        raise BadRequest(f"{text!r}: {why}", _query("timeout"))
    return seconds


async def _json_body(request: Request, known: tuple[str, ...]) -> dict[str, object]:
    """The body as a JSON object of ``known`` keys, in a worker thread (a megabyte of JSON
    takes milliseconds the event loop owes to other requests)."""
    data = await _body(request, request.app.state.body_limit)
    return await anyio.to_thread.run_sync(_parse, data, known)


def _parse(data: bytes, known: tuple[str, ...]) -> dict[str, object]:
    try:
        # No key takes a number: an integer is read as a float, which Python reads at any
        # length (int() refuses more than 4,300 digits).
        body = json.loads(_utf8(data), object_pairs_hook=_object, parse_int=float)
    except json.JSONDecodeError as exc:
        where = Span.at_offset("request body", exc.doc, exc.pos)
        raise BadRequest(f"not JSON: {exc.msg}", where) from None
    except RecursionError:
        raise BadRequest("not JSON this server reads: nested too deeply", _body_at()) from None
    if not isinstance(body, dict):
        raise BadRequest(f"the body is {_kind(body)}, not a JSON object", _body_at())
    _known_keys(body, known)
    for key, value in body.items():
        if isinstance(value, dict) and len(value) > MAX_FILES:
            raise BadRequest(
                f"{len(value)} files: at most {MAX_FILES} in one request",
                _body_at(key),
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
    raise BadRequest(f"not UTF-8 text: {what} at offset {offset}", _body_at())


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
                    _body_at(),
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
                    _body_at(ascii(key)[1:-1] or None),
                ) from None


async def _body(request: Request, limit: int) -> bytes:
    """The body, refused (413) once it passes ``limit`` bytes: from its Content-Length before
    reading, else while it streams in."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


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
                _body_at(key),
                suggest(key, known) or "keys: " + ", ".join(known),
            )


def _string(body: Mapping[str, object], key: str, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        what = (
            "missing"
            if key not in body
            else "empty"
            if value == ""
            else f"{_kind(value)}, not a string"
        )
        raise BadRequest(what, _body_at(key))
    return value


def _policy(body: Mapping[str, object]) -> str | None:
    """``on_finding``: absent or null, the manifest's ``[overlay] on_finding``."""
    value = _string(body, "on_finding")
    if value is not None and value not in POLICIES:
        raise BadRequest(
            f"'error' or 'block', not {value!r}",
            _body_at("on_finding"),
            suggest(value, POLICIES),
        )
    return value


def _texts(body: Mapping[str, object], key: str) -> dict[str, str]:
    """An object of strings (file name -> text); absent: empty."""
    value = body.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"{_kind(value)}, not an object of file name -> text", _body_at(key))
    for name, text in value.items():
        if not isinstance(text, str):
            raise BadRequest(
                f"{_kind(text)}, not a string: give the file's text",
                _body_at(f"{key}.{name}"),
            )
    return value


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")
