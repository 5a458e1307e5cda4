"""``hotplex import`` of a Hermes Agent home (``HERMES_HOME``): its SOUL.md and its memories.

The home is read only when named (``hotplex import ~/.hermes``): hotplex never reads a folder
outside the project by itself. What each file becomes:

- ``SOUL.md`` -> the persona: Hermes puts it at the very start of the system message in place of
  its own identity, the persona's place (the worker writes the persona back there), whatever
  the file holds: a rule kept in it stays where Hermes had it;
- ``memories/MEMORY.md`` -> MEMORY.md and ``memories/USER.md`` -> USER.md. Hermes splits each
  on its ``§`` lines, one entry between two; hotplex's sources are Markdown, where a ``§`` line
  is a reserved form the worker escapes. So a copy that holds them has each entry as one list
  item (``- `` before its first line, two spaces before the others), every entry's text kept.
  A build writes the whole file back as one entry of Hermes's (the worker's ``§`` lines are its
  own, between MEMORY.md and the daily logs).

A home is a folder holding Hermes's ``config.yaml`` and ``memories/`` beside SOUL.md or a memory
file. Everything else there (config.yaml, sessions, skills) is Hermes's own state, left out with
why; a hidden file (``.env``, its keys) is never read. The project is written beside the home
with copies of the files, as OpenClaw's is: a build writes a home of its own (``hermes-home/``),
which a gateway copies per session.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hotplex.errors import HotplexError
from hotplex.importing.found import SKILL_FOLDER_NOT_READ, Entry, Found, Skip, parsed
from hotplex.importing.rewrite import rewrite
from hotplex.manifest.model import HOTPLEX_SOURCES
from hotplex.targets.hermes_agent import ENTRY_SEPARATOR, MEMORY_FILE, SOUL_FILE, USER_FILE

KIND = "Hermes Agent home"
MEMORIES = "memories"
CONFIG = "config.yaml"  # Hermes's own settings, in every home it makes
_SOURCES = {s.name: s for s in HOTPLEX_SOURCES}
_SPLIT = re.compile(rf"^[ \t]*{ENTRY_SEPARATOR.strip()}[ \t]*$", re.MULTILINE)  # Hermes's split
_FILES = ((SOUL_FILE, "soul"), (MEMORY_FILE, "memory"), (USER_FILE, "user"))


def claims(folder: Path, chosen: bool) -> bool:
    """Whether ``folder`` is a Hermes home: Hermes's ``config.yaml`` and ``memories/`` folder
    beside a SOUL.md or a memory file (a project's SOUL.md beside some config.yaml is not one),
    asked for (``chosen``: ``import --for hermes-agent``) or not: a home is told by its files."""
    held = any((folder / name).is_file() for name in (SOUL_FILE, MEMORY_FILE, USER_FILE))
    return held and (folder / CONFIG).is_file() and (folder / MEMORIES).is_dir()


def find(folder: Path) -> Found:
    found = Found(KIND, folder, workspace=folder, in_place=False, rewrite=_listed)
    for file, name in _FILES:
        path = folder / file
        if path.is_file():
            source = _SOURCES[name]
            found.entries.append(Entry(name, path, source.channel, source.tag, source.note))
    found.targets = [_target()]
    taken = {SOUL_FILE, MEMORIES}
    for path in sorted(folder.iterdir()):
        if path.name in taken or path.name.startswith("."):
            continue
        why = "Hermes Agent's own state: hotplex writes only SOUL.md and the memories"
        found.skipped.append(Skip(path, SKILL_FOLDER_NOT_READ if path.name == "skills" else why))
    memories = folder / MEMORIES
    if memories.is_dir():
        kept = {Path(MEMORY_FILE).name, Path(USER_FILE).name}
        found.skipped += [
            Skip(p, "Hermes Agent loads only MEMORY.md and USER.md from memories/")
            for p in sorted(memories.iterdir())
            if p.name not in kept and not p.name.startswith(".")
        ]
    return found


def _target() -> dict[str, Any]:
    return {"name": "hermes", "worker": "hermes-agent"}


def _listed(origin: Path, data: bytes) -> tuple[bytes, tuple[str, ...]]:
    """The copy of a file of the home, read as written: a memory file with each of Hermes's
    entries a Markdown list item, and any file holding template-looking text ``template: false``
    (the build writes the home anew, so the copy is hotplex's to mark)."""
    listed, changes = _items(origin, data)
    try:
        text = parsed(listed, str(origin))
    except HotplexError:
        return listed, changes  # no UTF-8: the planner reports it
    marked, more = rewrite(text)
    return marked, (*changes, *more)


def _items(origin: Path, data: bytes) -> tuple[bytes, tuple[str, ...]]:
    """A memory file's copy with each of Hermes's entries a Markdown list item; any other file,
    or one holding no ``§`` line, or no UTF-8, as it is."""
    if origin.parent.name != MEMORIES:
        return data, ()
    try:
        text = data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return data, ()
    parts = _SPLIT.split(text)
    if len(parts) < 2:
        return data, ()
    items = ["- " + "\n".join(_indented(e.strip().splitlines())) for e in parts if e.strip()]
    change = f"its {len(parts) - 1} '§' line(s) between Hermes's entries made list items"
    return ("\n".join(items) + "\n").encode("utf-8"), (change,)


def _indented(lines: list[str]) -> list[str]:
    """An entry's lines as one list item's: the first as it is, the others under it."""
    return [lines[0], *(f"  {line}" if line.strip() else "" for line in lines[1:])]
