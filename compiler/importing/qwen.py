"""QWEN.md: Qwen Code's context file, read as Gemini CLI's GEMINI.md is (Qwen Code is a fork)."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Found
from hotplex.importing.gemini import context_file

KIND = "Qwen Code"


def find(root: Path) -> Found | None:
    return context_file(root, KIND, "QWEN.md", "qwen")
