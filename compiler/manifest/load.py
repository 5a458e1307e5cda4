"""The manifest file -> a trusted ``Model``: read, structure and validate (or reuse the model the
last build structured from the same bytes), check the folders on disk, and work out which
sources each target reads. The one way the rest of the compiler gets a model."""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import NoReturn

from hotplex import registry
from hotplex.errors import HotplexError, Span, suggest
from hotplex.fs import STATE_DIR, from_project
from hotplex.manifest import read as manifest_file
from hotplex.manifest.model import Manifest, Model, ProjectSettings
from hotplex.manifest.source_rule import effective_sources, target_sources
from hotplex.worker import session_climbs


def load(root: Path, manifest_path: Path | None = None, cached: bool = False) -> Model:
    """Read, structure and validate the manifest of the project at ``root``.

    ``cached``: reuse the model the last build structured from the same bytes
    (``manifest_cache.py``), as the build does; the library API always structures.
    """
    path = manifest_path if manifest_path is not None else root / manifest_file.MANIFEST_NAME
    display = path.name if path.parent == root else str(path)
    data = manifest_file.read_bytes(path, display)
    manifest = cache_key = None
    if cached:
        from hotplex.manifest import cache as manifest_cache

        cache_key = manifest_cache.key(data, display)
        manifest = manifest_cache.load(root / STATE_DIR, cache_key)
    if manifest is None:
        from hotplex.manifest.structure import (
            structure,  # cattrs: only where a manifest is structured
        )
        from hotplex.manifest.validate import validate

        manifest = structure(manifest_file.parse(data, display), display)
        validate(manifest, display)
    else:
        cache_key = None
    session_dirs = check_on_disk(root, manifest, display)
    sources = effective_sources(manifest)
    read_by = target_sources(manifest, sources)
    workers = {t.name: registry.get(t.worker) for t in manifest.target}
    positions = {t.name: index for index, t in enumerate(manifest.target)}
    placed = tuple(p for t in manifest.target if (p := workers[t.name].placed(t)) is not None)
    return Model(
        manifest,
        root,
        path,
        display,
        sources,
        read_by,
        cache_key,
        workers,
        session_dirs,
        positions,
        placed,
    )


def check_on_disk(root: Path, manifest: Manifest, display: str) -> dict[str, str]:
    """What the manifest names that the disk can make wrong without the manifest changing: a
    sources folder moved away or deleted, a symlink, a session folder above the root. A
    ``Project`` that keeps its model asks again whenever ``disk_key`` moves. Returns
    each target's session folder as the project names it (``sessions``)."""
    _check_folders_on_disk(root, manifest.project, display)
    return sessions(root, manifest, display)


def disk_key(root: Path, manifest: Manifest) -> tuple | None:
    """What ``check_on_disk``'s answer depends on, at a few ``lstat`` calls: the project
    root's identity and, for every folder it resolves (the sources, `out`, each target's
    ``cwd``), each step of the path as the project names it (device, inode, mode). With no
    symlink on the way, what those paths resolve to is decided by these alone: an equal key
    means the same answer, so a ``Project`` asks again only when the key moves (a folder
    moved away, deleted, or swapped for a symlink, even to the same files: a link is a new
    inode of another mode). None when no key can vouch for the answer (a symlink on the way,
    whose target's own path would count too, or a ``..`` after a name): ask every time."""
    base = str(root)
    try:
        top = os.stat(base)
    except OSError:
        return None
    key: list = [(top.st_dev, top.st_ino)]
    paths = [manifest.project.sources or ".", manifest.project.out]
    paths += [t.cwd.replace("\\", "/") for t in manifest.target if t.cwd is not None]
    for rel in paths:
        parts = [p for p in rel.split("/") if p and p != "."]
        climbs = session_climbs("/".join(parts)) if parts else 0
        if ".." in parts[climbs:]:
            return None
        if climbs:  # above the project: its place on the disk counts (how deep, what is there)
            key.append(os.path.realpath(base))
        path = base
        for part in parts:
            path = f"{path}/{part}"
            try:
                found = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                key.append(None)  # resolved by its name alone from here on
                break
            except (OSError, ValueError):
                return None
            if stat.S_ISLNK(found.st_mode):
                return None
            key.append((found.st_dev, found.st_ino, found.st_mode))
        key.append("/")
    return tuple(key)


