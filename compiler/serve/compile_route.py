"""``POST /v1/compile``, the route a gateway calls for every message, and the artifact answer it
shares with ``GET /v1/artifacts``: the artifact's JSON, written from the bytes the compile made,
and its head (the ETag, ``Hotplex-Stale``)."""

from __future__ import annotations

import base64
import functools
import inspect

from hotplex.artifact import Artifact
from hotplex.errors import shown
from hotplex.findings_shown import findings_json
from hotplex.json_writer import json_string_bytes, json_text
from hotplex.serve import body as read
from hotplex.serve import metrics
from hotplex.serve.answers import Served
from starlette.applications import Starlette
from starlette.datastructures import QueryParams, State
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

STALE_HEADER = "Hotplex-Stale"
COMPILE_KEYS = ("target", "platform", "overlay", "on_finding")


class Compile:
    """``POST /v1/compile`` as a plain ASGI app: its route's endpoint, which ``app._Direct``
    calls without Starlette's middlewares and routing in front. What another route has from
    ``Request`` and ``Response`` it does itself: the query checked by ``check_query``, the body
    read by ``body.json_of``, as ``json_body`` reads it; the answer's head as ``Response``
    writes it. An exception is answered by the application's handler for it, as Starlette's
    middlewares answer another route's; a client that hangs up while its compile waits for its
    turn or runs in a thread leaves ``Abandoned``, answered with nothing."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = scope["app"]
        try:
            head, data = await self._answer(app.state, scope, receive)
        except Exception as exc:
            return await _handled(app, exc, scope, receive, send)
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": data})

    async def _answer(
        self, state: State, scope: Scope, receive: Receive
    ) -> tuple[list[tuple[bytes, bytes]], bytes]:
        if scope["query_string"]:
            read.check_query(QueryParams(scope["query_string"]), ())
        body = await read.json_of(scope, receive, state.body_limit, COMPILE_KEYS)
        target = read.string(body, "target", required=True)
        assert target is not None
        platform = read.string(body, "platform")
        overlay = read.texts(body, "overlay")
        on_finding = read.policy(body)

        async def gone() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        served = await state.service.compile(target, platform, overlay, on_finding, gone)
        for finding in served.artifact.findings:
            metrics.FINDINGS.labels("/v1/compile", finding.action).inc()
        data = answer(served)
        head = [(b"etag", b'"%s"' % served.digest.encode("ascii")), NO_CACHE]
        if served.stale is not None:
            head.append(STALE)
        head.append((b"content-length", b"%d" % len(data)))
        head.append(JSON)
        return head, data


NO_CACHE = (b"cache-control", b"no-cache")
STALE = (STALE_HEADER.lower().encode("ascii"), b"true")
JSON = (b"content-type", b"application/json")


async def _handled(
    app: Starlette, exc: Exception, scope: Scope, receive: Receive, send: Send
) -> None:
    """``exc`` answered by ``app``'s handler for it (the first of its classes that has one); one
    for ``Exception`` (a bug: 500) lets it go on to the server, which logs it."""
    handlers = app.exception_handlers
    cls = next((cls for cls in type(exc).__mro__ if cls in handlers), None)
    if cls is None:
        raise exc
    response = handlers[cls](Request(scope, receive), exc)
    if inspect.isawaitable(response):
        response = await response
    if response is not None:
        await response(scope, receive, send)
    if cls is Exception:
        raise exc


def headers(served: Served) -> dict[str, str]:
    """The head of an artifact answer: its ETag, and whether it is the last good one."""
    head = {"ETag": f'"{served.digest}"', "Cache-Control": "no-cache"}
    if served.stale is not None:
        head[STALE_HEADER] = "true"
    return head


def artifact_json(served: Served) -> dict[str, object]:
    """The artifact as ``hotplex build`` writes it: each file with its sha256 and size."""
    artifact = served.artifact
    return {
        **_about(served),
        "text": artifact.text,
        "files": [
            _file(path, data, served.sums[path], artifact.text if path == artifact.path else None)
            for path, data in artifact.files.items()
        ],
        **_notes(served),
    }


def _about(served: Served) -> dict[str, object]:
    """The keys of ``artifact_json`` before the primary file's text."""
    return dict(zip(ABOUT_KEYS, (*_job(served.artifact), served.digest), strict=True))


ABOUT_KEYS = ("target", "worker", "platform", "path", "sha256")


def _job(artifact: Artifact) -> tuple[str | None, ...]:
    """What ``_about`` says of the job (the same for each of its answers): all but the digest."""
    return (artifact.target, artifact.worker, artifact.platform, artifact.path)


@functools.lru_cache(maxsize=256)
def _head(job: tuple[str | None, ...]) -> bytes:
    """The answer's bytes up to its digest, written once for the job (``_job``): a few jobs,
    each named by the manifest; a new name (a renamed target, an edited path) is a new key."""
    return json_text(dict(zip(ABOUT_KEYS, (*job, ""), strict=True)))[:-2].encode("utf-8")


def _notes(served: Served) -> dict[str, object]:
    """The keys of ``artifact_json`` after the files."""
    artifact = served.artifact
    return {
        "truncations": [cut.quoted_json() for cut in artifact.truncations],
        "warnings": [shown(w) for w in (*artifact.warnings, *served.warnings)],
        **findings_json(artifact.findings),
    }


def answer(served: Served) -> bytes:
    """``json_text(artifact_json(served))`` as UTF-8, each file's text written from the bytes
    the compile made (``json_string_bytes``: escaped in its bytes, not decoded and encoded
    again), the primary file's once for its two places; only the few hundred bytes around
    them are rendered from their records."""
    artifact = served.artifact
    primary = json_string_bytes(artifact.files[artifact.path])
    files = b", ".join(
        _file_bytes(path, data, served.sums[path], primary)
        if path == artifact.path
        else _entry(served, path, data)
        for path, data in artifact.files.items()
    )
    return b"".join(
        (
            _head(_job(artifact)),
            served.digest.encode("ascii"),
            b'", "text": "',
            primary,
            b'", "files": [',
            files,
            b"], ",
            json_text(_notes(served))[1:].encode("utf-8"),
        )
    )


def _entry(served: Served, path: str, data: bytes) -> bytes:
    """A file's entry of the answer (not the primary's): the one written for the base artifact
    when it holds the same bytes, else written now."""
    base = served.base
    if base is None or not base.holds(path, data):
        return _file_bytes(path, data, served.sums[path], None)
    held = base.entries.get(path)
    if held is None:
        held = base.entries[path] = _file_bytes(path, data, base.sums[path], None)
    return held


def _file_about(path: str, data: bytes, sum_: str) -> dict[str, object]:
    return {"path": path, "sha256": sum_, "bytes": len(data)}


def _file(path: str, data: bytes, sum_: str, text: str | None = None) -> dict[str, object]:
    """A file of the answer (``sum_``: its sha256); ``text``: its text, known already (the
    primary file's)."""
    out = _file_about(path, data, sum_)
    if text is not None:
        out["text"] = text
        return out
    try:
        out["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        out["base64"] = base64.b64encode(data).decode("ascii")
    return out


def _file_bytes(path: str, data: bytes, sum_: str, text: bytes | None) -> bytes:
    """``_file``'s JSON as UTF-8, its text written from ``data`` (``text``: already written)."""
    about = json_text(_file_about(path, data, sum_))[:-1].encode("utf-8")
    if text is None:
        try:
            text = json_string_bytes(data)
        except UnicodeDecodeError:
            return about + b', "base64": "' + base64.b64encode(data) + b'"}'
    return about + b', "text": "' + text + b'"}'
