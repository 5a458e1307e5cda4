"""Terminal output: colour and progress only on a terminal, and never with NO_COLOR set."""

from __future__ import annotations

import os
import sys

# Fewer artifacts than this build too fast for a progress line to help.
PROGRESS_MIN_JOBS = 8
_COLOURS = {"red": "31", "yellow": "33", "green": "32", "bold": "1", "dim": "2"}


def _tty(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


def colour(text: str, name: str, stream=None) -> str:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or not _tty(stream) or os.environ.get("TERM") == "dumb":
        return text
    return f"\x1b[{_COLOURS[name]}m{text}\x1b[0m"


def progress(index: int, total: int) -> None:
    """A single self-overwriting line on stderr while many artifacts build."""
    if total < PROGRESS_MIN_JOBS or not _tty(sys.stderr):
        return
    end = "\n" if index == total else ""
    sys.stderr.write(f"\r[{index}/{total}] building artifacts{end}")
    sys.stderr.flush()
