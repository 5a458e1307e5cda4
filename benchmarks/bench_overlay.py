"""Per-user compiles per second through the library API, on one core: one ``Project`` (the
gateway's), a different user's USER.md and 8 KB MEMORY.md passed as an overlay on every call.

    python benchmarks/bench_overlay.py [--calls 4000] [--target cc] [--logs]

Prints the rate for each worker of ``examples/basic`` (and, with ``--logs``, with a daily log
overlay too). The budget (SPEC §8): at least 2,000 per second per core.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from hotplex import Project

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 2000


def user_files(index: int, rng: random.Random, logs: bool) -> dict[str, str]:
    """A user's own files: a short USER.md and a MEMORY.md of about 8 KB of list entries."""
    lines, size = ["# Memory", ""], 0
    while size < 8 * 1024:
        line = f"- user {index} noted fact {rng.randrange(10**9)} about project {rng.randrange(99)}"
        lines.append(line)
        size += len(line) + 1
    files = {
        "USER.md": f"# User {index}\n\nPrefers short answers.\n",
        "MEMORY.md": "\n".join(lines),
    }
    if logs:
        files["memory/2026-11-29.md"] = f"- user {index} asked about the build\n"
    return files


def rate(project: Project, target: str, platform: str | None, calls: int, logs: bool) -> float:
    rng = random.Random(15)
    users = [user_files(i, rng, logs) for i in range(64)]
    project.compile(target, platform, overlay=users[0])  # warm: base files read once
    started = time.perf_counter()
    for call in range(calls):
        project.compile(target, platform, overlay=users[call % len(users)])
    return calls / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--logs", action="store_true", help="also overlay a daily log")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    project = Project.load(ROOT / "examples" / "basic")
    if args.logs:
        project = Project.load(ROOT / "examples" / "memory")
    for job in project.jobs():
        per_second = rate(project, job.target.name, job.platform, args.calls, args.logs)
        verdict = "met" if per_second >= BUDGET else "NOT met"
        print(
            f"overlay compile {job.id:<14} {job.target.worker:<16} {per_second:8.0f} /s "
            f"({1e6 / per_second:6.0f} µs)  budget {BUDGET}/s: {verdict}"
        )


if __name__ == "__main__":
    main()
