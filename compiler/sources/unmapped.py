"""Instruction files other tools read that a project does not take as they are, and why.

``import`` names them ("not mapped: …") and every build names them again while no artifact reads
them, with the same words: a CLAUDE.local.md is Claude Code's private file, not a variant for a
platform 'local'; a CLAUDE.md or AGENTS.md in a subfolder is read by its tool only there.
"""

from __future__ import annotations

import posixpath

PRIVATE_CLAUDE = "CLAUDE.local.md"
_IF_NEEDED = "add a [[source]] if every session needs it"
_NESTED = {
    "CLAUDE.md": "Claude Code reads a CLAUDE.md in a subfolder only once it works on files there,"
    " not at start",
    "AGENTS.md": "Codex and OpenCode read an AGENTS.md in a subfolder only when run in that"
    " folder, not at start",
}


def reason(rel: str) -> str | None:
    """Why the file at ``rel`` (relative to the project folder) is not one of the files a tool
    loads at the start of every session, or None when it is no such tool's file."""
    folder, name = posixpath.split(rel)
    if name == PRIVATE_CLAUDE:
        return (
            "private to you (Claude Code: not checked in); add a [[source]] if the project needs it"
        )
    if folder and name in _NESTED:
        return f"{_NESTED[name]}; {_IF_NEEDED}"
    return None
