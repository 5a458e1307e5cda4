"""The cost of ``hotplex serve`` itself: its rates against the library's and a static file's, its
latency under an open-loop load, then the reload-consistency run under load.

    python benchmarks/bench_serve.py [--workers 1,2] [--duration 10] [--connections 32]
                                     [--saves 20] [--no-reload]

The load generator is ``benchmarks/openloop`` (Go, standard library only; built here with the
machine's ``go``, Debian's ``golang-go``, which ``.ci/run`` installs): closed loop for the
maximum rate, open loop for the latency (requests due on a fixed schedule, each one's latency
counted from its due time, so a server that stalls is charged for the requests it held back).
On two or more CPUs the server runs on the first and the generator on the second (as ``taskset
-c``), but with ``--workers`` above 1, when the server has every CPU; every rate is also given
per CPU second of the server's processes (``/proc``), which the machine's other work does not
inflate.

On a copy of ``examples/basic``, for each worker count:

- ``GET /v1/artifacts/cc?platform=slack`` (cached: unchanged sources) and ``POST /v1/compile``
  (a different user's USER.md and 8 KB MEMORY.md on each request, 64 users in turn): the
  maximum rate for ``--duration`` seconds, then p50, p99 and p99.9 at 50% and 90% of it;
- with one worker, beside them in the same run: the library's rate of the same per-user
  compiles (``Project.compile`` of the same 64 overlays, on the server's CPU; budget: the
  service at least 0.7 of it per CPU second), and the same uvicorn serving the GET's exact bytes
  as a static file (a Starlette ``StaticFiles`` app on loopback; budget: the GET at most 1.5
  times its cost per request).

Then, unless ``--no-reload``, the reload-consistency run of ``serve_reload.py`` while the
generator loads the artifact route. Exits 1 when any answer was not a 2xx (to the reload run's
own client: a 5xx but a documented 503), a transport error, an unsent or non-loopback request,
a body of the wrong size, a body mixing two states, or the server counted fewer answers than
were read.
An unmet budget is printed as ``NOT met``, not an exit status. Without ``go`` the benchmark says
so and exits 0 (1 in CI, where nothing may skip).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import serve_reload  # beside this script, so on sys.path when it runs
from bench_overlay import user_files
from hotplex import Project

HERE = Path(__file__).resolve().parent
GENERATOR = HERE / "openloop"
ARTIFACT_PATH = f"/v1/artifacts/{serve_reload.TARGET}?platform={serve_reload.PLATFORM}"
STATIC_NAME = "artifact.json"
USERS = 64
SHARES = (0.5, 0.9)  # of the maximum rate, for the open-loop latency
SERVICE_OVER_LIBRARY = 0.7  # budget: the service's compiles per CPU second / the library's
GET_OVER_STATIC = 1.5  # budget: a cached GET's CPU time / a static file's
STOP_TIMEOUT = 30.0  # seconds for the generator to report after SIGINT or its duration
SAMPLE = re.compile(r"^hotplex_http_requests_total\{(.*)\} (\S+)$", re.M)
LABEL = re.compile(r'(\w+)="([^"]*)"')
CLOCK = os.sysconf("SC_CLK_TCK")
GO_ENV = {"GOPROXY": "off", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}


# --- the generator ----------------------------------------------------------------------------


class Failed(Exception):
    """The run is not to be trusted: an answer or a count is wrong."""


def build_generator(into: Path) -> Path:
    binary = into / "openloop"
    env = {**os.environ, **GO_ENV}
    if not (env.get("HOME") or env.get("XDG_CACHE_HOME") or env.get("GOCACHE")):
        env["GOCACHE"] = str(Path(tempfile.gettempdir()) / "hotplex-go-cache")
    subprocess.run(
        ["go", "build", "-o", str(binary), "."], cwd=GENERATOR, env=env, check=True, timeout=300
    )
    return binary


@dataclass(frozen=True)
class Load:
    """What to send: a URL, and the bodies to POST in turn (none: GET)."""

    url: str
    bodies: Path | None
    label: str


class Generator:
    def __init__(self, binary: Path, connections: int, cpus: set[int] | None) -> None:
        self.binary = binary
        self.connections = connections
        self.cpus = cpus

    def argv(self, load: Load, seconds: float, rate: float) -> list[str]:
        argv = [str(self.binary), "-url", load.url, "-duration", f"{seconds:g}s"]
        argv += ["-rate", f"{rate:g}", "-connections", str(self.connections)]
        return argv + (["-bodies", str(load.bodies)] if load.bodies else [])

    def start(self, load: Load, seconds: float, rate: float = 0) -> subprocess.Popen:
        return subprocess.Popen(
            self.argv(load, seconds, rate),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=serve_reload.pinned(self.cpus),
        )

    def run(self, load: Load, seconds: float, rate: float = 0) -> dict:
        return self.report(self.start(load, seconds, rate), seconds + STOP_TIMEOUT)

    @staticmethod
    def report(process: subprocess.Popen, timeout: float) -> dict:
        output, errors = process.communicate(timeout=timeout)
        if process.returncode != 0:
            raise Failed(f"the load generator failed ({process.returncode}): {errors}")
        return json.loads(output)


def check(report: dict, label: str, size: int | None, allowed: str = "2xx") -> None:
    """Raise ``Failed`` unless every request was sent, over loopback, and answered ``allowed``
    (with a body of ``size`` bytes, when given)."""
    wrong = {k: n for k, n in report["status"].items() if n and k not in allowed.split(",")}
    problems = [
        f"{wrong} answers not {allowed}" if wrong else "",
        f"{report['errors']} transport errors (first: {report.get('first_error')})"
        if report["errors"]
        else "",
        f"{report['unsent']} requests never sent" if report["unsent"] else "",
        f"{report['not_loopback']} not over loopback" if report["not_loopback"] else "",
        "no request answered" if report["requests"] == 0 else "",
    ]
    if size is not None and (report["min_bytes"], report["max_bytes"]) != (size, size):
        problems.append(f"bodies of {report['min_bytes']}-{report['max_bytes']} bytes, not {size}")
    problems = [p for p in problems if p]
    if problems:
        raise Failed(f"{label}: {'; '.join(problems)}")


# --- the servers ------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its descendants, from /proc."""
    total = 0.0
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    total += (int(fields[11]) + int(fields[12])) / CLOCK  # utime, stime
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                total += cpu_seconds(int(child))
    return total


