"""A real ``hotplex serve`` for the tests: started as a user starts it, stopped by SIGTERM.

The server says where it listens on its first line; the tests read that line (an event), never
sleep, and talk to it over TCP (port 0: a free one) or a Unix socket with httpx.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from hotplex_testing import HOTPLEX

READY = re.compile(r"hotplex serve: listening on (\S+) ")
START_SECONDS = 60  # how long a start may take on a loaded machine before the test fails


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str  # http://127.0.0.1:PORT, or unix:PATH
    client: httpx.Client

    def stop(self) -> tuple[int, str, str]:
        """SIGTERM, then the exit status and what it printed after its first line."""
        self.client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=START_SECONDS)
        return self.process.returncode, out, err


def client_for(url: str, **kwargs) -> httpx.Client:
    if url.startswith("unix:"):
        transport = httpx.HTTPTransport(uds=url.removeprefix("unix:"))
        return httpx.Client(transport=transport, base_url="http://hotplex", **kwargs)
    return httpx.Client(base_url=url, **kwargs)


def start(root: Path, *args: str, env: dict[str, str] | None = None) -> Server:
    """``hotplex -C root serve --port 0 ARGS`` once it has said where it listens."""
    command = [str(HOTPLEX), "-C", str(root), "serve"]
    if not any(a.startswith("--unix") or a.startswith("--port") for a in args):
        command += ["--port", "0"]
    process = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until the line (or the end, if it failed)
    found = READY.search(line)
    if found is None:
        out, err = process.communicate(timeout=START_SECONDS)
        raise AssertionError(
            f"hotplex serve did not start ({process.returncode}):\n{line}{out}{err}"
        )
    return Server(process, found.group(1), client_for(found.group(1), timeout=START_SECONDS))


@contextlib.contextmanager
def running(root: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    server = start(root, *args, env=env)
    try:
        yield server
    finally:
        status, _out, err = server.stop()
        assert status == 0, err
        assert "Traceback" not in err, err


def wait_for_waiters(server: Server, count: int) -> None:
    """Until the server reports ``count`` requests waiting (the metric is the event)."""
    wanted = f"hotplex_waiting_requests {float(count)}"
    for _ in range(10_000):
        if wanted in server.client.get("/metrics").text.splitlines():
            return
    raise AssertionError(f"never {count} waiting")


def metric(server: Server, series: str) -> float:
    """The value of one series (name and labels as /metrics writes them); 0 when absent."""
    for line in server.client.get("/metrics").text.splitlines():
        name, _, value = line.rpartition(" ")
        if name == series:
            return float(value)
    return 0.0
