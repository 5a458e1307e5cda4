"""Load on ``hotplex serve`` with a real load generator (wrk), then the reload-consistency run.

    python benchmarks/bench_serve.py [--workers 1,2] [--duration 10] [--connections 8]
                                     [--saves 20] [--no-reload]

For each worker count (``hotplex serve --workers N``) on a copy of ``examples/basic``:

- ``GET /v1/artifacts/cc?platform=slack``: the cached artifact (unchanged sources);
- ``POST /v1/compile``: a per-user compile, a different user's USER.md and 8 KB MEMORY.md on
  every request (64 users in turn);

each for ``--duration`` seconds with ``--connections`` keep-alive connections: requests per
second and the p50/p99 latency, from wrk's own figures. Then, unless ``--no-reload``, the
reload-consistency run of ``serve_reload.py`` under wrk's load on the artifact route: its
counts, and wrk's answers by status. Exits 1 when any answer was a 5xx (but a documented 503),
a body mixed two states, or the run's checks failed.

wrk is Debian's package ``wrk`` (``.ci/run`` installs it); without it the benchmark says so and
exits 0 (1 in CI, where nothing may skip).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import serve_reload  # beside this script, so on sys.path when it runs
from bench_overlay import user_files

HERE = Path(__file__).resolve().parent
WRK_SCRIPT = HERE / "wrk_report.lua"
ARTIFACT_PATH = f"/v1/artifacts/{serve_reload.TARGET}?platform={serve_reload.PLATFORM}"
USERS = 64
WRK_THREADS = 1  # the server has the other core (and shares this one): two cores in all
STOP_TIMEOUT = 30.0  # seconds for wrk to print its report after SIGINT


def compile_bodies(path: Path) -> Path:
    """One JSON body per line for POST /v1/compile, a different user's files on each."""
    rng = random.Random(25)
    lines = []
    for index in range(USERS):
        body = {
            "target": serve_reload.TARGET,
            "platform": serve_reload.PLATFORM,
            "overlay": user_files(index, rng, logs=False),
        }
        lines.append(json.dumps(body))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def wrk_argv(url: str, connections: int, seconds: float, bodies: Path | None) -> list[str]:
    argv = ["wrk", "-t", str(WRK_THREADS), "-c", str(connections), "-d", f"{seconds:g}s"]
    argv += ["--timeout", "10s", "-s", str(WRK_SCRIPT), url]
    return argv + (["--", str(bodies)] if bodies else [])


def wrk_report(output: str) -> dict:
    """The JSON line ``wrk_report.lua`` prints at the end."""
    for line in output.splitlines():
        if line.startswith("wrk-report: "):
            return json.loads(line.removeprefix("wrk-report: "))
    raise RuntimeError(f"wrk printed no report:\n{output}")


def load(url: str, connections: int, seconds: float, bodies: Path | None = None) -> dict:
    done = subprocess.run(
        wrk_argv(url, connections, seconds, bodies),
        capture_output=True,
        text=True,
        timeout=seconds + STOP_TIMEOUT,
        check=True,
    )
    return wrk_report(done.stdout)


def figure_line(route: str, workers: int, report: dict) -> str:
    status = report["status"]
    other = report["requests"] - status["2xx"]
    return (
        f"{route:<28} --workers {workers}  {report['per_second']:7.0f} req/s"
        f"  p50 {report['p50_ms']:6.2f} ms  p99 {report['p99_ms']:6.2f} ms"
        f"  ({report['requests']} requests, {other} not 2xx, {report['socket_errors']} socket"
        " errors)"
    )


def measure(project: Path, workers: int, args, bodies: Path) -> bool:
    """The two routes' figures on one server; whether every answer was a 2xx."""
    ok = True
    with serve_reload.serving(project, workers) as server:
        for route, path, payload in (
            ("GET /v1/artifacts (cached)", ARTIFACT_PATH, None),
            ("POST /v1/compile (8 KB)", "/v1/compile", bodies),
        ):
            load(server.url(path), args.connections, 1, payload)  # warm: first compiles
            report = load(server.url(path), args.connections, args.duration, payload)
            print(figure_line(route, workers, report), flush=True)
            ok = ok and report["status"]["2xx"] == report["requests"]
            ok = ok and report["socket_errors"] == 0
    return ok


def reload_under_load(project: Path, workers: int, args) -> bool:
    """serve_reload's run while wrk loads the artifact route; both must be clean."""
    result = serve_reload.Report(args.saves, workers)
    with serve_reload.serving(project, workers) as server:
        # As long as the run may take; stopped by SIGINT when it ends (wrk then reports).
        argv = wrk_argv(server.url(ARTIFACT_PATH), args.connections, 3600, None)
        wrk = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            serve_reload.run(project, server, args.saves, result)
        finally:
            wrk.send_signal(signal.SIGINT)
            output, _ = wrk.communicate(timeout=STOP_TIMEOUT)
    load_report = wrk_report(output)
    result.load_answers = load_report["requests"]
    print("\n".join(result.lines()))
    print(figure_line("  meanwhile wrk on GET", workers, load_report))
    print(f"  wrk's answers by status: {load_report['status']}", flush=True)
    clean = load_report["status"]["5xx"] == 0 and load_report["socket_errors"] == 0
    return result.ok() and clean


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--duration", type=float, default=10, help="seconds of load per figure")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--saves", type=int, default=20, help="saves in the reload run")
    parser.add_argument("--no-reload", action="store_true", help="only the load figures")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("bench_serve: skipped: wrk is not installed (Debian: apt-get install wrk)")
        return 1 if os.environ.get("CI") else 0  # CI installs it: nothing may skip there
    ok = True
    with tempfile.TemporaryDirectory(prefix="hotplex-bench-serve-") as temp:
        bodies = compile_bodies(Path(temp) / "compile-bodies.jsonl")
        for workers in (int(n) for n in args.workers.split(",")):
            project = Path(temp) / f"basic-{workers}"
            shutil.copytree(serve_reload.BASIC, project)
            ok = measure(project, workers, args, bodies) and ok
            if not args.no_reload:
                ok = reload_under_load(project, workers, args) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