def answered(server: serve_reload.Server, route: str) -> int:
    """2xx answers the server counted on ``route`` (its /metrics, every worker's)."""
    status, _, body = server.request("GET", "/metrics")
    if status != 200:
        raise Failed(f"GET /metrics answered {status}")
    total = 0.0
    for labels, count in SAMPLE.findall(body.decode()):
        pairs = dict(LABEL.findall(labels))
        if pairs.get("route") == route and pairs.get("status", "").startswith("2"):
            total += float(count)
    return int(total)


def static_app():
    """uvicorn's factory for the static server: ``StaticFiles`` on the folder of $STATIC_DIR."""
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    folder = os.environ["HOTPLEX_BENCH_STATIC_DIR"]
    return Starlette(routes=[Mount("/", StaticFiles(directory=folder))])


@dataclass
class Static:
    port: int
    process: subprocess.Popen

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextlib.contextmanager
def static_serving(folder: Path, cpus: set[int] | None) -> Iterator[Static]:
    """uvicorn, as ``hotplex serve`` runs it (its default loop and HTTP parser, no access log,
    no Server header), serving ``folder`` on a loopback socket bound here."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    argv = [sys.executable, "-m", "uvicorn", "bench_serve:static_app", "--factory"]
    argv += ["--app-dir", str(HERE), "--fd", str(sock.fileno()), "--log-level", "warning"]
    argv += ["--no-access-log", "--no-server-header"]
    env = {**os.environ, "HOTPLEX_BENCH_STATIC_DIR": str(folder)}
    process = subprocess.Popen(
        argv, env=env, pass_fds=[sock.fileno()], preexec_fn=serve_reload.pinned(cpus)
    )
    try:
        yield Static(sock.getsockname()[1], process)
    finally:
        sock.close()
        serve_reload.stop(process)


def fetch(url: str) -> bytes:
    """One GET, on a new connection (the listen queue holds it until the server answers)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=STOP_TIMEOUT)
    try:
        connection.request("GET", urlunsplit(("", "", parts.path, parts.query, "")))
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    if response.status != 200:
        raise Failed(f"GET {url}: {response.status} {body[:300]!r}")
    return body


