"""Benchmarks: hotplex against the floor, the least work a build of the same project can do.

Usage::

    python benchmarks/run.py                           # sizes 100,1000,10000; median of 5
    python benchmarks/run.py --sizes 10,100 --repeat 1 # what CI runs: well under a minute
    python benchmarks/run.py --sizes 1000 --strict     # exit 1 if a budget is missed
    python benchmarks/run.py --sizes 10000 --cases no-op,change --repeat 1  # no full builds

Run it with the Python of the environment hotplex is installed in (the ``hotplex`` command beside
``sys.executable`` is measured). Absolute times do not survive these machines (file creation
swings threefold with write-back load), so every build figure is a ratio to ``floor.py`` run in
the same minute: a separate process doing only the I/O a correct build cannot avoid, with the
real artifact bytes of a finished build (see its docstring). For each size and each project
kind (``fleet``: issue 26's project, the one the budgets are for; ``bots``: per-bot variables,
``make_fake_project.make``), a seeded project is written into a temporary folder and built once;
then, floor and hotplex in turn, each a fresh process timed from spawn to exit:

- full build from nothing (``dist/`` and ``.hotplex/`` removed, ``sync`` before each run),
  hotplex with ``-j1`` and with ``-j2``, the floor in one process against both;
- no-op build (and no-op ``check``, against the same floor);
- one variant changed: a line appended to ``SOUL.p01.md``, ``sync``, then a build, which must
  rebuild exactly that platform's artifact sets; the floor rewrites the artifacts whose bytes
  changed; the bytes each wrote (``write_bytes``), as for the no-op;
- peak memory of a full build (``wait4``'s ``ru_maxrss``) and CPU per job.

``--cases`` runs some of these alone (``full``, ``no-op``, ``change``): at 10,000 sets the full
builds take most of the run, and the no-op and one-variant cases need only the fixture's.

A ratio is the median of the pair-by-pair ratios (each hotplex run over the floor run just
before it), so it holds while the machine's speed drifts. Then start-up, the library API (warm
compile; per-user compiles with an 8 KB MEMORY.md against the scans and sanitizer alone on the
overlaid bytes, ``bench_overlay.py``) and 1,000 days of daily logs. Each budget of issue 26 is
printed as met / NOT met with its figures.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import marshal
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
FLOOR = Path(__file__).with_name("floor.py")
CHANGED_VARIANT = "agent-configs/SOUL.p01.md"
_REBUILT = re.compile(r"hotplex: (\d+) rebuilt, (\d+) up to date")
KINDS = ("fleet", "bots")
BUDGET_KIND = "fleet"

# Budgets of issue 26: ratios to the floor at 1,000 sets of the fleet project.
BUDGET_SIZE = 1000
RATIO_BUDGETS = {"full -j1": 2.5, "full -j2": 1.5, "no-op": 1.5, "1 variant": 2.0}
LARGE_SIZE = 10000  # within ×10 of BUDGET_SIZE in every column
OVERLAY_OVER_SCANS = 1.5
# Budgets of issues 7 and 13 that are not build times.
STARTUP_OVER_PYTHON_S = 0.040
PEAK_MEMORY_BYTES = 150 * 1024 * 1024
API_WARM_COMPILE_S = 0.001
DAILY_LOG_DAYS = 1000
NO_OP_BUILD_S = 0.1
VARIANT_CHANGE_S = 0.25
API_OVERLAY_PER_SECOND = 2000


# Measured processes may write bytecode caches, as an installed package has them: with
# PYTHONDONTWRITEBYTECODE set (some CI images set it) every start-up would compile hotplex anew.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"NO_COLOR": "1"}


@dataclass
class Run:
    seconds: float
    cpu: float  # user + system seconds of the process (and of its reaped children)
    peak_bytes: int
    stdout: str
    # The bytes it sent to the disk (``write_bytes`` of ``/proc/<pid>/io``, which counts each
    # page it dirtied); None where the kernel does not say.
    written: int | None = None


@dataclass
class Pair:
    """One column: hotplex's runs, each after a floor run."""

    hotplex: list[Run]
    floor: list[Run]

    @property
    def seconds(self) -> float:
        return median(self.hotplex)

    @property
    def floor_seconds(self) -> float:
        return median(self.floor)

    @property
    def ratio(self) -> float:
        return statistics.median(
            h.seconds / f.seconds for h, f in zip(self.hotplex, self.floor, strict=True)
        )


