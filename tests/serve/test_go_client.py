"""The Go client example (``examples/go-client``, standard library only) against a real server,
over TCP and over a Unix socket: the gateway's calls, as the serve guide (docs/pages/guides/serve.md) shows them with curl.

Needs ``go`` (Debian's ``golang-go``; ``.ci/run`` installs it): skipped with the reason where it
is missing, failed in CI (``CI=true``), where nothing may skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hotplex import Project
from hotplex_testing import EXAMPLES, benchmark

GO_CLIENT = EXAMPLES / "go-client"
GO_TIMEOUT = 300  # seconds for `go build` on a cold cache
RUN_TIMEOUT = 60  # seconds for the client's calls, its wait for a change included


def go_binary() -> str:
    found = shutil.which("go")
    if found is None:
        reason = "go not found on PATH (Debian: apt-get install golang-go; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI runs every test", pytrace=False)
        pytest.skip(reason)
    return found


def go(*args: str, cwd: Path = GO_CLIENT) -> str:
    # Standard library only: nothing to download (GOPROXY=off), whichever Go this is, and no C
    # compiler needed (CGO_ENABLED=0: the pure-Go resolver serves loopback).
    env = {**os.environ, "GOPROXY": "off", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
    if not (env.get("HOME") or env.get("XDG_CACHE_HOME") or env.get("GOCACHE")):
        env["GOCACHE"] = str(Path(os.environ.get("TMPDIR", "/tmp")) / "hotplex-go-cache")
    done = subprocess.run(
        [go_binary(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GO_TIMEOUT
    )
    assert done.returncode == 0, f"go {' '.join(args)}:\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Path:
    """The example built; ``gofmt`` and ``go vet`` have nothing to say about it."""
    binary = tmp_path_factory.mktemp("go-client") / "hotplex-go-client"
    go("build", "-o", str(binary), ".")
    outside = go("list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
    assert outside.split() == ["example.com/hotplex-go-client"]  # the standard library only
    go("vet", ".")
    gofmt = Path(go_binary()).resolve().parent / "gofmt"
    unformatted = subprocess.run(
        [str(gofmt), "-l", "."], cwd=GO_CLIENT, capture_output=True, text=True, check=True
    ).stdout
    assert unformatted == "", f"gofmt would change: {unformatted}"
    return binary


def test_the_go_client_makes_a_gateways_calls(client, example_copy):
    reload_run = benchmark("serve_reload")
    project = example_copy("basic")
    soul = project / "agent-configs" / "SOUL.md"
    before = reload_run.set_digest(Project.load(project).compile("cc", "slack").files)
    with reload_run.serving(project) as server:
        argv = [str(client), "-server", server.url(), "-target", "cc", "-platform", "slack"]
        process = subprocess.Popen(
            [*argv, "-wait", f"{RUN_TIMEOUT}s"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        lines = []
        for line in process.stdout:  # each line once printed: the client waits on its own
            lines.append(line.rstrip("\n"))
            if line.startswith("waiting for a change"):
                reload_run.save_atomically(soul, soul.read_text() + "\n- Be brief.\n")
        _, err = process.communicate(timeout=RUN_TIMEOUT)
    after = reload_run.set_digest(Project.load(project).compile("cc", "slack").files)

    assert process.returncode == 0, err
    assert lines == [
        "jobs: cc cc/slack cc/feishu ocs ocs/slack ocs/feishu",
        lines[1],
        "unchanged: 304 Not Modified",
        "waiting for a change ...",
        lines[4],
        lines[5],
        "check: ok false, 1 finding(s)",
        "  overlay:MEMORY.md:5:23 injection image-url-data (error)",
        "compile with block: blocked 1, placeholder shown: true",
    ]
    assert re.fullmatch(rf'artifact: dist/cc/slack/prompt.xml \d+ bytes, etag "{before}"', lines[1])
    assert re.fullmatch(rf'changed: dist/cc/slack/prompt.xml \d+ bytes, etag "{after}"', lines[4])
    assert re.fullmatch(r"compile: \d+ bytes, has the user's memory: true", lines[5])


def test_the_go_client_talks_to_a_unix_socket_with_a_token(client, example_copy, tmp_path):
    reload_run = benchmark("serve_reload")
    project = example_copy("basic")
    socket = tmp_path / "hotplex.sock"
    token = tmp_path / "token"
    token.write_text("go-client-test-token-0123456789\n")
    with reload_run.serving(project, unix=socket, token=token.read_text().strip()):
        refused = subprocess.run(
            [str(client), "-unix", str(socket)], capture_output=True, text=True, timeout=RUN_TIMEOUT
        )
        where = ["-unix", str(socket), "-token-file", str(token)]
        done = subprocess.run(
            [str(client), *where, "-target", "ocs", "-platform", "feishu"],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    assert refused.returncode == 1
    assert refused.stderr.startswith("hotplex-go-client: jobs: 401 Unauthorized: this server needs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("artifact: dist/ocs/feishu/payload.json ")
