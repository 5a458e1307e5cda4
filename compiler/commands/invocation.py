"""What a command line asks for and what its output tells the user to run next: a hotplex
command to paste into a shell, and the build request of ``build``, ``check`` and ``watch``."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from hotplex.build import Request


def command_line(parts: list[str]) -> str:
    """A hotplex command line to paste into a shell: each argument quoted where needed."""
    import shlex

    return shlex.join(["hotplex", *parts])


def fix_command(args: argparse.Namespace) -> str:
    """The build that finishes the job, with the command line's -C and -f."""
    parts = []
    if args.directory:
        parts += ["-C", args.directory]
    if args.manifest:
        parts += ["-f", args.manifest]
    return command_line([*parts, "build"])


def processes(args: argparse.Namespace) -> int:
    if args.jobs is not None:
        return args.jobs
    from hotplex.build import default_processes

    return default_processes()


def build_request(
    args: argparse.Namespace, root: Path, manifest: Path | None, check: bool = False
) -> Request:
    from hotplex.build import Request
    from hotplex.console import progress

    return Request(
        root=root,
        manifest=manifest,
        targets=tuple(args.targets),
        check=check,
        diff=getattr(args, "diff", False),
        processes=processes(args),
        on_progress=progress,
        frozen=getattr(args, "frozen", False),
    )
