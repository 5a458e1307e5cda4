"""``hotplex check``: whether the artifacts are what a build would write, or (``--overlay``)
what the memory write guard finds in per-user files; its text and its ``--json`` report."""

from __future__ import annotations

import os
import sys

from hotplex.commands.build import json_report
from hotplex.commands.invocation import build_request, fix_command
from hotplex.errors import EXIT_FAILED, EXIT_OK, HotplexError, shown

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.build import current
    from hotplex.build import run as build

    if args.overlay:
        return _check_overlay(args, root, manifest)
    if args.platform is not None or args.on_finding is not None:
        raise HotplexError.single(
            "--platform and --on-finding go with --overlay (check per-user files)",
            hint="hotplex check cc --overlay MEMORY.md=new-memory.md --on-finding block",
        )
    request = build_request(args, root, manifest, check=True)
    reports = None if args.json else current(request)
    if reports is not None:  # up to date, said from the log's reports without making records
        return _print_current(*reports)
    outcome = build(request, fast=args.json)
    stale = outcome.stale
    failed = bool(stale or outcome.orphans)
    if args.json:
        print(json_report(outcome, check=True))
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
        print(f"hotplex: {', '.join(counts)}; run: {fix_command(args)}")
        return EXIT_FAILED
    print(f"hotplex: {len(outcome.jobs)} artifact set(s) up to date")
    return EXIT_OK


def _check_overlay(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    """``check --overlay``: the memory write guard, as ``Project.check``; exit 1 when a
    finding would fail a compile or be blocked."""
    from hotplex.api import Project

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
        from hotplex.json_writer import json_text  # an up-to-date check imports no json

        print(json_text(report.to_json(), indent=2))
        return EXIT_OK if report.ok else EXIT_FAILED
    from hotplex.console import colour, warn
    from hotplex.findings_shown import not_shown, shown_findings

    for warning in report.warnings:
        warn(warning)
    listed, more = shown_findings(report.findings)
    for finding in listed:
        shade = "dim" if finding.action == "escaped" else "red"
        print(f"{colour(finding.action, shade)}: {shown(finding.describe())}")
        if finding.hint:
            print(f"  hint: {shown(finding.hint)}")
    for file, rules in more.items():
        print(not_shown(file, rules))
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


def read_arguments(arguments: list[str]) -> dict[str, Path]:
    """``--overlay FILE=PATH`` arguments -> FILE -> PATH, read by ``prepare`` as a source is."""
    from pathlib import Path  # not at import: an up-to-date check takes no pathlib

    paths: dict[str, Path] = {}
    for argument in arguments:
        key, equals, path = argument.partition("=")
        if not equals or not key or not path:
            raise HotplexError.single(
                f"--overlay {argument!r}: expected FILE=PATH", hint="e.g. USER.md=users/alice.md"
            )
        if key in paths:
            raise HotplexError.single(
                f"--overlay {key} is given twice ({paths[key]}, {path}): which text is meant?"
            )
        paths[key] = Path(_one_name(key, path))
    return paths


def _one_name(key: str, path: str) -> str:
    """``path`` as the overlay's label names it, the same however it is typed: '..' resolved
    (an ``overlay:users/*`` glob must not allow ``users/../../x.md``) and relative to the
    current folder when inside it, else absolute. A trailing '/' names a folder: refused,
    where the OS would take ``x.md/`` for an error and a path object drops the slash."""
    if path.endswith(("/", "/.")):
        raise HotplexError.single(
            f"--overlay {key}={path}: a path ending in '/' names a folder, not a file",
            hint=f"did you mean {key}={os.path.normpath(path)}?",
        )
    absolute = os.path.abspath(path)  # lexical: the file read is the one the label names
    inside = os.path.relpath(absolute)
    return absolute if inside == ".." or inside.startswith("../") else inside
