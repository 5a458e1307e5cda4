"""``hotplex build``: its text and its ``--json`` report, the report of a command that failed,
and what Ctrl-C left. The build itself is ``hotplex.build``; ``check`` and ``watch`` print
through this module too."""

from __future__ import annotations

import sys
import time

from hotplex.commands.invocation import build_request, fix_command
from hotplex.errors import EXIT_OK, HotplexError, shown

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    started = time.perf_counter()
    from hotplex.build import Summary, up_to_date
    from hotplex.build import run as build

    request = build_request(args, root, manifest, check=False)
    if not args.json:
        summary = up_to_date(request)  # a no-op, or a few inputs edited: the log is not read
        if summary is None:
            outcome = build(request, fast=False)
            summary = Summary.of(outcome.jobs, outcome.orphans, outcome.warnings)
        print_build(summary, args.explain, time.perf_counter() - started)
        return EXIT_OK
    outcome = build(request)
    print(json_report(outcome, check=False))
    return EXIT_OK


def json_report(outcome, check: bool, errors: list[dict[str, str]] | None = None) -> str:
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
    from hotplex.json_writer import json_text  # only --json: a no-op build imports no json

    key = "orphans" if check else "deleted"
    report = {
        "artifacts": artifacts,
        key: outcome.orphans,
        "warnings": [shown(w) for w in outcome.warnings],
        "errors": errors or [],
    }
    return json_text(report, indent=2)


def error_report(command: str, exc: HotplexError) -> str:
    """The --json report of a command that failed: the keys of a success, empty, and errors."""
    from hotplex.json_writer import json_text

    report: dict[str, object] = {"artifacts": []}
    if command in ("build", "check"):
        report["orphans" if command == "check" else "deleted"] = []
        report["warnings"] = []
    report["errors"] = [p.to_json() for p in exc.problems]
    return json_text(report)


def print_build(summary, explain: bool, elapsed: float) -> None:
    """A build's output, from its ``build.Summary``."""
    from hotplex.console import warn

    for warning in summary.warnings:
        warn(warning)
    rebuilt = [j for j in summary.jobs if j.rebuilt]
    _print_built(rebuilt, explain)
    if summary.orphans:
        from hotplex.console import colour
        from hotplex.writes import temp_for

        for path in summary.orphans:
            why = (
                "a killed write's temp file"
                if temp_for(path.rpartition("/")[2])
                else "no target builds it"
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


def _print_truncations(jobs) -> None:
    from hotplex.build.snapshot import repeated
    from hotplex.console import warn

    for job in jobs:
        for line in repeated(job):
            warn(f"{job.id}: {line}")


def say_interrupted(args: argparse.Namespace, exc: KeyboardInterrupt, json: bool) -> None:
    """What Ctrl-C left: a build names the sets it finished (each file is written whole, by
    rename, so every artifact is its old or its new version) and the command that finishes the
    job; a command that writes nothing says so. With ``json`` (``--json``), its document too."""
    from hotplex.records import Interrupted

    if not isinstance(exc, Interrupted):  # not in a build (or before it began)
        said = "interrupted"
        if args.command in ("check", "graph", "show", "stats"):
            said = "interrupted; nothing was written"
        if json:  # a script reading stdout gets its document whenever the command stops
            print(error_report(args.command, HotplexError.single(said)))
        sys.stderr.write(f"hotplex: {said}\n")
        return
    from hotplex.records import Outcome

    rebuilt = [job for job in exc.jobs if job.rebuilt]
    left = exc.total - len(exc.jobs)
    said = (
        f"interrupted: {len(rebuilt)} artifact set(s) rebuilt, {left} of {exc.total} not"
        f" reached; every file is whole (old or new); run {fix_command(args)} to finish the job"
        if left
        else f"interrupted as the build was being recorded, every one of its {exc.total}"
        f" artifact set(s) reached ({len(rebuilt)} rebuilt); every file is whole (old or new);"
        f" run {fix_command(args)} to record what may not be"
    )
    if json:  # the document of the sets reached, as a build's
        outcome = Outcome(exc.jobs, [], [], fast=False)
        print(json_report(outcome, False, [{"message": said}]))
    else:
        _print_built(rebuilt, False)
    sys.stderr.write(f"hotplex: {said}\n")
