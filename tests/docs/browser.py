"""A headless Chromium driven over the DevTools protocol (a websocket: ``websockets``, already a
dependency of hotplex[serve]): open a page, wait for a condition in it, and collect what its
console and uncaught exceptions said."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from websockets.sync.client import connect

LISTENING = re.compile(r"DevTools listening on (ws://\S+)")


def chromium() -> str | None:
    """Debian's chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One tab: ``open`` a URL, ``evaluate`` JavaScript, ``wait_for`` an expression."""

    def __init__(self, socket, session: str) -> None:
        self._socket = socket
        self._session = session
        self._ids = itertools.count(1)
        self.console: list[str] = []  # "error: message" for each console message and exception

    def call(self, method: str, **params: object) -> dict:
        ident = next(self._ids)
        message: dict[str, object] = {"id": ident, "method": method, "params": params}
        if self._session:
            message["sessionId"] = self._session
        self._socket.send(json.dumps(message))
        while True:
            answer = self._receive(timeout=60)
            if answer.get("id") == ident:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _receive(self, timeout: float) -> dict:
        message = json.loads(self._socket.recv(timeout=timeout))
        params = message.get("params", {})
        if message.get("method") == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.console.append(f"{params['type']}: {text}")
        elif message.get("method") == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description", details.get("text"))
            self.console.append(f"exception: {text}")
        elif message.get("method") == "Log.entryAdded":
            entry = params["entry"]
            self.console.append(f"{entry['level']}: {entry['text']} {entry.get('url', '')}")
        return message

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self.console.clear()
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._receive(timeout=60).get("method") == "Page.loadEventFired":
                return
        raise TimeoutError(url)

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30) -> object:
        """The expression's value once truthy, polling (the page computes it in a worker)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            self.call(
                "Runtime.evaluate",
                expression="new Promise(r => setTimeout(r, 100))",
                awaitPromise=True,
            )
        raise TimeoutError(expression)


@contextmanager
def browser(binary: str) -> Iterator[Page]:
    """A headless chromium with one tab, killed on exit."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",  # root in a container: the sandbox needs namespaces
                "--disable-gpu",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its helper processes go with it
        )
        try:
            url = _devtools_url(process)
            with connect(url, max_size=None, open_timeout=30) as socket:
                page = Page(socket, "")
                target = page.call("Target.createTarget", url="about:blank")["targetId"]
                attached = page.call("Target.attachToTarget", targetId=target, flatten=True)
                page._session = attached["sessionId"]
                for domain in ("Page", "Runtime", "Log"):
                    page.call(f"{domain}.enable")
                yield page
                page.call("Browser.close")
        finally:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _devtools_url(process: subprocess.Popen) -> str:
    """The browser's websocket address, from the line chromium prints when it listens."""
    assert process.stderr is not None
    for line in process.stderr:
        found = LISTENING.search(line)
        if found:
            # The rest of its log (D-Bus complaints, in a container) is read and dropped, so a
            # full pipe never stops the browser.
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return found.group(1)
    raise RuntimeError(f"chromium exited ({process.wait()}) without listening")
