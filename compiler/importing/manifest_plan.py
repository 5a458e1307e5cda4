"""The manifest ``hotplex import`` writes: which targets read which imported files, and the
model (sources, limits, memory, variants) that compiles them as their tools read them."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from hotplex import registry
from hotplex.errors import HotplexError
from hotplex.generated import attrs
from hotplex.importing.found import Entry, Found, Placed
from hotplex.manifest.model import (
    HOTPLEX_SOURCES,
    DeclaredSource,
    Limits,
    Manifest,
    Memory,
    Metacognition,
    ProjectSettings,
    Target,
    Variants,
)
from hotplex.manifest.read import DEFAULT_OUT
from hotplex.sources import frontmatter

DEFAULT_LIMITS = (Limits().per_file, Limits().total)  # a manifest without [limits] has these
# Claude Code (2.1.277 and later) reads AGENTS.md where neither of these sits beside it.
CLAUDE_MEMORY = ("CLAUDE.md", ".claude/CLAUDE.md")


def workers_for(workers: tuple[str, ...]) -> tuple[str, ...]:
    chosen = tuple(
        dict.fromkeys(w.strip() for item in workers for w in item.split(",") if w.strip())
    )
    unknown = [w for w in chosen if registry.get(w) is None]
    if unknown:
        raise HotplexError.single(
            f"--for: no worker named '{unknown[0]}'",
            hint="workers: " + ", ".join(sorted(registry.workers())),
        )
    return chosen or registry.scaffold_defaults()[:1]


def _readers(audience: str) -> tuple[str, ...]:
    """The workers whose programs read an imported file of ``audience``, in registry order."""
    return tuple(n for n, w in registry.workers().items() if audience in w.imports_read)


def chosen_targets(
    found: list[Found], for_workers: tuple[str, ...]
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The targets and, per target name, the sources it keeps (all: a workspace's targets)."""
    targets: dict[str, dict[str, Any]] = {}
    keep: dict[str, list[str]] = {}
    source = {e.origin: e.name for e in entries(found)}
    for kind in found:
        if kind.workspace is not None:
            for target in kind.targets:
                targets[target["name"]] = target
                keep[target["name"]] = [
                    e.name
                    for e in kind.entries
                    if e.audience == "all" or target["worker"] in _readers(e.audience)
                ]
            continue
        for entry in kind.entries:
            workers = for_workers if entry.audience == "for" else _readers(entry.audience)
            if entry.audience == "copilot":  # Copilot's own, the others' by --for
                workers = (*for_workers, *workers)
            if entry.audience == "agents" and not _claude_memory_beside(entry.origin):
                # Claude Code reads it in CLAUDE.md's place
                workers = (*workers, *_readers("claude-code"))
            for worker in workers:
                if registry.get(worker) is None:
                    continue
                name = registry.workers()[worker].init_target[0]
                targets.setdefault(name, {"name": name, "worker": worker})
                kept = keep.setdefault(name, [])
                if source[entry.origin] not in kept:
                    kept.append(source[entry.origin])
    if not targets and any(f.skills for f in found):  # skills alone: the --for workers' targets
        for worker in for_workers:
            name = registry.workers()[worker].init_target[0]
            targets[name] = {"name": name, "worker": worker}
            keep[name] = []
    return list(targets.values()), keep


def _claude_memory_beside(agents: Path) -> bool:
    """Whether Claude Code reads a memory file in ``agents``' folder instead of AGENTS.md."""
    return any((agents.parent / name).is_file() for name in CLAUDE_MEMORY)


def _target(values: dict[str, Any], keep: tuple[str, ...] | None) -> Target:
    """A target from the planner's table: its worker's keys become the worker's options."""
    options_class = registry.workers()[values["worker"]].Options
    names = attrs.fields_dict(options_class)
    own = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k not in names}
    options = options_class(**{k: v for k, v in values.items() if k in names})
    return Target(**own, options=options, keep=keep)


