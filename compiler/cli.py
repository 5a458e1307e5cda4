"""The command line: parse arguments, run one command, render errors once, return an exit status.

Commands import what they need when they run, so ``hotplex check`` on an up-to-date project loads
neither the manifest model nor the template grammar.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import stat
import sys
import time
from pathlib import Path

from hotplex import quick_args
from hotplex.errors import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, HotplexError, shown
from hotplex.fs import json_text, kind_of, wrong_kind

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse

EXIT_BROKEN_PIPE = 141  # what a shell reports for a process killed by SIGPIPE (128 + 13)
# A write that failed for want of room (the build's own writes are failures with a place of
# their own: only the command's output reaches the edge with one of these).
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

# The collector's thresholds for a command that ends on its own (as mypy's): a build makes
# hundreds of thousands of objects and hardly a cycle, and Python's defaults would look for
# cycles among them every 700 allocations. ``serve`` and ``watch`` go back to the defaults.
SHORT_PROCESS_GC = (100_000, 50, 50)
LONG_PROCESS_GC = (700, 10, 10)


def run() -> None:
    """The ``hotplex`` command (``[project.scripts]``): ``main``, as a short process. Once its
    output is flushed it ends without the interpreter's teardown, which frees every object the
    build made one by one: with the collector's thresholds, about a fifth of a build that
    rebuilds a hundred sets. Threads still running (none but a server's), a profiler or a tracer
    (cProfile, coverage) get the usual exit, and with it their reports."""
    gc.set_threshold(*SHORT_PROCESS_GC)
    from hotplex.console import Shown

    for name in ("stdout", "stderr"):  # started closed (``>&-``): what goes there is lost
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        setattr(sys, name, Shown(getattr(sys, name)))
    status = _flushed(main())
    threading = sys.modules.get("threading")  # not imported: no thread was started
    alone = threading is None or threading.active_count() == 1
    if alone and not _observed():
        os._exit(status)
    sys.exit(status)


def _observed() -> bool:
    """Whether a profiler, tracer or debugger watches: through ``sys.setprofile`` or
    ``settrace``, or (Python 3.12 on) as a ``sys.monitoring`` tool, which cProfile is there."""
    monitoring = getattr(sys, "monitoring", None)
    tools = range(6) if monitoring is not None else ()  # its tool ids are 0 to 5
    return (
        sys.getprofile() is not None
        or sys.gettrace() is not None
        or any(monitoring.get_tool(tool) is not None for tool in tools)
    )


def _lose_stdout() -> None:
    """What is still buffered for stdout goes nowhere: its reader has gone or its disk is full,
    and the flush at exit must not fail on it again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _flushed(status: int) -> int:
    """``status``, once what the command wrote is out: a reader gone is SIGPIPE's status, a
    full disk a failure."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            status = EXIT_BROKEN_PIPE
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            with contextlib.suppress(OSError, ValueError):
                os.write(2, f"hotplex: its output could not be written: {exc}\n".encode())
            status = EXIT_FAILED if status == EXIT_OK else status
    return status


def _processes(args: argparse.Namespace) -> int:
    if args.jobs is not None:
        return args.jobs
    from hotplex.build import default_processes

    return default_processes()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = quick_args.parse(argv)
    if args is None:
        from hotplex import arguments

        args = arguments.parser(argv).parse_args(argv)
    try:
        root, manifest = _project(args)
        return _COMMANDS[args.command](args, root, manifest)
    except HotplexError as exc:
        _clear_progress()
        if getattr(args, "json", False):
            print(json_text(_error_report(args.command, exc)))
        sys.stderr.write(exc.render() + "\n")
        return exc.exit_status
    except BrokenPipeError:  # `hotplex show cc | head`: the reader has gone, nothing to report
        _lose_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as exc:
        _clear_progress()
        _say_interrupted(args, exc)
        return 130
    except Exception as exc:  # the edge: a bug must not reach the user as a traceback
        if os.environ.get("HOTPLEX_DEBUG"):
            raise
        _clear_progress()
        if isinstance(exc, OSError) and exc.errno in _NO_ROOM:  # stdout on a full disk
            _lose_stdout()
            sys.stderr.write(f"hotplex: its output could not be written: {exc.strerror}\n")
            return EXIT_FAILED
        sys.stderr.write(
            f"hotplex: internal error: {type(exc).__name__}: {exc}\n"
            "  this is a bug in hotplex; set HOTPLEX_DEBUG=1 for the traceback and report it\n"
        )
        return EXIT_INTERNAL


def _say_interrupted(args: argparse.Namespace, exc: KeyboardInterrupt) -> None:
    """What Ctrl-C left: a build names the sets it finished (each file is written whole, by
    rename, so every artifact is its old or its new version) and the command that finishes the
    job; a command that writes nothing says so."""
    from hotplex.records import Interrupted

    if args.command in ("check", "graph", "show", "stats"):
        sys.stderr.write("hotplex: interrupted; nothing was written\n")
        return
    if not isinstance(exc, Interrupted):  # not in a build
        sys.stderr.write("hotplex: interrupted\n")
        return
    from hotplex.records import Outcome

    rebuilt = [job for job in exc.jobs if job.rebuilt]
    said = (
        f"interrupted: {len(rebuilt)} artifact set(s) rebuilt, {exc.total - len(exc.jobs)}"
        f" of {exc.total} not reached; every file is whole (old or new); run {_fix_command(args)}"
        " to finish the job"
    )
    if getattr(args, "json", False):  # the document of the sets reached, as a build's
        outcome = Outcome(exc.jobs, [], [], fast=False)
        print(_json_report(outcome, False, [{"message": said}]))
    else:
        _print_built(rebuilt, False)
    sys.stderr.write(f"hotplex: {said}\n")


def _error_report(command: str, exc: HotplexError) -> dict[str, object]:
    """The --json report of a command that failed: the keys of a success, empty, and errors."""
    report: dict[str, object] = {"artifacts": []}
    if command in ("build", "check"):
        report["orphans" if command == "check" else "deleted"] = []
        report["warnings"] = []
    report["errors"] = [p.to_json() for p in exc.problems]
    return report


# Commands that read a project's manifest; init and import make one.
_NEED_MANIFEST = frozenset(
    {"build", "check", "clean", "graph", "show", "stats", "watch", "serve", "memory", "learn"}
)


def _project(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """The project root and manifest: -C DIR, else the folder of -f MANIFEST (as ``make -f``
    reads paths relative to the makefile's folder here: the manifest says "relative to this
    file"), else the current folder. A command that needs a manifest and finds none stops here,
    before anything (``.hotplex/`` included) is written."""
    manifest = Path(args.manifest) if args.manifest else None
    if args.directory:
        root = Path(args.directory)
        mode = kind_of(root)
        if mode is None:
            raise HotplexError.single(f"-C {args.directory}: no such directory")
        if not stat.S_ISDIR(mode):
            raise HotplexError.single(
                f"-C {args.directory}: {wrong_kind(args.directory, mode, 'a directory')}"
            )
        if manifest is not None and not manifest.is_absolute():
            manifest = root / manifest
    else:
        folder = manifest.parent if manifest is not None else Path(".")
        root = folder if folder != Path(".") else Path.cwd()
    if args.command in _NEED_MANIFEST:
        _require_manifest(args, root, manifest)
    return root, manifest


def _require_manifest(args: argparse.Namespace, root: Path, manifest: Path | None) -> None:
    from hotplex.manifest.read import MANIFEST_NAME

    path = manifest if manifest is not None else root / MANIFEST_NAME
    mode = kind_of(path)
    shown = args.manifest or MANIFEST_NAME
    if mode is not None and stat.S_ISREG(mode):
        return
    if mode is not None:  # there, but no file: not "does not exist", no hint to init
        raise HotplexError.single(wrong_kind(shown, mode))
    folder = path.parent.resolve()
    above = (
        next((p for p in folder.parents if (p / MANIFEST_NAME).is_file()), None)
        if manifest is None
        else None
    )
    near = _near_manifest(path) if manifest is not None else None
    if above is not None:
        where = os.path.relpath(above, Path.cwd())
        command = _command(["-C", where, args.command])
        hint = f"this folder is inside the project {above / MANIFEST_NAME}: run {command}"
    elif near is not None:
        hint = near
    else:
        init = ["init"] if folder == Path.cwd().resolve() else ["init", str(folder)]
        hint = f"run {_command(init)} to create one, or pass -C DIR / -f FILE"
    raise HotplexError.single(
        f"no manifest: '{shown}' does not exist (looked in {folder})", hint=hint
    )


def _near_manifest(path: Path) -> str | None:
    """A "did you mean" for a misspelt -f: the .toml files beside it."""
    from hotplex.errors import suggest

    try:
        names = [p.name for p in path.parent.iterdir() if p.suffix == ".toml"]
    except OSError:
        return None
    return suggest(path.name, names)


def _command(parts: list[str]) -> str:
    """A hotplex command line to paste into a shell: each argument quoted where needed."""
    import shlex

    return shlex.join(["hotplex", *parts])


def _clear_progress() -> None:
    from hotplex.console import clear_progress

    clear_progress()


def _fix_command(args: argparse.Namespace) -> str:
    parts = []
    if args.directory:
        parts += ["-C", args.directory]
    if args.manifest:
        parts += ["-f", args.manifest]
    return _command([*parts, "build"])


def _request(args: argparse.Namespace, root: Path, manifest: Path | None, check: bool):
    from hotplex.build import Request
    from hotplex.console import progress

    return Request(
        root=root,
        manifest=manifest,
        targets=tuple(args.targets),
        check=check,
        diff=getattr(args, "diff", False),
        processes=_processes(args),
        on_progress=progress,
    )


def _run_build(args: argparse.Namespace, root: Path, manifest: Path | None, check: bool):
    from hotplex.build import run

    return run(_request(args, root, manifest, check))


def _json_report(outcome, check: bool, errors: list[dict[str, str]] | None = None) -> str:
    artifacts = []
    for job in outcome.jobs:
        for file in job.files:
            artifacts.append(
                {
                    "target": job.target,
                    "worker": job.worker,
                    "platform": job.platform,
                    "path": file.path,
                    "sha256": file.sha256,
                    "bytes": file.bytes,
                    "truncations": [
                        t.to_json()
                        for t in job.truncations
                        if (t.document or job.primary) == file.path
                    ],
                    "warnings": [shown(w) for w in job.warnings if file.path == job.primary],
                    "status": job.changes.get(file.path, "current") if check else job.status,
                    "rebuilt": job.rebuilt,
                    "written": file.path in job.written,
                    "reason": "; ".join(job.reasons) or None,
                }
            )
    key = "orphans" if check else "deleted"
    report = {
        "artifacts": artifacts,
        key: outcome.orphans,
        "warnings": [shown(w) for w in outcome.warnings],
        "errors": errors or [],
    }
    return json_text(report, indent=2)


def _print_truncations(jobs) -> None:
    from hotplex.build.snapshot import repeated
    from hotplex.console import warn

    for job in jobs:
        for line in repeated(job):
            warn(f"{job.id}: {line}")


def cmd_build(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    started = time.perf_counter()
    if not args.json:
        from hotplex.build import Summary, run, up_to_date

        request = _request(args, root, manifest, check=False)
        summary = up_to_date(request)  # a no-op, or a few inputs edited: the log is not read
        if summary is None:
            outcome = run(request, fast=False)
            summary = Summary.of(outcome.jobs, outcome.orphans, outcome.warnings)
        _print_build(summary, args.explain, time.perf_counter() - started)
        return EXIT_OK
    outcome = _run_build(args, root, manifest, check=False)
    print(_json_report(outcome, check=False))
    return EXIT_OK


def _print_build(summary, explain: bool, elapsed: float) -> None:
    """A build's output, from its ``build.Summary``."""
    from hotplex.console import warn

    for warning in summary.warnings:
        warn(warning)
    rebuilt = [j for j in summary.jobs if j.rebuilt]
    _print_built(rebuilt, explain)
    if summary.orphans:
        from hotplex.console import colour
        from hotplex.fs import temp_for

        for path in summary.orphans:
            why = (
                "a killed write's temp file"
                if temp_for(path.rpartition("/")[2])
                else "no longer in the manifest"
            )
            print(f"  {colour('deleted', 'dim')} {path} ({why})")
    if summary.jobs:  # a no-op build imports nothing more
        _print_truncations(summary.jobs)
    for line in summary.told:
        warn(line, shown=True)
    print(f"hotplex: {len(rebuilt)} rebuilt, {summary.current} up to date ({elapsed:.2f} s)")


def _print_built(rebuilt, explain: bool) -> None:
    from hotplex.console import colour

    for job in rebuilt:
        written = ", ".join(job.written) if job.written else "unchanged"
        print(f"  {colour('built', 'green')} {job.id}: {written}")
        if explain:
            for reason in job.reasons:
                print(f"      because {reason}")


def cmd_check(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.build import current, run

    if args.overlay:
        return _check_overlay(args, root, manifest)
    if args.platform is not None or args.on_finding is not None:
        raise HotplexError.single(
            "--platform and --on-finding go with --overlay (check per-user files)",
            hint="hotplex check cc --overlay MEMORY.md=new-memory.md --on-finding block",
        )
    request = _request(args, root, manifest, check=True)
    reports = None if args.json else current(request)
    if reports is not None:  # up to date, said from the log's reports without making records
        return _print_current(*reports)
    outcome = run(request, fast=args.json)
    stale = outcome.stale
    failed = bool(stale or outcome.orphans)
    if args.json:
        print(_json_report(outcome, check=True))
        return EXIT_FAILED if failed else EXIT_OK
    from hotplex.console import colour, colour_diff, warn

    for warning in outcome.warnings:  # e.g. a build log it had to ignore
        warn(warning)
    for job in stale:
        for path, status in job.changes.items():
            why = "; ".join(_reasons_of(path, job))
            print(f"{colour(status, 'red')}: {path} ({why})")
        if job.diff:
            sys.stdout.write(colour_diff(job.diff))
    for path in outcome.orphans:
        print(f"{colour('orphaned', 'red')}: {path} (a build would delete it)")
    if failed:
        counts = [f"{len(stale)} artifact set(s) out of date"] if stale else []
        counts += [f"{len(outcome.orphans)} orphaned file(s)"] if outcome.orphans else []
        print(f"hotplex: {', '.join(counts)}; run: {_fix_command(args)}")
        return EXIT_FAILED
    print(f"hotplex: {len(outcome.jobs)} artifact set(s) up to date")
    return EXIT_OK


def _check_overlay(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    """``check --overlay``: the memory write guard, as ``Project.check``; exit 1 when a
    finding would fail a compile or be blocked."""
    from hotplex.api import Project
    from hotplex.sources.overlay import read_arguments

    if len(args.targets) > 1:
        raise HotplexError.single(
            f"check --overlay sizes one target's artifact, not {len(args.targets)}",
            hint="name one target, or none for every target",
        )
    files = read_arguments(args.overlay)
    project = Project.load(root, manifest)
    target = args.targets[0] if args.targets else None
    report = project.check(files, target, args.platform, on_finding=args.on_finding)
    if args.json:
        print(json_text(report.to_json(), indent=2))
        return EXIT_OK if report.ok else EXIT_FAILED
    from hotplex.console import colour

    for finding in report.findings:
        shade = "dim" if finding.action == "escaped" else "red"
        print(f"{colour(finding.action, shade)}: {shown(finding.describe())}")
        if finding.hint:
            print(f"  hint: {shown(finding.hint)}")
    for file in report.files:
        print(f"{shown(file.file)}: {file.bytes} bytes, {file.chars} characters")
    for job in report.jobs:
        where = f"{job.target}/{job.platform or 'default'}"
        for size in job.sizes:
            print(f"{where} {size.name}: {size.injected} of {size.raw} {size.unit} injected")
        for cut in job.truncations:
            print(f"{where}: {shown(cut.describe())}")
    failing = [f for f in report.findings if f.action != "escaped"]
    print(
        f"hotplex: {len(failing)} finding(s) to fix in {len(report.files)} file(s)"
        if failing
        else f"hotplex: {len(report.files)} file(s) clean"
    )
    return EXIT_OK if report.ok else EXIT_FAILED


def _print_current(count: int, _told: list[str], warnings: list[str]) -> int:
    from hotplex.console import warn

    for warning in warnings:
        warn(warning)
    print(f"hotplex: {count} artifact set(s) up to date")
    return EXIT_OK


def _reasons_of(path: str, job) -> list[str]:
    """The reasons of a set that name ``path``, else those that name none of its files (a
    changed source or setting): each file `check` lists says why it would be written."""
    own = [r for r in job.reasons if path in r]
    if own:
        return own
    files = [f.path for f in job.files]
    return [r for r in job.reasons if not any(f in r for f in files)] or job.reasons


def cmd_clean(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.clean import clean

    left: list[str] = []
    removed = clean(root, manifest, left)
    for path in removed:
        print(f"  removed {path}")
    for warning in left:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"hotplex: removed {len(removed)} file(s)")
    return EXIT_OK


def cmd_graph(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.graph import build_graph, to_dot, to_json

    graph = build_graph(root, manifest)
    print(to_dot(graph) if args.format == "dot" else to_json(graph))
    return EXIT_OK


def cmd_show(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.api import Project
    from hotplex.console import warn
    from hotplex.sources import raw_copies
    from hotplex.sources.logs import describe_cuts
    from hotplex.sources.overlay import read_arguments

    overlay = read_arguments(args.overlay)
    project = Project.load(root, manifest)
    artifact = project.compile(args.target, args.platform, overlay, on_finding=args.on_finding)
    if args.file is None:
        sys.stdout.buffer.write(artifact.text.encode("utf-8"))
    else:
        sys.stdout.buffer.write(artifact.file(args.file))
    folder = artifact.path.rpartition("/")[0]
    asked = artifact.path if args.file is None else f"{folder}/{args.file}"
    cuts = artifact.truncations
    for line in describe_cuts(c for c in cuts if (c.document or artifact.path) == asked):
        warn(line)
    for text in artifact.warnings:
        warn(text)
    for text in artifact.notes:
        sys.stderr.write(f"note: {shown(text)}\n")
    for finding in artifact.findings:
        warn(f"blocked an entry: {finding.describe()}")
    target = next(t for t in project.model.manifest.target if t.name == args.target)
    got = raw_copies.copies(project.model, target)
    if got is not None and got.more:
        warn(raw_copies.status(project.model, target))
    return EXIT_OK


def cmd_stats(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.stats import collect, render_json, render_table

    rows = collect(root, manifest, tuple(args.targets))
    print(render_json(rows) if args.json else render_table(rows))
    return EXIT_OK


def cmd_init(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.scaffold import scaffold
    from hotplex.console import colour

    folder = root / args.folder
    workers = tuple(args.worker or ()) or None
    done = scaffold(folder, manifest, workers, args.name)
    for path in done.created:
        print(f"  {colour('created', 'green')} {path}")
    for path in done.kept:
        print(f"  {colour('exists', 'dim')}  {path} (left alone)")
    from hotplex.console import warn

    for problem in done.taken:
        head, *rest = problem.render().split("\n")
        warn(head)
        sys.stderr.write("".join(f"{line}\n" for line in rest))
    for text in done.not_added:
        warn(text)
    where = [] if args.folder == "." else ["-C", args.folder]
    after = " once the place(s) above are free" if done.taken else ""
    print(
        f"hotplex: created {len(done.created)} file(s), left {len(done.kept)} alone; "
        f"next: {_command([*where, 'build'])}{after}"
    )
    return EXIT_OK


def cmd_import(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.importing import plan, report, write

    paths = [root / path for path in args.paths or ["."]]
    done = plan(paths, root / args.into, copy=args.copy, for_workers=tuple(args.for_workers))
    if not args.dry_run:
        write(done)
    for line in report(done, root, args.dry_run):
        print(line)
    into = done.into
    shown = os.path.relpath(into) if into.resolve().is_relative_to(Path.cwd()) else str(into)
    where = [] if shown == "." else ["-C", shown]
    print("nothing written (--dry-run)" if args.dry_run else f"next: {_command([*where, 'build'])}")
    return EXIT_OK


def cmd_watch(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    gc.set_threshold(*LONG_PROCESS_GC)
    from hotplex.build import Request
    from hotplex.commands.watch import watch

    sys.stdout.reconfigure(line_buffering=True)  # each cycle's report as it happens, even piped
    from hotplex.console import progress

    request = Request(
        root=root,
        manifest=manifest,
        targets=tuple(args.targets),
        processes=_processes(args),
        on_progress=progress,
    )
    try:
        watch(
            request,
            _CyclePrinter(args.explain),
            lambda: print(f"hotplex: watching {root} for changes (Ctrl-C stops)"),
            quiet_ms=args.debounce,
        )
    except ModuleNotFoundError as exc:
        if exc.name != "watchfiles":
            raise
        raise _watchfiles_missing() from None
    except KeyboardInterrupt as exc:
        from hotplex.records import Interrupted

        _clear_progress()
        if isinstance(exc, Interrupted):  # in the middle of a build
            _say_interrupted(args, exc)
        print("hotplex: stopped watching")
    return EXIT_OK


def _watchfiles_missing() -> HotplexError:
    return HotplexError.single(
        "hotplex watch needs the watchfiles package, which is not installed",
        hint="pip install 'hotplex[watch]'  (or: pip install watchfiles)",
    )


class _CyclePrinter:
    """Each watch cycle: errors and fixes always, a success when it built or deleted something
    or when its warnings are not the last ones shown (a new file no artifact reads changes no
    artifact, and is still news)."""

    def __init__(self, explain: bool) -> None:
        self.explain = explain
        self.warnings: list[str] | None = None  # the last shown

    def __call__(self, cycle) -> None:
        from hotplex.console import colour

        changed = "initial build" if cycle.number == 1 else "changed: " + _listed(cycle.changes)
        if cycle.error is not None:
            _clear_progress()
            print(f"hotplex: {changed}")
            sys.stderr.write(_describe_error(cycle.error) + "\n")
            failed = colour("build failed", "red")
            print(f"hotplex: {failed}; the last good artifacts stay in place. Watching for a fix.")
            return
        outcome = cycle.outcome
        built = outcome.orphans or any(j.rebuilt for j in outcome.jobs)
        if not (built or cycle.fixed or outcome.warnings != self.warnings):
            return
        self.warnings = outcome.warnings
        print(f"hotplex: {changed}")
        from hotplex.build import Summary

        summary = Summary.of(outcome.jobs, outcome.orphans, outcome.warnings)
        _print_build(summary, self.explain, cycle.seconds)
        if cycle.fixed:
            print(f"hotplex: {colour('fixed', 'green')}; changes take effect for the next session")
        elif cycle.number > 1 and built:
            print("hotplex: changes take effect for the next session")


def _listed(paths: tuple[str, ...], most: int = 5) -> str:
    return ", ".join(paths[:most]) + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _describe_error(error: Exception) -> str:
    if isinstance(error, HotplexError):
        return error.render()
    return f"hotplex: internal error: {type(error).__name__}: {error} (a bug in hotplex)"


def cmd_serve(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    gc.set_threshold(*LONG_PROCESS_GC)
    from hotplex.serve.run import serve

    serve(
        root,
        manifest,
        host=args.host,
        port=args.port,
        unix=args.unix,
        token_file=args.token_file,
        workers=args.workers,
        body_limit=args.body_limit,
    )
    return EXIT_OK


def cmd_memory(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.memory import cmd_memory as run_memory

    return run_memory(args, root, manifest)


def cmd_learn(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.commands.learn import run

    return run(args, root, manifest)


_COMMANDS = {
    "build": cmd_build,
    "check": cmd_check,
    "clean": cmd_clean,
    "graph": cmd_graph,
    "show": cmd_show,
    "stats": cmd_stats,
    "init": cmd_init,
    "import": cmd_import,
    "watch": cmd_watch,
    "serve": cmd_serve,
    "memory": cmd_memory,
    "learn": cmd_learn,
}


if __name__ == "__main__":
    run()
