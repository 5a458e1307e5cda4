"""``hotplex serve`` against what a mistaken or hostile client sends: keys given twice, numbers
Python will not read, too many files, megabyte keys quoted back, misspelt query parameters, a
trailing slash, a foreign ``Host``; and what the project on disk says meanwhile (its warnings,
a sources folder moved away)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
from pathlib import Path

import pytest
from hotplex_testing import REPO, copy_example
from serving import Server, running

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("requests"))
    with running(root) as started:
        yield started


def _problem(answer, status: int) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    return answer.json()


@pytest.mark.parametrize(
    ("route", "body", "key"),
    [
        (
            "/v1/check",
            '{"files": {"MEMORY.md": "- <|im_start|>x\\n", "MEMORY.md": "- ok\\n"}}',
            "MEMORY.md",
        ),
        ("/v1/compile", '{"target": "cc", "target": "nope"}', "target"),
        ("/v1/compile", '{"target": "cc", "overlay": {"USER.md": "a", "USER.md": "b"}}', "USER.md"),
    ],
)
def test_a_key_given_twice_is_refused_not_read_as_its_last(
    server: Server, route: str, body: str, key: str
) -> None:
    problem = _problem(server.client.post(route, content=body.encode()), 400)
    message = f"the key '{key}' is given twice in one object: which value is meant?"
    assert problem["detail"] == f"request body: {message}"


@pytest.mark.parametrize(
    ("route", "body", "detail"),
    [
        (
            "/v1/compile",
            '{"target": "cc", "platform": ' + "9" * 5000 + "}",
            "request body: platform: a number, not a string",
        ),
        (
            "/v1/compile",
            '{"target": "cc", "overlay": {"USER.md": ' + "9" * 5000 + "}}",
            "request body: overlay.USER.md: a number, not a string: give the file's text",
        ),
        (
            "/v1/check",
            '{"files": {"MEMORY.md": "x"}, "target": -' + "9" * 5000 + "}",
            "request body: target: a number, not a string",
        ),
    ],
)
def test_an_integer_of_thousands_of_digits_is_a_400(
    server: Server, route: str, body: str, detail: str
) -> None:
    assert _problem(server.client.post(route, content=body.encode()), 400)["detail"] == detail


def test_more_files_than_the_limit_are_refused_before_any_is_read(server: Server) -> None:
    many = {f"x{i}.md": "a" for i in range(1001)}
    for route, body in (
        ("/v1/compile", {"target": "cc", "overlay": many}),
        ("/v1/check", {"files": many}),
    ):
        problem = _problem(server.client.post(route, json=body), 400)
        key = next(k for k in body if k != "target")
        assert problem["detail"] == (
            f"request body: {key}: 1001 files: at most 1000 in one request"
        )
    at_limit = {f"x{i}.md": "a" for i in range(1000)}
    answer = server.client.post("/v1/compile", json={"target": "cc", "overlay": at_limit})
    assert "is not a file this project reads" in _problem(answer, 400)["detail"]


def test_a_skill_overlay_is_a_400_naming_its_key(server: Server) -> None:
    """An Agent Skill is the project's: a skill's file is no overlay key (adversary 8, H1: the
    second user was served the first user's overlaid skill, unscanned)."""
    secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    for who in ("alice", f"bob {secret}"):
        text = f"---\nname: s1\ndescription: skill of {who}\n---\nbody\n"
        answer = server.client.post(
            "/v1/compile", json={"target": "cc", "overlay": {"skills/s1/SKILL.md": text}}
        )
        (problem,) = _problem(answer, 400)["problems"]
        assert problem["place"] == "overlay:skills/s1/SKILL.md"
        assert problem["message"].startswith("a skill's files are not overlaid")
        assert secret not in answer.text


def test_an_error_quotes_a_megabyte_key_in_a_few_kilobytes(server: Server, hotplex) -> None:
    key = ("a" * 99 + "/") * 10_000 + "a"  # each name under the 255 bytes a disk takes
    answer = server.client.post("/v1/compile", json={"target": "cc", "overlay": {key: "x"}})
    problem = _problem(answer, 400)
    assert len(answer.content) < 10_000
    assert re.search(
        r"^overlay '[a/]+…\(\d+ more characters\)…[a/]+' is not a file this project reads$",
        problem["problems"][0]["message"],
    )
    one_name = "a" * 1_000_000  # refused for its length alone, and not echoed
    answer = server.client.post("/v1/compile", json={"target": "cc", "overlay": {one_name: "x"}})
    assert len(answer.content) < 10_000
    assert "no disk takes a name over 255 bytes" in _problem(answer, 400)["detail"]
    line = '{"target": "' + "c" * 1_000_000 + '" x}'
    answer = server.client.post("/v1/compile", content=line.encode())
    caret = _problem(answer, 400)["detail"].splitlines()
    assert len(answer.content) < 10_000
    assert caret[1].endswith('" x}') and caret[1].startswith("    …")
    assert caret[2].index("^") == caret[1].index('" x}') + 2  # under the 'x'


def test_the_cli_quotes_as_little(tmp_path: Path, hotplex) -> None:
    root = tmp_path / "basic"
    shutil.copytree(REPO / "examples/basic", root)
    manifest = root / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('"claude-code"', f'"{"a" * 100_000}"'), encoding="utf-8")
    result = hotplex("-C", str(root), "build")
    assert result.status == 2
    assert re.search(r"unknown worker 'a+…\(\d+ more characters\)…a+'", result.stderr)
    assert len(result.stderr) < 5_000


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        (
            "/v1/artifacts/cc?plaform=slack",
            "request: plaform: unknown query parameter\n  hint: did you mean 'platform'?",
        ),
        (
            "/v1/artifacts/cc?platform=slack&platform=feishu",
            "request: platform: given twice: which is meant?",
        ),
        (
            "/v1/jobs?target=cc",
            "request: target: unknown query parameter\n  hint: it takes none",
        ),
    ],
)
def test_a_query_parameter_a_route_does_not_take_is_400(
    server: Server, path: str, detail: str
) -> None:
    assert _problem(server.client.get(path), 400)["detail"] == detail