# --- the figures ------------------------------------------------------------------------------


@dataclass
class Rate:
    requests: int
    seconds: float
    cpu: float  # the server's CPU seconds meanwhile

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def per_cpu_second(self) -> float:
        return self.requests / self.cpu


def maximum(generator: Generator, load: Load, pid: int, seconds: float, size: int | None) -> Rate:
    check(generator.run(load, min(seconds, 1)), load.label, size)  # warm: compiles, connections
    before = cpu_seconds(pid)
    report = generator.run(load, seconds)
    rate = Rate(report["requests"], report["seconds"], cpu_seconds(pid) - before)
    check(report, load.label, size)
    print(
        f"{load.label:<40} max {rate.per_second:7.0f} req/s, {rate.per_cpu_second:7.0f} per"
        f" server CPU s ({rate.cpu:.1f} s), p50 {report['p50_ms']:.2f} ms"
        f" ({report['requests']} requests, all 2xx)",
        flush=True,
    )
    return rate


def latencies(generator: Generator, load: Load, top: float, seconds: float, size: int | None):
    for share in SHARES:
        report = generator.run(load, seconds, top * share)
        check(report, load.label, size)
        print(
            f"{'':<4}open loop at {share:.0%} ({top * share:6.0f}/s): p50 {report['p50_ms']:7.2f}"
            f" ms, p99 {report['p99_ms']:7.2f} ms, p99.9 {report['p999_ms']:7.2f} ms, max"
            f" {report['max_ms']:7.2f} ms ({report['requests']} requests, all 2xx)",
            flush=True,
        )


def library_rate(project: Path, bodies: list[dict], cpus: set[int] | None, seconds: float) -> Rate:
    """``Project.compile`` of the request bodies' overlays in turn, for ``seconds``, in this
    process (on ``cpus``): calls per wall and per CPU second."""
    previous = os.sched_getaffinity(0)
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    try:
        library = Project.load(project)
        for body in bodies:  # warm, as the server is: base files read, patterns compiled
            library.compile(body["target"], body["platform"], overlay=body["overlay"])
        calls, started, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - started < seconds:
            body = bodies[calls % len(bodies)]
            library.compile(body["target"], body["platform"], overlay=body["overlay"])
            calls += 1
        return Rate(calls, time.perf_counter() - started, time.process_time() - cpu)
    finally:
        os.sched_setaffinity(0, previous)


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def measure(project: Path, workers: int, args, temp: Path, binary: Path, cpus) -> None:
    """Every figure of one worker count; ``Failed`` on a wrong answer or count."""
    server_cpus, load_cpus = cpus if workers == 1 else (None, None)
    generator = Generator(binary, args.connections, load_cpus)
    bodies = [
        json.loads(line) for line in (temp / "compile-bodies.jsonl").read_text().split("\n") if line
    ]
    print(
        f"\n--workers {workers}"
        + (
            f", server on CPU {min(server_cpus)}, generator on CPU {min(load_cpus)}"
            if server_cpus and load_cpus
            else ", not pinned: rates per CPU second of the server's processes"
        ),
        flush=True,
    )
    with serve_reload.serving(project, workers, cpus=server_cpus) as server:
        pid = server.process.pid
        artifact = fetch(server.url(ARTIFACT_PATH))
        rates = {}
        for route, load, size in (
            (
                "/v1/artifacts/{target}",
                Load(server.url(ARTIFACT_PATH), None, "GET /v1/artifacts (cached)"),
                len(artifact),
            ),
            (
                "/v1/compile",
                Load(
                    server.url("/v1/compile"),
                    temp / "compile-bodies.jsonl",
                    "POST /v1/compile (8 KB MEMORY.md)",
                ),
                None,
            ),
        ):
            counted = answered(server, route)
            top = maximum(generator, load, pid, args.duration, size)
            latencies(generator, load, top.per_second, args.duration, size)
            rates[route] = top
            read_here = answered(server, route) - counted
            if read_here < top.requests:
                raise Failed(
                    f"{load.label}: the server counted {read_here} answers, the"
                    f" generator read {top.requests} in its measured run alone"
                )
    if workers != 1:
        return
    library = library_rate(project, bodies, server_cpus, args.duration)
    service = rates["/v1/compile"]
    ratio = service.per_cpu_second / library.per_cpu_second
    print(
        f"library Project.compile, same overlays    {library.per_second:7.0f} /s,"
        f" {library.per_cpu_second:7.0f} per CPU s; the service per CPU s is x{ratio:.2f} of it"
        f" (budget >= x{SERVICE_OVER_LIBRARY:g}: {verdict(ratio >= SERVICE_OVER_LIBRARY)});"
        f" wall x{service.per_second / library.per_second:.2f}",
        flush=True,
    )
    folder = temp / f"static-{workers}"
    folder.mkdir()
    (folder / STATIC_NAME).write_bytes(artifact)
    with static_serving(folder, server_cpus) as static:
        fetched = fetch(static.url(f"/{STATIC_NAME}"))
        if fetched != artifact:
            raise Failed("the static server's body is not the artifact's bytes")
        load = Load(static.url(f"/{STATIC_NAME}"), None, "static file, same bytes (StaticFiles)")
        top = maximum(generator, load, static.process.pid, args.duration, len(artifact))
        latencies(generator, load, top.per_second, args.duration, len(artifact))
    get = rates["/v1/artifacts/{target}"]
    cost = top.per_cpu_second / get.per_cpu_second
    print(
        f"a cached GET costs x{cost:.2f} a static file's CPU per request (budget <="
        f" x{GET_OVER_STATIC:g}: {verdict(cost <= GET_OVER_STATIC)}); wall rate"
        f" x{top.per_second / get.per_second:.2f}",
        flush=True,
    )


