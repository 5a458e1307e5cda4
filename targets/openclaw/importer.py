"""``hotplex import`` of an OpenClaw workspace: its bootstrap files, by the names and in the
order OpenClaw loads them.

The sources are named and described by the table the OpenClaw worker scaffolds from
(``templates.TEMPLATES``), so an imported workspace and ``hotplex init --worker
openclaw`` agree. The project cannot live in the workspace (a deploy would write over its own
sources): it is written beside it, with copies of the files, and the target's ``workspace`` is
set to the folder, so ``context.md`` names it as OpenClaw will.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hotplex.fs import folded
from hotplex.importing import skills as skills_import
from hotplex.importing.found import LOGS_FOLDER, Entry, Found, Skip, daily_logs
from hotplex.manifest.model import HOTPLEX_SOURCES
from hotplex.targets.openclaw.context import BOOTSTRAP_FILES
from hotplex.targets.openclaw.templates import TEMPLATES

KIND = "OpenClaw workspace"
SKILLS_DIR = "skills"  # the workspace's own skills, which OpenClaw lists first
# The workspace's other skills folder OpenClaw lists (its skills page, "Loading order"); a skill
# named like one of skills/ is overridden by it there.
AGENTS_SKILLS_DIR = ".agents/skills"
ONLY_OPENCLAW = frozenset({"TOOLS.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md"})
STATE_DIR = ".openclaw"  # OpenClaw's own folder, which holds its workspace by default
_MEMORY = next(s for s in HOTPLEX_SOURCES if s.file == "MEMORY.md")
_SOURCES = {t.file: (t.source, t.channel, t.tag, t.note) for t in TEMPLATES}
_SOURCES["MEMORY.md"] = (_MEMORY.name, _MEMORY.channel, _MEMORY.tag, _MEMORY.note)


def claims(folder: Path, chosen: bool) -> bool:
    """Whether ``folder`` is an OpenClaw workspace: it holds a file only OpenClaw reads, or one
    of its bootstrap files HotPlex reads too (AGENTS.md, SOUL.md, USER.md, MEMORY.md) and lies
    in OpenClaw's own folder (``~/.openclaw/workspace``), or the user asked for OpenClaw
    (``chosen``: ``import --for openclaw``)."""
    if any((folder / name).is_file() for name in ONLY_OPENCLAW):
        return True
    shared = any((folder / name).is_file() for name in _SOURCES)
    inside = any(p.name == STATE_DIR for p in folder.absolute().parents)
    return shared and (chosen or inside)


def find(folder: Path) -> Found:
    found = Found(KIND, folder, workspace=folder, in_place=False)
    taken: set[str] = set()
    logs = daily_logs(found, folder)
    for file in dict.fromkeys([*BOOTSTRAP_FILES["seed"], *BOOTSTRAP_FILES["2026.9"]]):
        use = file if (folder / file).is_file() else None
        if use is None and file == "MEMORY.md" and (folder / "memory.md").is_file():
            use = "memory.md"  # OpenClaw's lower-case spelling, read when MEMORY.md is absent
        if use is None and file == "MEMORY.md" and logs:
            use = file  # the section the daily logs join, declared before its file exists
            found.notes.append(
                f"{LOGS_FOLDER}/ holds daily logs and there is no MEMORY.md: the 'memory' source"
                " is declared all the same, for the section they join (write MEMORY.md in the"
                " sources to add notes of your own before them)"
            )
        if use is not None and file in _SOURCES:
            name, channel, tag, note = _SOURCES[file]
            found.entries.append(Entry(name, folder / use, channel, tag, note))
            taken.add(use)
    found.targets = [_target(folder)]
    if logs:
        taken.add(LOGS_FOLDER)
    if _skills(found, folder):
        taken.add(SKILLS_DIR)
    for path in sorted(folder.iterdir()):
        if path.name in taken or path.name.startswith("."):
            continue
        why = "OpenClaw injects only its bootstrap files"
        if path.name == "memory" and path.is_dir():
            why = "OpenClaw's daily memory notes, read by its memory tools, not injected at start"
        found.skipped.append(Skip(path, why))
    return found


def _skills(found: Found, folder: Path) -> bool:
    """The workspace's skills, as OpenClaw lists them: those of ``skills/`` first, then those of
    ``.agents/skills/`` but one named like a skill of ``skills/``, which OpenClaw overrides.
    Whether ``skills/`` was taken."""
    first = skills_import.find(folder, (SKILLS_DIR,))
    then = skills_import.find(folder, (AGENTS_SKILLS_DIR,))
    names = {folded(s.name) for s in first.skills} if first is not None else set()
    for kind in (first, then):
        if kind is None:
            continue
        for skill in kind.skills:
            if kind is first or folded(skill.name) not in names:
                found.skills.append(skill)
                continue
            why = f"OpenClaw loads {folder / SKILLS_DIR / skill.name} in its place"
            found.skipped.append(Skip(skill.origin, why))
        found.skipped += kind.skipped
    return first is not None


def _target(folder: Path) -> dict[str, Any]:
    """An openclaw target whose ``workspace`` is this folder, as OpenClaw will name it."""
    real = folder.resolve()
    home = Path.home().resolve()
    shown = f"~/{real.relative_to(home).as_posix()}" if real.is_relative_to(home) else str(real)
    return {"name": "claw", "worker": "openclaw", "workspace": shown}
