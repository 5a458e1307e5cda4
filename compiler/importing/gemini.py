"""GEMINI.md: Gemini CLI's context file. Its ``@path`` imports are Gemini CLI's own (inlined where
they stand); the file is kept as written and the note says so."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found

KIND = "Gemini CLI"


def find(root: Path) -> Found | None:
    path = root / "GEMINI.md"
    if not path.is_file():
        return None
    found = Found(KIND, root, entries=[Entry("gemini", path, audience="gemini")])
    if "@" in path.read_text(encoding="utf-8", errors="replace"):
        found.notes.append(
            "GEMINI.md's @imports are left as text: Gemini CLI inlines them itself when it reads"
            " the file; declare an imported file as its own [[source]] to have it in the artifact"
        )
    return found
