"""Per-user compiles per second through the library API, on one core: one ``Project`` (the
gateway's), a different user's USER.md and 8 KB MEMORY.md passed as an overlay on every call.

    python benchmarks/bench_overlay.py [--calls 4000] [--target cc] [--logs]

Prints the rate for each worker of ``examples/basic`` (and, with ``--logs``, with a daily log
overlay too), and beside it the time of the work no compile can skip: the secret scan, the
hidden-text scan, the prompt-injection rules (they read every overlaid file by default,
``[injection] scope = "overlays"``) and the sanitizer run on the overlaid texts alone
(uncached). Every call gets a user of its own, so no scan's cache answers for an earlier call.
The budgets: at least 2,000 per second per core (SPEC §8), and a call at most 1.5× the scans
and sanitizer (issue 26).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from hotplex import Project
from hotplex.scanning import hidden, injection, sanitize
from hotplex.text import secret_rules

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 2000
OVER_SCANS = 1.5
# The tags the sanitizer escapes in examples/basic (the section and reserved tags).
RESERVED = frozenset({"agent-configuration", "directives", "context", "persona", "memory", "user"})


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


def users(calls: int, logs: bool) -> list[dict[str, str]]:
    rng = random.Random(15)
    return [user_files(i, rng, logs) for i in range(calls + 1)]


def rate(
    project: Project, target: str, platform: str | None, overlays: list[dict[str, str]]
) -> float:
    project.compile(target, platform, overlay=overlays[-1])  # warm: base files read once
    started = time.perf_counter()
    for overlay in overlays[:-1]:
        project.compile(target, platform, overlay=overlay)
    return (len(overlays) - 1) / (time.perf_counter() - started)


def scans_seconds(overlays: list[dict[str, str]]) -> float:
    """Seconds per call of the scans and the sanitizer alone on each call's overlaid texts: the
    scans a compile runs on every overlaid file (the injection rules too, as its default scope
    says) and cannot skip."""
    started = time.perf_counter()
    for overlay in overlays[:-1]:
        for text in overlay.values():
            secret_rules.scan.__wrapped__(text)
            hidden.scan.__wrapped__(text)
            injection.scan.__wrapped__(text)
            sanitize.sanitize(text, RESERVED)
    return (time.perf_counter() - started) / (len(overlays) - 1)


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
    hidden.scan.__wrapped__("warm up: compile the Unicode properties ☺\ufe0f")
    for job in project.jobs():
        overlays = users(args.calls, args.logs)
        per_second = rate(project, job.target.name, job.platform, overlays)
        scans = scans_seconds(users(args.calls, args.logs))
        ratio = 1 / per_second / scans
        verdict = "met" if per_second >= BUDGET and ratio <= OVER_SCANS else "NOT met"
        print(
            f"overlay compile {job.id:<14} {job.target.worker:<16} {per_second:8.0f} /s "
            f"{1e6 / per_second:6.0f} µs; scans+sanitizer {scans * 1e6:6.0f} µs (×{ratio:.2f}); "
            f"budgets {BUDGET}/s, ×{OVER_SCANS:g}: {verdict}"
        )


if __name__ == "__main__":
    main()
