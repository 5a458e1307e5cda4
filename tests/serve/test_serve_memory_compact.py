"""POST /v1/memory/compact and /v1/memory/compact/request against a real `hotplex serve`:
stateless (days in, months or the request out), the same answers as the library's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotplex.api import Project
from hotplex_testing import HOSTILE_ANSWERS
from serving import Server, running

MANIFEST = """\
[memory]
logs = "memory/*.md"
compact_after_days = 10

[[target]]
name = "cc"
worker = "claude-code"

[[target]]
name = "ide"
worker = "cursor"
"""
DAYS = {
    "2026-10-01.md": "- met acme about TLS\n- [durable] deploys happen on Fridays\n",
    "2026-10-02.md": "- met acme about TLS\n- renewed the certificate\n",
    "2026-09-30.md": "- started the audit\n",
}
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("compact")
    (root / "hotplex.toml").write_text(MANIFEST)
    (root / "agent-configs/memory").mkdir(parents=True)
    (root / "agent-configs/MEMORY.md").write_text("# Memory\n")
    return root


@pytest.fixture(scope="module")
def server(project: Path):
    with running(project) as served:
        yield served


def test_days_in_each_month_out_as_the_library_folds_it(server: Server, project: Path) -> None:
    answer = server.client.post("/v1/memory/compact", json={"days": DAYS})
    assert answer.status_code == 200, answer.text
    months = answer.json()["months"]
    assert [(m["month"], m["path"], m["days"]) for m in months] == [
        ("2026-09", "compacted/2026-09.md", ["2026-09-30.md"]),
        ("2026-10", "compacted/2026-10.md", ["2026-10-01.md", "2026-10-02.md"]),
    ]
    library = Project.load(project).compact_days(DAYS)
    assert [m.text for m in library] == [m["text"] for m in months]
    october = months[1]["text"]
    assert '  "2026-10-01.md": "' in october and "compactor: builtin" in october
    assert "- [durable] deploys happen on Fridays" in october
    assert "- 2026-10-01, 2026-10-02: met acme about TLS" in october
    assert months[1]["history"] == ""


def test_an_answer_is_filed_as_the_one_month(server: Server) -> None:
    days = {k: v for k, v in DAYS.items() if k.startswith("2026-10")}
    summary = "- 2026-10-01 … 2026-10-02: TLS certificate renewed for acme\n"
    answer = server.client.post("/v1/memory/compact", json={"days": days, "answer": summary})
    assert answer.status_code == 200, answer.text
    (month,) = answer.json()["months"]
    assert "compactor: answer" in month["text"]
    assert month["text"].endswith("---\n" + summary)


def _utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


# JSON carries text: an answer that is not UTF-8 cannot be sent (the CLI test has it).
@pytest.mark.parametrize(("text", "status", "error"), [a for a in HOSTILE_ANSWERS if _utf8(a[0])])
def test_a_hostile_or_garbage_answer_is_refused_with_one_problem(
    server: Server, text: bytes, status: int, error: str
) -> None:
    days = {"2026-10-01.md": "- met acme\n"}
    body = {"days": days, "answer": text.decode()}
    answer = server.client.post("/v1/memory/compact", json=body)
    assert answer.status_code == (422 if status == 1 else 400), answer.text
    assert answer.headers["content-type"] == PROBLEM
    problems = answer.json()["problems"]
    assert len(problems) == 1 and error in problems[0]["message"]


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"days": {}}, 400, "'days' must be a non-empty object"),
        ({"days": {"notes.md": "x"}}, 400, "'notes.md' is no day's file name"),
        ({"days": {"../2026-10-01.md": "x"}}, 400, "is no day's file name"),
        (
            {"days": DAYS, "answer": "- 2026-10-01: fine\n"},
            400,
            "these days are of 2026-09, 2026-10",
        ),
        ({"days": {"2026-10-01.md": 3}}, 400, "the text of 2026-10-01.md must be a string"),
    ],
)
def test_bad_days_are_400_with_their_key(server: Server, body, status, error) -> None:
    answer = server.client.post("/v1/memory/compact", json=body)
    assert answer.status_code == status, answer.text
    assert error in answer.json()["problems"][0]["message"]


@pytest.mark.parametrize(
    ("days", "key", "error"),
    [
        (
            {"2026-10-01.md": "- x\n", "2026-10-01.MD": "- y\n"},
            "days.2026-10-01.MD",
            "'2026-10-01.MD' is no day's file name under the logs glob memory/*.md",
        ),
        (
            {"2026-10-01-standup.md": "- x\n", "2026-10-01-Standup.md": "- y\n"},
            "days.2026-10-01-standup.md",
            "'2026-10-01-Standup.md' and '2026-10-01-standup.md' name one day's file twice",
        ),
    ],
)
@pytest.mark.parametrize("route", ["/v1/memory/compact", "/v1/memory/compact/request"])
def test_a_name_the_logs_glob_never_reads_or_one_day_twice_is_400_at_its_key(
    server: Server, days, key, error, route
) -> None:
    """A name "2026-10-01.MD" beside "2026-10-01.md" was filed as a second day of that date, its
    digest line naming the file: the CLI never reads it as a day (memory/*.md)."""
    body = {"days": days, "target": "cc"} if route.endswith("/request") else {"days": days}
    answer = server.client.post(route, json=body)
    assert answer.status_code == 400, answer.text
    problem = answer.json()["problems"][0]
    assert error in problem["message"]
    assert problem["key"] == key


def test_the_request_is_in_the_workers_form(server: Server, project: Path) -> None:
    days = {k: v for k, v in DAYS.items() if k.startswith("2026-10")}
    answer = server.client.post("/v1/memory/compact/request", json={"days": days, "target": "cc"})
    assert answer.status_code == 200, answer.text
    request = answer.json()
    assert (request["month"], request["days"]) == ("2026-10", ["2026-10-01.md", "2026-10-02.md"])
    assert request["path"] == "dist/cc/default/prompt.xml"
    assert "<memory-days>\n## 2026-10-01\n\n- met acme about TLS" in request["text"]
    library = Project.load(project).compaction_request("cc", days=days)
    assert library.text == request["text"]


@pytest.mark.parametrize(
    ("target", "status", "error"),
    [("nope", 404, "no target named 'nope'"), ("ide", 400, "has no headless program")],
)
def test_a_request_for_an_unknown_or_editor_target_is_refused(
    server: Server, target: str, status: int, error: str
) -> None:
    body = {"days": {"2026-10-01.md": "- a\n"}, "target": target}
    answer = server.client.post("/v1/memory/compact/request", json=body)
    assert answer.status_code == status, answer.text
    assert error in answer.json()["problems"][0]["message"]


def test_a_months_frontmatter_of_the_wrong_type_in_a_check_is_a_problem_at_its_key(
    tmp_path: Path,
) -> None:
    """An overlay month with `compacted: 5` was ok: true, its header quietly covering nothing."""
    root = tmp_path / "checked"
    (root / "agent-configs/memory/compacted").mkdir(parents=True)
    (root / "hotplex.toml").write_text(MANIFEST)
    (root / "agent-configs/memory/2026-10-20.md").write_text("- z\n")
    month = '---\ncompacted: "2026-09"\ncompactor: builtin\ndays: {}\n---\n- a\n'
    (root / "agent-configs/memory/compacted/2026-09.md").write_text(month)
    with running(root) as server:
        files = {"memory/compacted/2026-09.md": "---\ncompacted: 5\n---\n- hand note\n"}
        answer = server.client.post("/v1/check", json={"files": files})
    assert answer.status_code == 400, answer.text
    problem = answer.json()["problems"][0]
    assert (problem["file"], problem["line"], problem["key"]) == (
        "overlay:memory/compacted/2026-09.md",
        2,
        "compacted",
    )
    assert 'compacted must be the month as text, "2026-09"' in problem["message"]
