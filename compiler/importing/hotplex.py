"""HotPlex's agent-configs/ folder: the five files, platform folders holding bot folders.

HotPlex resolves each file on its own, most specific first: <platform>/<bot>/FILE, then
<platform>/FILE, then FILE (``internal/agentconfig/loader.go``), which is hotplex's directory
layout in replace mode plus a ``bot`` per target. Its older design appended SOUL.slack.md to
SOUL.md: a folder with only such files gets the suffix layout in append mode. META.md, HotPlex's
own META-COGNITION text, becomes ``[metacognition] file``.
"""

from __future__ import annotations

import re
from pathlib import Path

from hotplex import registry
from hotplex.commands.scaffold import SOURCE_FILES
from hotplex.errors import HotplexError
from hotplex.importing import claude, skills
from hotplex.importing.found import LOGS_FOLDER, Companion, Entry, Found, Skip, daily_logs, read
from hotplex.manifest.model import HOTPLEX_SOURCES
from hotplex.sources.skills import SKILLS_FOLDER

KIND = "HotPlex agent-configs"
META = "META.md"
_SUFFIX_VARIANT = re.compile(r"(SOUL|AGENTS|SKILLS|USER|MEMORY)\.([A-Za-z0-9][A-Za-z0-9_-]*)\.md")
_PLATFORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def find(folder: Path) -> Found:
    found = Found(KIND, folder, workspace=folder)
    platforms = _platform_dirs(folder)
    companions: dict[str, str] = {}
    suffixes = sorted(p.name for p in folder.iterdir() if _SUFFIX_VARIANT.fullmatch(p.name))
    if platforms:
        found.variants = {"platforms": list(platforms), "mode": "replace", "layout": "directory"}
        for platform, bots in platforms.items():
            for where in [platform, *(f"{platform}/{bot}" for bot in bots)]:
                role = "bot overlay" if "/" in where else "platform variant"
                companions.update((f"{where}/{n}", role) for n in _held(folder / where))
        why = "HotPlex reads platform folders and ignores SOUL.<platform>.md beside them"
        found.skipped += [Skip(folder / name, why) for name in suffixes]
    elif suffixes:
        names = {_SUFFIX_VARIANT.fullmatch(name).group(2) for name in suffixes}  # type: ignore[union-attr]
        found.variants = {"platforms": sorted(names), "mode": "append", "layout": "suffix"}
        companions.update((name, "platform variant") for name in suffixes)
    found.companions = [Companion(folder / rel, role) for rel, role in companions.items()]
    # All five, as HotPlex reads them: one created later is picked up by the next build.
    found.entries = [
        Entry(s.name, folder / s.file, s.channel, s.tag, s.note) for s in HOTPLEX_SOURCES
    ]
    if (folder / META).is_file():
        found.metacognition = folder / META
    _note_empty_overrides(found, folder, companions)
    # The targets ``hotplex init`` scaffolds, and one per bot of the first of them.
    defaults = {w: registry.workers()[w].init_target[0] for w in registry.scaffold_defaults()}
    found.targets = [{"name": name, "worker": w} for w, name in defaults.items()]
    first, prefix = next(iter(defaults.items()))
    found.targets += [
        {"name": f"{prefix}-{p}-{b}", "worker": first, "platforms": [p], "base": False, "bot": b}
        for p, bots in platforms.items()
        for b in bots
    ]
    known = {*SOURCE_FILES, META, *companions, *suffixes, *platforms}
    if daily_logs(found, folder):
        known.add(LOGS_FOLDER)
    known.update(_claude_files(found, folder))
    known.update(_skills(found, folder))
    for path in sorted(folder.iterdir()):
        if path.name not in known and not path.name.startswith("."):
            found.skipped.append(Skip(path, "HotPlex reads only " + ", ".join(SOURCE_FILES)))
    return found


def _claude_files(found: Found, folder: Path) -> set[str]:
    """A CLAUDE.md beside the five is Claude Code's own file: a source of the ``cc`` target
    alone, as the import table maps it anywhere (``claude.py``). The names it takes."""
    mine = claude.find(folder)
    if mine is None:
        return set()
    found.entries += mine.entries
    found.companions += mine.companions
    found.skipped += mine.skipped
    return {
        p.origin.relative_to(folder).parts[0]
        for p in (*mine.entries, *mine.companions, *mine.skipped)
        if p.origin.is_relative_to(folder)
    }


def _skills(found: Found, folder: Path) -> set[str]:
    """The skill folders of ``skills/``, which a build reads from the sources folder: adopted
    as any program's (copied with ``--copy``; in place, already where the build reads them).
    The names it takes."""
    mine = skills.find(folder, (SKILLS_FOLDER,))
    if mine is None:
        return set()
    found.skills += mine.skills
    found.skipped += mine.skipped
    return {SKILLS_FOLDER}


def _held(folder: Path) -> list[str]:
    return [name for name in SOURCE_FILES if (folder / name).is_file()]


def _platform_dirs(folder: Path) -> dict[str, list[str]]:
    """Platform folder -> its bot folders: the sub-folders holding any of the five files."""
    platforms: dict[str, list[str]] = {}
    for sub in _subfolders(folder):
        bots = [bot.name for bot in _subfolders(sub) if _held(bot)]
        if _held(sub) or bots:
            platforms[sub.name] = bots
    return platforms


def _subfolders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and _PLATFORM.fullmatch(p.name))


def _note_empty_overrides(found: Found, folder: Path, companions: dict[str, str]) -> None:
    """HotPlex falls back past an override that is empty after frontmatter; hotplex does not."""
    if not found.variants or found.variants["mode"] != "replace":
        return
    for rel in companions:
        try:
            empty = not read(folder / rel).body.strip()
        except HotplexError:
            empty = False
        if "/" in rel and empty:
            found.notes.append(
                f"{rel} is empty: HotPlex falls back to the next level, hotplex uses it as an empty"
                " override; delete it to keep HotPlex's behaviour"
            )
