"""The command line: parse arguments, find the project, run one command, render errors once,
return an exit status.

Each command is a ``run(args, root, manifest) -> int`` beside its work, and prints its own text
and JSON (``commands/``; ``import``'s in ``importing/``); ``serve`` is handed its options here.
A command is imported when it runs, so ``hotplex check`` on an up-to-date project loads neither
the manifest model nor the template grammar.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import stat
import sys
from types import SimpleNamespace

from hotplex import quick_args
from hotplex.errors import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, HotplexError
from hotplex.fs import kind_of, wrong_kind

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from pathlib import Path

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
        setattr(sys, name, Shown(getattr(sys, name), lossy=name == "stderr"))
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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = SimpleNamespace(command=None)  # what the handlers below read, if parse fails
    try:
        args = quick_args.parse(argv) or args
        if argv == ["--version"]:  # what a tool's probe runs: argparse's answer, without argparse
            args = SimpleNamespace(command="--version")
        if args.command is None:
            from hotplex import arguments

            args = arguments.parse(argv)
        if args.command == "--version":
            from hotplex import __version__

            print(f"hotplex {__version__}")
            return EXIT_OK
        root, manifest = _project(args, argv)
        if args.command in ("watch", "serve"):
            gc.set_threshold(*LONG_PROCESS_GC)
        if args.command not in _UP_TO_DATE_RUNS:
            from pathlib import Path

            root, manifest = Path(root), manifest and Path(manifest)
        return _command(args.command)(args, root, manifest)
    except SystemExit as exc:  # the help, or a mistake named: flushed as a command's output
        return EXIT_OK if exc.code is None else int(exc.code)
    except HotplexError as exc:
        _clear_progress()
        if getattr(args, "json", False):
            from hotplex.commands.build import error_report

            print(error_report(args.command, exc))
        sys.stderr.write(exc.render() + "\n")
        return exc.exit_status
    except BrokenPipeError:  # `hotplex show cc | head`: the reader has gone, nothing to report
        _lose_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as exc:
        from hotplex.commands.build import say_interrupted

        _clear_progress()
        # Stopped before the arguments were parsed: --json is looked for as given.
        say_interrupted(args, exc, getattr(args, "json", "--json" in argv))
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


# Commands that read a project's manifest; init and import make one.
_NEED_MANIFEST = frozenset(
    {"build", "check", "clean", "graph", "show", "stats", "watch", "serve", "memory", "learn"}
    | {"lock", "update", "fetch"}
)


# The commands whose up-to-date run is a few stat calls: they take the project's paths as
# ``str`` (``pathlib`` costs such a run about a seventh of its instructions); the others ``Path``.
_UP_TO_DATE_RUNS = frozenset({"build", "check"})


def _project(args: argparse.Namespace, argv: list[str]) -> tuple[str, str | None]:
    """The project root and manifest: -C DIR, else the folder of -f MANIFEST (as ``make -f``
    reads paths relative to the makefile's folder here: the manifest says "relative to this
    file"), else the current folder. A command that needs a manifest and finds none stops here,
    before anything (``.hotplex/`` included) is written."""
    manifest: str | None = args.manifest or None
    if args.directory:
        root = args.directory
        mode = kind_of(root)
        if mode is None:
            raise HotplexError.single(f"-C {args.directory}: no such directory")
        if not stat.S_ISDIR(mode):
            raise HotplexError.single(
                f"-C {args.directory}: {wrong_kind(args.directory, mode, 'a directory')}"
            )
        if manifest is not None:
            manifest = os.path.join(root, manifest)  # an absolute manifest stays itself
    else:
        folder = os.path.dirname(manifest) if manifest is not None else ""
        root = folder if folder not in ("", ".") else os.getcwd()
    if args.command in _NEED_MANIFEST:
        _require_manifest(args, root, manifest, argv)
    return root, manifest


def _require_manifest(
    args: argparse.Namespace, root: str, manifest: str | None, argv: list[str]
) -> None:
    from hotplex.manifest.read import MANIFEST_NAME

    if args.manifest and args.manifest.endswith("/"):  # the OS says "not a folder", not "no file"
        raise HotplexError.single(
            f"-f {args.manifest}: a path ending in '/' names a folder, not a file",
            hint=f"did you mean '{args.manifest.rstrip('/')}'?",
        )
    mode = kind_of(manifest if manifest is not None else os.path.join(root, MANIFEST_NAME))
    shown = args.manifest or MANIFEST_NAME
    if mode is not None and stat.S_ISREG(mode):
        return
    from pathlib import Path

    from hotplex.commands.invocation import command_line

    path = Path(manifest) if manifest is not None else Path(root, MANIFEST_NAME)
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
        from hotplex.arguments import without_place  # argparse: off the path of a good manifest

        where = os.path.relpath(above, Path.cwd())
        command = command_line(["-C", where, *without_place(argv)])
        hint = f"this folder is inside the project {above / MANIFEST_NAME}: run {command}"
    elif near is not None:
        hint = near
    else:
        init = ["init"] if folder == Path.cwd().resolve() else ["init", str(folder)]
        hint = f"run {command_line(init)} to create one, or pass -C DIR / -f FILE"
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


def _clear_progress() -> None:
    from hotplex.console import clear_progress

    clear_progress()


def cmd_serve(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
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


def _command(name: str) -> Callable[[argparse.Namespace, Path, Path | None], int]:
    """The command's ``run``, imported when it runs: ``hotplex check`` on an up-to-date project
    loads neither the manifest model nor the template grammar."""
    if name == "build":
        from hotplex.commands.build import run
    elif name == "check":
        from hotplex.commands.check import run
    elif name == "clean":
        from hotplex.commands.clean import run
    elif name == "graph":
        from hotplex.commands.graph import run
    elif name == "show":
        from hotplex.commands.show import run
    elif name == "stats":
        from hotplex.commands.stats import run
    elif name == "init":
        from hotplex.commands.scaffold import run
    elif name == "import":
        from hotplex.importing import run
    elif name == "watch":
        from hotplex.commands.watch import run
    elif name == "memory":
        from hotplex.commands.memory import run
    elif name == "learn":
        from hotplex.commands.learn import run
    elif name in ("lock", "update", "fetch"):
        from hotplex.commands.packages import run
    else:
        return cmd_serve
    return run


if __name__ == "__main__":
    run()
