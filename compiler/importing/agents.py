"""AGENTS.md: read by OpenCode and Codex, by Claude Code where no CLAUDE.md sits beside it (and by
OpenClaw, in a workspace)."""

from __future__ import annotations

from pathlib import Path

from .found import Entry, Found

KIND = "AGENTS.md"


def find(root: Path) -> Found | None:
    path = root / "AGENTS.md"
    if not path.is_file():
        return None
    return Found(KIND, root, entries=[Entry("rules", path, audience="agents")])
