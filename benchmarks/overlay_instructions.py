"""A per-user compile against the scans of its overlaid texts, in instructions (callgrind),
which the machine's other work does not move.

    python benchmarks/overlay_instructions.py [--calls 100] [--rounds 2] [--path NAME=DIR ...]

For each worker of ``examples/basic`` (``claude-code``, ``opencode-server``) it runs one fresh
process under ``valgrind --tool=callgrind``: the project loaded, every call's overlay made, 20
compiles and a scan to warm; then ``--calls`` per-user compiles (each its own user's USER.md and
8 KB MEMORY.md, ``bench_overlay.users``), then the secret (as written and as read), hidden-text
and injection scans (the guard's parse with them) and the sanitizer on the same texts, uncached.
Callgrind counts each part apart (``--dump-before`` of ``os.getppid``, called between them);
each figure is per call. ``--path NAME=DIR`` puts DIR first on ``PYTHONPATH`` (a folder holding
another ``hotplex`` package: an older checkout's, to compare in the same run); the runs
interleave, one round of every path after another.
The budget (issue 43): a compile at most 1.5× the scans.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKERS = ("claude-code", "opencode-server")
# Called between the parts: callgrind dumps its counts before each call (``--dump-before``).
MARK = "os_getppid"
OVER_SCANS = 1.5
WARM = 20


def phase(worker: str, calls: int) -> None:
    """One process's work (run under callgrind by ``main``): the start, the compiles, the
    scans, each ended by ``os.getppid()``."""
    sys.path.insert(0, str(HERE))
    import bench_overlay
    from hotplex import Project
    from hotplex.scanning import hidden, injection, sanitize, secrets
    from hotplex.text import memo, secret_rules

    # The secret scan as a build runs it: as written and as read (``secrets.matches``, which an
    # older checkout compared with ``--path`` lacks: its scan was the rules' alone).
    secret_scan = getattr(secrets, "matches", secret_rules.scan).__wrapped__

    project = Project.load(HERE.parent / "examples" / "basic")
    job = next(j for j in project.jobs() if j.target.worker == worker and j.platform is None)
    overlays = bench_overlay.users(calls + WARM, False)
    for overlay in overlays[calls:]:
        project.compile(job.target.name, overlay=overlay)
    for text in overlays[-1].values():
        injection.scan.__wrapped__(text)
        sanitize.sanitize(text, bench_overlay.RESERVED)
    os.getppid()
    for overlay in overlays[:calls]:
        project.compile(job.target.name, overlay=overlay)
    os.getppid()
    for overlay in overlays[:calls]:
        for text in overlay.values():
            with memo.uncached():  # what ``secret_scan`` asks of the rules' scan, not cached
                secret_scan(text)
            hidden.scan.__wrapped__(text)
            injection.scan.__wrapped__(text)
            sanitize.sanitize(text, bench_overlay.RESERVED)
    os.getppid()


def count(worker: str, calls: int, path: str | None) -> tuple[int, int]:
    """The instructions of the compiles and of the scans, in one process doing ``phase``."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    if path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (path, env.get("PYTHONPATH"))))
    with tempfile.TemporaryDirectory() as folder:
        out = f"{folder}/callgrind.out"
        command = [
            *("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"),
            f"--dump-before={MARK}",
            *(sys.executable, __file__, "--phase", "--worker", worker, "--calls", str(calls)),
        ]
        subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        parts = []
        for part in (2, 3):  # .1: the start; .2: the compiles; .3: the scans
            text = Path(f"{out}.{part}").read_text()
            parts.append(int(re.search(r"^totals: (\d+)", text, re.M)[1]))
    return parts[0], parts[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--path", action="append", default=[], help="NAME=DIR, on PYTHONPATH")
    parser.add_argument("--phase", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", choices=WORKERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        phase(args.worker, args.calls)
        return
    paths = [tuple(p.split("=", 1)) for p in args.path] or [("this", "")]
    for round_ in range(1, args.rounds + 1):
        for worker in WORKERS:
            for name, path in paths:
                compiles, scanned = count(worker, args.calls, path)
                compile_, scans = compiles / args.calls, scanned / args.calls
                ratio = compile_ / scans
                verdict = "met" if ratio <= OVER_SCANS else "NOT met"
                print(
                    f"round {round_} {name:<6} {worker:<16} compile {compile_ / 1e6:6.3f} M"
                    f"  scans {scans / 1e6:6.3f} M  ×{ratio:.2f}  (≤ ×{OVER_SCANS:g}: {verdict})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
