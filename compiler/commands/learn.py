"""``hotplex learn``: merge facts into a local profile, restore a retired one, or print the
extraction request for a target's worker; its text and JSON output.

    hotplex learn KEY=VALUE … [--facts FILE] [--file PATH] [--source S] --date YYYY-MM-DD
                  [--dry-run] [--json]
    hotplex learn --restore KEY [--at DATE] --date YYYY-MM-DD [--file PATH]
    hotplex learn --request TRANSCRIPT --target NAME [--platform P] [--file PATH] [--json]

The profile is the sources folder's USER.md, or ``--file`` (a path as the shell gives it: a
platform variant, a user's own file). What the call retired is appended to its history
(``learning/history.py``), on the disk before the profile is replaced; both are written
atomically, both or neither (``changes.Changes``), under a lock beside the profile
(``.USER.md.lock``) held from the read to the last rename, so that two runs at once each merge
into what the other wrote. Exit 1 when a fact was refused (the others are
written), 2 for input that is wrong.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import sys
from pathlib import Path

from hotplex.changes import Changes, FileLock, lock_wait_seconds
from hotplex.errors import EXIT_FAILED, EXIT_OK, HotplexError, Problem, Span, shown
from hotplex.fs import read_input
from hotplex.json_writer import json_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from hotplex.learning.report import LearnReport
    from hotplex.learning.request import LearnRequest


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.api import Project
    from hotplex.learning import calls, history

    project = Project.load(root, manifest)
    path, display = calls.local_profile(project.model, args.file)
    # Read before any lock file is made beside it: a device or a FIFO is refused first.
    text = calls.read_profile(path, display)
    if args.request is not None:
        return _request(args, project, text, display)
    # Where the profile and its history are written, through a symlink inside the project:
    # one leaving it is refused before anything is read from it.
    written = calls.written_path(project.model, path, display)
    history_name = _history_name(display)
    kept = calls.written_history(project.model, path, history_name)
    facts = _facts(args)
    if args.at is not None and args.restore is None:
        raise HotplexError.single("--at goes with --restore KEY", Span("arguments", key="--at"))
    if not facts and args.restore is None:
        raise HotplexError.single(
            "no facts to learn",
            Span("arguments"),
            "give KEY=VALUE arguments, --facts FILE, --restore KEY or --request TRANSCRIPT",
        )
    if args.date is None:
        raise HotplexError.single(
            "--date YYYY-MM-DD is required: the day the facts were said (hotplex never reads"
            " the clock)",
            Span("arguments", key="--date"),
        )
    writing = (
        contextlib.nullcontext()
        if args.dry_run
        else FileLock(calls.lock_of(path), lock_wait_seconds(), "hotplex learn")
    )
    with writing:
        if not args.dry_run:
            text = calls.read_profile(path, display)  # as the run before this one left it
        restored = None
        if args.restore is not None:
            restored = _restored(args, history.read(kept, history_name), history_name)
        report = calls.learn(project.model, facts, args.date, text, display, args.source, restored)
        if not args.dry_run:
            # The history first, on the disk before the profile changes: a run killed between
            # the two leaves a record of a fact still in the block, never a fact in neither.
            retired = history.appended(kept, report.retired, history_name)
            with Changes("hotplex learn", path.parent) as changes:
                if retired is not None:
                    changes.write(kept, retired, durable=True)
                if report.changed:
                    changes.write(written, report.text.encode("utf-8"))
    diff = _diff(text, report.text, display)
    if args.json:
        out = report.to_json()
        out.update(written=report.changed and not args.dry_run, diff=diff if args.dry_run else None)
        print(json_text(out))
    else:
        if args.dry_run:
            sys.stdout.write(diff)
        _print_report(report, args.dry_run)
    return EXIT_FAILED if report.refused else EXIT_OK


def _facts(args: argparse.Namespace) -> list[object]:
    from hotplex.learning.facts import from_arguments

    facts: list[object] = list(from_arguments(args.facts))
    if args.facts_file is not None:
        data = _input(args.facts_file)
        no_list = 'not a JSON list of {"key": ..., "value": ...} objects'
        try:
            listed = json.loads(data, object_pairs_hook=_Fields.of)
        except json.JSONDecodeError as exc:
            where = Span.at_offset(args.facts_file, exc.doc, exc.pos)
            raise HotplexError.single(f"not JSON: {exc.msg}", where) from None
        except RecursionError:  # nested deeper than the parser goes: no list of flat objects
            raise HotplexError.single(no_list, Span(args.facts_file)) from None
        if not isinstance(listed, list):
            raise HotplexError.single(no_list, Span(args.facts_file))
        twice = [
            Problem(
                f"{name!r} is given twice in one fact: which is meant?",
                Span("facts", key=f"facts[{index}].{name}"),
            )
            for index, item in enumerate(listed, len(facts))
            if isinstance(item, _Fields)
            for name in item.twice
        ]
        if twice:
            raise HotplexError(twice)
        facts += listed
    return facts


class _Fields(dict):
    """A JSON object of the facts file, with the names it gave more than once: JSON keeps the
    last, and the value it drops is the worker's as much as the one it keeps."""

    twice: tuple[str, ...] = ()

    @classmethod
    def of(cls, pairs: list[tuple[str, object]]) -> _Fields:
        fields = cls(pairs)
        if len(fields) < len(pairs):
            names = [name for name, _ in pairs]
            fields.twice = tuple(dict.fromkeys(n for n in names if names.count(n) > 1))
        return fields


