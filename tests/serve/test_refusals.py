"""``hotplex serve`` refusing what a client sends at the edge of HTTP: a body cut off by a client
that hangs up, a header given twice, a body in another encoding than UTF-8; every refusal a
problem document that names its key once."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import BinaryIO

import pytest
from hotplex_testing import copy_example
from serving import START_SECONDS, Server, metric, running

PROBLEM = "application/problem+json"
TOKEN = "hotplex-test-token-0123456789abcdef"
CHECK = {"files": {"MEMORY.md": "- a note\n"}}
COMPILE = {"target": "cc", "platform": "slack", "overlay": {"MEMORY.md": "- a note\n"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running(_project(tmp_path_factory.mktemp("refusals"))) as started:
        yield started


def _project(folder: Path) -> Path:
    return copy_example(folder)


def _problem(answer, status: int = 400) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    return answer.json()["detail"]


def _raw(server: Server, request: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """``request`` sent as it is; the status line, headers and body of the answer."""
    host, _, port = server.url.removeprefix("http://").rpartition(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(request)
        return _answer(sock.makefile("rb"))


def _answer(answer: BinaryIO) -> tuple[bytes, dict[str, str], bytes]:
    """The status line, headers and body of the answer ``answer`` reads."""
    status = answer.readline()
    headers = {}
    while (line := answer.readline().rstrip(b"\r\n")) != b"":
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.lower()] = value.strip()
    return status, headers, answer.read(int(headers.get("content-length", "0")))


# /v1/compile is answered without Starlette's layers (``app._Direct``): its edges as another's.
@pytest.mark.parametrize(
    ("route", "request_body"), [("/v1/check", CHECK), ("/v1/compile", COMPILE)]
)
def test_a_client_that_hangs_up_mid_body_is_an_aborted_request_not_a_bug(
    tmp_path: Path, route: str, request_body: dict
) -> None:
    body = json.dumps(request_body).encode()
    aborted = f'hotplex_http_aborted_requests_total{{method="POST",route="{route}"}}'
    with running(_project(tmp_path)) as server:
        for count in (1, 2):
            host, _, port = server.url.removeprefix("http://").rpartition(":")
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(
                    b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    b"\r\nContent-Length: %d\r\n\r\n%s"
                    % (route.encode(), len(body), body[: len(body) // 2])
                )
            for _ in range(10_000):  # until the server has seen the hang-up (the metric)
                if metric(server, aborted) == count:
                    break
            assert metric(server, aborted) == count
        text = server.client.get("/metrics").text
        assert 'status="500"' not in text
        assert f'route="{route}"' not in text.split(aborted)[0]  # no request counted besides
        assert server.client.post(route, json=request_body).status_code == 200
        status, _out, err = server.stop()
    assert status == 0
    assert "Traceback" not in err and "bug in hotplex" not in err, err


def test_two_authorization_headers_are_refused_as_two_hosts_are(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "token").write_text(f"{TOKEN}\n", encoding="utf-8")
    bearer = f"Authorization: Bearer {TOKEN}\r\n".encode()
    with running(root, "--token-file", str(root / "token")) as server:
        ok = b"GET /v1/jobs HTTP/1.1\r\nHost: a\r\n%sConnection: close\r\n\r\n" % bearer
        assert _raw(server, ok)[0].startswith(b"HTTP/1.1 200 ")
        for second in (bearer, b"Authorization: Bearer someone-else-entirely\r\n"):
            request = ok.replace(b"Connection", second + b"Connection")
            status, headers, body = _raw(server, request)
            assert status.startswith(b"HTTP/1.1 400 "), status
            assert headers["content-type"] == PROBLEM
            detail = json.loads(body)["detail"]
            assert detail == "request: Authorization: given 2 times: which is meant?"


def test_two_hosts_and_a_foreign_host_are_problem_documents(server: Server) -> None:
    request = (
        b"GET /v1/jobs HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    status, headers, body = _raw(server, request)
    assert status.startswith(b"HTTP/1.1 400 ")
    assert headers["content-type"] == PROBLEM
    assert json.loads(body)["detail"] == "request: Host: given 2 times: which is meant?"
    detail = _problem(server.client.get("/v1/jobs", headers={"Host": "evil.example"}))
    assert detail.startswith("request: Host: 'evil.example' names another server\n  hint: ")


@pytest.mark.parametrize(
    ("encoding", "detail"),
    [
        ("utf-16", "not UTF-8 text: byte 0xff at offset 0"),
        ("utf-16-le", "not UTF-8 text: byte 0x00 at offset 1"),
        ("utf-16-be", "not UTF-8 text: byte 0x00 at offset 0"),
        ("utf-32", "not UTF-8 text: byte 0xff at offset 0"),
        ("utf-32-le", "not UTF-8 text: byte 0x00 at offset 1"),
        ("utf-32-be", "not UTF-8 text: byte 0x00 at offset 0"),
        ("utf-8-sig", "not UTF-8 text: a byte-order mark at offset 0"),
    ],
)
def test_a_body_in_another_encoding_or_with_a_bom_is_not_utf8(
    server: Server, encoding: str, detail: str
) -> None:
    body = json.dumps(CHECK).encode(encoding)
    answer = server.client.post(
        "/v1/check", content=body, headers={"Content-Type": "application/json"}
    )
    assert _problem(answer) == f"request body: {detail}"


@pytest.mark.parametrize(
    ("path", "body", "key"),
    [
        ("/v1/artifacts/cc?wait=abc", None, "wait"),
        ("/v1/artifacts/cc?timeout=5", None, "timeout"),
        ("/v1/artifacts/cc?wait=abc&timeout=0", None, "timeout"),
        ("/v1/artifacts/cc?platform=", None, "platform"),
        ("/v1/artifacts/cc?plaform=slack", None, "plaform"),
        ("/v1/artifacts/cc?platform=a&platform=b", None, "platform"),
        ("/v1/compile", {}, "target"),
        ("/v1/compile", {"target": ""}, "target"),
        ("/v1/compile", {"target": 7}, "target"),
        ("/v1/compile", {"target": "cc", "overlays": {}}, "overlays"),
        ("/v1/compile", {"target": "cc", "overlay": []}, "overlay"),
        ("/v1/compile", {"target": "cc", "overlay": {"USER.md": 1}}, "USER.md"),
        ("/v1/compile", {"target": "cc", "on_finding": "warn"}, "on_finding"),
        ("/v1/check", {}, "files"),
        ("/v1/compile", {"overlay": {f"{n}.md": "" for n in range(1001)}}, "overlay"),
    ],
)
def test_a_problem_names_its_key_once(server: Server, path: str, body, key: str) -> None:
    answer = server.client.get(path) if body is None else server.client.post(path, json=body)
    detail = _problem(answer).partition("\n")[0]
    assert detail.count(key) == 1, detail


def test_the_per_user_compile_refuses_at_its_edges_as_every_route_does(server: Server) -> None:
    """Another method is a 405 naming the one it takes; a query parameter, a body over the
    limit, a token missing are refused as on the routes Starlette answers; each is counted."""
    wrong = server.client.get("/v1/compile")
    assert _problem(wrong, 405) == "GET is not allowed here"
    assert wrong.headers["allow"] == "POST"
    query = server.client.post("/v1/compile?target=cc", json=COMPILE)
    assert _problem(query) == "request: target: unknown query parameter\n  hint: it takes none"
    compiled = server.client.post("/v1/compile", json=COMPILE)
    assert compiled.status_code == 200
    assert compiled.headers["content-type"] == "application/json"
    assert compiled.headers["content-length"] == str(len(compiled.content))
    assert compiled.headers["etag"] == f'"{compiled.json()["sha256"]}"'
    assert compiled.headers["cache-control"] == "no-cache"
    counted = 'hotplex_http_requests_total{method="POST",route="/v1/compile",status="400"}'
    assert metric(server, counted) >= 1


def test_a_bug_in_the_per_user_compile_is_a_500_problem_and_the_process_goes_on(
    tmp_path: Path,
) -> None:
    """In the process, without HTTP: the application's own handler for a bug answers it,
    and the exception goes on to the server, which logs it."""
    import asyncio

    from hotplex.serve.app import Settings, create

    app = create(Settings(str(_project(tmp_path)), None, None, 1 << 20))

    async def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    async def call() -> list[dict]:
        direct = app.app.app  # _Metrics(_Host(_Direct(Starlette)))
        direct.app.state.service.compile = broken
        body = json.dumps(COMPILE).encode()
        messages = [{"type": "http.request", "body": body, "more_body": False}]
        sent: list[dict] = []

        async def receive() -> dict:
            return messages.pop()

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/v1/compile",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1")],
        }
        with pytest.raises(RuntimeError, match="a bug"):
            await app(scope, receive, send)
        return sent

    sent = asyncio.run(call())
    assert sent[0]["status"] == 500
    problem = json.loads(sent[1]["body"])
    assert problem["detail"].startswith("hotplex: internal error: RuntimeError: a bug;")


def _chunked(body: bytes, size: int = 1 << 16) -> bytes:
    parts = [
        b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
        for i in range(0, len(body), size)
    ]
    return b"".join(parts) + b"0\r\n\r\n"


@pytest.mark.parametrize("route", ["/v1/compile", "/v1/check"])
@pytest.mark.parametrize("framing", ["content-length", "chunked", "http/1.0"])
def test_a_body_of_many_megabytes_over_the_limit_is_answered_413_not_reset(
    server: Server, route: str, framing: str
) -> None:
    """The server closes the connection after a 413: the rest of the body is read first, so
    the client sending it sees the answer and the end of the connection, not a reset (a socket
    closed with bytes unread is reset by the kernel). 32 MB: more than the kernel buffers."""
    body = b'{"files": {"MEMORY.md": "' + b"x" * (32 << 20) + b'"}}'
    version, framed = b"HTTP/1.1", body
    length = b"Content-Length: %d\r\n" % len(body)
    if framing == "chunked":
        length, framed = b"Transfer-Encoding: chunked\r\n", _chunked(body)
    elif framing == "http/1.0":
        version = b"HTTP/1.0"
    head = b"POST %s %s\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s\r\n" % (
        route.encode(),
        version,
        length,
    )
    host, _, port = server.url.removeprefix("http://").rpartition(":")
    with socket.create_connection((host, int(port)), timeout=START_SECONDS) as sock:
        sent: list[BaseException | None] = []
        sender = threading.Thread(target=lambda: sent.append(_send(sock, head + framed)))
        sender.start()
        answer = sock.makefile("rb")
        status, headers, problem = _answer(answer)
        rest = answer.read()  # the end of the connection: b"", not a reset
        sender.join()
    assert sent == [None]
    assert status.split()[1] == b"413", status
    assert headers["connection"] == "close"
    assert headers["content-type"] == PROBLEM
    assert json.loads(problem)["status"] == 413
    assert json.loads(problem)["detail"].startswith("the request body is larger than 1048576 bytes")
    assert rest == b""


def _send(sock: socket.socket, data: bytes) -> BaseException | None:
    try:
        sock.sendall(data)
    except OSError as exc:
        return exc
    return None


def test_a_body_announced_over_the_limit_is_refused_before_100_continue(server: Server) -> None:
    """A client that waits for "100 Continue" before sending its body is answered 413 at once:
    no invitation to send what would be thrown away."""
    status, headers, body = _raw(
        server,
        b"POST /v1/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % (64 << 20),
    )
    assert status.split()[1] == b"413", status
    assert headers["connection"] == "close"
    assert json.loads(body)["status"] == 413


def test_a_client_that_hangs_up_while_its_refused_body_is_read_out_is_aborted(
    server: Server,
) -> None:
    """The rest of a body over the limit is read and dropped: a client that hangs up meanwhile
    leaves an aborted request, no 500, and the server answers the next one."""
    aborted = 'hotplex_http_aborted_requests_total{method="POST",route="/v1/compile"}'
    before = metric(server, aborted)
    host, _, port = server.url.removeprefix("http://").rpartition(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(
            b"POST /v1/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b"\r\nContent-Length: %d\r\n\r\n%s" % (8 << 20, b"x" * (2 << 20))
        )
    for _ in range(10_000):  # until the server has seen the hang-up (the metric)
        if metric(server, aborted) == before + 1:
            break
    assert metric(server, aborted) == before + 1
    assert 'status="500"' not in server.client.get("/metrics").text
    assert server.client.post("/v1/compile", json=COMPILE).status_code == 200


@pytest.mark.parametrize("route", ["/v1/check", "/v1/compile"])
@pytest.mark.parametrize(
    ("header", "status"),
    [("Content-Encoding: gzip", 415), ("Transfer-Encoding: gzip, chunked", 501)],
)
def test_a_body_in_a_coding_not_read_is_refused_not_read_as_it_is(
    server: Server, route: str, header: str, status: int
) -> None:
    """A body said to be compressed is refused, though it is plain JSON (adversary11 D1): read
    as it is, a real gzip body would be "not UTF-8" and a plain one taken against its header."""
    body = json.dumps(CHECK if route == "/v1/check" else COMPILE).encode()
    framed = body if header.startswith("Content") else b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    length = f"Content-Length: {len(body)}\r\n" if header.startswith("Content") else ""
    answer_status, headers, answer = _raw(
        server,
        f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{header}\r\n{length}\r\n".encode()
        + framed,
    )
    assert answer_status.split()[1] == str(status).encode(), answer_status
    assert headers["content-type"] == PROBLEM
    problem = json.loads(answer)
    assert "gzip" in problem["detail"], problem
    if status == 415:
        assert headers["accept-encoding"] == "identity"


def test_a_body_in_a_coding_not_read_is_refused_before_100_continue(server: Server) -> None:
    """No invitation to send a body that would be refused (adversary12 D12)."""
    status, headers, body = _raw(
        server,
        b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Encoding: gzip\r\nExpect: 100-continue\r\nContent-Length: 40\r\n\r\n",
    )
    assert status.split()[1] == b"415", status
    assert headers["connection"] == "close"
    assert json.loads(body)["status"] == 415
