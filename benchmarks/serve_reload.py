"""The reload-consistency run of ``hotplex serve``: while clients read, a source is saved again
and again, and every answer must be one whole build.

    python benchmarks/serve_reload.py [--saves 20] [--workers 1]

1. Every state the run will give the sources is compiled beforehand with the library, in a
   scratch copy of the project: the set of legitimate builds, as the sha256 of the 200 body the
   server sends for each (rendered by its own ``artifact_json``), for
   ``GET /v1/artifacts/{target}`` and for ``POST /v1/compile`` with an 8 KB MEMORY.md overlay.
   Each 200 body's ETag, ``sha256`` field and the digest of the files it carries must agree.
2. A server runs on a copy of ``examples/basic``; a Python client with a thread pool reads both
   routes without pause and keeps every answer's status and body (``bench_serve.py`` runs this
   under its load generator's load on the artifact route, which counts statuses but keeps no
   bodies).
3. Atomic saves: SOUL.md is rewritten ``--saves`` times (temp file + rename), then the manifest
   is broken and fixed the same way. Every 200 body must be one of the legitimate builds (a body
   that is not is "mixed"), and none older than the file was when the request was sent; no
   answer may be a 5xx but the documented 503 of a broken project (POST /v1/compile; GET serves
   the last good artifact, marked stale).
4. In-place saves: SOUL.md is truncated and written ``--saves`` times, as an editor that saves
   in place does; every other time some 40 KB of two- and three-byte characters, written 4 KB
   at a time. No 5xx (nor a 4xx: the request is not at fault); once the file has settled,
   every answer is the final build. What was served meanwhile is counted by kind (a whole
   state, the empty file, a partial file).

Each save waits for an event, never for a fixed time: for the client to record answers to
requests sent after the save. The test suite runs a short run (tests/serve/test_reload.py).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench_overlay import user_files  # beside this script, so on sys.path when it runs
from hotplex import Artifact, Project
from hotplex.fs import settled, stamp

REPO = Path(__file__).resolve().parents[1]
BASIC = REPO / "examples" / "basic"
HOTPLEX = Path(sys.executable).parent / "hotplex"

TARGET, PLATFORM = "cc", "slack"
EDITED = "agent-configs/SOUL.md"  # the source the run saves again and again
MANIFEST = "hotplex.toml"
EMPTY = -1  # the state number of an empty SOUL.md (what an in-place save shows for a moment)
BROKEN_MANIFEST = '[project]\nname = "broken\n'  # an unterminated string: a TOML error

START_TIMEOUT = 30.0  # seconds for the server to answer /readyz
EVENT_TIMEOUT = 20.0  # seconds for any awaited event (answers recorded, a state served)
STOP_TIMEOUT = 15.0  # seconds for the server to exit after SIGTERM
PIECE = 4096  # bytes per write of an in-place save
ANSWERS_PER_STATE = 6  # answers to requests sent after a save, before the next save


def user_overlay() -> dict[str, str]:
    """One user's files: a short USER.md and about 8 KB of MEMORY.md (bench_overlay's)."""
    return user_files(0, random.Random(25), logs=False)


def state_text(original: str, number: int, large: bool = False) -> str:
    """SOUL.md in state ``number`` (0: as shipped); ``large``: some 40 KB more, of lines with
    two-byte and three-byte characters, which a save in pieces can cut in the middle of."""
    if number == 0:
        return original
    text = original + f"\n- Revision {number}: {'keep answers short. ' * (number % 4)}\n"
    if large:
        text += "".join(f"- Größe {i} der Revision {number}: ✓ übergroß\n" for i in range(1000))
    return text


# --- the set of legitimate builds -------------------------------------------------------------


def set_digest(files: dict[str, bytes]) -> str:
    """The ETag of an artifact set: sha256 of its ``sha256sum`` listing (files sorted by path)."""
    listing = "".join(f"{sha256(data)}  {path}\n" for path, data in sorted(files.items()))
    return sha256(listing.encode("utf-8"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def body_of(artifact: Artifact) -> bytes:
    """The 200 body the server sends for ``artifact`` (its own JSON rendering)."""
    from hotplex.serve.answers import Served
    from hotplex.serve.compile_route import artifact_json

    document = artifact_json(Served.of(artifact))
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


@dataclass
class Builds:
    """The sha256 of the body of every build a state of the sources gives, per route, mapped to
    the state's number."""

    artifact: dict[str, int] = field(default_factory=dict)
    compiled: dict[str, int] = field(default_factory=dict)


