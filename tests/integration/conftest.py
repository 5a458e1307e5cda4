"""Fixtures that drive the real external components the artifacts are written for.

- ``opencode_server``: a real ``opencode serve`` (npm ``opencode-ai``) on 127.0.0.1.
- ``claude_cli``: the real ``claude`` binary (npm ``@anthropic-ai/claude-code``).
- ``fake_anthropic``: a minimal Anthropic Messages API on 127.0.0.1 that records every request.
- ``opencode_payload`` / ``claude_prompt``: parametrised over every artifact that
  ``hotplex -C <copy of examples/basic> build --json`` produces for that worker.

The npm packages are installed by ``.ci/install-components`` into ``$HOTPLEX_TOOLS``
(default ``<repo>/.tools``). Where a component is missing or will not start, its tests are
skipped with the reason; a broken build of the example fails them instead.

Everything here uses the standard library for HTTP, bounds every wait, and binds loopback only.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "basic"
HOTPLEX = Path(sys.executable).parent / "hotplex"

BUILD_TIMEOUT = 60  # seconds for `hotplex build`
START_TIMEOUT = 30  # seconds for `opencode serve` to answer
HTTP_TIMEOUT = 20  # seconds for one HTTP call
STOP_TIMEOUT = 10  # seconds for a server to exit after SIGTERM

# Environment passed through to the components; everything else (API keys, proxies, the
# developer's config) is left out so the runs are hermetic.
PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")

INSTALL_HINT = "run .ci/install-components"

# Plain urllib, never through a proxy from the environment: every target is on loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ---------------------------------------------------------------------------------------------
# helpers


def tools_dir() -> Path:
    """Where ``.ci/install-components`` puts the npm packages."""
    return Path(os.environ.get("HOTPLEX_TOOLS") or REPO / ".tools")


def find_binary(name: str) -> Path | None:
    """``$HOTPLEX_TOOLS/node_modules/.bin/<name>``, else ``<name>`` on PATH, else None."""
    local = tools_dir() / "node_modules" / ".bin" / name
    if local.is_file() and os.access(local, os.X_OK):
        return local
    found = shutil.which(name)
    return Path(found) if found else None


def binary_version(binary: Path) -> str | None:
    """First line of ``<binary> --version``, or None when it does not run."""
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else None


def base_env(**extra: str) -> dict[str, str]:
    """A minimal environment for a component: a few pass-through variables plus ``extra``."""
    env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpStatusError(AssertionError):
    """A non-2xx answer, with the server's body in the message."""


def http_json(method: str, url: str, body: Any = None, timeout: float = HTTP_TIMEOUT) -> Any:
    """One bounded JSON request (UTF-8 both ways); non-2xx raises ``HttpStatusError``."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", errors="replace")[:2000]
        raise HttpStatusError(f"{method} {url} -> {exc.code}: {detail}") from None


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group we started, then SIGKILL it if it lingers."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)
    except ProcessLookupError:
        process.wait(timeout=STOP_TIMEOUT)


def log_tail(path: Path, limit: int = 1500) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-limit:].strip()


# ---------------------------------------------------------------------------------------------
# opencode


def opencode_env(root: Path) -> dict[str, str]:
    """Temporary HOME/XDG dirs, no credentials, and every network feature we can turn off.

    ``noReply`` messages never reach a provider, so no API key is needed.
    """
    dirs = {name: root / name for name in ("home", "config", "data", "cache", "state")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    return base_env(
        HOME=str(dirs["home"]),
        XDG_CONFIG_HOME=str(dirs["config"]),
        XDG_DATA_HOME=str(dirs["data"]),
        XDG_CACHE_HOME=str(dirs["cache"]),
        XDG_STATE_HOME=str(dirs["state"]),
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",  # use the bundled model list, not models.dev
        OPENCODE_DISABLE_SHARE="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
        OPENCODE_DISABLE_CLAUDE_CODE="1",  # do not read ~/.claude or CLAUDE.md files
    )


def wait_until_healthy(process: subprocess.Popen[bytes], base_url: str) -> str | None:
    """Poll ``GET /global/health``; None once healthy, else why not (bounded by START_TIMEOUT)."""
    deadline = time.monotonic() + START_TIMEOUT
    last = "no answer"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"exited with status {process.returncode}"
        try:
            # Short timeout: a request that lands while the server is still booting can be
            # accepted and then never answered; a fresh one a moment later is.
            if http_json("GET", f"{base_url}/global/health", timeout=2).get("healthy"):
                return None
        except (OSError, ValueError, HttpStatusError) as exc:
            last = str(exc)
        time.sleep(0.2)
    return f"did not answer within {START_TIMEOUT} s ({last})"


@dataclass(frozen=True)
class OpencodeServer:
    """What the ``opencode_server`` fixture yields."""

    url: str
    version: str
    directory: Path  # the project directory the server runs in

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One bounded JSON call to the server, e.g. ``request("POST", "/session", {})``."""
        return http_json(method, self.url + path, body)


