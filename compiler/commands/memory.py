"""``hotplex memory compact``: fold old days of the daily logs into months, and say what it did.

The compacting is ``hotplex.memory`` (through ``api.Project.compact_memory``); this module is
the command's edge: its text and its ``--json`` report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hotplex.errors import EXIT_OK, HotplexError, Span
from hotplex.fs import read_input_bytes
from hotplex.json_writer import json_text
from hotplex.memory.local import KEPT


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.api import Project

    _check_options(args)
    project = Project.load(root, manifest)
    if args.request:
        request = project.compaction_request(args.target, args.platform, args.month)
        if args.json:
            print(json_text(request.to_json(), indent=2))
        else:
            sys.stdout.write(request.text)
        return EXIT_OK
    answer = _read_answer(args.answer) if args.answer is not None else None
    done = project.compact_memory(
        dry_run=args.dry_run,
        archive=args.archive,
        answer=answer,
        month=args.month,
        label=args.answer or "answer",
    )
    if args.json:
        print(json_text(report(done, args.dry_run), indent=2))
    else:
        sys.stdout.write(text(done, args.dry_run))
    return EXIT_OK


def _check_options(args: argparse.Namespace) -> None:
    """The options that go together: --request needs --target; --answer, --request and
    --archive are three different runs."""
    chosen = [name for name in ("request", "answer", "archive") if getattr(args, name)]
    if len(chosen) > 1:
        raise HotplexError.single(
            f"--{chosen[0]} and --{chosen[1]} are two different runs: give one",
            hint="hotplex memory compact --request --target cc, then --answer FILE",
        )
    if args.request and args.target is None:
        raise HotplexError.single(
            "--request compiles the request for a target's worker: name it with --target",
            hint="hotplex memory compact --request --target cc",
        )
    if not args.request and (args.target or args.platform):
        raise HotplexError.single("--target and --platform go with --request")
    if args.month and not (args.request or args.answer):
        raise HotplexError.single("--month goes with --request or --answer")


def _read_answer(path: str) -> bytes:
    """The answer file, read as ``--overlay``'s are: a device or a FIFO is refused unread."""
    data = read_input_bytes(Path(path), path)
    if data is None:
        raise HotplexError.single("cannot read the answer: No such file", Span(path))
    return data


def report(done, dry_run: bool) -> dict[str, object]:
    """The ``--json`` report: each month, the files written and the days archived."""
    return {
        "newest_day": done.newest,
        "compact_after_days": done.after_days,
        "dry_run": dry_run,
        "months": [
            {
                "month": m.month,
                "path": m.path,
                "days": list(m.days),
                "new_days": list(m.new_days),
                "history_entries": m.history,
                "text_to_history": m.kept or None,
                "left": list(m.left),
                "changed": m.changed,
            }
            for m in done.months
        ],
        "written": [w.path for w in done.writes],
        "archived": [{"from": a, "to": b} for a, b in done.archived],
        "removed": list(done.stale),
        "errors": [],
    }


def text(done, dry_run: bool) -> str:
    """The command's text: each month, each file, each move, then one line in all."""
    verb = "would write" if dry_run else "wrote"
    lines = []
    for month in done.months:
        new = month.new_days
        span = f" ({new[0].removesuffix('.md')} … {new[-1].removesuffix('.md')})" if new else ""
        lines.append(
            f"  {month.month}: {len(month.days)} day(s) in {month.path}, {len(new)} new{span}"
        )
        if month.history:
            lines.append(f"    {month.history} entry(ies) the digest had no room for: to history")
        if month.left:
            lines.append(
                f"    left as days, added or changed since the request: {', '.join(month.left)}"
            )
        if month.kept:
            history = f"{month.path.rpartition('/')[0]}/history/{month.month}.md"
            lines.append(
                f"    {month.path} {KEPT[month.kept][1]}: its text kept whole in {history}"
            )
    lines += [f"  {verb} {w.path}" for w in done.writes]
    lines += [f"  {'would move' if dry_run else 'moved'} {a} to {b}" for a, b in done.archived]
    lines += [
        f"  {'would remove' if dry_run else 'removed'} {path}: a temp file a killed run left"
        for path in done.stale
    ]
    if done.newest is None:
        lines.append("hotplex: no daily logs to compact")
    elif not done.changed:
        lines.append(
            f"hotplex: nothing to compact: every day more than {done.after_days} days before"
            f" {done.newest.removesuffix('.md')} is compacted"
        )
    else:
        tail = " (--dry-run: nothing written)" if dry_run else ""
        lines.append(
            f"hotplex: {len(done.months)} month(s) compacted; {verb} {len(done.writes)} file(s),"
            f" {'would archive' if dry_run else 'archived'} {len(done.archived)} day(s){tail}"
        )
    return "\n".join(lines) + "\n"
