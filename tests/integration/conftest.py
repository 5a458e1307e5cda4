"""Fixtures that drive the real external components the artifacts are written for.

- ``opencode_server``: a real ``opencode serve`` (npm ``opencode-ai``) on 127.0.0.1.
- ``claude_cli``: the real ``claude`` binary (npm ``@anthropic-ai/claude-code``).
- ``codex_cli`` / ``gemini_cli``: the real ``codex`` (npm ``@openai/codex``) and ``gemini``
  (npm ``@google/gemini-cli``), started as a built ``launch.json`` says (``Cli.launch``);
  ``pi_cli``, ``copilot_cli``, ``cline_cli`` likewise (npm ``@mariozechner/pi-coding-agent``,
  ``@github/copilot``, ``cline``), and ``droid_cli`` (npm ``@factory/cli-linux-x64``).
- ``fake_anthropic``: a minimal Anthropic Messages API on 127.0.0.1 that records every request;
  the fake APIs themselves are in ``fake_api.py``, and ``live.py`` runs a built ``launch.json``
  against one (``LiveCase``, ``run_live``).
- ``opencode_payload`` / ``claude_prompt``: parametrised over every artifact that
  ``hotplex -C <copy of examples/basic> build --json`` produces for that worker;
  ``codex_prompt`` / ``gemini_prompt`` (``pi_prompt``, ``copilot_prompt``, ``cline_prompt``)
  likewise for ``examples/coding-agents``.

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
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_api import FakeAnthropic, running

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
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
    """``$HOTPLEX_TOOLS/node_modules/.bin/<name>``, else ``$HOTPLEX_TOOLS/<name>/bin/<name>`` (a
    Python program in a virtual environment of its own: aider), else ``<name>`` on PATH, else
    None."""
    for local in (tools_dir() / "node_modules/.bin" / name, tools_dir() / name / "bin" / name):
        if local.is_file() and os.access(local, os.X_OK):
            return local
    found = shutil.which(name)
    return Path(found) if found else None


def binary_version(binary: Path, env: dict[str, str] | None = None) -> str | None:
    """First line of ``<binary> --version`` (on stdout, else stderr: Pi's), or None when it does
    not run."""
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
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


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A threaded fake of the Anthropic Messages API on 127.0.0.1, recording every request."""
    with running(FakeAnthropic()) as fake:
        yield fake  # type: ignore[misc]


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
# codex and gemini: CLIs started the way their launch.json says


CLI_TIMEOUT = 90  # seconds for one non-interactive run of codex or gemini


@dataclass(frozen=True)
class Cli:
    """An installed CLI (``codex_cli``, ``gemini_cli``) that runs a built ``launch.json``."""

    name: str
    path: Path
    version: str
    search_path: str | None = None  # the PATH it needs (node 22 first, for qwen)

    def launch(
        self, artifact: Artifact, args: list[str], env: dict[str, str], home: Path
    ) -> subprocess.CompletedProcess[str]:
        """Start the CLI as ``launch.json`` beside ``artifact`` says (argv, env, cwd relative to
        the project), with what a gateway adds on top: ``args`` after the argv, ``env`` (the
        provider and a dummy key) and a throw-away HOME."""
        spec = json.loads((artifact.path.parent / "launch.json").read_text(encoding="utf-8"))
        assert spec["argv"][0] == self.name, f"launch.json starts {spec['argv'][0]!r}"
        home.mkdir(parents=True, exist_ok=True)
        return subprocess.run(
            [str(self.path), *spec["argv"][1:], *args],
            cwd=artifact.project / spec["cwd"],
            env=base_env(HOME=str(home), **self.runtime(), **spec.get("env", {}), **env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
        )

    def runtime(self) -> dict[str, str]:
        return {} if self.search_path is None else {"PATH": self.search_path}


def installed_cli(name: str, node: Path | None = None) -> Cli:
    """The real ``name`` binary, or a skip saying why there is none; run by the ``node`` binary
    given (first on its PATH) instead of the machine's."""
    binary = find_binary(name)
    if binary is None:
        pytest.skip(f"{name} not found in {tools_dir()} or PATH; {INSTALL_HINT}")
    cli = Cli(name=name, path=binary, version="")
    if node is not None:
        if not node.is_file():
            pytest.skip(f"{name} needs {node} (npm's node package); {INSTALL_HINT}")
        cli = Cli(name, binary, "", f"{node.parent}{os.pathsep}{base_env()['PATH']}")
    version = binary_version(binary, base_env(**cli.runtime()))
    if version is None:
        pytest.skip(f"{binary} --version does not run (no native build for this platform?)")
    return Cli(name, binary, version, cli.search_path)


@pytest.fixture(scope="session")
def codex_cli() -> Cli:
    """The real ``codex`` (npm ``@openai/codex``)."""
    return installed_cli("codex")


@pytest.fixture(scope="session")
def pi_cli() -> Cli:
    """The real ``pi`` (npm ``@mariozechner/pi-coding-agent``)."""
    return installed_cli("pi")


@pytest.fixture(scope="session")
def copilot_cli() -> Cli:
    """The real ``copilot`` (npm ``@github/copilot``)."""
    return installed_cli("copilot")


@pytest.fixture(scope="session")
def cline_cli() -> Cli:
    """The real ``cline`` (npm ``cline``)."""
    return installed_cli("cline")


@pytest.fixture(scope="session")
def gemini_cli() -> Cli:
    """The real ``gemini`` (npm ``@google/gemini-cli``)."""
    return installed_cli("gemini")


@pytest.fixture(scope="session")
def qwen_cli() -> Cli:
    """The real ``qwen`` (npm ``@qwen-code/qwen-code``), run by npm's node 22."""
    return installed_cli("qwen", node=tools_dir() / "node22/node_modules/.bin/node")


@pytest.fixture(scope="session")
def openclaw_cli() -> Cli:
    """The real ``openclaw`` (npm ``openclaw``, in a prefix of its own), run by npm's node 24."""
    return installed_cli("openclaw", node=tools_dir() / "node24/node_modules/.bin/node")


@pytest.fixture(scope="session")
def kilo_cli() -> Cli:
    """The real ``kilo`` (npm ``@kilocode/cli``)."""
    return installed_cli("kilo")


@pytest.fixture(scope="session")
def aider_cli() -> Cli:
    """The real ``aider`` (PyPI ``aider-chat``, in its own virtual environment)."""
    return installed_cli("aider")


@pytest.fixture(scope="session")
def droid_cli() -> Cli:
    """The real ``droid`` (npm ``@factory/cli-linux-x64``, linked as ``droid/bin/droid``)."""
    return installed_cli("droid")


@pytest.fixture(scope="session")
def continue_cli() -> Cli:
    """The real ``cn`` (npm ``@continuedev/cli``)."""
    return installed_cli("cn")


@pytest.fixture(scope="session")
def vibe_cli() -> Cli:
    """The real ``vibe`` (PyPI ``mistral-vibe``, in its own virtual environment)."""
    return installed_cli("vibe")


@pytest.fixture(scope="session")
def hermes_cli() -> Cli:
    """The real ``hermes`` (PyPI ``hermes-agent``, in its own virtual environment)."""
    return installed_cli("hermes")


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
    project: Path  # the project folder it was built in

    @property
    def id(self) -> str:
        return str(self.entry.get("path", self.path.name))


@dataclass(frozen=True)
class ExampleBuild:
    project: Path
    artifacts: list[Artifact]
    problem: str | None = None  # why the build could not be used; tests fail with it


def build_example(workdir: Path, name: str = "basic") -> ExampleBuild:
    """Copy ``examples/<name>`` into ``workdir`` and run ``hotplex -C <copy> build --json``."""
    example = EXAMPLES / name
    project = workdir / name
    if not example.is_dir():
        return ExampleBuild(project, [], f"example project missing: {example}")
    shutil.copytree(example, project, ignore=shutil.ignore_patterns("dist", ".hotplex"))
    return build_project(project)


def build_project(project: Path) -> ExampleBuild:
    """``hotplex -C <project> build --json``, its artifacts or why there are none."""
    if not HOTPLEX.exists():
        return ExampleBuild(project, [], f"hotplex command missing: {HOTPLEX} (pip install -e .)")
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
            project=project,
        )
        for entry in report.get("artifacts", [])
    ]
    return ExampleBuild(project, artifacts)