@pytest.fixture(scope="session")
def opencode_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpencodeServer]:
    """A real ``opencode serve --hostname 127.0.0.1 --port N``, stopped after the session."""
    binary = find_binary("opencode")
    if binary is None:
        pytest.skip(
            f"opencode not found in {tools_dir()}/node_modules/.bin or PATH; {INSTALL_HINT}"
        )
    version = binary_version(binary)
    if version is None:
        pytest.skip(f"{binary} --version does not run (no native build for this platform?)")
    root = tmp_path_factory.mktemp("opencode")
    project = root / "project"
    project.mkdir()
    port = free_port()
    log = root / "server.log"
    argv = [str(binary), "serve", "--pure", "--hostname", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            cwd=project,
            env=opencode_env(root),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: teardown ends it and its children
        )
    try:
        url = f"http://127.0.0.1:{port}"
        problem = wait_until_healthy(process, url)
        if problem is not None:
            pytest.skip(
                f"opencode {version} serve could not be started: {problem}; "
                f"log: {log_tail(log) or '(empty)'}"
            )
        yield OpencodeServer(url=url, version=version, directory=project)
    finally:
        stop_process(process)


# ---------------------------------------------------------------------------------------------
# claude code


CLAUDE_TIMEOUT = 60  # seconds for one `claude --print` run