def model(
    found: list[Found],
    into: Path,
    sources_dir: str,
    placed: list[Placed],
    chosen: tuple[list[dict[str, Any]], dict[str, list[str]]],
    templates: bool,
) -> Manifest:
    targets, keep = chosen
    where = {p.origin: p.file for p in placed}
    names = [e.name for e in entries(found)]
    sources = tuple(
        DeclaredSource(
            e.name,
            file=in_sources(where[e.origin], sources_dir),
            channel=e.channel,
            tag=e.section_tag,
            note=e.note,
            imports=e.imports,
        )
        for e in entries(found)
    )
    # HotPlex's own five files are the workers' defaults as they are: nothing to declare.
    builtin = sources == tuple(
        DeclaredSource(s.name, file=s.file, channel=s.channel, tag=s.tag, note=s.note)
        for s in HOTPLEX_SOURCES
    )
    project = ProjectSettings(
        name=into.name or "agents",
        sources=sources_dir,
        out=_free_folder(into, DEFAULT_OUT),
        templates=templates,
        default_sources=builtin,  # otherwise every source it imports is declared
    )
    kept = {t["name"]: [s.name for s in sources if s.name in keep[t["name"]]] for t in targets}
    built = tuple(
        _target(t, tuple(kept[t["name"]]) if kept[t["name"]] != names else None) for t in targets
    )
    meta = Metacognition(enabled=False)
    workspace = next((f for f in found if f.workspace is not None), None)
    if workspace is not None:
        file = workspace.metacognition
        meta = Metacognition(file=where[file]) if file is not None else Metacognition()
    variants = next((Variants(**_tuples(f.variants)) for f in found if f.variants), Variants())
    memory = Memory()
    days = [
        c.origin
        for f in found
        if f.logs is not None
        for c in f.companions
        if c.origin.parent == f.logs
    ]
    if days and days[0] in where:
        folder = posixpath.dirname(in_sources(where[days[0]], sources_dir))
        memory = Memory(logs=f"{folder}/*.md" if folder else "*.md")
    per_file, total = _limits(placed) if workspace is None else DEFAULT_LIMITS
    limits = Limits(per_file=per_file, total=total)
    return Manifest(
        project=project,
        source=() if builtin else sources,
        variants=variants,
        limits=limits,
        metacognition=meta,
        memory=memory,
        target=built,
    )


def _tuples(values: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


def in_sources(file: str, sources_dir: str) -> str:
    return file if sources_dir == "." else Path(os.path.relpath(file, sources_dir)).as_posix()


def entries(found: list[Found]) -> list[Entry]:
    """Every source, each file once: a file two tools read (an AGENTS.md Aider's ``read:`` names)
    is the source the first format made of it."""
    first: dict[Path, Entry] = {}
    for entry in (e for f in found for e in f.entries):
        first.setdefault(entry.origin, entry)
    return list(first.values())


def _free_folder(into: Path, name: str) -> str:
    """An artifact folder that does not exist yet: a build owns what is inside it."""
    candidate, number = name, 1
    while (into / candidate).exists():
        number += 1
        candidate = f"hotplex-{name}" if number == 2 else f"hotplex-{name}-{number - 1}"
    return candidate


def _limits(placed: list[Placed]) -> tuple[int, int]:
    """Budgets no imported file can exceed: at least HotPlex's, at most every text together."""
    size = sum(len(compiled(data_of(p), p.file)[0]) for p in placed if p.origin.exists())
    room = -(-(size + size // 10 + 1000) // 1000) * 1000  # a margin for escaping, in thousands
    return max(DEFAULT_LIMITS[0], room), max(DEFAULT_LIMITS[1], room)


def data_of(item: Placed) -> bytes:
    return item.data if item.data is not None else item.origin.read_bytes()


def compiled(data: bytes, display: str) -> tuple[str, int]:
    """(body, its first line) as the build will see a file; the whole text if that fails."""
    try:
        text = frontmatter.decode(data, display)
    except HotplexError:
        return "", 1
    try:
        stripped = frontmatter.strip(text, display)
    except HotplexError:
        return text, 1
    return stripped.body, stripped.body_line
