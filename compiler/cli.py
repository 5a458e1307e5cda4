"""The command line: parse arguments, run one command, render errors once, return an exit status.

Commands import what they need when they run, so ``hotplex check`` on an up-to-date project loads
neither the manifest model nor the template grammar.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import __version__
from .errors import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, HotplexError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hotplex",
        description="Compile agent-context Markdown into per-worker artifacts.",
    )
    parser.add_argument("--version", action="version", version=f"hotplex {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    parser.add_argument(
        "-f", dest="manifest", metavar="MANIFEST", help="manifest file (default: hotplex.toml)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser("build", help="build the artifacts that are out of date")
    build.add_argument("targets", nargs="*", metavar="TARGET", help="only these targets")
    build.add_argument("--json", action="store_true", help="print a JSON report")
    build.add_argument("--explain", action="store_true", help="say why each artifact was rebuilt")

    check = commands.add_parser("check", help="exit 1 if any artifact is stale; writes nothing")
    check.add_argument("targets", nargs="*", metavar="TARGET")
    check.add_argument("--json", action="store_true")
    check.add_argument("--diff", action="store_true", help="show what a build would change")

    commands.add_parser("clean", help="delete the artifacts and the build state")

    graph = commands.add_parser("graph", help="print the dependency graph")
    graph.add_argument("--format", choices=("dot", "json"), default="dot")

    show = commands.add_parser("show", help="print an artifact as it would be built")
    show.add_argument("target")
    show.add_argument("--platform", default=None)

    stats = commands.add_parser("stats", help="size per artifact and section against the limits")
    stats.add_argument("targets", nargs="*", metavar="TARGET")
    stats.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = Path(args.directory) if args.directory else Path.cwd()
    manifest = Path(args.manifest) if args.manifest else None
    if manifest is not None and not manifest.is_absolute() and args.directory:
        manifest = root / manifest
    try:
        if not root.is_dir():
            raise HotplexError.single(f"-C {args.directory}: no such directory")
        return _COMMANDS[args.command](args, root, manifest)
    except HotplexError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"artifacts": [], "errors": [p.to_json() for p in exc.problems]}))
        sys.stderr.write(exc.render() + "\n")
        return exc.exit_status
    except KeyboardInterrupt:
        sys.stderr.write("hotplex: interrupted; artifacts from the last good build are untouched\n")
        return 130
    except Exception as exc:  # the edge: a bug must not reach the user as a traceback
        if os.environ.get("HOTPLEX_DEBUG"):
            raise
        sys.stderr.write(
            f"hotplex: internal error: {type(exc).__name__}: {exc}\n"
            "  this is a bug in hotplex; set HOTPLEX_DEBUG=1 for the traceback and report it\n"
        )
        return EXIT_INTERNAL


def _fix_command(args: argparse.Namespace) -> str:
    parts = ["hotplex"]
    if args.directory:
        parts += ["-C", args.directory]
    if args.manifest:
        parts += ["-f", args.manifest]
    return " ".join([*parts, "build"])


def _run_build(args: argparse.Namespace, root: Path, manifest: Path | None, check: bool):
    from .build import Request, run

    request = Request(
        root=root,
        manifest=manifest,
        targets=tuple(args.targets),
        check=check,
        diff=getattr(args, "diff", False),
    )
    return run(request)


def _json_report(outcome, check: bool) -> str:
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
                    "truncations": job.truncations if file.path == job.primary else [],
                    "warnings": job.warnings if file.path == job.primary else [],
                    "status": job.status,
                    "rebuilt": job.rebuilt,
                    "written": file.path in job.written,
                    "reason": "; ".join(job.reasons) or None,
                }
            )
    key = "orphans" if check else "deleted"
    report = {
        "artifacts": artifacts,
        key: outcome.orphans,
        "warnings": outcome.warnings,
        "errors": [],
    }
    return json.dumps(report, ensure_ascii=False, indent=2)


def _print_truncations(outcome) -> None:
    from .console import colour
    from .limits import Truncation

    warning = colour("warning", "yellow", sys.stderr)
    for job in outcome.jobs:
        for cut in job.truncations:
            sys.stderr.write(f"{warning}: {job.id}: {Truncation.from_json(cut).describe()}\n")
        for text in job.warnings:
            sys.stderr.write(f"{warning}: {job.id}: {text}\n")


def cmd_build(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    started = time.perf_counter()
    outcome = _run_build(args, root, manifest, check=False)
    if args.json:
        print(_json_report(outcome, check=False))
        return EXIT_OK
    from .console import colour

    for warning in outcome.warnings:
        sys.stderr.write(f"{colour('warning', 'yellow', sys.stderr)}: {warning}\n")
    rebuilt = [j for j in outcome.jobs if j.rebuilt]
    for job in rebuilt:
        written = ", ".join(job.written) if job.written else "unchanged"
        print(f"  {colour('built', 'green')} {job.id}: {written}")
        if args.explain:
            for reason in job.reasons:
                print(f"      because {reason}")
    for path in outcome.orphans:
        print(f"  {colour('deleted', 'dim')} {path} (no longer in the manifest)")
    _print_truncations(outcome)
    elapsed = time.perf_counter() - started
    current = len(outcome.jobs) - len(rebuilt)
    print(f"hotplex: {len(rebuilt)} rebuilt, {current} up to date ({elapsed:.2f} s)")
    return EXIT_OK


def cmd_check(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    outcome = _run_build(args, root, manifest, check=True)
    stale = outcome.stale
    failed = bool(stale or outcome.orphans)
    if args.json:
        print(_json_report(outcome, check=True))
        return EXIT_FAILED if failed else EXIT_OK
    from .console import colour

    for job in stale:
        why = "; ".join(job.reasons)
        print(f"{colour(job.status, 'red')}: {job.primary} ({why})")
        if job.diff:
            sys.stdout.write(job.diff)
    for path in outcome.orphans:
        print(f"{colour('orphaned', 'red')}: {path} (a build would delete it)")
    if failed:
        count = len(stale) + len(outcome.orphans)
        print(f"hotplex: {count} artifact(s) out of date; run: {_fix_command(args)}")
        return EXIT_FAILED
    print(f"hotplex: {len(outcome.jobs)} artifact set(s) up to date")
    return EXIT_OK


def cmd_clean(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from .clean import clean

    removed = clean(root, manifest)
    for path in removed:
        print(f"  removed {path}")
    print(f"hotplex: removed {len(removed)} file(s)")
    return EXIT_OK


def cmd_graph(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from .graph import build_graph, to_dot, to_json

    graph = build_graph(root, manifest)
    print(to_dot(graph) if args.format == "dot" else to_json(graph))
    return EXIT_OK


def cmd_show(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from .api import Project

    artifact = Project.load(root, manifest).compile(args.target, args.platform)
    sys.stdout.write(artifact.text)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from .stats import collect, render_json, render_table

    rows = collect(root, manifest, tuple(args.targets))
    print(render_json(rows) if args.json else render_table(rows))
    return EXIT_OK


_COMMANDS = {
    "build": cmd_build,
    "check": cmd_check,
    "clean": cmd_clean,
    "graph": cmd_graph,
    "show": cmd_show,
    "stats": cmd_stats,
}


if __name__ == "__main__":
    sys.exit(main())
