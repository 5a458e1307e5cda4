"""The ASGI application: routes, the bearer token, metrics per route, the watcher's life.

``create`` is what each server process calls (uvicorn's factory): the settings come from the
environment ``run.py`` sets, so that ``--workers N`` processes, started afresh, build the same
application, each with its own ``Project``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import inspect
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

from hotplex.errors import HotplexError, Span
from hotplex.fs import read_input
from hotplex.generated import attrs
from hotplex.json_writer import json_text
from hotplex.serve import compile_route, metrics, routes
from hotplex.serve.answers import Abandoned, Refused
from hotplex.serve.body import BadRequest
from hotplex.serve.problems import error_response, problem_response
from hotplex.serve.service import Service
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SETTINGS_VARIABLE = "HOTPLEX_SERVE_SETTINGS"
OPEN_PATHS = frozenset({"/healthz"})  # answered without the token: a liveness probe has none
# Metrics label these methods by name, any other as "other" (a client picks the method string).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


@attrs.frozen
class Settings:
    root: str
    manifest: str | None
    token_file: str | None
    body_limit: int
    # The --host bound with no token: then only a loopback name in a request's Host header
    # is answered (a web page that rebinds its own name to 127.0.0.1 sends its own name).
    loopback_host: str | None = None

    def to_env(self) -> str:
        return json_text(attrs.asdict(self))

    @classmethod
    def from_env(cls) -> Settings:
        return cls(**json.loads(os.environ[SETTINGS_VARIABLE]))


def read_token(path: str) -> str:
    """The token in ``path``: its first line, without surrounding white space (a blank first
    line is an empty token, not a pointer to the next one) or a byte-order mark, as a source
    file drops it (an editor may write one; a client never sends it). Read as every file the
    command line names is (``fs.read_input``): a device or a FIFO is refused, not read."""
    text = read_input(Path(path), path)
    if text is None:
        raise HotplexError.single(f"cannot read the token file '{path}': No such file or directory")
    token = text.removeprefix("\ufeff").partition("\n")[0].strip()
    if len(token) < 16:
        raise HotplexError.single(
            f"the token in '{path}' (its first line) is"
            f" {'empty' if not token else 'shorter than 16 characters'}",
            hint="e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE",
        )
    return token


ROUTES = [
    Route("/v1/jobs", routes.jobs, methods=["GET"]),
    Route("/v1/artifacts/{target}", routes.artifact, methods=["GET"]),
    Route("/v1/compile", compile_route.Compile(), methods=["POST"]),
    Route("/v1/check", routes.check, methods=["POST"]),
    Route("/v1/learn", routes.learn, methods=["POST"]),
    Route("/v1/learn/request", routes.learn_request, methods=["POST"]),
    Route("/v1/memory/compact", routes.memory_compact, methods=["POST"]),
    Route("/v1/memory/compact/request", routes.memory_compact_request, methods=["POST"]),
    Route("/healthz", routes.healthz, methods=["GET"]),
    Route("/readyz", routes.readyz, methods=["GET"]),
    Route("/metrics", routes.metrics_route, methods=["GET"]),
    Route("/openapi.json", routes.openapi, methods=["GET"]),
]


def create(settings: Settings | None = None) -> ASGIApp:
    settings = settings or Settings.from_env()
    service = Service(Path(settings.root), Path(settings.manifest) if settings.manifest else None)
    app = Starlette(
        routes=ROUTES,
        lifespan=_lifespan,
        exception_handlers={
            Refused: routes.refused,
            BadRequest: routes.bad_request,
            HTTPException: _http_error,
            ClientDisconnect: _hung_up,
            Abandoned: _hung_up,
            Exception: _internal_error,
        },
    )
    # /v1/jobs/ is no route (404), not a redirect to an address built from the Host header.
    app.router.redirect_slashes = False
    app.state.service = service
    app.state.body_limit = settings.body_limit
    app.state.bodies = {}  # each job's last artifact answer, rendered (routes._rendered)
    direct = _Direct(app)
    token = read_token(settings.token_file) if settings.token_file else None
    guarded = direct if token is None else _Token(direct, token)
    host = settings.loopback_host
    return _Metrics(_Host(guarded, None if host is None else _loopback_names(host)))


class _Direct:
    """The routes whose endpoint is a plain ASGI app (``compile_route.Compile``), called directly:
    Starlette's middlewares and routing would only find it and pass the request on (its other
    methods still reach the route, which answers 405). The host check, the token and the
    metrics are in front, as for every route."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.endpoints = {
            (route.path, method): route.endpoint
            for route in ROUTES
            if not inspect.isfunction(route.endpoint)
            for method in route.methods or ()
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            endpoint = self.endpoints.get((scope["path"], scope["method"]))
            if endpoint is not None:
                scope["app"] = self.app  # as Starlette sets it for an endpoint
                return await endpoint(scope, receive, send)
        await self.app(scope, receive, send)


def _loopback_names(host: str) -> frozenset[str]:
    """The Host names a loopback server without a token answers (any port): its own address
    and the loopback names. Anything else is a 400 (DNS rebinding: a page of evil.example whose
    name now resolves to 127.0.0.1 reaches this server with Host: evil.example)."""
    own = f"[{host}]" if ":" in host else host
    return frozenset({"localhost", "127.0.0.1", "[::1]", own.lower()})