def legitimate_builds(project: Path, states: dict[int, str], overlay: dict[str, str]) -> Builds:
    """Compile each state of EDITED in a scratch copy of ``project`` with the library (a fresh
    ``Project`` each, so no cache is involved), for both routes."""
    builds = Builds()
    with tempfile.TemporaryDirectory(prefix="hotplex-states-") as scratch:
        copy = Path(scratch) / "project"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns(".hotplex", "dist"))
        for number, text in states.items():
            (copy / EDITED).write_text(text, encoding="utf-8")
            compiled = Project.load(copy)
            builds.artifact[sha256(body_of(compiled.compile(TARGET, PLATFORM)))] = number
            per_user = compiled.compile(TARGET, PLATFORM, overlay=overlay)
            builds.compiled[sha256(body_of(per_user))] = number
    return builds


# --- the server -------------------------------------------------------------------------------


class UnixConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket (``hotplex serve --unix PATH``)."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(str(self.path))


@dataclass
class Server:
    """A running ``hotplex serve``: on 127.0.0.1 (``port``) or on a Unix socket."""

    port: int
    unix: Path | None
    token: str | None
    process: subprocess.Popen
    log: Path

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def connection(self) -> http.client.HTTPConnection:
        if self.unix is not None:
            return UnixConnection(self.unix, EVENT_TIMEOUT)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=EVENT_TIMEOUT)

    def headers(self, body: bytes | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(
        self, method: str, path: str, body: bytes | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """One request on a new connection: status, headers (lower-case names), body."""
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=self.headers(body))
            response = connection.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            return response.status, headers, response.read()
        finally:
            connection.close()


_LISTENING = re.compile(r"listening on (?:http://127\.0\.0\.1:(\d+)|unix:)")


@contextlib.contextmanager
def serving(
    project: Path,
    workers: int = 1,
    unix: Path | None = None,
    token: str | None = None,
    cpus: set[int] | None = None,
) -> Iterator[Server]:
    """``hotplex -C project serve`` on a free loopback port (``--port 0``) or on the Unix socket
    ``unix``, ready (``/readyz`` answers 200) when this yields; stopped with SIGTERM afterwards.
    With ``token``, the server requires it (``--token-file``); with ``cpus``, it runs on those
    CPUs only (its threads and worker processes too). Its output goes to a log file beside
    ``project``."""
    log = project.parent / f"serve-{project.name}-{workers}.log"
    where = ["--unix", str(unix)] if unix is not None else ["--port", "0"]
    argv = [str(HOTPLEX), "-C", str(project), "serve", *where, "--workers", str(workers)]
    if token is not None:
        token_file = project.parent / "serve-token"
        token_file.write_text(token + "\n", encoding="utf-8")
        argv += ["--token-file", str(token_file)]
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            argv, stdout=sink, stderr=subprocess.STDOUT, preexec_fn=pinned(cpus)
        )
    try:
        server = Server(_port(process, log), unix, token, process, log)
        status, _, body = server.request("GET", "/readyz")
        if status != 200:
            raise RuntimeError(f"hotplex serve is not ready: {status} {body[:500]!r}")
        yield server
    finally:
        stop(process)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL if it has not exited within STOP_TIMEOUT."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """For ``Popen``'s ``preexec_fn``: the child runs on ``cpus`` only (as ``taskset -c``)."""
    if cpus is None:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def _port(process: subprocess.Popen, log: Path) -> int:
    """The port in the line the server prints once it listens (0 on a Unix socket): from then
    on a connection waits in the listen queue until a worker takes it."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = _LISTENING.search(log.read_text(errors="replace"))
        if found:
            return int(found.group(1) or 0)
        if process.poll() is not None:
            break
        time.sleep(0.02)  # polling a starting process's output: no event to wait for
    raise RuntimeError(f"hotplex serve did not say where it listens:\n{log.read_text()}")


# --- the recording client ---------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    route: str  # "artifact" or "compile"
    sent: float  # time.monotonic() when the request was sent
    answered: float  # and when its answer had been read
    status: int
    sha: str | None  # sha256 of a 200 body
    consistent: bool  # a 200 body's ETag, its sha256 field and its files' digest agree
    stale: bool
    problem: str  # a problem document's detail, for an error


class Recorder:
    """Threads that read both routes without pause, each on a keep-alive connection, and keep
    every answer. ``wait_for`` blocks until answers sent after a point satisfy a condition."""

    def __init__(self, server: Server, overlay: dict[str, str], threads: int = 4) -> None:
        self.server = server
        compile_body = {"target": TARGET, "platform": PLATFORM, "overlay": overlay}
        self.routes = [
            ("artifact", "GET", f"/v1/artifacts/{TARGET}?platform={PLATFORM}", None),
            ("compile", "POST", "/v1/compile", json.dumps(compile_body).encode()),
        ]
        self.answers: list[Answer] = []
        self.failures: list[str] = []  # connections refused or reset: never expected
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._loop, args=(i,)) for i in range(threads)]

    def __enter__(self) -> Recorder:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(EVENT_TIMEOUT)

    def _loop(self, index: int) -> None:
        connection = self.server.connection()
        turn = index
        while not self._stop.is_set():
            route, method, path, body = self.routes[turn % len(self.routes)]
            turn += 1
            sent = time.monotonic()
            try:
                connection.request(method, path, body=body, headers=self.server.headers(body))
                response = connection.getresponse()
                answer = _answer(
                    route, sent, response.status, response.getheaders(), response.read()
                )
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                with self._lock:
                    self.failures.append(f"{route}: {type(exc).__name__}: {exc}")
                    self._lock.notify_all()
                continue
            with self._lock:
                self.answers.append(answer)
                self._lock.notify_all()
        connection.close()

    def wait_for(self, since: float, done: Callable[[list[Answer]], bool], what: str) -> None:
        """Block until ``done`` holds for the answers to requests sent at or after ``since``."""
        deadline = time.monotonic() + EVENT_TIMEOUT
        with self._lock:
            while not done([a for a in self.answers if a.sent >= since]):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {what} within {EVENT_TIMEOUT:.0f} s")
                self._lock.wait(left)

    def settle(self, since: float, count: int = ANSWERS_PER_STATE) -> None:
        """Wait for ``count`` answers of each route to requests sent after ``since``."""

        def enough(answers: list[Answer]) -> bool:
            routes = Counter(a.route for a in answers)
            return all(routes[route] >= count for route, *_ in self.routes)

        self.wait_for(since, enough, f"{count} answers per route")


def _answer(route: str, sent: float, status: int, headers, body: bytes) -> Answer:
    answered = time.monotonic()
    headers = {k.lower(): v for k, v in headers}
    sha, consistent, problem = None, True, ""
    if status == 200:
        sha = sha256(body)
        files = files_digest(body)
        consistent = headers.get("etag") == f'"{files}"' and json.loads(body)["sha256"] == files
    elif status >= 400:
        try:
            problem = json.loads(body).get("detail", "")
        except ValueError:
            problem = body[:200].decode("utf-8", "replace")
    stale = "hotplex-stale" in headers
    return Answer(route, sent, answered, status, sha, consistent, stale, problem)


def files_digest(body: bytes) -> str:
    """The set digest of the files a 200 body carries, recomputed from their bytes: it must be
    the body's ETag and ``sha256``."""
    document = json.loads(body)
    files = {
        f["path"]: f["text"].encode("utf-8") if "text" in f else base64.b64decode(f["base64"])
        for f in document["files"]
    }
    return set_digest(files)


