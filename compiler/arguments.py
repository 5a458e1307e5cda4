"""The command line's grammar: the options and commands of ``hotplex``, for argparse.

Only the command being run gets its parser and arguments built (argparse formats a help text
for every argument it is given, and making a parser costs a tenth of a no-op build's
instructions, which a pre-commit hook would pay for at every commit); ``hotplex --help``, or a
command that is not one, gets all of them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from hotplex import __version__


def _build(command: argparse.ArgumentParser) -> None:
    command.add_argument("targets", nargs="*", metavar="TARGET", help="only these targets")
    command.add_argument("--json", action="store_true", help="print a JSON report")
    command.add_argument("--explain", action="store_true", help="say why each artifact was rebuilt")
    _frozen_option(command)
    _jobs_option(command)


def _check(command: argparse.ArgumentParser) -> None:
    command.add_argument("targets", nargs="*", metavar="TARGET")
    command.add_argument("--json", action="store_true")
    command.add_argument("--diff", action="store_true", help="show what a build would change")
    _frozen_option(command)
    _jobs_option(command)
    _overlay_option(
        command,
        "check these per-user files instead of the artifacts: every finding, size and cut"
        " (FILE of the sources folder, its text read from PATH)",
    )
    command.add_argument("--platform", default=None, help="with --overlay: the artifact to size")
    _on_finding_option(command)


def _frozen_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--frozen",
        action="store_true",
        help="exit 1 unless hotplex.lock agrees with [[package]] and the cache with the lock",
    )


def _overlay_option(command: argparse.ArgumentParser, help: str) -> None:
    command.add_argument("--overlay", action="append", default=[], metavar="FILE=PATH", help=help)


def _on_finding_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--on-finding",
        choices=("error", "block"),
        default=None,
        help="what a finding in an --overlay file does (default: the manifest's [overlay]"
        " on_finding): fail, or block the entry holding it",
    )


def _graph(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", choices=("dot", "json"), default="dot")


def _show(command: argparse.ArgumentParser) -> None:
    command.add_argument("target")
    command.add_argument("--platform", default=None)
    command.add_argument(
        "--file",
        metavar="NAME",
        help="another file of the artifact folder, e.g. agents/reviewer.md (a sub-agent)",
    )
    _overlay_option(
        command,
        "compile as if FILE of the sources folder held PATH's text (e.g. USER.md=alice.md)",
    )
    _on_finding_option(command)


def _stats(command: argparse.ArgumentParser) -> None:
    command.add_argument("targets", nargs="*", metavar="TARGET")
    command.add_argument("--json", action="store_true")


def _init(command: argparse.ArgumentParser) -> None:
    command.add_argument("folder", nargs="?", default=".", metavar="DIR", help="default: .")
    command.add_argument(
        "--worker",
        action="append",
        metavar="WORKER",
        help="a target for this worker (repeatable; default: claude-code and opencode-server)",
    )
    command.add_argument("--name", help="project name (default: the folder's name)")


def _import(command: argparse.ArgumentParser) -> None:
    command.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .)")
    command.add_argument("--into", default=".", metavar="DIR", help="the new project (default: .)")
    command.add_argument("--dry-run", action="store_true", help="show the mapping, write nothing")
    command.add_argument(
        "--copy", action="store_true", help="copy the files into agent-configs/ (default: in place)"
    )
    command.add_argument(
        "--for",
        dest="for_workers",
        action="append",
        default=[],
        metavar="WORKER[,WORKER]",
        help="the workers Cursor, Copilot and ruler rules are for (default: claude-code)",
    )


def _watch(command: argparse.ArgumentParser) -> None:
    command.add_argument("targets", nargs="*", metavar="TARGET", help="only these targets")
    command.add_argument("--explain", action="store_true", help="say why each artifact was rebuilt")
    command.add_argument(
        "--debounce",
        type=int,
        default=100,
        metavar="MS",
        help="build once no file has changed for MS milliseconds (default: 100)",
    )
    _jobs_option(command)


def _serve(command: argparse.ArgumentParser) -> None:
    command.add_argument("--host", help="address to bind (default: 127.0.0.1)")
    command.add_argument("--port", type=_port, help="port to bind; 0: a free one (default: 8765)")
    command.add_argument(
        "--unix", metavar="PATH", help="listen on a Unix socket instead (no --host, --port)"
    )
    command.add_argument(
        "--token-file",
        metavar="FILE",
        help="require 'Authorization: Bearer <token>' with the token in FILE (needed to bind an"
        " address other than loopback)",
    )
    command.add_argument(
        "--workers", type=_positive, default=1, metavar="N", help="server processes (default: 1)"
    )
    command.add_argument(
        "--body-limit",
        type=_positive,
        default=1 << 20,
        metavar="BYTES",
        help="largest request body (default: 1048576)",
    )


def _memory(command: argparse.ArgumentParser) -> None:
    command.add_argument("action", choices=("compact",), help="compact: fold old days into months")
    command.add_argument(
        "--dry-run", action="store_true", help="say what would change; write nothing"
    )
    command.add_argument("--json", action="store_true", help="print a JSON report")
    command.add_argument(
        "--archive",
        action="store_true",
        help="move the compacted days into archive/ beside them (read by no artifact)",
    )
    command.add_argument(
        "--request",
        action="store_true",
        help="print the compaction request for a month, in --target's worker's own form",
    )
    command.add_argument(
        "--answer", metavar="FILE", help="file FILE, a worker's answer to --request, as the month"
    )
    command.add_argument("--target", help="with --request: the target whose worker runs it")
    command.add_argument("--platform", default=None, help="with --request: its platform")
    command.add_argument(
        "--month", metavar="YYYY-MM", help="with --request/--answer (default: the oldest to do)"
    )


def _learn(command: argparse.ArgumentParser) -> None:
    command.add_argument("facts", nargs="*", metavar="KEY=VALUE", help="facts to learn")
    command.add_argument(
        "--facts", dest="facts_file", metavar="FILE", help="a JSON list of {key, value} objects"
    )
    command.add_argument(
        "--file", metavar="PATH", help="the profile (default: USER.md of the sources folder)"
    )
    command.add_argument("--source", metavar="S", help="who said them: a session or channel id")
    command.add_argument("--date", metavar="YYYY-MM-DD", help="the day they were said")
    command.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    command.add_argument("--json", action="store_true", help="print a JSON report")
    command.add_argument("--restore", metavar="KEY", help="learn a retired value again")
    command.add_argument("--at", metavar="DATE", help="with --restore: the value held that day")
    command.add_argument(
        "--request", metavar="TRANSCRIPT", help="print the extraction request for a transcript"
    )
    command.add_argument("--target", help="with --request: the target whose worker runs it")
    command.add_argument("--platform", default=None, help="with --request: its platform")


def _port(text: str) -> int:
    value = _whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {value}")
    return value


def _update(command: argparse.ArgumentParser) -> None:
    command.add_argument("names", nargs="*", metavar="NAME", help="only these packages")


def _nothing(command: argparse.ArgumentParser) -> None:
    return None


# Each command: its one-line help and what adds its arguments, in the order `--help` lists them.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "build": ("build the artifacts that are out of date", _build),
    "check": ("exit 1 if any artifact is stale; writes nothing", _check),
    "clean": ("delete the artifacts and the build state", _nothing),
    "graph": ("print the dependency graph", _graph),
    "show": ("print an artifact as it would be built", _show),
    "stats": ("size per artifact and section against the limits", _stats),
    "init": ("create a manifest and the default sources, where missing", _init),
    "import": ("adopt CLAUDE.md, AGENTS.md, Cursor rules, ... as a new project", _import),
    "watch": ("rebuild on every change", _watch),
    "serve": ("answer compiles over HTTP (needs hotplex[serve])", _serve),
    "memory": ("compact the daily logs' old days into one file per month", _memory),
    "learn": ("merge learned facts into USER.md, or compile an extraction request", _learn),
    "lock": ("pin each [[package]] in hotplex.lock (network)", _nothing),
    "update": ("move packages to their rev's newest commit, say what changed (network)", _update),
    "fetch": ("fill the package cache from hotplex.lock (network)", _nothing),
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose help is written as any output is: argparse drops a failed
    write, so ``hotplex --help >/dev/full`` exited 0 with the help lost. An option is its whole
    name: ``--jso`` was taken as ``--json`` where ``hotplex --vers`` is refused, and a prefix that
    names one option today would name two once another is added; a misspelt one, or a misspelt
    choice, is told the name meant."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def print_help(self, file: TextIO | None = None) -> None:
        (file or sys.stdout).write(self.format_help())

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's choice check, with the choice meant (``memory compac``, ``--format jsn``)."""
        if action.choices is not None and isinstance(value, str) and value not in action.choices:
            listed = ", ".join(map(repr, action.choices))
            near = _near(value, action.choices)
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{near} (choose from {listed})"
            )
        super()._check_value(action, value)


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, sized from the terminal without importing ``shutil`` (with its
    compression modules) at every start-up: argparse makes a formatter for each argument."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    """What ``shutil.get_terminal_size`` says: $COLUMNS, else the terminal's width, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def parse(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed, each mistake named as the user typed it, with the word meant where one
    is near: an option before the command that is none of hotplex's, a command after ``--``, a
    misspelt command, an option the command does not have (under the command's own usage).
    argparse alone says "COMMAND is required", "invalid choice: '--'" and the top's usage."""
    top, commands = parsers(argv)
    word = _first_word(argv)
    if word == "--":
        top.error(f"argument COMMAND: a command must come before '--' (choose from {_LISTED})")
    elif word is not None and word.startswith("-") and word not in _TOP_OPTIONS:
        near = _near(word, _TOP_OPTIONS, 0.75) or " (a command's own options follow it)"
        top.error(f"unrecognized option {word!r} before COMMAND{near}")
    elif word is not None and not word.startswith("-") and word not in COMMANDS:
        near = _near(word, COMMANDS)
        top.error(f"argument COMMAND: invalid choice: {word!r}{near} (choose from {_LISTED})")
    args, extras = top.parse_known_args(argv)
    if extras:
        command = commands[args.command]
        options = [flag for action in command._actions for flag in action.option_strings]
        command.error(f"unrecognized arguments: {' '.join(extras)}{_near(extras[0], options)}")
    return args


_TOP_OPTIONS = ("-h", "--help", "--version", "-C", "-f")
_LISTED = ", ".join(map(repr, COMMANDS))


def _near(given: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """ " (did you mean 'build'?)" for the known word nearest ``given``, if one is near."""
    import difflib  # an error's path only

    near = difflib.get_close_matches(given, list(known), n=1, cutoff=cutoff)
    return f" (did you mean {near[0]!r}?)" if near else ""


def parsers(argv: list[str]) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser for ``argv`` and its commands' parsers: the command it names alone (every
    command when it names none or one that is not, for the help)."""
    top = _Parser(
        prog="hotplex",
        description="Compile agent-context Markdown into per-worker artifacts.",
        formatter_class=_Formatter,
    )
    top.add_argument("--version", action="version", version=f"hotplex {__version__}")
    top.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    top.add_argument(
        "-f", dest="manifest", metavar="MANIFEST", help="manifest file (default: hotplex.toml)"
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # -C and -f also work after the command (`hotplex build -C DIR`: pre-commit's `args:` lands
    # there); SUPPRESS keeps an absent one from hiding the value given before the command.
    common = _Parser(add_help=False, formatter_class=_Formatter)
    for flag, dest, metavar in (("-C", "directory", "DIR"), ("-f", "manifest", "MANIFEST")):
        common.add_argument(
            flag, dest=dest, metavar=metavar, default=argparse.SUPPRESS, help="as before COMMAND"
        )
    named = _first_word(argv)
    parsers = {}
    for name, (text, add_arguments) in COMMANDS.items():
        if named not in COMMANDS or named == name:  # a parser each costs a no-op: one is made
            parsers[name] = commands.add_parser(
                name, parents=[common], help=text, formatter_class=_Formatter
            )
            add_arguments(parsers[name])
    return top, parsers


def _first_word(argv: list[str]) -> str | None:
    """The first argument that is not ``-C DIR`` or ``-f FILE``: the command, when it is one."""
    return next(iter(without_place(argv)), None)


def without_place(argv: list[str]) -> list[str]:
    """The arguments less ``-C DIR`` and ``-f FILE``: the command as typed, wherever it runs
    (the hint that moves it to the project above repeats it whole: ``memory compact --dry-run``)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("-C", "-f"):
            skip = True
        elif arg[:2] not in ("-C", "-f"):  # not a value glued to its flag (``-Cdir``)
            kept.append(arg)
    return kept


def _jobs_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "-j",
        dest="jobs",
        type=_positive,
        default=None,
        metavar="N",
        help="compile in N processes (default: the number of cores; -j1: in this one)",
    )


def _positive(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _whole(text: str) -> int:
    """``text`` as a whole number in ASCII digits: ``int`` takes ``２``, ``٣`` and ``1_0`` too."""
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(text)
