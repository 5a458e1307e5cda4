"""What ``hotplex serve`` quotes back of a request, as the CLI quotes it: a secret redacted
before the 1,000-character cut, the cut between grapheme clusters, the characters that do not
print themselves shown as ``<U+…>`` in every field (``message``, ``file``, ``place``, a served
warning, a finding's file, a checked file's key), and a megabyte key in a few kilobytes in a
successful answer too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hotplex.errors import visible
from hotplex_testing import FAKE_SECRETS, copy_example
from serving import Server, running

TOKEN = FAKE_SECRETS["github-token"]
RAW = ("\x1b", "\n", "\u202e", "\U000e0041")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = copy_example(tmp_path_factory.mktemp("quoting"))
    with (root / "hotplex.toml").open("a", encoding="utf-8") as manifest:
        manifest.write('\n[memory]\nlogs = "memory/*.md"\n')
    (root / "agent-configs/memory").mkdir()
    return root


@pytest.fixture(scope="module")
def server(root: Path):
    with running(root) as started:
        yield started


def _quoted(body: dict) -> list[str]:
    """Every text a problem document quotes: its detail's lines and each problem's fields."""
    texts = body["detail"].split("\n")
    for problem in body["problems"]:
        texts += [v for v in problem.values() if isinstance(v, str)]
    return texts


@pytest.mark.parametrize(
    "body",
    [
        {"target": "cc", "overlay": {f"notes-{TOKEN}.md": "x"}},
        {"target": TOKEN},
        {"target": "cc", "platform": TOKEN},
        {"target": "cc", TOKEN: 1},
        {"target": "cc", "overlay": {"a" * 470 + "-" + TOKEN + "-" + "b" * 1000 + ".md": "x"}},
    ],
)
def test_a_secret_in_quoted_input_is_redacted_before_the_cut(server: Server, body) -> None:
    answer = server.client.post("/v1/compile", json=body)
    assert 400 <= answer.status_code < 500, answer.text
    for text in _quoted(answer.json()):
        assert TOKEN[:16] not in text, text


def test_a_checked_day_key_is_quoted_as_its_finding_is(server: Server) -> None:
    key = f"memory/2026-11-30-{TOKEN}.md"
    report = server.client.post("/v1/check", json={"files": {key: "- a\n"}}).json()
    assert report["findings"], report
    texts = [json.dumps(report["findings"]), json.dumps(report["files"])]
    assert all(TOKEN not in text for text in texts), texts
    assert report["files"][0]["file"] == report["findings"][0]["file"]


def test_a_megabyte_day_key_is_refused_in_a_few_kilobytes(server: Server) -> None:
    key = "memory/2026-11-30-" + "a" * 1_000_000 + ".md"
    answer = server.client.post("/v1/check", json={"files": {key: "- a\n"}})
    assert answer.status_code == 400, answer.text[:2000]
    assert len(answer.content) < 10_000
    assert "no disk takes a name over 255 bytes" in answer.text


def test_every_quoting_field_shows_what_does_not_print(server: Server) -> None:
    target = "a\x1b[8mb\nc\u202ed\U000e0041"
    body = server.client.post("/v1/compile", json={"target": target}).json()
    for text in _quoted(body):
        assert not any(c in text for c in RAW), repr(text)
    assert "a<U+001B>[8mb<U+000A>c<U+202E>d<U+E0041>" in body["problems"][0]["message"]


def test_served_warnings_and_findings_show_what_does_not_print(
    root: Path, server: Server, hotplex
) -> None:
    odd = root / "agent-configs/ev\x1b[31mil.md"
    odd.write_text("x\n", encoding="utf-8")
    try:
        with running(root) as fresh:
            warnings = fresh.client.get("/v1/artifacts/cc").json()["warnings"]
        assert any("ev<U+001B>[31mil.md" in w for w in warnings), warnings
        built = hotplex("-C", str(root), "build", "--json")
        assert warnings == json.loads(built.stdout)["warnings"]
        assert "ev<U+001B>[31mil.md" in hotplex("-C", str(root), "build").stderr
    finally:
        odd.unlink()
    key = "memory/2026-11-30-\u202eevil.md"
    report = server.client.post("/v1/check", json={"files": {key: "- <|im_start|>x\n"}}).json()
    quoted = [report["findings"][0]["file"], report["files"][0]["key"]]
    assert all("<U+202E>" in text and "\u202e" not in text for text in quoted), quoted


@pytest.mark.parametrize(
    "cluster", ["🇫🇷", "e\u0301", "👩\u200d💻", "🏴\U000e0067\U000e0062\U000e007f"]
)
def test_the_cut_falls_between_grapheme_clusters(server: Server, cluster: str) -> None:
    key = "/".join([cluster * 5] * 200) + ".md"  # each name under the 255 bytes a disk takes
    body = server.client.post("/v1/compile", json={"target": "cc", "overlay": {key: "x"}}).json()
    message = body["problems"][0]["message"]
    head, _, rest = message.partition("…(")
    tail = rest.partition(")…")[2]
    shown = head.removeprefix("overlay '") + tail.partition("'")[0]
    assert shown.replace(visible(cluster), "").replace("/", "") == ".md", message
