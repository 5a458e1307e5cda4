"""AGENTS.md: read by OpenCode and Codex, by Claude Code where no CLAUDE.md sits beside it (and by
OpenClaw, in a workspace), from the folder they run in: the project's top one is a source, one in a
subfolder is left out with a word."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, present, unmapped_below

KIND = "AGENTS.md"


def find(root: Path) -> Found | None:
    """AGENTS.md at the top; one in a subfolder is read there only, and named as left out."""
    path = root / "AGENTS.md"
    found = Found(KIND, root, skipped=unmapped_below(root, "AGENTS.md"))
    if present(path):
        found.entries.append(Entry("rules", path, audience="agents"))
    return found if found.entries or found.skipped else None
