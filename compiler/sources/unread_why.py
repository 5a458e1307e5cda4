"""What a file no artifact reads looks like it was meant to be, and why it is not read: the
hint ``unused.report`` gives after its name (a platform not built, a variant of the other
layout, a day the logs glob misses, another worker's default source)."""

from __future__ import annotations

import fnmatch
import posixpath

from hotplex import registry
from hotplex.errors import suggest
from hotplex.manifest.jobs import plan
from hotplex.manifest.model import Model, Source, Target
from hotplex.manifest.source_rule import worker_defaults
from hotplex.manifest.vocabulary import split_glob
from hotplex.sources import unmapped
from hotplex.sources.logs import is_day


def why(model: Model, rel: str) -> str:
    """What the file looks like it was meant to be, and why it is not: ': no platform ...'."""
    manifest = model.manifest
    layout = manifest.variants.layout
    head, name = posixpath.split(rel)
    by_file = {posixpath.split(s.file.replace("\\", "/")): s for s in model.sources}
    stem, dot, ext = name.rpartition(".")
    base_stem, sep, word = stem.rpartition(".")
    if dot and sep and (head, f"{base_stem}.{ext}") in by_file:
        if layout == "directory" and word in manifest.variants.platforms:
            return (
                f': a suffix variant, but [variants] layout = "directory" reads'
                f" {word}/{base_stem}.{ext}"
            )
        return _platform_why(model, word, rel, by_file[head, f"{base_stem}.{ext}"])
    parts = rel.split("/")
    for depth in (1, 2):  # <platform>/<file>, <platform>/<bot>/<file>
        if len(parts) > depth and (base := ("/".join(parts[: -depth - 1]), name)) in by_file:
            platform, bot = parts[-depth - 1], parts[-2] if depth == 2 else None
            if layout == "suffix" and platform in manifest.variants.platforms and bot is None:
                return f': a directory variant, but [variants] layout = "suffix" reads {name}'
            if platform not in manifest.variants.platforms or bot is None:
                return _platform_why(model, platform, rel, by_file[base])
            built = [(j.platform, j.target.bot) for j in plan(model) if j.target.bot and j.platform]
            if (platform, bot) in built:
                return (
                    f": no target that builds bot '{bot}' for platform '{platform}' keeps source"
                    f" '{by_file[base].name}' (keep / profile)"
                )
            if bot in {b for _, b in built}:  # for other platforms only
                return f": no target builds bot '{bot}' for platform '{platform}'"
            bots = sorted({b for p, b in built if p == platform})
            hint = suggest(bot, bots) or "bots: " + (", ".join(bots) or "none")
            return f": no target has bot '{bot}' — {hint}"
    if (head, name) in by_file:
        return f": no target keeps source '{by_file[head, name].name}' (keep / profile)"
    if is_day(name):
        return _day_why(manifest.memory.logs, head, name)
    other_tool = unmapped.reason(rel)
    if other_tool is not None:
        return f": {other_tool}"
    # A file another worker reads by that name is no typo: never suggest a different role's file
    # (SKILLS.md in an OpenClaw-only project is not a misspelt SOUL.md).
    workers = _workers_defaulting_to(name)
    hint = None if workers else suggest(name, [n for h, n in by_file if h == head])
    if hint:
        return f" — {hint}"
    if head:
        return ""
    defaults = all_worker_defaults(model)
    if not manifest.project.default_sources and name in {s.file for s in defaults}:
        return ": a default source, dropped by [project] default_sources = false"
    sources = {s.name: s for s in model.sources}
    for default in defaults:  # a [[source]] of a default's name gave it another file
        if default.file == name and default.name in sources:
            return f": source '{default.name}' reads {sources[default.name].file} instead"
    for worker in workers:
        return (
            f": a default source of the {worker} worker, which no target here uses;"
            " declare it with [[source]] (name, file, channel, tag) to read it"
        )
    return ""


def _day_why(logs: str | None, head: str, name: str) -> str:
    """A file named like a daily log that the logs glob does not read: why, naming the key."""
    if logs is None:
        return ': named like a daily log; [memory] logs = "memory/*.md" reads such files'
    folder, pattern = split_glob(logs)
    if posixpath.normpath(head or ".") == folder:
        case = " (case counts)" if fnmatch.fnmatch(name.lower(), pattern.lower()) else ""
        return f": named like a day, but memory.logs '{logs}' does not match its name{case}"
    if head.startswith(f"{folder}/"):
        return f": a day in a subfolder, but memory.logs '{logs}' reads only '{folder}/' itself"
    return f": named like a day, but memory.logs '{logs}' reads days in '{folder}/'"


def _platform_why(model: Model, word: str, rel: str, source: Source) -> str:
    """Why a file named like a variant of ``source`` for platform ``word`` is not read: the
    platform is not built, or no target building it keeps the source. Another tool's file
    (CLAUDE.local.md, sub/AGENTS.md) is named for what it is, unless a platform is the likelier
    meaning: one has that name or a close one, or the file is in a folder and the project
    declares platforms (``webchat/AGENTS.md`` is then a platform folder)."""
    platforms = model.manifest.variants.platforms
    if word in platforms:
        if any(job.platform == word for job in plan(model)):
            return (
                f": no target that builds platform '{word}' keeps source '{source.name}'"
                " (keep / profile)"
            )
        return f": no target builds platform '{word}'"
    hint = suggest(word, platforms)
    if hint:
        return f": no platform '{word}' — {hint}"
    other_tool = unmapped.reason(rel)
    if other_tool is not None and (
        not platforms or posixpath.basename(rel) == unmapped.PRIVATE_CLAUDE
    ):
        return f": {other_tool}"
    return f": no platform '{word}' (platforms: {', '.join(platforms) or 'none'})"


def all_worker_defaults(model: Model) -> tuple[Source, ...]:
    """The default sources of the project's workers, ``default_sources`` or not."""
    from hotplex.generated import attrs

    manifest = model.manifest
    project = attrs.evolve(manifest.project, default_sources=True)
    return tuple(worker_defaults(attrs.evolve(manifest, project=project)).values())


def _workers_defaulting_to(name: str) -> list[str]:
    """The registered workers, used here or not, that read a file ``name`` by default, in the
    registry's order (the one users see: Claude Code's first)."""
    return [
        name_
        for name_, worker in registry.workers().items()
        if any(
            s.file == name
            for s in worker.default_sources(Target("any", name_, options=worker.Options()))
        )
    ]