# --- saving files as editors do ---------------------------------------------------------------


def save_atomically(path: Path, text: str) -> None:
    """Write a temp file beside ``path``, then rename it over ``path``: a reader sees the whole
    old or the whole new file."""
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def save_in_place(path: Path, text: str) -> None:
    """Open ``path`` truncating it and write the new text into the same file (same inode), as
    an editor that saves in place does, in pieces of PIECE bytes as a buffered stream writes
    a large file: a reader can see the file empty, or cut short (in a character, too)."""
    data = text.encode("utf-8")
    with open(path, "wb", buffering=0) as handle:
        for start in range(0, len(data), PIECE):
            handle.write(data[start : start + PIECE])


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Report:
    saves: int
    workers: int
    answers: int = 0  # recorded by the Python client, both phases
    load_answers: int = 0  # answered to bench_serve.py's load generator
    served_builds: int = 0  # distinct legitimate builds served in the atomic phase (both routes)
    mixed: int = 0  # 200 bodies that are no legitimate build (atomic phase): must be 0
    server_errors: int = 0  # 5xx other than the documented 503: must be 0
    broken_503: Counter = field(default_factory=Counter)  # per route: 503 naming the manifest
    stale: int = 0  # 200 answers marked stale (the last good artifact while broken)
    failures: list[str] = field(default_factory=list)  # connection errors, 5xx details
    behind: int = 0  # 200 answers (not stale) older than the file when the request was sent
    in_place: Counter = field(default_factory=Counter)  # what in-place saves let readers see
    in_place_behind: int = 0  # answers older than the file, during in-place saves
    final_served: bool = True  # after the in-place saves settled: the final build, always
    slowest: float = 0.0  # seconds, of any answer

    def ok(self) -> bool:
        return (
            self.mixed == 0
            and self.server_errors == 0
            and self.behind == 0
            and not self.failures
            and self.final_served
        )

    def lines(self) -> list[str]:
        seen = ", ".join(f"{kind} {n}" for kind, n in sorted(self.in_place.items()))
        return [
            f"reload run, --workers {self.workers}, {self.saves} atomic + {self.saves} in-place"
            f" saves of {EDITED} and one broken manifest:",
            f"  responses: {self.answers} recorded with bodies"
            f" (slowest {self.slowest * 1000:.0f} ms)"
            + (f", {self.load_answers} more to the load generator" if self.load_answers else ""),
            f"  distinct builds served: {self.served_builds}",
            f"  mixed bodies: {self.mixed}",
            f"  5xx other than the documented 503: {self.server_errors};"
            f" 503 naming the broken manifest: {self.broken_503['compile']} to POST /v1/compile,"
            f" {self.broken_503['artifact']} to GET /v1/artifacts;"
            f" stale 200 (last good artifact): {self.stale}",
            f"  answers older than the file when the request was sent: {self.behind}",
            f"  during in-place saves, 200 bodies were: {seen or 'none'}"
            f" ({self.in_place_behind} older than the file)",
            f"  after the in-place saves settled, the final build served: {self.final_served}",
            *(f"  FAILURE: {failure}" for failure in self.failures[:10]),
        ]


