"""Which sources a project has and which each target reads: the one rule a user predicts from
the manifest.

Each worker names its default sources (HotPlex's five; OpenClaw's bootstrap files). The defaults
of the project's workers come first, each name once, in the order of the first target whose
worker has it. A ``[[source]]`` with a default's name, or else with a default's file, changes the
keys it sets (its name too) in that default's place; any other ``[[source]]`` is added after
them, in the order written. ``[project] default_sources = false`` drops the defaults: only the
``[[source]]`` tables count, in their order. A target reads every declared source and its own
worker's defaults (IDENTITY.md, an OpenClaw default, reaches a Claude Code target only when
declared); then its ``profile`` and ``keep`` choose.
"""

from __future__ import annotations

import posixpath

from hotplex import registry
from hotplex.fs import folded as folded_name
from hotplex.generated import attrs
from hotplex.manifest.model import Manifest, Source


def worker_defaults(manifest: Manifest) -> dict[str, Source]:
    """The default sources of the project's workers, by name, in first-use order."""
    found: dict[str, Source] = {}
    if manifest.project.default_sources:
        for target in manifest.target:
            worker = registry.get(target.worker)
            for source in worker.default_sources(target) if worker is not None else ():
                found.setdefault(source.name, source)
    return found


def effective_sources(manifest: Manifest) -> tuple[Source, ...]:
    """The sources every job draws from (see the module's rule). A new source without file,
    channel and tag is left out; validation says so."""
    merged = worker_defaults(manifest)
    by_file = {folded(s.file): s.name for s in merged.values()}
    declared_names = {d.name for d in manifest.source}
    for declared in manifest.source:
        keys = declared.set_keys()
        same_file = by_file.get(folded(declared.file or ""))
        if declared.name in merged:
            merged[declared.name] = attrs.evolve(merged[declared.name], **keys)
        elif same_file in merged and same_file not in declared_names:
            # Renamed in place: the mapping is rebuilt to keep the default's position.
            merged = {
                (declared.name if name == same_file else name): (
                    attrs.evolve(source, name=declared.name, **keys)
                    if name == same_file
                    else source
                )
                for name, source in merged.items()
            }
        elif {"file", "channel", "tag"} <= keys.keys():
            merged[declared.name] = Source(declared.name, **keys)
    return tuple(merged.values())


def target_sources(
    manifest: Manifest, sources: tuple[Source, ...]
) -> dict[str, tuple[Source, ...]]:
    """By target name, the sources it reads, in output order."""
    declared = {d.name for d in manifest.source}
    read_by = {}
    for target in manifest.target:
        worker = registry.get(target.worker)
        own = set()
        if worker is not None and manifest.project.default_sources:
            own = {s.name for s in worker.default_sources(target)}
        mine = tuple(s for s in sources if s.name in declared or s.name in own)
        read_by[target.name] = target.kept_sources(mine)
    return read_by


def folded(file: str) -> str:
    """A file name as two spellings of one file compare: a normalised path, folded as a
    case- and normalisation-insensitive file system compares names (``fs.folded``)."""
    return folded_name(posixpath.normpath(file.replace("\\", "/")))
