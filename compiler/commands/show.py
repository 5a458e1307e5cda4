"""``hotplex show``: one artifact's bytes on stdout, as a build would write them (with
``--overlay``, for one user's files), and on stderr what was cut, warned or blocked."""

from __future__ import annotations

import sys
from pathlib import Path

from hotplex.errors import EXIT_OK, shown

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    import argparse

    from hotplex.api import Artifact, Project
    from hotplex.manifest.model import Manifest, Target


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.api import Project
    from hotplex.commands.check import read_arguments
    from hotplex.console import warn
    from hotplex.findings_shown import not_shown, shown_findings
    from hotplex.sources import raw_copies
    from hotplex.sources.logs import describe_cuts

    overlay = read_arguments(args.overlay)
    project = Project.load(root, manifest)
    artifact = project.compile(args.target, args.platform, overlay, on_finding=args.on_finding)
    if args.file is None:
        sys.stdout.buffer.write(artifact.text.encode("utf-8"))
    else:
        sys.stdout.buffer.write(artifact.file(args.file))
    asked = artifact.path if args.file is None else artifact.names()[args.file]
    cuts = artifact.truncations
    for line in describe_cuts(c for c in cuts if (c.document or artifact.path) == asked):
        warn(line)
    for text in artifact.warnings:
        warn(text)
    for text in artifact.notes:
        sys.stderr.write(f"note: {shown(text)}\n")
    listed, more = shown_findings(artifact.findings)
    for finding in listed:
        warn(f"blocked an entry: {finding.describe()}")
    for file, rules in more.items():
        warn(f"blocked entries: {not_shown(file, rules)}")
    target = next(t for t in project.model.manifest.target if t.name == args.target)
    got = raw_copies.copies(project.model, target)
    if got is not None and got.more:
        warn(raw_copies.status(project.model, target))
    for line in [
        *documents(artifact, target, project.model.manifest),
        *(_packages(project, artifact) if asked == artifact.path else ()),
    ]:
        sys.stderr.write(f"note: {shown(line)}\n")
    for row in artifact.skills:
        sys.stderr.write(f"note: {shown(row.describe())}\n")
    return EXIT_OK


def _packages(project: Project, artifact: Artifact) -> list[str]:
    """Each section whose files come from a package: the package and the commit it is locked at."""
    if not project.model.manifest.package:
        return []
    from hotplex.sources.packages import pinned

    found = pinned(project.model)[0]
    assert found is not None  # the compile read the same lock
    return [
        f"section '{size.name}' comes from {found.described(name)}"
        for size in artifact.sizes
        for name in found.packages_of(size.files)
    ]


def documents(artifact: Artifact, target: Target, manifest: Manifest) -> list[str]:
    """With further documents (a sub-agent's file, a memory slot), each document of the job, the
    primary first: its size against its own budget, and how to show it."""
    from hotplex import registry

    worker = registry.get(artifact.worker)
    if not artifact.documents or worker is None:
        return []
    folder = artifact.path.rpartition("/")[0]
    lines = []
    for path in (artifact.path, *artifact.documents):
        name = path.removeprefix(f"{folder}/")
        budgets = (
            worker.budgets(target, manifest)
            if path == artifact.path
            else worker.document_budgets(target, manifest, name)
        )
        size = worker.document_size(name, artifact.files[path].decode("utf-8"), budgets.unit)
        budget = budgets.total if budgets.document is None else budgets.document
        how = "shown above" if path == artifact.path else f"--file {name}"
        lines.append(f"{name}: {size} of {budget} {budgets.unit} ({how})")
    return lines