@dataclass
class Timeline:
    """When each save returned (``time.monotonic()``), and the phases' bounds."""

    saves: list[tuple[float, int]] = field(default_factory=list)  # (time, state number)
    broken: float = 0.0  # the manifest broken: stale answers and 503s may start
    in_place: float = 0.0  # the in-place saves start
    final: float = 0.0  # the last in-place save has settled

    def saved(self, number: int) -> None:
        self.saves.append((time.monotonic(), number))

    def state_at(self, sent: float) -> int:
        """The state the files were in when a request was sent."""
        return max((number for at, number in self.saves if at <= sent), default=0)


def run(project: Path, server: Server, saves: int, report: Report) -> None:
    """Both phases against a server on ``project``; fills ``report``."""
    soul = project / EDITED
    original = soul.read_text(encoding="utf-8")
    overlay = user_overlay()
    # In place, every other save is large and written in pieces.
    states = {n: state_text(original, n, n > saves and n % 2 == 0) for n in range(2 * saves + 1)}
    builds = legitimate_builds(project, {**states, EMPTY: ""}, overlay)
    manifest = project / MANIFEST
    good_manifest = manifest.read_text(encoding="utf-8")
    timeline = Timeline()

    with Recorder(server, overlay) as recorder:
        recorder.settle(time.monotonic())
        for number in range(1, saves + 1):
            save_atomically(soul, states[number])
            timeline.saved(number)
            recorder.settle(timeline.saves[-1][0])
        timeline.broken = time.monotonic()
        save_atomically(manifest, BROKEN_MANIFEST)
        recorder.wait_for(timeline.broken, _sees_broken, "answer from the broken project")
        recorder.settle(time.monotonic())
        fixed = time.monotonic()
        save_atomically(manifest, good_manifest)
        recorder.wait_for(fixed, _sees_fresh, "fresh answer after the manifest was fixed")
        recorder.settle(fixed)
        timeline.in_place = time.monotonic()
        for number in range(saves + 1, 2 * saves + 1):
            save_in_place(soul, states[number])
            timeline.saved(number)
            recorder.settle(timeline.saves[-1][0])
        _await_settled(soul)
        timeline.final = time.monotonic()
        recorder.settle(timeline.final, 2 * ANSWERS_PER_STATE)
    _judge(recorder, builds, timeline, report)


