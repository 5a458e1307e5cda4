"""A client of ``POST /v1/compile`` that hangs up while its compile waits for its turn or runs:
counted as aborted, never as answered, and a compile whose client left before its turn is never
started. The real server on loopback; every wait is for an event (a metric), with no sleeps."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from hotplex_testing import copy_example
from serving import START_SECONDS, Server, metric, running

ABORTED = 'hotplex_http_aborted_requests_total{method="POST",route="/v1/compile"}'
ANSWERED = 'hotplex_http_requests_total{method="POST",route="/v1/compile",status="200"}'
QUEUED = "hotplex_queued_compiles"
ABANDONED = 'hotplex_compiles_total{kind="overlay",outcome="abandoned"}'
COMPILED = 'hotplex_compiles_total{kind="overlay",outcome="ok"}'
# Image openers cost the compile about 75 µs each (the heaviest text known): a second or more of
# CPU in a worker thread, while the other requests wait or hang up.
HEAVY = {"MEMORY.md": "- " + "![a](" * 20_000 + "\n"}
LIGHT = {"MEMORY.md": "- a note\n"}


def _sent(server: Server, overlay: dict[str, str]) -> socket.socket:
    """A connection that has sent a whole compile request of ``overlay``, not read its answer."""
    body = json.dumps(
        {"target": "cc", "platform": "slack", "overlay": overlay, "on_finding": "block"}
    ).encode()
    host, _, port = server.url.removeprefix("http://").rpartition(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(
        b"POST /v1/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    return sock


def _until(server: Server, series: str, value: float) -> None:
    """Until the server's ``series`` reads ``value`` (/metrics answered meanwhile: the event
    loop is free while a compile runs)."""
    deadline = time.monotonic() + START_SECONDS
    while metric(server, series) != value:
        assert time.monotonic() < deadline, server.client.get("/metrics").text
    assert server.client.get("/healthz").status_code == 200


@pytest.mark.slow
def test_compiles_whose_clients_hung_up_are_aborted_and_a_waiting_one_never_runs(
    tmp_path: Path,
) -> None:
    with running(copy_example(tmp_path)) as server:
        first, second = _sent(server, HEAVY), _sent(server, HEAVY)
        # One compiles in a thread, the other waits for its turn; both clients hang up.
        _until(server, QUEUED, 1)
        first.close()
        second.close()
        _until(server, ABORTED, 2)
        _until(server, QUEUED, 0)
        assert metric(server, ABANDONED) == 1  # the one that ran; the other never started
        assert metric(server, COMPILED) == 0
        assert metric(server, ANSWERED) == 0
        answer = server.client.post(
            "/v1/compile", json={"target": "cc", "platform": "slack", "overlay": LIGHT}
        )
        assert answer.status_code == 200, answer.text
        assert "- a note" in answer.json()["text"]
        assert (metric(server, ANSWERED), metric(server, COMPILED)) == (1, 1)
        assert metric(server, ABORTED) == 2


@pytest.mark.slow
def test_a_client_that_waits_is_answered_after_one_that_hung_up(tmp_path: Path) -> None:
    """The compile ahead of it runs on, unanswered; the waiting client's answer is its own."""
    with running(copy_example(tmp_path)) as server:
        gone = _sent(server, HEAVY)
        waiting = _sent(server, {"USER.md": "# The waiting user\n", **HEAVY})
        _until(server, QUEUED, 1)
        gone.close()
        with waiting.makefile("rb") as answer:
            status = answer.readline()
        waiting.close()
        assert status.startswith(b"HTTP/1.1 200 "), status
        _until(server, ABORTED, 1)
        assert metric(server, ANSWERED) == 1
