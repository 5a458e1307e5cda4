"""Where a raw copy of the rules reaches a worker's program: the instruction files it loads by
itself (``worker.OwnFiles``) beside the compiled document, unsanitized, unbudgeted, unscanned.

A program started in a target's session folder (``cwd``) reads its own files from that folder,
the folders above it and, for some, below it. ``warnings`` names, once per target, each compiled
source sitting there while nothing switches the program's loading off, and each file a switch
keeps out that the target does not compile (it reaches the program from neither copy);
``status`` says in one line which copies a target's program gets (``show``, ``stats``).
"""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hotplex.manifest.model import Model, Target
    from hotplex.worker import OwnFiles

WAY_OUT_CWD = 'cwd = "../session" (any folder outside the project)'


def warnings(model: Model) -> list[str]:
    """One warning per target whose program will get a raw copy, or lose a file, with the way
    out."""
    found = []
    for target in model.manifest.target:
        worker = model.worker_of(target)
        own = worker.own_files
        if own is None:
            continue
        if worker.switched_off(target):
            lost = [p for p in _on_disk(model, target, own) if p not in _compiled(model, target)]
            if lost:
                found.append(
                    f"target '{target.name}': launch.json switches {own.program}'s own"
                    f" instruction files off ({own.switch}), and the target does not compile"
                    f" {_listed(lost)}: {own.program} gets it from neither copy; add it to the"
                    ' target\'s sources, or set own_instructions = "keep" on the target'
                )
        elif target.own_instructions is None and (raw := raw_sources(model, target)):
            found.append(
                f"target '{target.name}': {own.program} also reads {_listed(raw)} by itself"
                f" from its session folder '{target.session_dir}', raw (not sanitized, budgeted"
                f" or scanned), beside the compiled copy: {_way_out(own)}"
            )
    return found


def watched(model: Model) -> tuple[str, ...]:
    """The paths whose presence ``warnings`` depends on: each file a program would read in the
    session folder and above it, each folder it globs there, each compiled source. A no-op build
    repeats the warnings only while their stamps hold (a CLAUDE.md added beside moves one)."""
    found = []
    for target in model.manifest.target:
        own = model.worker_of(target).own_files
        if own is None:
            continue
        for folder in _folders_up(target.session_dir):
            for name in own.names:
                path = name.split("/*", 1)[0] if "*" in name else name  # a glob: its folder
                found.append(posixpath.normpath(posixpath.join(folder, path)))
        found += [model.source_path(s.file) for s in model.sources_of(target)]
    return tuple(dict.fromkeys(found))


def status(model: Model, target: Target) -> str:
    """Which copies of the rules ``target``'s program gets, in one line."""
    worker = model.worker_of(target)
    own = worker.own_files
    if own is None and worker.places:
        return (
            f"the compiled copy at {worker.placed(target)}; the editor also reads the other rule"
            " files it finds in the repository, which hotplex does not check"
        )
    if own is None:
        return "only the compiled copy: the program reads only the files hotplex writes"
    if worker.switched_off(target):
        also = f", and with them {own.also_drops}" if own.also_drops else ""
        return f"only the compiled copy: launch.json switches {own.program}'s own files off{also}"
    raw = raw_sources(model, target)
    if raw:
        return f"a raw copy too: {own.program} reads {_listed(raw)} by itself"
    return f"only the compiled copy: no compiled source sits where {own.program} reads its own"


def raw_sources(model: Model, target: Target) -> list[str]:
    """The target's compiled source files its program also reads by itself, as the project
    names them: none while ``launch.json`` switches its loading off."""
    worker = model.worker_of(target)
    own = worker.own_files
    if own is None or worker.switched_off(target):
        return []
    return [p for p in _compiled(model, target) if _reads(model.root, own, target.session_dir, p)]


def _compiled(model: Model, target: Target) -> list[str]:
    files = (model.source_path(s.file) for s in model.sources_of(target))
    return [p for p in dict.fromkeys(files) if (model.root / p).is_file()]


def _on_disk(model: Model, target: Target, own: OwnFiles) -> list[str]:
    """The files the program would read from the session folder and the folders above it that
    exist in the project."""
    found = []
    for folder in _folders_up(target.session_dir):
        base = model.root / folder
        if not base.is_dir():
            continue
        for pattern in own.names:
            for path in sorted(base.glob(pattern.replace("*.md", "**/*.md"))):
                rel = posixpath.normpath(posixpath.join(folder, path.relative_to(base).as_posix()))
                if path.is_file() and _reads(model.root, own, target.session_dir, rel):
                    found.append(rel)
    return list(dict.fromkeys(found))


def _reads(root: Path, own: OwnFiles, session: str, path: str) -> bool:
    """Whether the program, started in ``session``, reads the project file ``path`` itself."""
    for folder in _folders_up(session):
        rel = _under(path, folder)
        if rel is not None and any(_named(rel, name) for name in own.names):
            blockers = own.unless_beside.get(rel, ())
            return not any((root / folder / b).is_file() for b in blockers)
    above_project = all(part == ".." for part in session.split("/"))  # the project is below
    below = above_project or _under(path, session) is not None
    return own.below and below and posixpath.basename(path) in own.names


def _named(path: str, name: str) -> bool:
    """Whether ``path`` is one of the program's own files ``name``; its ``**/`` matches no
    folder too (``.claude/rules/**/*.md`` names ``.claude/rules/a.md``), as in the program."""
    return fnmatchcase(path, name) or fnmatchcase(path, name.replace("**/", ""))


def _folders_up(session: str) -> list[str]:
    """The session folder and the folders above it that lie in the project."""
    if session == ".." or session.startswith("../"):
        return []
    folders = [session]
    while folders[-1] != ".":
        folders.append(posixpath.dirname(folders[-1]) or ".")
    return folders


def _under(path: str, folder: str) -> str | None:
    if folder == ".":
        return path
    return path[len(folder) + 1 :] if path.startswith(folder + "/") else None


def _listed(paths: list[str]) -> str:
    return ", ".join(paths)


def _way_out(own: OwnFiles) -> str:
    if own.switch is None:
        return f"{own.program} has no switch for them; set {WAY_OUT_CWD} on the target"
    also = f", which also drops {own.also_drops}" if own.also_drops else ""
    return (
        f'set own_instructions = "off" on the target (launch.json then sets {own.switch}{also}),'
        f" or {WAY_OUT_CWD}"
    )