def test_a_trailing_slash_is_no_route_and_only_loopback_names_are_served(server: Server) -> None:
    slash = server.client.get("/v1/jobs/", headers={"Host": "127.0.0.1"})
    assert _problem(slash, 404)["detail"] == "no route /v1/jobs/"
    assert "location" not in slash.headers
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
        answer = server.client.get("/v1/artifacts/cc", headers={"Host": host})
        assert _problem(answer, 400)["detail"].startswith(f"request: Host: {host!r} names"), host
    for host in ("localhost", "LOCALHOST:1", "127.0.0.1:9", "[::1]", "[::1]:8765"):
        assert server.client.get("/v1/jobs", headers={"Host": host}).status_code == 200, host


def test_healthz_answers_any_host_and_query_and_two_hosts_are_refused(server: Server) -> None:
    for headers in ({"Host": "evil.example"}, {}):
        answer = server.client.get("/healthz?probe=1", headers=headers)
        assert (answer.status_code, answer.json()) == (200, {"status": "ok"})
    assert server.client.get("/v1/jobs", headers={"Host": "localhost."}).status_code == 200
    assert server.client.get("/v1/jobs", headers={"Host": "evil.example."}).status_code == 400
    address = server.url.removeprefix("http://").rpartition(":")
    for first, second in (("localhost", "evil.example"), ("localhost", "localhost")):
        request = f"GET /v1/jobs HTTP/1.1\r\nHost: {first}\r\nHost: {second}\r\n"
        with socket.create_connection((address[0], int(address[2]))) as sock:
            sock.sendall(f"{request}Connection: close\r\n\r\n".encode())
            head = sock.makefile("rb").readline()
        assert head.startswith(b"HTTP/1.1 400 "), head


def test_a_page_of_another_site_is_refused_and_loopback_pages_and_clients_are_not(
    server: Server,
) -> None:
    """Any page may POST here with no preflight (text/plain, no-cors) and its browser sends this
    server's own Host: the Origin says whose page it is (adversary10 D6)."""
    body = json.dumps({"target": "cc", "overlay": {"USER.md": "x\n"}})
    plain = {"Content-Type": "text/plain"}
    for origin in ("https://evil.example", "null", "http://localhost.evil.example", "file://"):
        answer = server.client.post(
            "/v1/compile", content=body, headers={**plain, "Origin": origin}
        )
        assert _problem(answer, 400)["detail"].startswith(f"request: Origin: {origin!r}: a request")
    assert (
        server.client.get("/v1/jobs", headers={"Origin": "https://evil.example"}).status_code == 400
    )
    for origin in ("http://localhost:3000", "https://127.0.0.1", "http://[::1]:8080", None):
        headers = plain if origin is None else {**plain, "Origin": origin}
        assert server.client.post("/v1/compile", content=body, headers=headers).status_code == 200
    assert (
        server.client.get("/healthz", headers={"Origin": "https://evil.example"}).status_code == 200
    )


