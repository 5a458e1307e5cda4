"""Benchmarks: how long hotplex takes to build, no-op, check and rebuild, and how that scales.

Usage::

    python benchmarks/run.py                           # sizes 10,100,1000,10000; median of 3
    python benchmarks/run.py --sizes 10,100 --repeat 1 # what CI runs: well under a minute
    python benchmarks/run.py --sizes 1000 --repeat 5 --strict   # exit 1 if a budget is missed

Run it with the Python of the environment hotplex is installed in (the ``hotplex`` command beside
``sys.executable`` is measured). For each size, ``make_fake_project.py`` writes a seeded project
(bots × platforms × workers, templates, variants and an include) into a temporary folder, and
every figure is the median of ``--repeat`` fresh processes, timed from spawn to exit:

- full build: from nothing (``dist/`` and ``.hotplex/`` removed before each run), with ``-j1``
  (one process) and ``-j2`` (two worker processes);
- no-op build and no-op check: everything up to date;
- one variant change: a line appended to ``SOUL.p01.md``, then a build, which must rebuild
  exactly that platform's artifact sets;
- peak memory: the largest resident set of a full-build process (``wait4``'s ``ru_maxrss``).

Then start-up: ``hotplex --version`` and a no-op ``check`` of a copy of examples/basic against
``python -c pass`` (difference and ratio), and the library API's warm compile
(``Project.load(...).compile("cc", platform="slack")`` repeated), per-user overlay compiles per
second (``bench_overlay.py``), and a project with 1,000 days of daily logs (a no-op build, and a
build after a new day appears). Each budget of issue 7 is
printed as met / NOT met with its figures; growth from 1,000 to 10,000 artifacts is printed as a
ratio (linear or better means at most 10). The other figures use the default ``-j``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import make_fake_project  # beside this script, so on sys.path when it runs

REPO = Path(__file__).resolve().parents[1]
HOTPLEX = Path(sys.executable).parent / "hotplex"
CHANGED_VARIANT = "agent-configs/SOUL.p01.md"
_REBUILT = re.compile(r"hotplex: (\d+) rebuilt, (\d+) up to date")

# Budgets (issues 7 and 13), in seconds and bytes, on the 2-core machine type.
STARTUP_OVER_PYTHON_S = 0.040
BUDGET_SIZE = 1000
FULL_BUILD_J1_S = 1.0
FULL_BUILD_J2_S = 0.6
NO_OP_BUILD_S = 0.1
VARIANT_CHANGE_S = 0.25
PEAK_MEMORY_BYTES = 150 * 1024 * 1024
LARGE_SIZE = 10000
LARGE_FULL_BUILD_J2_S = 6.0
API_WARM_COMPILE_S = 0.001
DAILY_LOG_DAYS = 1000
API_OVERLAY_PER_SECOND = 2000


# Measured processes may write bytecode caches, as an installed package has them: with
# PYTHONDONTWRITEBYTECODE set (some CI images set it) every start-up would compile hotplex anew.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"NO_COLOR": "1"}


@dataclass
class Run:
    seconds: float
    peak_bytes: int
    stdout: str


@dataclass
class SizeResult:
    artifacts: int
    full: float  # -j1
    full_j2: float
    no_op: float
    check: float
    variant: float
    peak_bytes: int


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    missed: int = 0

    def budget(self, name: str, met: bool, figures: str) -> None:
        self.missed += not met
        self.lines.append(f"  {'met    ' if met else 'NOT met'}  {name}: {figures}")


def measure_with_memory(argv: list[str]) -> Run:
    """One fresh process: wall time from spawn to exit, and its own peak RSS (reaped with
    ``wait4``, whose ``ru_maxrss`` covers that child alone)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=_ENV, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {process.returncode}:\n{err.read()}")
        return Run(elapsed, usage.ru_maxrss * 1024, out.read().decode())