# Artifacts are enumerated at collection time so each one becomes its own test case. The build
# runs once per pytest session, only when a test asks for one of these parameters.
ARTIFACT_PARAMS = {
    "opencode_payload": ("basic", "opencode-server", "payload.json"),
    "claude_prompt": ("basic", "claude-code", "prompt.xml"),
    "pi_prompt": ("coding-agents", "pi", "prompt.xml"),
    "copilot_prompt": ("coding-agents", "copilot-cli", "prompt.xml"),
    "cline_prompt": ("coding-agents", "cline", "prompt.xml"),
    "codex_prompt": ("coding-agents", "codex", "prompt.xml"),
    "gemini_prompt": ("coding-agents", "gemini-cli", "prompt.xml"),
    "qwen_prompt": ("coding-agents", "qwen-code", "prompt.xml"),
    "kilo_prompt": ("coding-agents", "kilo", "prompt.xml"),
    "aider_prompt": ("coding-agents", "aider", "prompt.xml"),
    "continue_prompt": ("coding-agents", "continue-cli", "prompt.xml"),
    "vibe_prompt": ("coding-agents", "mistral-vibe", "prompt.xml"),
    "droid_prompt": ("coding-agents", "droid", "prompt.xml"),
}


def _session_build(config: pytest.Config, example: str) -> ExampleBuild:
    """One build per example and pytest session (each test gets its artifacts by parameter)."""
    builds = config.__dict__.setdefault("_hotplex_example_builds", {})
    if example not in builds:
        workdir = Path(tempfile.mkdtemp(prefix="hotplex-integration-"))
        config.add_cleanup(lambda: shutil.rmtree(workdir, ignore_errors=True))
        builds[example] = build_example(workdir, example)
    return builds[example]