def _sees_broken(answers: list[Answer]) -> bool:
    return any(a.stale for a in answers) and any(a.status == 503 for a in answers)


def _sees_fresh(answers: list[Answer]) -> bool:
    return any(a.status == 200 and not a.stale for a in answers if a.route == "artifact") and any(
        a.status == 200 for a in answers if a.route == "compile"
    )


def _await_settled(path: Path) -> None:
    """Until ``path``'s stamp can vouch for its content (hotplex.fs.settled): from then on a
    compile that reads it keeps what it read."""
    current = stamp(path)
    deadline = time.monotonic() + EVENT_TIMEOUT
    while current is not None and not settled(current, time.time_ns()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not settle")
        time.sleep(0.005)  # the clock is the event: the mtime's racy window passing


def _judge(recorder: Recorder, builds: Builds, timeline: Timeline, report: Report) -> None:
    report.answers = len(recorder.answers)
    report.failures += recorder.failures
    report.slowest = max((a.answered - a.sent for a in recorder.answers), default=0.0)
    served = set()
    last = timeline.saves[-1][1] if timeline.saves else 0
    for answer in recorder.answers:
        if answer.status >= 500:
            documented = answer.answered >= timeline.broken and answer.sent < timeline.in_place
            if answer.status == 503 and MANIFEST in answer.problem and documented:
                report.broken_503[answer.route] += 1
            else:
                report.server_errors += 1
                report.failures.append(f"{answer.route} {answer.status}: {answer.problem}")
            continue
        if answer.status != 200:
            report.failures.append(f"{answer.route} {answer.status}: {answer.problem}")
            continue
        report.stale += answer.stale
        if not answer.consistent:
            report.failures.append(f"{answer.route}: ETag, sha256 and files disagree")
        known = builds.artifact if answer.route == "artifact" else builds.compiled
        state = known.get(answer.sha)
        behind = state not in (None, EMPTY) and state < timeline.state_at(answer.sent)
        behind = behind and not answer.stale
        if answer.answered < timeline.in_place:
            if state is None or state == EMPTY:
                report.mixed += 1
            else:
                served.add((answer.route, state))
                report.behind += behind
        elif answer.sent >= timeline.final:
            report.final_served = report.final_served and state == last
        else:
            kind = {None: "a partial file", EMPTY: "the empty file"}.get(state, "a whole state")
            report.in_place[kind] += 1
            report.in_place_behind += behind
    report.served_builds = len(served)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    report = Report(args.saves, args.workers)
    with tempfile.TemporaryDirectory(prefix="hotplex-reload-") as temp:
        project = Path(temp) / "basic"
        shutil.copytree(BASIC, project)
        with serving(project, args.workers) as server:
            run(project, server, args.saves, report)
    print("\n".join(report.lines()))
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
