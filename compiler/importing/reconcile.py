"""Running ``import`` again: add what is new to the manifest the user has, report what went
away, change nothing else (the file is edited with tomlkit, which keeps every comment)."""

from __future__ import annotations

import os
from typing import Any

from hotplex.commands.scaffold import SOURCES_DIR
from hotplex.errors import HotplexError, Span
from hotplex.generated import attrs
from hotplex.importing import toml
from hotplex.importing.found import RESERVED_TAGS, Plan, free_name, in_folder
from hotplex.manifest.model import HOTPLEX_SOURCES
from hotplex.manifest.read import MANIFEST_NAME, read_bytes


def reconcile(result: Plan, comments: dict[str, str]) -> None:
    """Add what is new to the manifest the user has, report what went away, change nothing else."""
    import tomllib

    path = result.into / MANIFEST_NAME
    try:  # read as every manifest is: a FIFO or a device there is named, not waited on
        existing_text = read_bytes(path, MANIFEST_NAME).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HotplexError.single(f"not UTF-8 text: {exc.reason}", Span(MANIFEST_NAME)) from None
    # An editor's byte order mark: the build reads past it (``manifest.read.parse``), and so does
    # this; it stays where the user's editor put it.
    bom = "\ufeff" if existing_text.startswith("\ufeff") else ""
    existing_text = existing_text.removeprefix(bom)
    try:
        existing = tomllib.loads(existing_text)
    except tomllib.TOMLDecodeError as exc:
        raise HotplexError.single(f"cannot reconcile: {exc}", Span(MANIFEST_NAME)) from None
    sources_dir = str(existing.get("project", {}).get("sources", SOURCES_DIR)).rstrip("/") or "."
    if result.copy or sources_dir != result.manifest.project.sources:
        raise HotplexError.single(
            f"'{path}' already exists and reads its sources from '{sources_dir}/'; import would"
            " add the files again beside them, and it never overwrites",
            Span(MANIFEST_NAME, key="project.sources"),
            hint="edit hotplex.toml yourself, or import into another folder with --into DIR",
        )
    declared = [s for s in existing.get("source", []) if isinstance(s, dict)]
    if "source" not in existing:  # the built-in five
        declared = [toml.plain(s) | {"name": s.name, "file": s.file} for s in HOTPLEX_SOURCES]
    files = {os.path.normpath(os.path.join(sources_dir, str(s.get("file", "")))) for s in declared}
    names = {str(s.get("name", "")).lower() for s in declared}
    tags = {str(s.get("tag", "")).lower() for s in declared} | set(RESERVED_TAGS)
    new = [
        s
        for s in result.manifest.source
        if os.path.normpath(in_folder(sources_dir, s.file)) not in files
    ]
    renamed = {}
    for source in new:
        renamed[source.name] = attrs.evolve(
            source, name=free_name(source.name, names), tag=free_name(source.tag, tags)
        )
    old_targets = [t for t in existing.get("target", []) if isinstance(t, dict)]
    keep: dict[str, list[str]] = {}
    targets = []
    for planned in result.manifest.target:
        wanted = [
            renamed[n].name
            for n in (planned.keep or [s.name for s in result.manifest.source])
            if n in renamed
        ]
        if not wanted:
            continue
        same = [i for i, t in enumerate(old_targets) if t.get("name") == planned.name]
        by_worker = [i for i, t in enumerate(old_targets) if t.get("worker") == planned.worker]
        same = same or (by_worker if len(by_worker) == 1 else [])
        for index in same:
            keep.setdefault(index, []).extend(wanted)
        if not same:
            used = {str(t.get("name", "")).lower() for t in old_targets}
            targets.append(
                toml.plain(
                    attrs.evolve(planned, name=free_name(planned.name, used), keep=tuple(wanted))
                )
            )
    _pin(
        old_targets,
        [str(s.get("name")) for s in declared],
        keep,
        [s.name for s in renamed.values()],
    )
    # A package's file is read from hotplex.lock's cache, never from the sources folder.
    packages = {str(p.get("name")) for p in existing.get("package", []) if isinstance(p, dict)}
    # The built-in five are read where they exist: one not written yet was never imported.
    removed = [
        str(s.get("file"))
        for s in declared
        if "source" in existing
        and str(s.get("file", "")).replace("\\", "/").split("/", 1)[0] not in packages
        and not (result.into / sources_dir / str(s.get("file", ""))).exists()
    ]
    added = [toml.plain(s) for s in renamed.values()]
    moved = {f"source:{s.name}": comments.get(f"source:{k}", "") for k, s in renamed.items()}
    result.text = bom + (
        toml.append(existing_text, added, keep, targets, moved) if added else existing_text
    )
    result.reconciled = True
    result.added = [f"{s['file']} as [[source]] '{s['name']}'" for s in added]
    result.removed = removed
    result.writes = []


def _pin(
    targets: list[dict[str, Any]], declared: list[str], keep: dict[int, list[str]], new: list[str]
) -> None:
    """A target without ``keep`` takes every source: one that should not get all the new ones
    is given ``keep`` = the sources it had plus those meant for it."""
    for index, target in enumerate(targets):
        if "keep" in target or target.get("profile", "main") != "main" or not new:
            continue
        wanted = keep.pop(index, [])
        if set(new) - set(wanted):
            keep[index] = [*declared, *wanted]
