"""Read ``hotplex.toml`` into a plain mapping; TOML syntax errors keep their line and column."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import HotplexError, Span

MANIFEST_NAME = "hotplex.toml"

# tomllib says where in its message only: "Expected '=' after a key (at line 3, column 7)".
_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def read(path: Path, display: str) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise HotplexError.single(
            f"no manifest: '{display}' does not exist",
            hint="run 'hotplex init' to create one, or pass -C DIR / -f FILE",
        ) from None
    except OSError as exc:
        raise HotplexError.single(f"cannot read '{display}': {exc.strerror}") from None
    return parse(data, display)


def parse(data: bytes, display: str) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HotplexError.single(
            f"not valid UTF-8 (byte offset {exc.start})", Span(display)
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _AT.search(message)
        if not match:
            raise HotplexError.single(f"invalid TOML: {message}", Span(display)) from None
        line, column = int(match.group(1)), int(match.group(2))
        lines = text.split("\n")
        source_line = lines[line - 1] if line - 1 < len(lines) else None
        raise HotplexError.single(
            f"invalid TOML: {message[: match.start()]}",
            Span(display, line, column, source_line=source_line),
        ) from None