def reload_under_load(project: Path, workers: int, args, binary: Path) -> bool:
    """serve_reload's run while the generator loads the artifact route; both must be clean."""
    result = serve_reload.Report(args.saves, workers)
    generator = Generator(binary, args.connections, None)
    with serve_reload.serving(project, workers) as server:
        load = Load(server.url(ARTIFACT_PATH), None, "meanwhile GET /v1/artifacts")
        process = generator.start(load, 3600)  # stopped by SIGINT when the run ends
        try:
            serve_reload.run(project, server, args.saves, result)
        finally:
            process.send_signal(signal.SIGINT)
            report = Generator.report(process, STOP_TIMEOUT)
    result.load_answers = report["requests"]
    print("\n".join(result.lines()))
    print(f"  the generator's answers by status: {report['status']}", flush=True)
    check(report, load.label, None)  # a broken project's GET serves the last good, a 200
    return result.ok()


def pinning() -> tuple[set[int] | None, set[int] | None]:
    """(the server's CPUs, the generator's): one each, when there are two."""
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        return None, None
    return {available[0]}, {available[1]}


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


def positive(kind):
    """An argparse type: a number of ``kind`` above 0."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not (value > 0 and math.isfinite(value)):
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r}: not {what} above 0")
        return value

    return parse


def counts(text: str) -> list[int]:
    """``--workers``: worker counts, each at least 1, comma-separated."""
    return [positive(int)(part.strip()) for part in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workers", type=counts, default="1,2", help="worker counts, comma-separated"
    )
    parser.add_argument(
        "--duration", type=positive(float), default=10, help="seconds of load per figure"
    )
    parser.add_argument("--connections", type=positive(int), default=32)
    parser.add_argument("--saves", type=positive(int), default=20, help="saves in the reload run")
    parser.add_argument("--no-reload", action="store_true", help="only the load figures")
    args = parser.parse_args()
    if shutil.which("go") is None:
        print("bench_serve: skipped: go is not installed (Debian: apt-get install golang-go)")
        return 1 if os.environ.get("CI") else 0  # CI installs it: nothing may skip there
    ok = True
    with tempfile.TemporaryDirectory(prefix="hotplex-bench-serve-") as name:
        temp = Path(name)
        binary = build_generator(temp)
        compile_bodies(temp / "compile-bodies.jsonl")
        cpus = pinning()
        for workers in args.workers:
            project = temp / f"basic-{workers}"
            shutil.copytree(serve_reload.BASIC, project)
            try:
                measure(project, workers, args, temp, binary, cpus)
                if not args.no_reload and not reload_under_load(project, workers, args, binary):
                    ok = False
            except Failed as failed:
                print(f"bench_serve: FAILED: {failed}", file=sys.stderr)
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