def median_run(argv: list[str], repeat: int, before=None) -> list[Run]:
    """``repeat`` fresh runs of ``argv``, each after ``before(index)`` when given."""
    runs = []
    for index in range(repeat):
        if before is not None:
            before(index)
        runs.append(measure_with_memory(argv))
    return runs


def median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def rebuilt_count(run: Run) -> int:
    match = _REBUILT.search(run.stdout)
    if match is None:
        raise SystemExit(f"unexpected build output:\n{run.stdout[-500:]}")
    return int(match.group(1))


def bench_size(artifacts: int, repeat: int, scratch: Path) -> SizeResult:
    root = scratch / f"fleet-{artifacts}"
    shape = make_fake_project.make(root, artifacts)
    build = [str(HOTPLEX), "-C", str(root), "build"]

    def from_nothing(_: int) -> None:
        shutil.rmtree(root / "dist", ignore_errors=True)
        shutil.rmtree(root / ".hotplex", ignore_errors=True)

    full = median_run([*build, "-j1"], repeat, before=from_nothing)
    _expect(full, shape.artifacts, "full build")
    full_j2 = median_run([*build, "-j2"], repeat, before=from_nothing)
    _expect(full_j2, shape.artifacts, "full build -j2")
    no_op = median_run(build, repeat)
    _expect(no_op, 0, "no-op build")
    check = median_run([str(HOTPLEX), "-C", str(root), "check"], repeat)

    def change_variant(index: int) -> None:
        variant = root / CHANGED_VARIANT
        variant.write_text(variant.read_text() + f"Change {index}.\n", encoding="utf-8")

    variant = median_run(build, repeat, before=change_variant)
    _expect(variant, shape.artifacts // len(shape.platforms), "variant change")
    shutil.rmtree(root)
    return SizeResult(
        shape.artifacts,
        median(full),
        median(full_j2),
        median(no_op),
        median(check),
        median(variant),
        max(r.peak_bytes for r in full),
    )


def _expect(runs: list[Run], count: int, what: str) -> None:
    for run in runs:
        if rebuilt_count(run) != count:
            raise SystemExit(f"{what}: rebuilt {rebuilt_count(run)}, expected {count}")


def bench_startup(repeat: int, scratch: Path) -> tuple[float, float, float]:
    """Medians of `python -c pass`, `hotplex --version`, no-op `check` on examples/basic."""
    basic = scratch / "basic"
    shutil.copytree(
        REPO / "examples/basic", basic, ignore=shutil.ignore_patterns("dist", ".hotplex")
    )
    measure_with_memory([str(HOTPLEX), "-C", str(basic), "build"])
    runs = max(repeat * 3, 7)
    python = median(median_run([sys.executable, "-c", "pass"], runs))
    version = median(median_run([str(HOTPLEX), "--version"], runs))
    check = median(median_run([str(HOTPLEX), "-C", str(basic), "check"], runs))
    return python, version, check


_API_SNIPPET = """
import statistics, sys, time
from hotplex import Project
project = Project.load(sys.argv[1])
project.compile("cc", platform="slack")
times = []
for _ in range(2000):
    started = time.perf_counter()
    project.compile("cc", platform="slack")
    times.append(time.perf_counter() - started)
print(statistics.median(times))
"""


def bench_api() -> float:
    run = measure_with_memory([sys.executable, "-c", _API_SNIPPET, str(REPO / "examples/basic")])
    return float(run.stdout.strip())


_LOGS_MANIFEST = """\
[limits]
per_file = 6000
[memory]
logs = "memory/*.md"
[[target]]
name = "cc"
worker = "claude-code"
"""


def bench_daily_logs(repeat: int, scratch: Path) -> tuple[float, float]:
    """A project with 1,000 days of logs: medians of a no-op build and of a build after a new
    day appears (which must rebuild the one artifact set, reading only the days that fit)."""
    root = scratch / "daily-logs"
    days = root / "agent-configs" / "memory"
    days.mkdir(parents=True)
    (root / "hotplex.toml").write_text(_LOGS_MANIFEST, encoding="utf-8")
    (root / "agent-configs" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    first = datetime.date(2000, 1, 1)  # a day is a file named by its date: YYYY-MM-DD.md
    for n in range(DAILY_LOG_DAYS):
        name = f"{first + datetime.timedelta(days=n)}.md"
        (days / name).write_text(f"- fact {n}: " + "x" * 200 + "\n", encoding="utf-8")
    build = [str(HOTPLEX), "-C", str(root), "build"]
    measure_with_memory(build)
    no_op = median_run(build, repeat)
    _expect(no_op, 0, "daily logs no-op build")

    def new_day(index: int) -> None:
        newer = datetime.date(2999, 1, 1) + datetime.timedelta(days=index)
        (days / f"{newer}.md").write_text(f"- new day {index}\n", encoding="utf-8")

    changed = median_run(build, repeat, before=new_day)
    _expect(changed, 1, "daily logs new day")
    return median(no_op), median(changed)


def bench_overlay() -> float:
    """The slowest job's per-user compiles per second (benchmarks/bench_overlay.py, one core)."""
    script = Path(__file__).with_name("bench_overlay.py")
    run = measure_with_memory([sys.executable, str(script), "--calls", "2000"])
    return min(float(line.split()[4]) for line in run.stdout.splitlines())


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def print_table(results: list[SizeResult]) -> None:
    header = (
        "artifacts",
        "full -j1",
        "full -j2",
        "no-op build",
        "no-op check",
        "1 variant",
        "peak MB",
    )
    print("  ".join(f"{h:>11}" for h in header))
    for r in results:
        cells = (
            str(r.artifacts),
            ms(r.full),
            ms(r.full_j2),
            ms(r.no_op),
            ms(r.check),
            ms(r.variant),
            f"{r.peak_bytes / 2**20:.0f}",
        )
        print("  ".join(f"{c:>11}" for c in cells))


def growth(results: list[SizeResult], report: Report) -> None:
    by_size = {r.artifacts: r for r in results}
    for small, large in zip(sorted(by_size), sorted(by_size)[1:], strict=False):
        a, b = by_size[small], by_size[large]
        factor = large / small
        ratios = {
            "full -j1": b.full / a.full,
            "full -j2": b.full_j2 / a.full_j2,
            "no-op": b.no_op / a.no_op,
            "check": b.check / a.check,
            "variant": b.variant / a.variant,
        }
        figures = ", ".join(f"{k} ×{v:.1f}" for k, v in ratios.items())
        if (small, large) == (1000, 10000):
            report.budget(
                f"linear or better {small} → {large} (×{factor:g} artifacts)",
                all(v <= factor for v in ratios.values()),
                figures,
            )
        else:
            print(f"  growth {small} → {large} (×{factor:g} artifacts): {figures}")


def size_budgets(results: list[SizeResult], report: Report) -> None:
    at = next((r for r in results if r.artifacts == BUDGET_SIZE), None)
    if at is None:
        report.lines.append(f"  n/a      budgets at {BUDGET_SIZE} artifacts: size not run")
        return
    report.budget(
        f"full build -j1, {at.artifacts} artifacts ≤ {FULL_BUILD_J1_S:g} s",
        at.full <= FULL_BUILD_J1_S,
        ms(at.full),
    )
    report.budget(
        f"full build -j2, {at.artifacts} artifacts ≤ {FULL_BUILD_J2_S:g} s",
        at.full_j2 <= FULL_BUILD_J2_S,
        ms(at.full_j2),
    )
    report.budget(
        f"no-op build, {at.artifacts} artifacts ≤ {NO_OP_BUILD_S * 1000:g} ms",
        at.no_op <= NO_OP_BUILD_S,
        ms(at.no_op),
    )
    report.budget(
        f"one variant file changed, {at.artifacts} artifacts ≤ {VARIANT_CHANGE_S * 1000:g} ms",
        at.variant <= VARIANT_CHANGE_S,
        ms(at.variant),
    )
    report.budget(
        f"peak memory, {at.artifacts} artifacts < {PEAK_MEMORY_BYTES / 2**20:g} MB",
        at.peak_bytes < PEAK_MEMORY_BYTES,
        f"{at.peak_bytes / 2**20:.0f} MB",
    )
    large = next((r for r in results if r.artifacts == LARGE_SIZE), None)
    if large is not None:
        report.budget(
            f"full build -j2, {large.artifacts} artifacts ≤ {LARGE_FULL_BUILD_J2_S:g} s",
            large.full_j2 <= LARGE_FULL_BUILD_J2_S,
            ms(large.full_j2),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description="hotplex benchmarks (see the module docstring)")
    parser.add_argument(
        "--sizes", default="10,100,1000,10000", help="artifact counts, comma-separated"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a budget is not met")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not HOTPLEX.exists():
        raise SystemExit(f"no hotplex command beside {sys.executable}; install hotplex first")
    version = subprocess.run([str(HOTPLEX), "--version"], capture_output=True, text=True).stdout
    print(
        f"{version.strip()} on Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
        f"median of {args.repeat} run(s)\n"
    )
    report = Report()
    with tempfile.TemporaryDirectory(prefix="hotplex-bench-") as folder:
        scratch = Path(folder)
        results = []
        for size in sizes:
            results.append(bench_size(size, args.repeat, scratch))
        print_table(results)
        print()
        python, version_s, check = bench_startup(args.repeat, scratch)
        logs_no_op, logs_new_day = bench_daily_logs(args.repeat, scratch)
    api = bench_api()
    overlay = bench_overlay()
    print(
        f"start-up: python -c pass {ms(python)}, hotplex --version {ms(version_s)} "
        f"(+{ms(version_s - python)}, ×{version_s / python:.1f}), no-op check examples/basic "
        f"{ms(check)} (+{ms(check - python)}, ×{check / python:.1f})"
    )
    print(f"library API: warm Project.compile on examples/basic {api * 1e6:.0f} µs per call")
    print(f"library API: per-user overlay compiles (8 KB MEMORY.md), one core {overlay:.0f}/s")
    print(
        f"daily logs, {DAILY_LOG_DAYS} days: no-op build {ms(logs_no_op)}, "
        f"a new day {ms(logs_new_day)}\n"
    )
    report.budget(
        f"no-op check on examples/basic ≤ python -c pass + {STARTUP_OVER_PYTHON_S * 1000:g} ms",
        check - python <= STARTUP_OVER_PYTHON_S,
        f"+{ms(check - python)} ({ms(check)} vs {ms(python)})",
    )
    size_budgets(results, report)
    growth(results, report)
    report.budget(
        "library API warm compile < 1 ms", api < API_WARM_COMPILE_S, f"{api * 1e6:.0f} µs"
    )
    report.budget(
        f"library API ≥ {API_OVERLAY_PER_SECOND} per-user overlay compiles/s on one core",
        overlay >= API_OVERLAY_PER_SECOND,
        f"{overlay:.0f}/s",
    )
    report.budget(
        f"{DAILY_LOG_DAYS} days of logs: no-op ≤ {ms(NO_OP_BUILD_S)}, a new day ≤ "
        f"{ms(VARIANT_CHANGE_S)}",
        logs_no_op <= NO_OP_BUILD_S and logs_new_day <= VARIANT_CHANGE_S,
        f"{ms(logs_no_op)}, {ms(logs_new_day)}",
    )
    print("budgets:")
    print("\n".join(report.lines))
    return 1 if args.strict and report.missed else 0


if __name__ == "__main__":
    sys.exit(main())
