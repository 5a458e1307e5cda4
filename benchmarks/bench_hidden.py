"""Benchmark: the hidden-text scan against the secret scan on a 50 KB file (issue 18's budget:
the new scan costs no more than the secret scan), plus the disguise-aware sanitizer.

Usage::

    python benchmarks/bench_hidden.py               # prints the table
    python benchmarks/bench_hidden.py --write       # ...and saves it as benchmarks/hidden_scan.txt

Three seeded 50 KB files: ASCII Markdown, the same with a multilingual share (CJK, Persian with
ZWNJ, Hindi with virama joiners, Hebrew with marks, emoji ZWJ sequences and subdivision flags),
and an emoji-dense stress case (one ZWJ or selector in every seven characters) where the scan
checks the context of thousands of characters; the budget is judged on the first two, the stress
case is shown beside them. Both scans are timed uncached (``scan.__wrapped__``,
``memo.uncached``: a build's cache would otherwise answer every repeat), the secret scan as a
build runs it (the text as written and as read), median of ``--repeat`` runs each, in one warm
process; the one-time import of ``regex`` is measured in a fresh process and listed apart.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hotplex.scanning import hidden, sanitize, secrets
from hotplex.text import memo

SIZE = 50 * 1024
RESULT = Path(__file__).with_name("hidden_scan.txt")
STRESS = {"emoji-dense"}  # shown, not part of the budget
RESERVED = frozenset(
    {"agent-configuration", "directives", "context", "hotplex", "persona", "rules"}
)

ASCII_LINES = [
    "# Deployment rules",
    "- Run `make test` before proposing a change; never push to main.",
    "- Staging deploys run at 14:00 UTC; production needs two approvals.",
    "Use the `payments` service client, not raw HTTP: see docs/payments.md for retries.",
    "api_timeout = 30  # seconds, per request",
    "<!-- maintainers: keep this list short -->",
    "When in doubt, ask in #eng-help and link the ticket.",
]
WORLD_LINES = [
    "中文说明：部署前请运行测试，不要直接推送到主分支。",
    "日本語：デプロイ前にテストを実行してください。葛\U000e0100城市。",
    "한국어: 배포 전에 테스트를 실행하세요.",
    "فارسی: من می\u200cخواهم کتاب\u200cها را بخوانم.",
    "हिन्दी: क्\u200cष और र्\u200dय, परीक्षण चलाएँ।",
    "עברית: שלום עולם\u200e 2026",
    "Team: 👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 🇯🇵 ✔\ufe0f",
    "England: 🏴" + "".join(chr(0xE0000 + ord(c)) for c in "gbeng") + "\U000e007f",
]
EMOJI_LINE = (
    "👨\u200d👩\u200d👧\u200d👦 🧑🏻\u200d🤝\u200d🧑🏼 ❤\ufe0f\u200d🔥 👁\ufe0f\u200d🗨\ufe0f " * 3
)


def fifty_kb(lines: list[str], seed: int) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    while len("\n".join(out).encode("utf-8")) < SIZE:
        out.append(rng.choice(lines))
    return "\n".join(out)


def median_seconds(function, text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def secret_scan(text: str) -> tuple[secrets.Found, ...]:
    """The secret scan as a build runs it, uncached: the text as written and as read."""
    with memo.uncached():
        return secrets.matches(text)


def regex_import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import regex; print(time.perf_counter() - t)"
    runs = [float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(5)]
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--write", action="store_true", help=f"save the table to {RESULT.name}")
    args = parser.parse_args()
    files = {
        "ascii": fifty_kb(ASCII_LINES, 1),
        "multilingual": fifty_kb(ASCII_LINES * 2 + WORLD_LINES, 2),
        "emoji-dense": fifty_kb([EMOJI_LINE, *ASCII_LINES[:2]], 3),
    }
    hidden.scan.__wrapped__("warm up: compile the Unicode properties ☺\ufe0f")
    rows = ["file           bytes  chars  secrets ms  hidden ms  ratio  sanitize ms  findings"]
    met = True
    for name, text in files.items():
        secret_s = median_seconds(secret_scan, text, args.repeat)
        hidden_s = median_seconds(hidden.scan.__wrapped__, text, args.repeat)
        sanitize_s = median_seconds(lambda t: sanitize.sanitize(t, RESERVED), text, args.repeat)
        met &= hidden_s <= secret_s or name in STRESS
        rows.append(
            f"{name:<13} {len(text.encode()):>6} {len(text):>6} {1000 * secret_s:>11.3f}"
            f" {1000 * hidden_s:>10.3f} {hidden_s / secret_s:>6.2f} {1000 * sanitize_s:>12.3f}"
            f" {len(hidden.scan.__wrapped__(text)):>9}"
        )
    rows.append(f"one-time import of regex (fresh process): {1000 * regex_import_seconds():.1f} ms")
    rows.append(
        "budget: hidden-text scan <= secret scan on a 50 KB file (ascii, multilingual): "
        + ("met" if met else "NOT met")
    )
    report = "\n".join(rows)
    print(report)
    if args.write:
        command = f"python benchmarks/bench_hidden.py --repeat {args.repeat}"
        header = f"# {command}; Python {sys.version.split()[0]}\n"
        RESULT.write_text(header + report + "\n", encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