@dataclass
class SizeResult:
    kind: str
    artifacts: int
    files: int
    columns: dict[str, Pair]  # the columns of the cases run
    peak_bytes: int | None  # None: the full builds were not run (``--cases``)
    cpu_per_job: float | None  # hotplex full -j1
    floor_cpu_per_job: float | None


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    missed: int = 0

    def budget(self, name: str, met: bool, figures: str) -> None:
        self.missed += not met
        self.lines.append(f"  {'met    ' if met else 'NOT met'}  {name}: {figures}")


def _written() -> int | None:
    """This process's ``write_bytes`` so far: a reaped child's are added to its parent's, so
    the difference around a run is the bytes the run wrote (the pool processes' too)."""
    try:
        with open("/proc/self/io", encoding="ascii") as handle:
            fields = dict(line.split(": ") for line in handle.read().splitlines())
    except (OSError, ValueError):
        return None
    return int(fields["write_bytes"])


def measure_with_memory(argv: list[str]) -> Run:
    """One fresh process: wall time from spawn to exit, its CPU time, its own peak RSS
    (reaped with ``wait4``, whose figures cover that child and the children it reaped) and
    the bytes it wrote."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = _written()
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=_ENV, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {process.returncode}:\n{err.read()}")
        after = _written()
        written = None if before is None or after is None else after - before
        cpu = usage.ru_utime + usage.ru_stime
        return Run(elapsed, cpu, usage.ru_maxrss * 1024, out.read().decode(), written)


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


@dataclass
class Fixture:
    """A project built once, and the floor's copy of its sources with what the floor writes."""

    root: Path
    floor: Path
    sets: int
    changed_sets: int  # the sets one changed variant must rebuild

    def build(self, *args: str) -> list[str]:
        return [str(HOTPLEX), "-C", str(self.root), "build", *args]

    def floor_run(self, mode: str, *args: str) -> list[str]:
        paths = str(self.floor / "paths.marshal")
        return [sys.executable, str(FLOOR), mode, str(self.floor / "tree"), paths, *args]


def make_fixture(kind: str, artifacts: int, scratch: Path) -> Fixture:
    root = scratch / f"{kind}-{artifacts}"
    if kind == "fleet":
        sets = make_fake_project.make_fleet(root, artifacts)
        changed_sets = sets // (1 + len(make_fake_project.FLEET_PLATFORMS))
    else:
        shape = make_fake_project.make(root, artifacts)
        sets, changed_sets = shape.artifacts, shape.artifacts // len(shape.platforms)
    _expect([measure_with_memory([str(HOTPLEX), "-C", str(root), "build"])], sets, "first build")
    floor = scratch / f"floor-{kind}-{artifacts}"
    tree = floor / "tree"
    shutil.copytree(root, tree, ignore=shutil.ignore_patterns("dist", ".hotplex"))
    sources = _files(tree)  # the manifest and the sources folder (no dist/ nor .hotplex/)
    before = {rel: (root / rel).read_bytes() for rel in _files(root, "dist")}
    _write_marshal(floor / "paths.marshal", (sources, list(before)))
    _write_marshal(floor / "full.marshal", list(before.items()))
    # The bytes one variant change moves, from a real build after such a change.
    _append_change(root / CHANGED_VARIANT, "first")
    _expect([measure_with_memory(Fixture(root, floor, sets, 0).build())], changed_sets, "change")
    after = {rel: (root / rel).read_bytes() for rel in before}
    changed = [(rel, data) for rel, data in after.items() if data != before[rel]]
    _write_marshal(floor / "change.marshal", changed)
    return Fixture(root, floor, sets, changed_sets)


