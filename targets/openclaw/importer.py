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

from hotplex.importing import skills as skills_import
from hotplex.importing.found import LOGS_FOLDER, Entry, Found, Skip, daily_logs
from hotplex.manifest.model import HOTPLEX_SOURCES
from hotplex.targets.openclaw.context import BOOTSTRAP_FILES
from hotplex.targets.openclaw.templates import TEMPLATES

KIND = "OpenClaw workspace"
SKILLS_DIR = "skills"  # the workspace's own skills, which OpenClaw lists first
ONLY_OPENCLAW = frozenset({"TOOLS.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md"})
_MEMORY = next(s for s in HOTPLEX_SOURCES if s.file == "MEMORY.md")
_SOURCES = {t.file: (t.source, t.channel, t.tag, t.note) for t in TEMPLATES}
_SOURCES["MEMORY.md"] = (_MEMORY.name, _MEMORY.channel, _MEMORY.tag, _MEMORY.note)


def claims(folder: Path) -> bool:
    """Whether ``folder`` is an OpenClaw workspace: it holds a file only OpenClaw reads."""
    return any((folder / name).is_file() for name in ONLY_OPENCLAW)


def find(folder: Path) -> Found:
    found = Found(KIND, folder, workspace=folder, in_place=False)
    taken: set[str] = set()
    for file in dict.fromkeys([*BOOTSTRAP_FILES["seed"], *BOOTSTRAP_FILES["2026.9"]]):
        use = file if (folder / file).is_file() else None
        if use is None and file == "MEMORY.md" and (folder / "memory.md").is_file():
            use = "memory.md"  # OpenClaw's lower-case spelling, read when MEMORY.md is absent
        if use is not None and file in _SOURCES:
            name, channel, tag, note = _SOURCES[file]
            found.entries.append(Entry(name, folder / use, channel, tag, note))
            taken.add(use)
    found.targets = [_target(folder)]
    if daily_logs(found, folder):
        taken.add(LOGS_FOLDER)
    skills = skills_import.find(folder, (SKILLS_DIR,))  # OpenClaw's workspace skills, first
    if skills is not None:
        found.skills += skills.skills
        found.skipped += skills.skipped
        taken.add(SKILLS_DIR)
    for path in sorted(folder.iterdir()):
        if path.name in taken or path.name.startswith("."):
            continue
        why = "OpenClaw injects only its bootstrap files"
        if path.name == "memory" and path.is_dir():
            why = "OpenClaw's daily memory notes, read by its memory tools, not injected at start"
        found.skipped.append(Skip(path, why))
    return found


def _target(folder: Path) -> dict[str, Any]:
    """An openclaw target whose ``workspace`` is this folder, as OpenClaw will name it."""
    real = folder.resolve()
    home = Path.home().resolve()
    shown = f"~/{real.relative_to(home).as_posix()}" if real.is_relative_to(home) else str(real)
    return {"name": "claw", "worker": "openclaw", "workspace": shown}
