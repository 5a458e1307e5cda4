"""``hotplex import``: adopt the agent instruction files a repository already has as a project.

People keep CLAUDE.md, AGENTS.md, GEMINI.md, Cursor rules, Copilot instructions, a ruler folder,
an OpenClaw workspace or a HotPlex ``agent-configs/`` folder. The package reads them the way their
own tools do and writes ``hotplex.toml`` so that the next ``hotplex build`` gives each tool's
target exactly that tool's files:

- ``detect``: which formats a path holds; one module per format (``claude``, ``agents``,
  ``gemini``, ``cursor``, ``copilot``, ``ruler``, ``hotplex``, and a workspace format a worker
  declares as its ``importer``), each with ``KIND`` and ``find(root) -> Found | None``;
- ``planner``: where each file goes (in place, or copied with ``--copy``), which targets read it,
  and the manifest model; an existing manifest is reconciled;
- ``rewrite``: the one pure change a copy may need so that hotplex reads it as written;
- ``toml``: the model unstructured into TOML (tomlkit), and new sources added to a user's file;
- this module: the command (``run``), writing, and the report with the mapping table.
"""

from __future__ import annotations

import os
from pathlib import Path

from hotplex.commands.scaffold import GITIGNORE, GITIGNORE_NAME, relative, write_if_missing
from hotplex.errors import EXIT_OK, HotplexError, visible
from hotplex.importing.found import Plan
from hotplex.importing.planner import plan
from hotplex.manifest.read import MANIFEST_NAME
from hotplex.writes import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["Plan", "plan", "report", "run", "write"]


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    """``hotplex import``: the plan, written unless ``--dry-run``, its report and what next."""
    from hotplex.commands.invocation import command_line

    paths = [root / path for path in args.paths or ["."]]
    done = plan(paths, root / args.into, copy=args.copy, for_workers=tuple(args.for_workers))
    if not args.dry_run:
        write(done)
    for line in report(done, root, args.dry_run):
        print(line)
    into = done.into
    shown = os.path.relpath(into) if into.resolve().is_relative_to(Path.cwd()) else str(into)
    where = [] if shown == "." else ["-C", shown]
    print(
        "nothing written (--dry-run)"
        if args.dry_run
        else f"next: {command_line([*where, 'build'])}"
    )
    return EXIT_OK


def write(plan: Plan) -> None:
    """Create the copies, init's .gitignore (the build state stays out of git), then the
    manifest, each exclusively; a reconciled manifest is replaced atomically, and only when
    something was added."""
    for item in plan.writes:
        assert item.data is not None
        if not write_if_missing(plan.into / item.file, item.data):
            raise HotplexError.single(
                f"'{plan.into / item.file}' appeared while importing; it was left as it is"
            )
    if plan.gitignore:  # exclusively: a .gitignore made meanwhile is the user's
        write_if_missing(plan.into / GITIGNORE_NAME, GITIGNORE)
    path = plan.into / MANIFEST_NAME
    if plan.reconciled:
        if plan.added:
            write_atomic(path, plan.text.encode("utf-8"))
    elif not write_if_missing(path, plan.text):
        raise HotplexError.single(f"'{path}' appeared while importing; it was left as it is")


def table(plan: Plan, base: Path) -> list[str]:
    """The mapping, one row per file: where it is, what it becomes, which targets read it."""
    rows = [("file", "becomes", "targets", "how")]
    for item in plan.placed:
        origin = relative(item.origin, base)
        there = plan.into / item.file
        if item.data is not None:
            how = f"copied to {relative(there, base)}"
        elif os.path.abspath(there) == os.path.abspath(item.origin):
            how = "in place"
        else:  # a source to come, read where the project keeps its sources, not where it was
            how = f"read from {relative(there, base)} once written"
        how += "".join(f"; {c}" for c in item.changes)
        rows.append((origin, item.role, ", ".join(item.targets) or "-", how))
    shown = [tuple(map(visible, row)) for row in rows]  # a name's line break would split a row
    widths = [max(_columns(row[i]) for row in shown) for i in range(3)]
    return [
        "".join(_padded(c, w) for c, w in zip(row, widths, strict=False)) + row[3] for row in shown
    ]


def _padded(cell: str, width: int) -> str:
    return cell + " " * (width - _columns(cell) + 2)


def _columns(cell: str) -> int:
    """How many terminal columns ``cell`` takes (a combining mark none, a wide ideograph two),
    by wcwidth's tables of Unicode's widths; ``visible`` has written the rest printable."""
    from wcwidth import wcswidth

    return max(wcswidth(cell), 0)


def report(plan: Plan, base: Path, dry_run: bool) -> list[str]:
    """What goes where and what could not be mapped, for the command line."""
    lines = table(plan, base)
    for found in plan.found:
        lines += [
            visible(f"not mapped: {relative(s.origin, base)}: {s.reason}") for s in found.skipped
        ]
        lines += [f"note: {note}" for note in found.notes]
    lines += [f"note: {note}" for note in plan.notes]
    if plan.reconciled:
        lines += [f"added: {what}" for what in plan.added]
        lines += [
            f"removed: {file} no longer exists; its [[source]] stays in {MANIFEST_NAME} until you"
            " delete it"
            for file in plan.removed
        ]
        if plan.added:
            what = f"{'would add' if dry_run else 'added'} {len(plan.added)} source(s) to"
        elif plan.writes:  # skills adopted: files written, the manifest as it was
            copied = "would copy" if dry_run else "copied"
            what = f"{copied} {len(plan.writes)} skill file(s), no source to add to"
        else:
            what = "nothing new for"
        lines.append(f"hotplex import: {what} {plan.into / MANIFEST_NAME}")
        return lines
    count = f"{len(plan.writes)} file(s){', ' + GITIGNORE_NAME if plan.gitignore else ''}"
    count += f" and {MANIFEST_NAME}"
    lines.append(
        f"hotplex import: {'would write' if dry_run else 'wrote'} {count} in {plan.into};"
        f" {len(plan.entries)} source(s)"
    )
    return lines