def _files(root: Path, under: str = ".") -> list[str]:
    """Every file below ``root/under`` as a path relative to ``root``, sorted."""
    found = []
    for here, _, names in os.walk(root / under):
        found += (os.path.relpath(os.path.join(here, n), root) for n in names)
    return sorted(found)


def _write_marshal(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(marshal.dumps(value))


def _append_change(variant: Path, mark: str) -> None:
    variant.write_text(variant.read_text() + f"Change {mark}.\n", encoding="utf-8")


# The cases ``--cases`` chooses from, and the columns of each.
CASES = {
    "full": ("full -j1", "full -j2"),
    "no-op": ("no-op", "no-op check"),
    "change": ("1 variant",),
}


def bench_size(
    kind: str, artifacts: int, repeat: int, scratch: Path, cases: tuple[str, ...] = tuple(CASES)
) -> SizeResult:
    fix = make_fixture(kind, artifacts, scratch)
    tree = fix.floor / "tree"
    full_payload = str(fix.floor / "full.marshal")

    def floor_from_nothing() -> Run:
        shutil.rmtree(tree / "dist", ignore_errors=True)
        os.sync()
        return measure_with_memory(fix.floor_run("full", full_payload))

    def hotplex_from_nothing(*args: str) -> Run:
        shutil.rmtree(fix.root / "dist", ignore_errors=True)
        shutil.rmtree(fix.root / ".hotplex", ignore_errors=True)
        os.sync()
        return measure_with_memory(fix.build(*args))

    columns: dict[str, Pair] = {}
    for _ in range(repeat if "full" in cases else 0):
        for column, jobs in (("full -j1", "-j1"), ("full -j2", "-j2")):
            pair = columns.setdefault(column, Pair([], []))
            pair.floor.append(floor_from_nothing())
            pair.hotplex.append(hotplex_from_nothing(jobs))
    for column in CASES["full"] if "full" in cases else ():
        _expect(columns[column].hotplex, fix.sets, column)
    if "full" not in cases:
        floor_from_nothing()  # the floor's tree gets the artifacts its full builds leave
    measure_with_memory(fix.build())  # the build after a build: stamps no longer racy
    if "no-op" in cases:
        columns["no-op"] = _interleaved(fix.floor_run("no-op"), fix.build(), repeat)
        _expect(columns["no-op"].hotplex, 0, "no-op build")
        check = [str(HOTPLEX), "-C", str(fix.root), "check"]
        columns["no-op check"] = _interleaved(fix.floor_run("no-op"), check, repeat)
    change_payload = str(fix.floor / "change.marshal")
    pair = Pair([], [])
    if "change" in cases:
        columns["1 variant"] = pair
    for index in range(repeat if "change" in cases else 0):  # each after a sync (write_bytes)
        _append_change(tree / CHANGED_VARIANT, str(index))
        os.sync()
        pair.floor.append(
            measure_with_memory(fix.floor_run("change", change_payload, CHANGED_VARIANT))
        )
        _append_change(fix.root / CHANGED_VARIANT, str(index))
        os.sync()
        pair.hotplex.append(measure_with_memory(fix.build()))
    _expect(pair.hotplex, fix.changed_sets, "variant change")
    files = len(marshal.loads((fix.floor / "paths.marshal").read_bytes())[1])
    shutil.rmtree(fix.root)
    shutil.rmtree(fix.floor)
    full = columns.get("full -j1")
    if full is None:
        return SizeResult(kind, fix.sets, files, columns, None, None, None)
    return SizeResult(
        kind,
        fix.sets,
        files,
        columns,
        max(r.peak_bytes for r in full.hotplex),
        statistics.median(r.cpu for r in full.hotplex) / fix.sets,
        statistics.median(r.cpu for r in full.floor) / fix.sets,
    )


def _interleaved(floor: list[str], hotplex: list[str], repeat: int) -> Pair:
    pair = Pair([], [])
    for _ in range(repeat):
        pair.floor.append(measure_with_memory(floor))
        pair.hotplex.append(measure_with_memory(hotplex))
    return pair


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


def bench_overlay() -> tuple[float, float, float]:
    """The slowest job's per-user compiles per second, its seconds per call and the seconds of
    the scans and sanitizer alone on the same overlays (benchmarks/bench_overlay.py, one core)."""
    script = Path(__file__).with_name("bench_overlay.py")
    run = measure_with_memory([sys.executable, str(script), "--calls", "2000"])
    rows = [line.split() for line in run.stdout.splitlines() if line.startswith("overlay")]
    slowest = min(rows, key=lambda row: float(row[4]))
    return float(slowest[4]), float(slowest[6]) / 1e6, float(slowest[9]) / 1e6


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


COLUMNS = ("full -j1", "full -j2", "no-op", "no-op check", "1 variant")


def print_table(results: list[SizeResult]) -> None:
    """Per kind and size: each column's ratio to the floor, then the absolute medians."""
    for r in results:
        shown = [c for c in COLUMNS if c in r.columns]
        print(f"{'project':>14}" + "".join(f"{c:>13}" for c in shown) + f"{'peak MB':>9}")
        name = f"{r.kind} {r.artifacts}"
        ratios = "".join(f"{'×' + format(r.columns[c].ratio, '.2f'):>13}" for c in shown)
        peak = "n/a" if r.peak_bytes is None else f"{r.peak_bytes / 2**20:.0f}"
        print(f"{name:>14}{ratios}{peak:>9}")
        hotplex = "".join(f"{ms(r.columns[c].seconds):>13}" for c in shown)
        print(f"{'  hotplex':<14}{hotplex}")
        floor = "".join(f"{ms(r.columns[c].floor_seconds):>13}" for c in shown)
        print(f"{'  floor':<14}{floor}")
        if r.cpu_per_job is not None and r.floor_cpu_per_job is not None:
            print(
                f"{'':14}{r.files} files; CPU per job, full -j1: hotplex "
                f"{r.cpu_per_job * 1000:.3f} ms, floor {r.floor_cpu_per_job * 1000:.3f} ms"
            )
        writes = tuple(c for c in WRITE_COLUMNS if c in r.columns)
        print(f"{'':14}written (write_bytes, median): {_writes(r.columns, writes)}")


# The columns whose writes are printed: a build's writes should follow its change.
WRITE_COLUMNS = ("no-op", "1 variant")


def _writes(columns: dict[str, Pair], names: tuple[str, ...]) -> str:
    shown = []
    for name in names:
        pair = columns[name]
        hotplex, floor = _median_written(pair.hotplex), _median_written(pair.floor)
        if hotplex is None or floor is None:
            return "n/a (no /proc/self/io)"
        shown.append(f"{name} hotplex {_kb(hotplex)}, floor {_kb(floor)}")
    return "; ".join(shown)


def _median_written(runs: list[Run]) -> float | None:
    written = [r.written for r in runs]
    return None if None in written else statistics.median(written)


def _kb(size: float) -> str:
    return f"{size / 1024:,.0f} KB"


def growth(results: list[SizeResult], report: Report) -> None:
    """Each column's hotplex time (and the floor's) from one size to the next of the same kind;
    from 1,000 to 10,000 sets of the budget kind, each must be at most ×10. Only the columns
    run at both sizes are compared."""
    for kind in KINDS:
        by_size = {r.artifacts: r for r in results if r.kind == kind}
        sizes = sorted(by_size)
        for small, large in itertools.pairwise(sizes):
            a, b = by_size[small], by_size[large]
            factor = large / small
            both = [c for c in COLUMNS if c in a.columns and c in b.columns]
            ratios = {c: b.columns[c].seconds / a.columns[c].seconds for c in both}
            floors = {c: b.columns[c].floor_seconds / a.columns[c].floor_seconds for c in both}
            figures = ", ".join(f"{k} ×{v:.1f} (floor ×{floors[k]:.1f})" for k, v in ratios.items())
            if (kind, small, large) == (BUDGET_KIND, BUDGET_SIZE, LARGE_SIZE):
                report.budget(
                    f"{kind} {small} → {large} sets within ×{factor:g} in every column",
                    all(v <= factor for v in ratios.values()),
                    figures,
                )
            else:
                print(f"  growth {kind} {small} → {large} (×{factor:g} sets): {figures}")


def size_budgets(results: list[SizeResult], report: Report) -> None:
    at = next((r for r in results if r.kind == BUDGET_KIND and r.artifacts == BUDGET_SIZE), None)
    if at is None:
        report.lines.append(f"  n/a      budgets at {BUDGET_SIZE} {BUDGET_KIND} sets: not run")
        return
    for column, limit in RATIO_BUDGETS.items():
        pair = at.columns.get(column)
        if pair is None:
            continue  # not among ``--cases``
        report.budget(
            f"{column}, {at.artifacts} sets ≤ {limit:g}× the floor",
            pair.ratio <= limit,
            f"×{pair.ratio:.2f} ({ms(pair.seconds)} vs {ms(pair.floor_seconds)})",
        )
    if at.peak_bytes is not None:
        report.budget(
            f"peak memory, {at.artifacts} sets < {PEAK_MEMORY_BYTES / 2**20:g} MB",
            at.peak_bytes < PEAK_MEMORY_BYTES,
            f"{at.peak_bytes / 2**20:.0f} MB",
        )


def main() -> int:
    parser = argparse.ArgumentParser(description="hotplex benchmarks (see the module docstring)")
    parser.add_argument(
        "--sizes", default="100,1000,10000", help="artifact set counts, comma-separated"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help=f"projects, comma-separated: {', '.join(KINDS)}"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument(
        "--cases",
        default=",".join(CASES),
        help=f"build cases, comma-separated: {', '.join(CASES)}",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a budget is not met")
    args = parser.parse_args()
    cases = tuple(c for c in args.cases.split(",") if c.strip())
    if unknown_cases := set(cases) - set(CASES):
        raise SystemExit(f"--cases: unknown {', '.join(sorted(unknown_cases))}")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    kinds = [k for k in args.kinds.split(",") if k.strip()]
    if unknown := set(kinds) - set(KINDS):
        raise SystemExit(f"--kinds: unknown {', '.join(sorted(unknown))}")
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
            for kind in kinds:
                results.append(bench_size(kind, size, args.repeat, scratch, cases))
        print_table(results)
        print()
        python, version_s, check = bench_startup(args.repeat, scratch)
        logs_no_op, logs_new_day = bench_daily_logs(args.repeat, scratch)
    api = bench_api()
    overlay, compile_s, scans_s = bench_overlay()
    print(
        f"start-up: python -c pass {ms(python)}, hotplex --version {ms(version_s)} "
        f"(+{ms(version_s - python)}, ×{version_s / python:.1f}), no-op check examples/basic "
        f"{ms(check)} (+{ms(check - python)}, ×{check / python:.1f})"
    )
    print(f"library API: warm Project.compile on examples/basic {api * 1e6:.0f} µs per call")
    print(
        f"library API: per-user overlay compiles (8 KB MEMORY.md), one core {overlay:.0f}/s; "
        f"slowest job {compile_s * 1e6:.0f} µs a call against {scans_s * 1e6:.0f} µs for the "
        "scans and sanitizer alone on the overlaid bytes"
    )
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
        f"library API per-user compile ≤ {OVERLAY_OVER_SCANS:g}× the scans and sanitizer alone",
        compile_s <= OVERLAY_OVER_SCANS * scans_s,
        f"×{compile_s / scans_s:.2f} ({compile_s * 1e6:.0f} µs vs {scans_s * 1e6:.0f} µs)",
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
