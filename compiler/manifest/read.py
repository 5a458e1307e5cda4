"""Read ``hotplex.toml`` into a plain mapping; TOML syntax errors keep their line and column."""

from __future__ import annotations

import re

from hotplex.errors import HotplexError, Span

TYPE_CHECKING = False  # not typing's: the no-op path imports this module for its names
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MANIFEST_NAME = "hotplex.toml"
LOCK_NAME = "hotplex.lock"  # the packages' pins, beside the manifest (``sources/packages.py``)
DEFAULT_OUT = "dist"  # where artifacts go when [project] out is not set
# Far above any real manifest (10,000 targets take about 1 MiB); only a wrong file is bigger.
MAX_BYTES = 16 << 20

# tomllib's terse messages for the commonest slips, and what the user most likely meant.
_HINTS = {
    "Illegal character '\\n'": "a string ends on the line it starts on; for text over several "
    'lines use """ … """',
}
# tomllib says where in its message only: "Expected '=' after a key (at line 3, column 7)".
# Compiled at its first use (re's cache): the no-op path reads no manifest.
_AT = r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$"


def read(path: Path, display: str) -> dict[str, Any]:
    return parse(read_bytes(path, display), display)


def read_bytes(path: Path, display: str) -> bytes:
    from hotplex.fs import read_capped  # refuses FIFOs and devices: `-f /dev/zero` must not hang

    found = read_capped(path, MAX_BYTES + 1, Span(display))
    if found is None:
        raise HotplexError.single(
            f"no manifest: '{display}' does not exist",
            hint="run 'hotplex init' to create one, or pass -C DIR / -f FILE",
        )
    if len(found.data) > MAX_BYTES:
        raise HotplexError.single(
            f"the manifest is larger than {MAX_BYTES // (1 << 20)} MiB", Span(display)
        )
    return found.data


def parse(data: bytes, display: str) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise HotplexError.single(
            f"not valid UTF-8 (byte offset {exc.start})", Span(display, line)
        ) from None
    text = text.removeprefix("\ufeff")  # editors on Windows save one; TOML has no use for it
    import tomllib  # only when a manifest is parsed: the no-op path never does

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(_AT, message)
        if not match:
            raise HotplexError.single(f"invalid TOML: {message}", Span(display)) from None
        lines = text.split("\n")
        if match.group(1) is None:  # "at end of document": where the text stops
            line, column = len(lines), len(lines[-1]) + 1
        else:
            line, column = int(match.group(1)), int(match.group(2))
        source_line = lines[line - 1] if line - 1 < len(lines) else None
        raise HotplexError.single(
            f"invalid TOML: {message[: match.start()]}",
            Span(display, line, column, source_line=source_line),
            hint=_HINTS.get(message[: match.start()]),
        ) from None
