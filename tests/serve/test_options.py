"""``hotplex serve``'s options end to end: a Unix socket, the bearer token, several workers
(one set of metrics), a graceful stop, and the errors that stop it before it starts (exit 2)."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path

import pytest
from serving import running, start, wait_for_waiters

TOKEN = "hotplex-test-token-0123456789abcdef"


@pytest.fixture
def basic(example_copy) -> Path:
    return example_copy("basic")


def test_a_unix_socket_for_a_sidecar(basic: Path, tmp_path: Path) -> None:
    path = tmp_path / "hotplex.sock"
    with running(basic, "--unix", str(path)) as server:
        assert server.url == f"unix:{path}"
        assert oct(path.stat().st_mode & 0o777) == "0o660"
        assert server.client.get("/v1/artifacts/cc").status_code == 200
    assert not path.exists()  # removed at the stop


def test_a_socket_file_left_behind_is_replaced(basic: Path, tmp_path: Path) -> None:
    path = tmp_path / "hotplex.sock"
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(path))  # bound, never listening: what a killed server leaves
    left.close()
    with running(basic, "--unix", str(path)) as server:
        assert server.client.get("/healthz").status_code == 200


def test_a_byte_order_mark_is_no_part_of_the_token(basic: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_bytes(b"\xef\xbb\xbf" + TOKEN.encode() + b"\r\n")
    with running(basic, "--token-file", str(token_file)) as server:
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        assert server.client.get("/v1/jobs", headers=bearer).status_code == 200


def test_a_token_guards_every_route_but_healthz(basic: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    with running(basic, "--host", "0.0.0.0", "--token-file", str(token_file)) as server:
        assert server.url.startswith("http://0.0.0.0:")
        client = server.client
        client.base_url = server.url.replace("0.0.0.0", "127.0.0.1")
        assert client.get("/healthz").status_code == 200
        for path in ("/v1/jobs", "/v1/artifacts/cc", "/readyz", "/metrics", "/openapi.json"):
            refused = client.get(path)
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"] == "Bearer"
            assert refused.headers["content-type"] == "application/problem+json"
        wrong = client.get("/v1/jobs", headers={"Authorization": f"Bearer {TOKEN[:-1]}x"})
        assert wrong.status_code == 401
        right = client.get("/v1/jobs", headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200
        lower = client.get("/v1/jobs", headers={"Authorization": f"bearer {TOKEN}"})
        assert lower.status_code == 200
        basic = client.get("/v1/jobs", headers={"Authorization": f"Basic {TOKEN}"})
        assert basic.status_code == 401


def test_workers_share_the_socket_and_one_set_of_metrics(basic: Path, tmp_path: Path) -> None:
    env = {"TMPDIR": str(tmp_path)}
    with running(basic, "--workers", "2", env=env) as server:
        folders = list(tmp_path.glob("hotplex-serve-metrics-*"))
        assert len(folders) == 1
        for _ in range(20):
            assert server.client.get("/v1/artifacts/ocs").status_code == 200
        lines = server.client.get("/metrics").text.splitlines()
        served = (
            'hotplex_http_requests_total{method="GET",route="/v1/artifacts/{target}",status="200"}'
        )
        assert f"{served} 20.0" in lines
        pids = {p.name for p in folders[0].iterdir()}
        assert len(pids) > 1  # each process writes its own files; /metrics adds them up
    assert not folders[0].exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_lets_requests_in_flight_finish(basic: Path, workers: str) -> None:
    server = start(basic, "--workers", workers)
    etag = server.client.get("/v1/artifacts/cc").headers["etag"]
    answers = []
    waiting = threading.Thread(
        target=lambda: answers.append(
            server.client.get("/v1/artifacts/cc", params={"wait": etag, "timeout": 300})
        )
    )
    waiting.start()
    wait_for_waiters(server, 1)
    server.process.send_signal(signal.SIGTERM)
    waiting.join()
    assert (answers[0].status_code, answers[0].headers["etag"]) == (304, etag)
    status, out, err = server.stop()
    assert (status, out, err) == (0, "hotplex serve: stopped\n", "")


def test_a_broken_project_starts_and_says_so(basic: Path) -> None:
    manifest = basic / "hotplex.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n[limits\n", encoding="utf-8")
    server = start(basic)
    try:
        assert server.client.get("/readyz").status_code == 503
        never_built = server.client.get("/v1/artifacts/cc")
        assert (never_built.status_code, never_built.headers["retry-after"]) == (503, "1")
    finally:
        status, _out, err = server.stop()
    assert status == 0
    assert err.startswith(
        "hotplex serve: the project does not build yet; /readyz answers 503 until it does:\n"
        "hotplex.toml:"
    )


def _busy_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, sock.getsockname()[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--host", "0.0.0.0"],
            "--host 0.0.0.0 is reachable from other machines: it needs a bearer token\n"
            "  hint: --token-file FILE (clients send 'Authorization: Bearer <token>'), or --unix"
            " PATH for a sidecar\n",
        ),
        (
            ["--token-file", "no-such-file"],
            "cannot read the token file 'no-such-file': No such file or directory\n",
        ),
        # Read as --facts and --overlay are: no endless read of a device, no blocking open.
        (["--token-file", "/dev/zero"], "/dev/zero: '/dev/zero' is a device, not a regular file\n"),
        (["--token-file", "fifo"], "fifo: 'fifo' is a FIFO (named pipe), not a regular file\n"),
        (["--token-file", "empty"], None),
        (
            ["--token-file", "blank-first"],
            "the token in 'blank-first' (its first line) is empty\n"
            "  hint: e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE\n",
        ),
        (
            ["--unix", "a" * 120 + ".sock"],
            f"--unix {'a' * 120}.sock: 125 bytes, longer than a Unix socket's address holds"
            " (at most 107 bytes)\n  hint: a shorter path: a relative one, or a folder nearer"
            " the root\n",
        ),
        (
            ["--unix", "s.sock", "--host", "0.0.0.0"],
            "--unix s.sock listens on a Unix socket, not at an address: --host would be"
            " ignored\n  hint: give --unix or --host/--port, not both\n",
        ),
        (["--port", "8000", "--unix", "s.sock"], None),
        (["--unix", "hotplex.toml"], "--unix hotplex.toml: a file that is not a socket is there\n"),
        (
            ["--unix", ""],
            "--unix '': not a file path (an abstract socket has no mode: any local user could"
            " connect)\n  hint: --unix PATH, e.g. --unix ./hotplex.sock\n",
        ),
        (["--unix", "@hotplex"], None),
        (["--host", "no.such.host.invalid"], None),
        (["--port", "BUSY"], None),
        (["--workers", "0"], None),
    ],
)
def test_what_stops_it_before_it_starts_exits_2(basic: Path, hotplex, args, message) -> None:
    (basic / "empty").write_text("\n", encoding="utf-8")
    (basic / "blank-first").write_text("\n\nhotplex-test-token-0123456789\n", encoding="utf-8")
    os.mkfifo(basic / "fifo")
    busy, port = _busy_port()
    with busy:
        args = [str(port) if a == "BUSY" else a for a in args]
        result = hotplex("serve", *args, cwd=basic, timeout=120)
    assert result.status == 2, result.stderr
    assert "Traceback" not in result.stderr
    if message is not None:
        assert result.stderr == message
    assert result.stdout == ""


def test_without_a_manifest_it_says_so(tmp_path: Path, hotplex) -> None:
    result = hotplex("serve", cwd=tmp_path)
    assert result.status == 2
    assert result.stderr.startswith("no manifest: 'hotplex.toml' does not exist")


def test_a_waiting_client_that_hangs_up_is_forgotten(basic: Path) -> None:
    with running(basic) as server:
        etag = server.client.get("/v1/artifacts/cc").headers["etag"].strip('"')
        port = int(server.url.rpartition(":")[2])
        with socket.create_connection(("127.0.0.1", port)) as raw:
            raw.sendall(
                f"GET /v1/artifacts/cc?wait={etag}&timeout=300 HTTP/1.1\r\n"
                "Host: 127.0.0.1\r\n\r\n".encode()
            )
            wait_for_waiters(server, 1)
        wait_for_waiters(server, 0)
