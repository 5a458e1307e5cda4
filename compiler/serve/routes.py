"""The /v1 routes: query and JSON in, the service's records out as JSON (or a problem document).

Every input is checked before the service sees it: the body in ``body.py`` (over the limit: 413;
JSON that does not parse, names a key twice or has the wrong shape, more files than
``MAX_FILES``: 400, naming the key), the query here (a parameter the route does not take, a
``timeout`` out of bounds: 400). The library checks the rest (overlay keys, findings) and says
why, with a place. ``POST /v1/compile`` and the artifact's answer are ``compile_route.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources

import anyio
from hotplex.errors import HotplexError
from hotplex.json_writer import json_text
from hotplex.serve import body as read
from hotplex.serve import metrics
from hotplex.serve.answers import Fault, Refused, Served
from hotplex.serve.compile_route import answer, headers
from hotplex.serve.problems import error_response
from starlette.requests import Request
from starlette.responses import Response

STATUS = {Fault.UNKNOWN: 404, Fault.BROKEN: 503, Fault.REQUEST: 400, Fault.FINDING: 422}
WAIT_SECONDS = 30.0  # ?wait= without ?timeout=
MAX_WAIT_SECONDS = 300.0
CHECK_KEYS = ("files", "target", "platform", "on_finding")
LEARN_KEYS = ("text", "facts", "date", "source", "file")
LEARN_REQUEST_KEYS = ("transcript", "target", "platform", "text", "file")
COMPACT_KEYS = ("days", "answer")
COMPACT_REQUEST_KEYS = ("days", "target", "platform")


def takes(*names: str) -> Callable:
    """A route taking only these query parameters (``body.check_query``)."""

    def decorate(route: Callable[[Request], Awaitable[Response]]):
        @functools.wraps(route)
        async def checked(request: Request) -> Response:
            read.check_query(request.query_params, names)
            return await route(request)

        return checked

    return decorate


@takes()
async def jobs(request: Request) -> Response:
    listed = await request.app.state.service.jobs()
    return _json(
        {
            "jobs": [
                {"target": t, "worker": w, "platform": p, "artifact": _artifact_url(t, p)}
                for t, w, p in listed
            ]
        },
        compact=True,
    )


@takes("platform", "wait", "timeout")
async def artifact(request: Request) -> Response:
    service = request.app.state.service
    target = request.path_params["target"]
    platform = request.query_params.get("platform")
    if platform == "":
        raise read.BadRequest(
            "empty", read.query_at("platform"), "leave it out for the base artifact"
        )
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
            return Response(status_code=304, headers=headers(served))
    head = headers(served)
    if served.stale is not None:
        metrics.STALE.inc()
    matches = _tags(request.headers.get("if-none-match", ""))
    if "*" in matches or served.digest in matches:
        return Response(status_code=304, headers=head)
    body = _rendered(request.app.state.bodies, served)
    return Response(body, headers=head, media_type="application/json")


@takes()
async def check(request: Request) -> Response:
    body = await read.json_body(request, CHECK_KEYS)
    files = read.texts(body, "files")
    if not files:
        raise read.BadRequest(
            "missing or empty: nothing to check",
            read.body_at("files"),
            'e.g. {"files": {"MEMORY.md": "..."}}',
        )
    target = read.string(body, "target")
    platform = read.string(body, "platform")
    on_finding = read.policy(body)
    report = await request.app.state.service.check(files, target, platform, on_finding)
    for finding in report.findings:
        metrics.FINDINGS.labels("/v1/check", finding.action).inc()
    return _json(report.to_json(), {})


@takes()
async def learn(request: Request) -> Response:
    """Facts merged into the text the gateway sends; the new text and the report come back,
    with what was retired: the gateway keeps its users' profiles and histories itself."""
    body = await read.json_body(request, LEARN_KEYS)
    text = read.text(body, "text", required=True)
    assert text is not None
    if not isinstance(body.get("facts"), list):
        what = "missing" if "facts" not in body else f"{read.kind(body['facts'])}, not an array"
        raise read.BadRequest(
            f"'facts' is {what}", read.body_at("facts"), 'e.g. [{"key": "editor", "value": "tabs"}]'
        )
    from hotplex.learning.calls import checked_name
    from hotplex.learning.facts import checked_date, checked_source

    # Checked here as well as by ``Project.learn``, so that a problem is placed in the body.
    try:
        date = checked_date(read.string(body, "date", required=True), read.body_at("date"))
        source = checked_source(read.string(body, "source"), read.body_at("source"))
        file = checked_name(read.string(body, "file") or "USER.md", read.body_at("file"))
    except HotplexError as exc:
        raise read.BadRequest.of(exc) from None
    service = request.app.state.service
    report = await service.learn(body["facts"], date, text, file, source)
    for outcome in report.outcomes:
        metrics.LEARNED.labels(outcome.status).inc()
    return _json({**report.to_json(), "text": report.text}, {})


