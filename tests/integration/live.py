"""Running a built artifact's program for real against a fake API: what every live test of a
worker does, so that its test file holds only what is particular to its program.

A ``LiveCase`` says what a gateway adds to ``launch.json`` for one program (arguments for a
headless run, environment, files in the home it points at) and which fake API it speaks;
``run_live`` builds nothing: it starts the fake, runs the program as the artifact's
``launch.json`` says with those additions, checks that it finished against the fake, and returns
the model requests it sent.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from conftest import (
    HOTPLEX,
    build_project,
    free_port,
    http_json,
    stop_process,
    wait_until_healthy,
)
from fake_api import FakeApi, RecordedRequest, running


@dataclass(frozen=True)
class LiveCase:
    """What a gateway adds to one program's ``launch.json``, and the API it talks to."""

    fake: Callable[[], FakeApi]
    args: Callable[[str], list[str]]  # the fake's URL -> arguments after launch.json's argv
    env: Callable[[str], dict[str, str]]  # the fake's URL -> variables (provider, dummy key)
    model_route: str  # the suffix of the route the conversation's requests go to
    # The gateway's own set-up against the fake, given the CLI, the artifact, the fake's URL and
    # the throw-away HOME: its provider settings written, or one run of the program (Cline's
    # ``auth``); returns variables to add.
    prepare: Callable[..., dict[str, str]] | None = None
    home_variable: str | None = None  # the variable launch.json points at the program's home
    home_files: dict[str, str] = field(default_factory=dict)  # written there (settings)
    banner: bool = False  # stdout holds more than the reply (Aider's banner and token counts)


def home_of(artifact, variable: str) -> Path:
    """The home folder the artifact's ``launch.json`` gives the program."""
    launch = json.loads((artifact.path.parent / "launch.json").read_text(encoding="utf-8"))
    return artifact.project / launch["cwd"] / launch["env"][variable]


def config_in_home(variable: str, name: str, text: Callable[[str], str]) -> Callable[..., dict]:
    """A ``prepare`` writing the gateway's provider config ``name``, ``text`` of the fake's URL,
    into the home the artifact's ``launch.json`` names by ``variable`` (Continue's config.yaml,
    Vibe's config.toml)."""

    def prepare(cli, artifact, url: str, home: Path) -> dict[str, str]:
        (home_of(artifact, variable) / name).write_text(text(url), encoding="utf-8")
        return {}

    return prepare


def run_live(
    case: LiveCase, cli, artifact, tmp_path: Path, extra: dict[str, str] | None = None
) -> tuple[FakeApi, list[RecordedRequest]]:
    """Run ``cli`` as ``artifact``'s ``launch.json`` says, against a fresh fake; ``extra`` files
    go into the home too. The fake (every request) and the conversation's requests."""
    if case.home_variable is not None:
        home = home_of(artifact, case.home_variable)
        for name, text in {**case.home_files, **(extra or {})}.items():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text(text, encoding="utf-8")
    with running(case.fake()) as fake:
        env = case.env(fake.url)
        if case.prepare is not None:
            env |= case.prepare(cli, artifact, fake.url, tmp_path / "home")
        done = cli.launch(artifact, case.args(fake.url), env, tmp_path / "home")
    assert done.returncode == 0, f"{cli.name} exited {done.returncode}: {done.stderr[-2000:]}"
    replied = done.stdout.split() if case.banner else [done.stdout.strip()]
    assert fake.reply in replied, done.stdout[-2000:]  # it finished against the fake
    requests = [r for r in fake.requests if r.route.endswith(case.model_route)]
    assert requests, f"no {case.model_route}; saw {[r.path for r in fake.requests]}"
    return fake, requests


def built_in_session(project: Path, manifest: str, cwd: str, warning: str, warned: bool):
    """``manifest`` with ``cwd = "<cwd>"`` on its last target, built (its session folder made
    beside the project): ``warning`` is among the build's warnings exactly when ``warned``.
    The ``prompt.xml`` artifact."""
    (project / "hotplex.toml").write_text(manifest + f'cwd = "{cwd}"\n', encoding="utf-8")
    (project.parent / "session").mkdir(exist_ok=True)
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(project), "build"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert (warning in done.stderr) is warned, done.stderr
    (artifact,) = [a for a in build_project(project).artifacts if a.path.name == "prompt.xml"]
    return artifact


def chat_system(request: RecordedRequest) -> str:
    """The text of a Chat Completions request's system messages, joined by line feeds."""
    texts = []
    for message in request.body["messages"]:
        if message["role"] == "system":
            content = message["content"]
            texts += [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return "\n".join(texts)


def assert_only_in_system(request: RecordedRequest) -> None:
    """No message but a system one carries the document."""
    for message in request.body["messages"]:
        if message["role"] != "system":
            assert "<agent-configuration>" not in json.dumps(message), f"in a {message['role']}"


def opencode_message(binary: Path, cwd: Path, env: dict[str, str], url: str, body: dict) -> None:
    """What a gateway does with an ``opencode-server`` artifact: ``opencode serve`` in the
    session folder ``cwd`` with launch.json's ``env``, its provider ``fake`` (model ``m``) at
    the fake API's ``url``, and one message, the built ``body`` with a ``ping``; its state
    under ``cwd``'s throw-away ``root`` (``env``'s HOME and XDG folders are made there)."""
    config = Path(env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    provider = {"baseURL": f"{url}/v1", "apiKey": "dummy"}
    fake = {"npm": "@ai-sdk/openai-compatible", "options": provider, "models": {"m": {}}}
    config.write_text(json.dumps({"provider": {"fake": fake}}), encoding="utf-8")
    port = free_port()
    process = subprocess.Popen(
        [str(binary), "serve", "--pure", "--hostname", "127.0.0.1", "--port", str(port)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        served = f"http://127.0.0.1:{port}"
        assert wait_until_healthy(process, served) is None
        session = http_json("POST", f"{served}/session", {})["id"]
        message = {
            **body,
            "parts": [{"type": "text", "text": "ping"}],
            "model": {"providerID": "fake", "modelID": "m"},
        }
        http_json("POST", f"{served}/session/{session}/message", message, timeout=90)
    finally:
        stop_process(process)