class _Host:
    """A request with more than one ``Host``, ``Authorization`` or ``Origin`` is a 400 (RFC
    9112, RFC 9110: which one is meant? a proxy in front may have read the other). With
    ``names``, a Host
    naming another server is too, but on /healthz: a liveness probe may send any name; and so
    is an ``Origin`` naming another site: a page anywhere may POST here with no preflight
    (``text/plain``, ``mode: "no-cors"``) and its browser sends this server's own Host. A name
    is compared without its port, its letter case and a trailing dot (``localhost.`` is the
    same name). Refused as every 400 is, with a problem document."""

    ONCE = (b"host", b"authorization", b"origin")

    def __init__(self, app: ASGIApp, names: frozenset[str] | None) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            error = self._refusal(scope)
            if error is not None:
                return await error_response(400, error)(scope, receive, send)
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> HotplexError | None:
        # One pass over the headers for the three (each request pays it); counted on a repeat.
        found = [(name, value) for name, value in scope["headers"] if name in self.ONCE]
        headers = dict(found)
        if len(headers) < len(found):
            for header in self.ONCE:
                count = sum(name == header for name, _value in found)
                if count > 1:
                    return HotplexError.single(
                        f"given {count} times: which is meant?", _header(header)
                    )
        if self.names is None or scope["path"] in OPEN_PATHS:
            return None
        hint = "without --token-file, this server answers its own address and loopback names"
        host = headers.get(b"host", b"").decode("latin-1")
        if not self._named(host):
            return HotplexError.single(f"{host!r} names another server", _header(b"host"), hint)
        origin = headers.get(b"origin")
        if origin is None:  # no page's POST or fetch: a browser sends an Origin with each
            return None
        scheme, slashes, site = origin.decode("latin-1").partition("://")
        web = slashes and scheme.lower() in ("http", "https") and "/" not in site
        if web and self._named(site):
            return None
        return HotplexError.single(
            f"{origin.decode('latin-1')!r}: a request from another site's page",
            _header(b"origin"),
            hint + ", and the pages they serve",
        )

    def _named(self, host: str) -> bool:
        """Whether ``host`` (a Host header's value, or an origin's host and port) is one of
        the names answered."""
        name, colon, port = host.rpartition(":")
        if not (colon and port.isascii() and port.isdigit()):
            name = host  # no port ('[::1]' ends in no digits)
        return name.lower().removesuffix(".") in self.names  # type: ignore[operator]


def _header(name: bytes) -> Span:
    return Span("request", key=name.decode("ascii").title())


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    service: Service = app.state.service
    watcher = asyncio.create_task(service.watch())
    _release_waiters_on_signals(service)
    # Every process starts holding every job's artifact, as `hotplex build` leaves dist/: if the
    # project breaks before a job was asked for, GET still has a last good one to serve, stale.
    with contextlib.suppress(Refused):
        await service.ready()
    try:
        yield
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        metrics.process_stopped()


def _release_waiters_on_signals(service: Service) -> None:
    """On SIGTERM or SIGINT, uvicorn stops accepting and waits for the requests in flight; a
    request holding for a change (``?wait=``) is answered at once (304, as on its timeout)
    instead of holding the shutdown for its whole timeout. uvicorn's handler still runs."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def handler(number, frame, previous=previous):
            loop.call_soon_threadsafe(service.stop_waiting)
            previous(number, frame)

        signal.signal(sig, handler)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    detail = {404: f"no route {request.url.path}", 405: f"{request.method} is not allowed here"}
    return problem_response(
        exc.status_code, detail.get(exc.status_code, str(exc.detail)), headers=exc.headers
    )


async def _hung_up(request: Request, exc: Exception) -> None:
    """The client hung up before its request was whole, or while its compile waited for its
    turn or ran in a thread: no one is left to answer (the metrics count it as aborted)."""


async def _internal_error(request: Request, exc: Exception) -> Response:
    """A bug in hotplex: the request fails, the process goes on."""
    return problem_response(
        500,
        f"hotplex: internal error: {type(exc).__name__}: {exc}; this is a bug in hotplex, please"
        " report it",
    )


class _Token:
    """Every route but /healthz needs ``Authorization: Bearer <token>`` (the scheme in any
    letter case, as RFC 9110 has it), the token compared in constant time."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        scheme, _, given = dict(scope["headers"]).get(b"authorization", b"").partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.expected):
            return await self.app(scope, receive, send)
        response = problem_response(
            401,
            "this server needs 'Authorization: Bearer <token>' with the token of its --token-file",
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)


class _Metrics:
    """Requests and latency by route (its template, /v1/artifacts/{target}; 'other' for a path
    no route matches, so a scan of random paths cannot grow the metrics); a request whose
    client hung up before its answer (while sending its body, or waiting) counts as aborted."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = 500
        hung_up = False

        async def receiving() -> Message:
            nonlocal hung_up
            message = await receive()
            hung_up = hung_up or message["type"] == "http.disconnect"
            return message

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        finally:
            route = _route_of(scope)
            method = scope["method"] if scope["method"] in METHODS else "other"
            if hung_up:
                metrics.labelled(metrics.ABORTED, route, method).inc()
            else:
                duration = time.perf_counter() - started
                metrics.labelled(metrics.LATENCY, route, method).observe(duration)
                metrics.labelled(metrics.REQUESTS, route, method, str(status)).inc()


# The routes without a parameter, whose template is their path (no route with a parameter
# comes first and matches one of their paths).
PLAIN_PATHS = frozenset(route.path for route in ROUTES if not route.param_convertors)


def _route_of(scope: Scope) -> str:
    if scope["path"] in PLAIN_PATHS:
        return scope["path"]
    for route in ROUTES:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            return route.path
    return "other"
