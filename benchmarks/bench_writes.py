"""What a one-variant build writes, build after build: a build's writes should follow its change.

Usage::

    python benchmarks/bench_writes.py --sizes 1000,10000 --builds 10

For each size a seeded fleet project (``make_fake_project.make_fleet``) is built twice (the
second time, no stamp is racy); then ``--builds`` builds in a row, each after a line appended to
``SOUL.p01.md`` and a ``sync``, which must each rebuild that platform's sets. For each build:
its ``write_bytes`` (``/proc/<pid>/io`` of the build and the children it reaped, as
``run.py`` measures them), what the build log grew by, and whether the log was rewritten
(compacted: its inode changed). Run it with the Python of the environment hotplex is installed
in (the ``hotplex`` beside ``sys.executable`` is measured).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import make_fake_project  # beside this script, so on sys.path when it runs
from run import HOTPLEX, measure_with_memory, rebuilt_count


def bench(root: Path, sets: int, builds: int) -> list[tuple[int, int, bool, float]]:
    """Each build's (bytes written, bytes the log grew by, log rewritten, seconds)."""
    make_fake_project.make_fleet(root, sets)
    command = [str(HOTPLEX), "-C", str(root), "build"]
    for _ in range(2):
        measure_with_memory(command)
    variant = root / make_fake_project.FLEET_CHANGED_VARIANT
    log = root / ".hotplex" / "log"
    changed = sets // (1 + len(make_fake_project.FLEET_PLATFORMS))
    rows = []
    for index in range(builds):
        variant.write_text(variant.read_text() + f"Change {index}.\n", encoding="utf-8")
        os.sync()
        before = log.stat()
        run = measure_with_memory(command)
        if rebuilt_count(run) != changed:
            raise SystemExit(f"build {index}: rebuilt {rebuilt_count(run)}, expected {changed}")
        after = log.stat()
        rows.append(
            (
                run.written or 0,
                after.st_size - before.st_size,
                after.st_ino != before.st_ino,
                run.seconds,
            )
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="what one-variant builds write (see docstring)")
    parser.add_argument("--sizes", default="1000,10000", help="artifact sets, comma-separated")
    parser.add_argument("--builds", type=int, default=10, help="one-variant builds in a row")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hotplex-writes-") as folder:
        for size in (int(s) for s in args.sizes.split(",")):
            rows = bench(Path(folder) / f"fleet-{size}", size, args.builds)
            written = [r[0] for r in rows]
            print(f"{size} sets, {args.builds} one-variant builds:")
            for n, (wrote, grew, rewritten, seconds) in enumerate(rows, start=1):
                mark = " (log rewritten)" if rewritten else ""
                print(
                    f"  {n:>3}: wrote {wrote / 1024:>9,.0f} KB, log {grew / 1024:>+9,.0f} KB,"
                    f" {seconds * 1000:>6.0f} ms{mark}"
                )
            print(
                f"  median {statistics.median(written) / 1024:,.0f} KB, mean"
                f" {statistics.mean(written) / 1024:,.0f} KB, max {max(written) / 1024:,.0f} KB;"
                f" log rewritten in {sum(r[2] for r in rows)} of {len(rows)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