def test_a_token_server_answers_any_host(tmp_path: Path) -> None:
    root = tmp_path / "basic"
    shutil.copytree(REPO / "examples/basic", root)
    token = "hotplex-test-token-0123456789abcdef"
    (root / "token").write_text(f"{token}\n", encoding="utf-8")
    with running(root, "--token-file", str(root / "token")) as server:
        answer = server.client.get(
            "/v1/jobs",
            headers={"Host": "hotplex.internal", "Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200
        address = server.url.removeprefix("http://").rpartition(":")
        with socket.create_connection((address[0], int(address[2]))) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
            assert sock.makefile("rb").readline().startswith(b"HTTP/1.1 400 ")


def test_artifacts_carry_the_warnings_build_prints(tmp_path: Path, hotplex) -> None:
    root = tmp_path / "basic"
    shutil.copytree(REPO / "examples/basic", root)
    with (root / "hotplex.toml").open("a", encoding="utf-8") as manifest:
        manifest.write('\n[memory]\nlogs = "memory/*.md"\n')
    days = root / "agent-configs/memory"
    days.mkdir()
    (days / "2026-11-29.md").write_text("- a day\n", encoding="utf-8")
    (days / "2026-02-30.md").write_text("- no day\n", encoding="utf-8")
    os.mkfifo(days / "2026-12-02.md")
    built = hotplex("-C", str(root), "build", "--json")
    printed = json.loads(built.stdout)["warnings"]
    assert any("2026-02-30.md" in w for w in printed) and any("FIFO" in w for w in printed)
    with running(root) as server:
        served = server.client.get("/v1/artifacts/cc").json()["warnings"]
        assert served == printed
        compiled = server.client.post(
            "/v1/compile", json={"target": "cc", "overlay": {"USER.md": "# Alice\n"}}
        )
        assert compiled.json()["warnings"] == printed


def test_a_sources_folder_moved_away_is_a_broken_project(tmp_path: Path, hotplex) -> None:
    root = tmp_path / "basic"
    shutil.copytree(REPO / "examples/basic", root)
    with running(root) as server:
        first = server.client.get("/v1/artifacts/cc")
        (root / "agent-configs").rename(root / "moved")
        cli = hotplex("-C", str(root), "check")
        assert cli.status == 2
        stale = server.client.get("/v1/artifacts/cc")
        assert stale.headers["hotplex-stale"] == "true"
        assert (stale.content, stale.headers["etag"]) == (first.content, first.headers["etag"])
        ready = _problem(server.client.get("/readyz"), 503)
        assert ready["detail"] == cli.stderr.rstrip("\n")
        compiled = server.client.post("/v1/compile", json={"target": "cc"})
        assert _problem(compiled, 503)["detail"] == ready["detail"]
        (root / "moved").rename(root / "agent-configs")
        fixed = server.client.get("/v1/artifacts/cc")
        assert fixed.content == first.content and "hotplex-stale" not in fixed.headers
        assert server.client.get("/readyz").status_code == 200


def test_a_sources_folder_swapped_for_a_symlink_out_is_refused_as_the_cli_does(
    tmp_path: Path, hotplex
) -> None:
    root = tmp_path / "basic"
    shutil.copytree(REPO / "examples/basic", root)
    with running(root) as server:
        first = server.client.get("/v1/artifacts/cc")
        (root / "agent-configs").rename(tmp_path / "outside")
        (root / "agent-configs").symlink_to(tmp_path / "outside")  # the same files
        cli = hotplex("-C", str(root), "check")
        assert cli.status == 2
        assert cli.stderr.startswith("hotplex.toml: project.sources: 'agent-configs' resolves to")
        stale = server.client.get("/v1/artifacts/cc")
        assert stale.headers["hotplex-stale"] == "true" and stale.content == first.content
        ready = _problem(server.client.get("/readyz"), 503)
        assert ready["detail"] == cli.stderr.rstrip("\n")
        assert str(tmp_path) not in json.dumps(ready)
        (root / "agent-configs").unlink()
        (root / "agent-configs").write_text("not a folder\n", encoding="utf-8")
        ready = _problem(server.client.get("/readyz"), 503)
        assert (
            ready["problems"][0]["message"] == "the sources folder 'agent-configs' is not a folder"
        )
        (root / "agent-configs").unlink()
        (tmp_path / "outside").rename(root / "agent-configs")
        assert server.client.get("/readyz").status_code == 200
