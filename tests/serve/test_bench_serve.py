"""The serve benchmark's own correctness (``benchmarks/bench_serve.py`` and its load generator,
``benchmarks/openloop``): a run whose answers are errors fails, the server's own count of answers
is the generator's, the open loop charges a stall to every request it held back, and no request
leaves loopback.

Needs ``go`` (Debian's ``golang-go``; ``.ci/run`` installs it): skipped with the reason where it
is missing, failed in CI (``CI=true``), where nothing may skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hotplex_testing import benchmark

STALL = 0.3  # seconds the stalling server holds its first answer


@pytest.fixture(scope="module")
def bench():
    if shutil.which("go") is None:
        reason = "go not found on PATH (Debian: apt-get install golang-go; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI runs every test", pytrace=False)
        pytest.skip(reason)
    return benchmark("bench_serve")


@pytest.fixture(scope="module")
def generator(bench, tmp_path_factory):
    return bench.Generator(bench.build_generator(tmp_path_factory.mktemp("openloop")), 4, None)


def test_error_answers_fail_the_run_and_the_server_counts_every_answer(
    bench, generator, example_copy
):
    serve_reload = benchmark("serve_reload")
    with serve_reload.serving(example_copy("basic")) as server:
        missing = bench.Load(server.url("/v1/artifacts/nosuch"), None, "GET an unknown target")
        report = generator.run(missing, 0.3)
        assert report["status"]["4xx"] == report["requests"] > 0
        with pytest.raises(bench.Failed, match=r"GET an unknown target: \{'4xx': \d+\} answers"):
            bench.check(report, missing.label, None)

        route = "/v1/artifacts/{target}"
        before = bench.answered(server, route)
        good = bench.Load(server.url(bench.ARTIFACT_PATH), None, "GET the artifact")
        report = generator.run(good, 0.3)
        size = len(bench.fetch(server.url(bench.ARTIFACT_PATH)))
        bench.check(report, good.label, size)
        assert report["not_loopback"] == 0
        assert bench.answered(server, route) - before == report["requests"] + 1  # and fetch's
        with pytest.raises(bench.Failed, match="bodies of"):
            bench.check(report, good.label, size + 1)


class Stalling(BaseHTTPRequestHandler):
    """Answers at once, but the first request, which it holds for STALL seconds."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no delayed ACK between
    first = threading.Event()

    def do_GET(self) -> None:
        if not self.first.is_set():
            self.first.set()
            threading.Event().wait(STALL)  # the stall under test, not a wait for an event
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *_: object) -> None:
        pass


def test_the_open_loop_charges_a_stall_to_the_requests_it_held_back(bench, generator):
    """One connection, 200 requests due in a second, the first answered STALL seconds late:
    the requests due meanwhile wait behind it, and their latency counts from when each was due.
    A closed loop would have sent them after the stall and seen one slow request in 200."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stalling)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        one = bench.Generator(generator.binary, 1, None)  # one connection
        load = bench.Load(f"http://127.0.0.1:{server.server_port}/", None, "stalling")
        report = one.run(load, 1, rate=200)
    finally:
        server.shutdown()
        thread.join()
    bench.check(report, load.label, 2)
    assert report["requests"] == 200
    # Request i is due at 5i ms and sent once the stall is over: about STALL - 5i ms late. The
    # p99 of 200 is the third slowest, due 10 ms into the stall; a closed loop would have sent
    # it when the connection was free and seen one slow request in 200.
    assert report["max_ms"] >= STALL * 1000
    assert report["p99_ms"] >= (STALL - 0.03) * 1000
    assert report["p50_ms"] < STALL * 1000 / 2


class Redirecting(BaseHTTPRequestHandler):
    """Sends every request elsewhere, off loopback."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.send_response(302)
        self.send_header("Location", "http://example.invalid/")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


def test_a_redirect_is_counted_as_itself_never_followed(bench, generator):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        load = bench.Load(f"http://127.0.0.1:{server.server_port}/", None, "redirected")
        report = generator.run(load, 0.3)
    finally:
        server.shutdown()
        thread.join()
    assert report["status"]["3xx"] == report["requests"] > 0
    assert report["errors"] == 0  # example.invalid was never looked up
    with pytest.raises(bench.Failed, match=r"\{'3xx': \d+\} answers not 2xx"):
        bench.check(report, load.label, None)


def test_the_generator_sends_nothing_off_loopback(bench, generator):
    for url in ("http://example.invalid:8765/", "http://0.0.0.0:8765/", "https://127.0.0.1/"):
        done = subprocess.run(
            [str(generator.binary), "-url", url, "-duration", "1s"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 2, url
        assert done.stdout == ""
        assert "not a loopback address" in done.stderr or "not an http:// URL" in done.stderr


def test_the_generator_is_vet_and_gofmt_clean(bench, generator):
    env = {**os.environ, **bench.GO_ENV}
    for argv in (["go", "vet", "."], ["gofmt", "-l", "."]):
        done = subprocess.run(
            argv, cwd=bench.GENERATOR, env=env, capture_output=True, text=True, timeout=300
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), argv