def _artifact_params(build: ExampleBuild, worker: str, filename: str) -> list[Any]:
    if build.problem is not None:
        return [pytest.param(build.problem, id="build-failed")]
    chosen = [a for a in build.artifacts if a.worker == worker and a.path.name == filename]
    if not chosen:
        found = [a.entry.get("path") for a in build.artifacts]
        problem = f"{build.project.name} built no {worker} {filename} artifact; built: {found}"
        return [pytest.param(problem, id="no-artifact")]
    return [pytest.param(a, id=a.id) for a in chosen]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, (example, worker, filename) in ARTIFACT_PARAMS.items():
        if name in metafunc.fixturenames:
            build = _session_build(metafunc.config, example)
            params = _artifact_params(build, worker, filename)
            metafunc.parametrize(name, params, indirect=True)


def _require_artifact(value: Artifact | str) -> Artifact:
    """A parametrised artifact, or fail the test with the reason there is none."""
    if isinstance(value, str):
        pytest.fail(value, pytrace=False)
    assert value.path.is_file(), f"artifact listed but not written: {value.path}"
    return value


def _artifact_fixture(name: str, example: str, worker: str, filename: str):
    """The fixture ``name``: each ``worker`` ``filename`` built from examples/``example``."""

    def fixture(request: pytest.FixtureRequest) -> Artifact:
        return _require_artifact(request.param)

    fixture.__doc__ = f"Each ``{worker}`` ``{filename}`` built from examples/{example}."
    return pytest.fixture(name=name)(fixture)


# opencode_payload, claude_prompt, codex_prompt, gemini_prompt, qwen_prompt, kilo_prompt, ...
for _name, _params in ARTIFACT_PARAMS.items():
    globals()[_name] = _artifact_fixture(_name, *_params)


# ---------------------------------------------------------------------------------------------
# a project whose sources hold what a CLI could change on the way


TRICKY_MANIFEST = """\
[project]
name = "tricky"

[metacognition]
enabled = false

[[target]]
name = "codex"
worker = "codex"

[[target]]
name = "gemini"
worker = "gemini-cli"
"""
# SOUL.md as a Windows editor saves it (BOM, CRLF), AGENTS.md with LF; blank-line runs in both.
TRICKY_SOURCES = {
    "SOUL.md": "\ufeffAsk @alice before you merge.\r\n"
    "Read @README.md and @./docs/adr first; mail user@example.com.\r\n\r\n\r\n\r\n"
    "中文：保持简洁，先说结论。 Emoji: 🎉 👩\u200d💻\r\n"
    "`@inline` code and an indented line:\r\n    @decorator\r\n",
    "AGENTS.md": "Rules\n\n\n\n\nOwner: @bob\t@carol\n```\n@Fenced()\n```\n"
    "Notes:\u00a0@notes.md stay text.\n",  # Gemini's import scanner takes no NBSP for a blank
}
# What the artifact must hold as written (hotplex turns CRLF into LF and drops the BOM).
TRICKY_TEXT = (
    "Ask @alice before you merge.\nRead @README.md and @./docs/adr first; mail user@example.com.",
    "中文：保持简洁，先说结论。 Emoji: 🎉 👩\u200d💻",
    "`@inline` code and an indented line:\n    @decorator",
    "Owner: @bob\t@carol",
    "```\n@Fenced()\n```",
    "Notes:\u00a0@notes.md stay text.",
)
# Files an import of @README.md or @alice would pull in, so a leak would show in the request.
IMPORT_BAIT = {
    "README.md": "IMPORTED-README-7f3a\n",
    "alice": "IMPORTED-ALICE-7f3a\n",
    "notes.md": "IMPORTED-NOTES-7f3a\n",
}


@dataclass(frozen=True)
class TrickyBuild:
    build: ExampleBuild
    expected_text: tuple[str, ...] = TRICKY_TEXT
    bait: tuple[tuple[str, str], ...] = tuple(IMPORT_BAIT.items())  # (file name, text)

    def artifact(self, target: str, filename: str) -> Artifact:
        if self.build.problem is not None:
            pytest.fail(self.build.problem, pytrace=False)
        found = [
            a
            for a in self.build.artifacts
            if a.target == target and a.platform is None and a.path.name == filename
        ]
        assert len(found) == 1, f"no {target} {filename}; built {self.build.artifacts}"
        return _require_artifact(found[0])


@pytest.fixture
def tricky_build(tmp_path: Path) -> TrickyBuild:
    """A built project (codex and gemini-cli targets) whose sources hold ``@alice``,
    ``@README.md``, ``user@example.com``, CJK, emoji, CRLF and blank-line runs; the files an
    import would read lie in the project root."""
    project = tmp_path / "tricky"
    sources = project / "agent-configs"
    sources.mkdir(parents=True)
    (project / "hotplex.toml").write_text(TRICKY_MANIFEST, encoding="utf-8")
    for name, text in TRICKY_SOURCES.items():
        (sources / name).write_bytes(text.encode("utf-8"))
    for name, text in IMPORT_BAIT.items():
        (project / name).write_text(text, encoding="utf-8")
    return TrickyBuild(build_project(project))
