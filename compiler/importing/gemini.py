"""GEMINI.md: Gemini CLI's context file. Its ``@path`` imports are Gemini CLI's own (inlined where
they stand); the file is kept as written and the note says so. Qwen Code's QWEN.md is read the
same way (``context_file``)."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Audience, Entry, Found, present, text_of

KIND = "Gemini CLI"


def find(root: Path) -> Found | None:
    return context_file(root, KIND, "GEMINI.md", "gemini")


def context_file(root: Path, kind: str, file: str, audience: Audience) -> Found | None:
    """A Gemini-style context file (GEMINI.md, Qwen Code's QWEN.md): one source named like its
    program's audience, for its program's targets; its ``@`` imports stay text."""
    path = root / file
    if not present(path):
        return None
    found = Found(kind, root, entries=[Entry(audience, path, audience=audience)])
    if "@" in text_of(path):
        found.notes.append(
            f"{file}'s @imports are left as text: {kind} inlines them itself when it reads"
            " the file; declare an imported file as its own [[source]] to have it in the artifact"
        )
    return found