def _check_folders_on_disk(root: Path, project: ProjectSettings, display: str) -> None:
    """``validate`` compares the names; a symlink can still point `out` outside the project or
    at the sources, where a build would write and ``clean`` delete."""

    def real(rel: str) -> str:
        return os.path.realpath(root / rel)

    top, sources, out = real("."), real(project.sources or "."), real(project.out)
    for key, value, folder in (
        ("project.sources", project.sources, sources),
        ("project.out", project.out, out),
    ):
        if os.path.commonpath([top, folder]) != top:
            raise HotplexError.single(
                f"'{value}' resolves to '{from_project(folder, top)}', outside the project (a"
                " symlink)",
                Span(display, key=key),
            )
    if not os.path.isdir(sources):
        _no_sources_folder(root, project.sources, display)
    if os.path.commonpath([sources, out]) == out:
        raise HotplexError.single(
            f"the artifact folder '{project.out}' resolves to '{from_project(out, top)}', which"
            f" is or contains the sources folder '{from_project(sources, top)}' (a symlink)",
            Span(display, key="project.out"),
        )


def sessions(root: Path, manifest: Manifest, display: str) -> dict[str, str]:
    """By target name, the folder its ``cwd`` names, relative to the project and spelt one way,
    worked out once against the project's real folder: ``../proj/run`` of a project in ``proj/``
    is ``run``, inside it. A ``cwd`` climbing above the filesystem root names no folder; one
    passing through a symlink names another folder than the program runs in (a process's working
    folder is the physical one, and ``..`` leaves that), so the way back to the project and the
    files looked for there would both be wrong: refused, with the folder's own name."""
    resolved = root.resolve()
    top, depth = resolved.as_posix(), len(resolved.parts) - 1
    found = {}
    for index, target in enumerate(manifest.target):
        if target.cwd is None:
            continue
        cwd = target.cwd.replace("\\", "/")
        where = Span(display, key=f"target[{index}].cwd")
        if session_climbs(posixpath.normpath(cwd)) > depth:
            raise HotplexError.single(
                f"cwd '{target.cwd}' climbs above the filesystem root: the project is"
                f" {depth} folder(s) deep",
                where,
                hint="name a session folder beside or inside the project ('../session')",
            )
        named = posixpath.normpath(posixpath.join(top, cwd))
        real = os.path.realpath(posixpath.join(top, cwd))
        if real != named:
            itself = posixpath.relpath(real, top)
            raise HotplexError.single(
                f"cwd '{target.cwd}' passes through a symlink: the program would run in '{real}',"
                " while launch.json's paths back to the project, and the files hotplex looks for"
                " there, would follow the link's name",
                where,
                hint=f'name that folder itself: cwd = "{itself}"'
                + (" (the project)" if itself == "." else ""),
            )
        found[target.name] = posixpath.relpath(named, top)
    return found


def _no_sources_folder(root: Path, sources: str, display: str) -> NoReturn:
    """A missing sources folder would build artifacts holding nothing but the built-in block."""

    rel = posixpath.normpath(sources.replace("\\", "/"))
    parent = posixpath.dirname(rel)
    try:
        with os.scandir(root / parent) as entries:
            folders = sorted(
                posixpath.join(parent, e.name)
                for e in entries
                if e.is_dir() and not e.name.startswith(".")
            )
    except OSError:
        folders = []
    hint = suggest(rel, folders) or (
        "folders there: " + ", ".join(folders)
        if folders
        else "create it, or set [project] sources to the folder holding your Markdown files"
    )
    if os.path.lexists(root / rel):
        raise HotplexError.single(
            f"the sources folder '{rel}' is not a folder", Span(display, key="project.sources")
        )
    raise HotplexError.single(
        f"the sources folder '{rel}' does not exist", Span(display, key="project.sources"), hint
    )