def _input(name: str) -> str:
    """A file the command line names (facts, a transcript), read as ``--overlay``'s are."""
    text = read_input(Path(name), name)
    if text is None:
        raise HotplexError.single("cannot read it: no such file", Span(name))
    return text


def _history_name(display: str) -> str:
    folder, _, name = display.rpartition("/")
    return f"{folder}/.{name}.history.jsonl" if folder else f".{name}.history.jsonl"


def _restored(args: argparse.Namespace, entries: list, name: str):
    """The retired fact ``--restore`` names, read as a fact a caller gives (a history edited
    by hand is no more trusted than a request), keeping the day it was first learned."""
    from hotplex.learning.facts import checked_date, read
    from hotplex.learning.history import restorable

    at = None if args.at is None else checked_date(args.at, Span("arguments", key="--at"))
    fact = restorable(entries, args.restore, at, name).fact
    learned = checked_date(fact.learned, Span(name, key=fact.key))
    day = checked_date(args.date, Span("arguments", key="--date"))
    if day < fact.confirmed:
        raise HotplexError.single(
            f"--date {day} is before {fact.confirmed}, when the value restored was last"
            " confirmed: the history would have it come back before it was said",
            Span("arguments", key="--date"),
        )
    (given,) = read([{"key": fact.spelled, "value": fact.value, "source": fact.source}], None, name)
    return given._replace(place="restore", learned=learned)


def _diff(old: str, new: str, display: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"a/{display}",
        f"b/{display}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _print_report(report: LearnReport, dry_run: bool) -> None:
    counts = {
        status: sum(o.status == status for o in report.outcomes)
        for status in ("added", "superseded", "unchanged", "refused", "evicted")
    }
    said = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    verb = "would learn" if dry_run else "learned"
    print(f"hotplex: {verb} in {shown(report.file)} on {report.date}: {said or 'nothing'}")
    for outcome in report.outcomes:
        print(f"  {outcome.describe()}")
    if not report.changed:
        print("  the profile is unchanged")


# What a learn run takes that --request has no use for, as the usage error names it.
_NOT_WITH_REQUEST = (
    ("facts", "KEY=VALUE facts"),
    ("facts_file", "--facts"),
    ("date", "--date"),
    ("source", "--source"),
    ("dry_run", "--dry-run"),
    ("restore", "--restore"),
    ("at", "--at"),
)


def _request(args: argparse.Namespace, project, text: str, display: str) -> int:
    ignored = [
        name for dest, name in _NOT_WITH_REQUEST if getattr(args, dest) not in (None, [], False)
    ]
    if ignored:
        raise HotplexError.single(
            f"--request takes no {', no '.join(ignored)}: it makes the extraction request and"
            " learns nothing",
            Span("arguments", key="--request"),
            "learn the worker's answer in a second run: hotplex learn --facts ANSWER --date DAY",
        )
    if args.target is None:
        raise HotplexError.single(
            "--request needs --target NAME: the worker that runs it",
            Span("arguments", key="--target"),
            "targets: " + ", ".join(project.targets()),
        )
    transcript = _input(args.request)
    request = project.learn_request(transcript, args.target, args.platform, text=text, file=display)
    if args.json:
        print(json_text(request.to_json()))
    else:
        sys.stdout.write(request.text)
        _warn_request(request)
    return EXIT_OK


def _warn_request(request: LearnRequest) -> None:
    from hotplex.console import warn

    for cut in request.truncations:
        warn(cut.describe())
    for finding in request.findings:
        warn(finding.describe())