@dataclass(frozen=True)
class ClaudeCli:
    """What the ``claude_cli`` fixture yields."""

    path: Path
    version: str

    def print_with_prompt_file(
        self, prompt_file: Path, base_url: str, workdir: Path, message: str = "ping"
    ) -> subprocess.CompletedProcess[str]:
        """``claude --print --append-system-prompt-file <prompt_file> <message>`` in ``workdir``,
        against the Messages API at ``base_url``, with a throw-away HOME."""
        workdir.mkdir(parents=True, exist_ok=True)
        argv = [str(self.path), "--print", "--append-system-prompt-file", str(prompt_file), message]
        return subprocess.run(
            argv,
            cwd=workdir,
            env=claude_env(workdir / "home", base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CLAUDE_TIMEOUT,
        )


@pytest.fixture(scope="session")
def claude_cli() -> ClaudeCli:
    """The real ``claude`` binary, or a skip saying why there is none."""
    binary = find_binary("claude")
    if binary is None:
        pytest.skip(f"claude not found in {tools_dir()}/node_modules/.bin or PATH; {INSTALL_HINT}")
    version = binary_version(binary)
    if version is None:
        pytest.skip(f"{binary} --version does not run (no native build for this platform?)")
    return ClaudeCli(path=binary, version=version)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON


@dataclass
class FakeAnthropic:
    """What the ``fake_anthropic`` fixture yields: its base URL and every request it saw."""

    url: str
    requests: list[RecordedRequest] = field(default_factory=list)
    reply: str = "pong"

    def message_requests(self) -> list[RecordedRequest]:
        """POSTs to the Messages API itself (``/v1/messages``, with or without ``?beta=true``)."""
        return [
            r
            for r in self.requests
            if r.method == "POST" and r.path.split("?", 1)[0] == "/v1/messages"
        ]


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode("utf-8")


def fake_message(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "msg_hotplex_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def fake_stream(model: str, text: str) -> bytes:
    """The SSE event sequence of one complete text reply."""
    start = fake_message(model, "")
    start.update(content=[], stop_reason=None)
    return _sse(
        [
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
            {"type": "message_stop"},
        ]
    )


def _handler_for(fake: FakeAnthropic, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _record(self) -> Any:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
            with lock:
                fake.requests.append(
                    RecordedRequest(self.command, self.path, dict(self.headers), body)
                )
            return body

        def _send(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _not_found(self) -> None:
            error = {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
            self._send(404, json.dumps(error).encode(), "application/json")

        def do_GET(self) -> None:
            self._record()
            self._not_found()

        def do_POST(self) -> None:
            body = self._record()
            route = self.path.split("?", 1)[0]
            if route == "/v1/messages/count_tokens":
                self._send(200, b'{"input_tokens": 1}', "application/json")
            elif route == "/v1/messages" and isinstance(body, dict):
                model = str(body.get("model", "claude"))
                if body.get("stream"):
                    self._send(200, fake_stream(model, fake.reply), "text/event-stream")
                else:
                    data = json.dumps(fake_message(model, fake.reply)).encode()
                    self._send(200, data, "application/json")
            else:
                self._not_found()

    return Handler


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A threaded fake of the Anthropic Messages API on 127.0.0.1, recording every request.

    Answers ``POST /v1/messages`` (streaming SSE or plain JSON, as asked) with one text block
    and ``end_turn``, ``POST /v1/messages/count_tokens`` with a count, anything else with 404.
    """
    fake = FakeAnthropic(url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(fake, threading.Lock()))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    serve = {"poll_interval": 0.05}  # quick shutdown
    thread = threading.Thread(target=server.serve_forever, kwargs=serve, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=STOP_TIMEOUT)


def claude_env(home: Path, base_url: str) -> dict[str, str]:
    """Temporary HOME/config, a dummy key, and all non-essential traffic turned off."""
    home.mkdir(parents=True, exist_ok=True)
    return base_env(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-hotplex-dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )


# ---------------------------------------------------------------------------------------------
# artifacts from the real compiler


@dataclass(frozen=True)
class Artifact:
    """One entry of ``hotplex build --json``, with ``path`` made absolute."""

    target: str
    worker: str
    platform: str | None
    path: Path
    entry: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.entry.get("path", self.path.name))


@dataclass(frozen=True)
class ExampleBuild:
    project: Path
    artifacts: list[Artifact]
    problem: str | None = None  # why the build could not be used; tests fail with it


def build_example(workdir: Path) -> ExampleBuild:
    """Copy ``examples/basic`` into ``workdir`` and run ``hotplex -C <copy> build --json``."""
    project = workdir / "basic"
    if not EXAMPLE.is_dir():
        return ExampleBuild(project, [], f"example project missing: {EXAMPLE}")
    if not HOTPLEX.exists():
        return ExampleBuild(project, [], f"hotplex command missing: {HOTPLEX} (pip install -e .)")
    shutil.copytree(EXAMPLE, project)
    argv = [str(HOTPLEX), "-C", str(project), "build", "--json"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return ExampleBuild(project, [], f"{' '.join(argv)} took over {BUILD_TIMEOUT} s")
    return parse_build(project, argv, done)


def parse_build(
    project: Path, argv: list[str], done: subprocess.CompletedProcess[str]
) -> ExampleBuild:
    command = " ".join(argv)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return ExampleBuild(
            project,
            [],
            f"{command} exited {done.returncode} without JSON "
            f"on stdout; stderr: {done.stderr.strip()[-1500:]}",
        )
    if done.returncode != 0 or report.get("errors"):
        return ExampleBuild(
            project,
            [],
            f"{command} exited {done.returncode}; errors: "
            f"{report.get('errors')}; stderr: {done.stderr[-1500:]}",
        )
    artifacts = [
        Artifact(
            target=str(entry.get("target")),
            worker=str(entry.get("worker")),
            platform=entry.get("platform"),
            path=project / entry["path"],
            entry=entry,
        )
        for entry in report.get("artifacts", [])
    ]
    return ExampleBuild(project, artifacts)


# Artifacts are enumerated at collection time so each one becomes its own test case. The build
# runs once per pytest session, only when a test asks for one of these parameters.
ARTIFACT_PARAMS = {
    "opencode_payload": ("opencode-server", "payload.json"),
    "claude_prompt": ("claude-code", "prompt.xml"),
}


def _session_build(config: pytest.Config) -> ExampleBuild:
    cached = getattr(config, "_hotplex_example_build", None)
    if cached is None:
        workdir = Path(tempfile.mkdtemp(prefix="hotplex-integration-"))
        config.add_cleanup(lambda: shutil.rmtree(workdir, ignore_errors=True))
        cached = build_example(workdir)
        config._hotplex_example_build = cached  # type: ignore[attr-defined]
    return cached


def _artifact_params(build: ExampleBuild, worker: str, filename: str) -> list[Any]:
    if build.problem is not None:
        return [pytest.param(build.problem, id="build-failed")]
    chosen = [a for a in build.artifacts if a.worker == worker and a.path.name == filename]
    if not chosen:
        found = [a.entry.get("path") for a in build.artifacts]
        problem = f"{EXAMPLE} built no {worker} {filename} artifact; built: {found}"
        return [pytest.param(problem, id="no-artifact")]
    return [pytest.param(a, id=a.id) for a in chosen]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, (worker, filename) in ARTIFACT_PARAMS.items():
        if name in metafunc.fixturenames:
            build = _session_build(metafunc.config)
            params = _artifact_params(build, worker, filename)
            metafunc.parametrize(name, params, indirect=True)


def _require_artifact(value: Artifact | str) -> Artifact:
    """A parametrised artifact, or fail the test with the reason there is none."""
    if isinstance(value, str):
        pytest.fail(value, pytrace=False)
    assert value.path.is_file(), f"artifact listed but not written: {value.path}"
    return value


@pytest.fixture
def opencode_payload(request: pytest.FixtureRequest) -> Artifact:
    """Each ``opencode-server`` ``payload.json`` built from examples/basic (parametrised)."""
    return _require_artifact(request.param)


@pytest.fixture
def claude_prompt(request: pytest.FixtureRequest) -> Artifact:
    """Each ``claude-code`` ``prompt.xml`` built from examples/basic (parametrised)."""
    return _require_artifact(request.param)
