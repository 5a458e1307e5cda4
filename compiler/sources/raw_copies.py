"""Where a raw copy of the rules reaches a worker's program: the instruction files it loads by
itself (``worker.OwnFiles``) beside the compiled document, unsanitized, unbudgeted, unscanned.

A program started in a target's session folder (``cwd``) reads its own files from that folder,
the folders above it and, for some, below it. ``warnings`` names, once per target, each compiled
source sitting there while nothing switches the program's loading off (or that the switch leaves
on), and each file a switch keeps out that the target does not compile (it reaches the program
from neither copy);
``status`` says in one line which copies a target's program gets (``show``, ``stats``).
source sitting there while nothing switches the program's loading off, each file a switch keeps
out that the target does not compile (it reaches the program from neither copy), and each file
there that competes with the delivered document (``OwnFiles.rivals``: a copy read in its place,
or one it displaces); ``status`` says in one line which copies a target's program gets (``show``,
``stats``).
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
        raw = raw_sources(model, target)
        if worker.switched_off(target):
            lost = [p for p in _on_disk(model, target, own) if p not in _compiled(model, target)]
            if raw:
                found.append(
                    f"target '{target.name}': {own.program} reads {_listed(raw)} by itself even"
                    f" with its switch ({own.switch}), raw (not sanitized, budgeted or scanned),"
                    f" beside the compiled copy: set {WAY_OUT_CWD} on the target"
                )
            if lost:
                found.append(
                    f"target '{target.name}': launch.json switches {own.program}'s own"
                    f" instruction files off ({own.switch}), and the target does not compile"
                    f" {_listed(lost)}: {own.program} gets it from neither copy; add it to the"
                    ' target\'s sources, or set own_instructions = "keep" on the target'
                )
        elif target.own_instructions is None and raw:
            found.append(
                f"target '{target.name}': {own.program} also reads {_listed(raw)} by itself"
                f" from its session folder '{target.session_dir}', raw (not sanitized, budgeted"
                f" or scanned), beside the compiled copy: {_way_out(own, model, target, raw)}"
            )
        reported = set(raw_sources(model, target))
        for path, effect in _rivals(model, target, own):
            if path not in reported:
                found.append(
                    f"target '{target.name}': {path} {effect}; move it, or set {WAY_OUT_CWD}"
                    " on the target"
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
        for folder in _folders_up(target.session_dir, own.above):
            for name in own.names:
                found.append(posixpath.normpath(posixpath.join(folder, _stamped(name))))
        for folder in _folders_up(target.session_dir, above=False):
            found += [posixpath.normpath(posixpath.join(folder, _stamped(r))) for r in own.rivals]
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
    raw = raw_sources(model, target)
    if raw:
        return f"a raw copy too: {own.program} reads {_listed(raw)} by itself"
    if worker.switched_off(target):
        also = f", and with them {own.also_drops}" if own.also_drops else ""
        return f"only the compiled copy: launch.json switches {own.program}'s own files off{also}"
    return f"only the compiled copy: no compiled source sits where {own.program} reads its own"


def raw_sources(model: Model, target: Target) -> list[str]:
    """The target's compiled source files its program also reads by itself, as the project
    names them: none while ``launch.json`` switches its loading off."""
    worker = model.worker_of(target)
    own = worker.own_files
    if own is None:
        return []
    names = own.read(worker.switched_off(target))
    session = target.session_dir
    return [p for p in _compiled(model, target) if _reads(model.root, own, session, p, names)]


def _compiled(model: Model, target: Target) -> list[str]:
    files = (model.source_path(s.file) for s in model.sources_of(target))
    return [p for p in dict.fromkeys(files) if (model.root / p).is_file()]


def _stamped(pattern: str) -> str:
    """What to stamp for a file pattern: the file, or for a glob the folder it globs in."""
    parts = pattern.split("/")
    plain = next((i for i, part in enumerate(parts) if any(c in part for c in "*?[")), len(parts))
    return "/".join(parts[:plain]) or "."


def _rivals(model: Model, target: Target, own: OwnFiles) -> list[tuple[str, str]]:
    """The files in the session folder that compete with the document, each with what
    happens."""
    found = []
    for folder in _folders_up(target.session_dir, above=False):
        base = model.root / folder
        for pattern, effect in own.rivals.items():
            paths = sorted(p for p in base.glob(pattern) if p.is_file()) if base.is_dir() else []
            found += [(_in_project(folder, base, path), effect) for path in paths]
    return found


def _in_project(folder: str, base: Path, path: Path) -> str:
    """``path``, found under ``base`` (the project's ``folder``), relative to the project."""
    return posixpath.normpath(posixpath.join(folder, path.relative_to(base).as_posix()))


def _on_disk(model: Model, target: Target, own: OwnFiles) -> list[str]:
    """The files the program would read from the session folder and the folders above it that
    exist in the project."""
    found = []
    for folder in _folders_up(target.session_dir, own.above):
        base = model.root / folder
        if not base.is_dir():
            continue
        switched = [n for n in own.names if n not in own.unswitched]
        for pattern in switched:
            for path in sorted(base.glob(pattern.replace("*.md", "**/*.md"))):
                rel = _in_project(folder, base, path)
                if path.is_file() and _reads(model.root, own, target.session_dir, rel, switched):
                    found.append(rel)
    return list(dict.fromkeys(found))


def _reads(root: Path, own: OwnFiles, session: str, path: str, names: tuple[str, ...]) -> bool:
    """Whether the program, started in ``session``, reads the project file ``path`` itself (by
    one of ``names``)."""
    for folder in _folders_up(session, own.above):
        rel = _under(path, folder)
        if rel is not None and folder == session and any(fnmatchcase(rel, s) for s in own.shadowed):
            return False
        if rel is not None and any(_named(rel, name) for name in names):
            blockers = own.unless_beside.get(rel, ())
            return not any((root / folder / b).is_file() for b in blockers)
    above_project = all(part == ".." for part in session.split("/"))  # the project is below
    below = above_project or _under(path, session) is not None
    return own.below and below and posixpath.basename(path) in names


def _named(path: str, name: str) -> bool:
    """Whether ``path`` is one of the program's own files ``name``; its ``**/`` matches no
    folder too (``.claude/rules/**/*.md`` names ``.claude/rules/a.md``), as in the program."""
    return fnmatchcase(path, name) or fnmatchcase(path, name.replace("**/", ""))


def _folders_up(session: str, above: bool = True) -> list[str]:
    """The session folder and (``above``) the folders above it that lie in the project."""
    if session == ".." or session.startswith("../"):
        return []
    folders = [session]
    while above and folders[-1] != ".":
        folders.append(posixpath.dirname(folders[-1]) or ".")
    return folders


def _under(path: str, folder: str) -> str | None:
    if folder == ".":
        return path
    return path[len(folder) + 1 :] if path.startswith(folder + "/") else None


def _listed(paths: list[str]) -> str:
    return ", ".join(paths)


def _way_out(own: OwnFiles, model: Model, target: Target, raw: list[str]) -> str:
    unswitched = own.unswitched and all(
        _reads(model.root, own, target.session_dir, p, own.unswitched) for p in raw
    )
    if own.switch is None or unswitched:
        return f"{own.program} has no switch for them; set {WAY_OUT_CWD} on the target"
    also = f", which also drops {own.also_drops}" if own.also_drops else ""
    return (
        f'set own_instructions = "off" on the target (launch.json then sets {own.switch}{also}),'
        f" or {WAY_OUT_CWD}"
    )