@takes()
async def learn_request(request: Request) -> Response:
    body = await read.json_body(request, LEARN_REQUEST_KEYS)
    transcript = read.text(body, "transcript", required=True)
    target = read.string(body, "target", required=True)
    assert transcript is not None and target is not None
    platform = read.string(body, "platform")
    text = read.text(body, "text")
    from hotplex.learning.calls import checked_name

    try:  # placed in the body, as /v1/learn places it
        file = checked_name(read.string(body, "file") or "USER.md", read.body_at("file"))
    except HotplexError as exc:
        raise read.BadRequest.of(exc) from None
    service = request.app.state.service
    compiled = await service.learn_request(transcript, target, platform, text, file)
    return _json(compiled.to_json(), {})


@takes()
async def memory_compact(request: Request) -> Response:
    """Days in, each month's compacted file out (or, with an answer, the one month filed from
    it), with the days each covers: the gateway keeps the files."""
    body = await read.json_body(request, COMPACT_KEYS)
    answer = read.text(body, "answer")
    months = await request.app.state.service.compact_days(body.get("days"), answer)
    return _json({"months": [month.to_json() for month in months]}, {})


@takes()
async def memory_compact_request(request: Request) -> Response:
    body = await read.json_body(request, COMPACT_REQUEST_KEYS)
    target = read.string(body, "target", required=True)
    assert target is not None
    platform = read.string(body, "platform")
    service = request.app.state.service
    compiled = await service.compaction_request(body.get("days"), target, platform)
    return _json(compiled.to_json(), {})


async def healthz(request: Request) -> Response:
    """200 while the process answers, whatever the query (a probe may add its own parameters)."""
    return _json({"status": "ok"}, compact=True)


@takes()
async def readyz(request: Request) -> Response:
    count = await request.app.state.service.ready()
    return _json({"status": "ready", "jobs": count}, compact=True)


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


def _rendered(bodies: dict, served: Served) -> bytes:
    """The JSON of ``served``, as ``_json`` writes it, rendered once per job's artifact: a
    cached GET answers the same bytes until the files or the project's warnings change (a new
    ``Served``). Rendering a 14 KB answer cost a third of a GET's CPU time."""
    key = (served.artifact.target, served.artifact.platform)
    held = bodies.get(key)
    if held is None or held[0] is not served:
        held = bodies[key] = (served, answer(served))
    return held[1]


def refused(request: Request, exc: Exception) -> Response:
    """A ``Refused`` from the service: its status; a BROKEN one is also what /readyz says."""
    assert isinstance(exc, Refused)
    status = STATUS[exc.fault]
    if exc.fault is Fault.FINDING:
        metrics.FINDINGS.labels(request.url.path, "error").inc(len(exc.error.problems))
    headers = {"Retry-After": "1"} if status == 503 else None
    return error_response(status, exc.error, headers)


def bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, read.BadRequest)
    return error_response(exc.status, exc.error, exc.headers)


def _json(
    body: Mapping[str, object], headers: Mapping[str, str] | None = None, *, compact: bool = False
) -> Response:
    """A JSON answer, written by ``json_writer.json_text`` as the CLI's ``--json`` (a character
    that does not print itself as its ``\\u`` escape); ``compact``: without blanks, as the job
    list and the health checks have always been written."""
    data = json_text(body, separators=(",", ":") if compact else None).encode("utf-8")
    return Response(data, headers=dict(headers or {}), media_type="application/json")


def _artifact_url(target: str, platform: str | None) -> str:
    from urllib.parse import quote

    url = f"/v1/artifacts/{quote(target, safe='')}"
    return url if platform is None else f"{url}?platform={quote(platform, safe='')}"


def _tags(header: str) -> list[str]:
    """The entity tags of an If-None-Match list, weak ones compared as strong (RFC 9110 13.1.2
    uses the weak comparison for If-None-Match). An entity-tag is quoted (RFC 9110 8.8.3): an
    unquoted one is no tag and matches nothing; ``*`` matches any."""
    tags = []
    for part in header.split(","):
        tag = part.strip().removeprefix("W/")
        if tag == "*" or (len(tag) >= 2 and tag[0] == tag[-1] == '"'):
            tags.append(tag.strip('"') if tag != "*" else tag)
    return tags


def _etag(text: str) -> str:
    """The ETag a ``?wait=`` names, quoted or not: a sha256 this server gave."""
    tag = text.removeprefix("W/").strip('"')
    if len(tag) != 64 or not all(c in "0123456789abcdef" for c in tag):
        raise read.BadRequest(
            "not an ETag of this server (64 hex digits, quoted or not)",
            read.query_at("wait"),
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
        raise read.BadRequest(f"{text!r}: {why}", read.query_at("timeout"))
    return seconds
