"""Terminal output: colour and a progress line only on a terminal, and colour never with NO_COLOR.

Anything else (a pipe, a file, CI logs, pre-commit's captured output) gets plain text, so logs
stay greppable and ``--json`` output stays parseable.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: the no-op path prints through this module
if TYPE_CHECKING:
    from typing import TextIO

# Fewer artifacts than this build too fast for a progress line to help.
PROGRESS_MIN_JOBS = 8
# Redraw at most this often: a 10,000-artifact build should not spend its time on the terminal.
PROGRESS_INTERVAL_S = 0.05
_COLOURS = {"red": "31", "yellow": "33", "green": "32", "bold": "1", "dim": "2"}
# This module's own control characters travel to the stream as these tokens, random in each
# process so that no text hotplex quotes can spell them: ``Shown`` escapes every other one.
_TOKEN = os.urandom(8).hex()
_OWN = {f"[esc-{_TOKEN}]": "\x1b", f"[cr-{_TOKEN}]": "\r"}
_ESC, _CR = _OWN
_ERASE_LINE = f"{_CR}{_ESC}[2K"


class Shown:
    """stdout or stderr as hotplex writes to it (``cli.run`` puts one in place of each): every
    character that does not print itself (a C0 or C1 control, U+0085, an escape sequence, a bidi
    override, in a file name, a key or a message) written as ``<U+001B>``, as ``errors.visible``
    shows it, at this one edge; line breaks and tabs kept, and this module's own colours and
    progress line written as themselves. The bytes underneath (``buffer``) are not touched: an
    artifact ``show`` prints is the artifact."""

    def __init__(self, stream: TextIO, lossy: bool = False) -> None:
        self.stream = stream
        # stderr's: a message it cannot take is lost, and the exit status still says what
        # happened (``2>/dev/full`` made a usage error's 2 an unhandled exception's 1).
        self.lossy = lossy

    def write(self, text: str) -> int:
        if not text.isprintable() and not text.replace("\n", " ").replace("\t", " ").isprintable():
            from hotplex.errors import visible

            text = "\n".join("\t".join(map(visible, line.split("\t"))) for line in text.split("\n"))
        if _TOKEN in text:
            for token, own in _OWN.items():
                text = text.replace(token, own)
        if not self.lossy:
            return self.stream.write(text)
        try:
            return self.stream.write(text)
        except OSError:
            return len(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _terminal(stream: TextIO) -> bool:
    """A real terminal that understands escape sequences (not a pipe, not TERM=dumb)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def colour(text: str, name: str, stream: TextIO | None = None) -> str:
    """``text`` coloured for ``stream`` (stdout by default), or unchanged when it is no terminal.

    NO_COLOR (https://no-color.org): any non-empty value turns colour off.
    """
    if os.environ.get("NO_COLOR") or not _terminal(stream or sys.stdout):
        return text
    return f"{_ESC}[{_COLOURS[name]}m{text}{_ESC}[0m"


def warn(text: str, shown: bool = False) -> None:
    """One warning on stderr, quoted as messages are (``errors.shown``): a file name holding an
    escape sequence or a line break is shown, never obeyed or split; a secret in it redacted.
    ``shown``: ``text`` was quoted so already (the lines a no-op build repeats)."""
    if not shown:
        from hotplex.errors import shown as quoted

        text = quoted(text)
    sys.stderr.write(f"{colour('warning', 'yellow', sys.stderr)}: {text}\n")


_DIFF_COLOURS = (("+++", "bold"), ("---", "bold"), ("+", "green"), ("-", "red"), ("@@", "dim"))


def colour_diff(diff: str, stream: TextIO | None = None) -> str:
    """A unified diff with added lines green and removed lines red, when colour is on."""
    lines = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\n")
        name = next((n for prefix, n in _DIFF_COLOURS if body.startswith(prefix)), None)
        lines.append(line if name is None else colour(body, name, stream) + line[len(body) :])
    return "".join(lines)


class _ProgressLine:
    """One self-overwriting line on stderr; erased again when the last artifact is done."""

    def __init__(self) -> None:
        self.shown = False
        self.last_draw = 0.0

    def update(self, index: int, total: int) -> None:
        if total < PROGRESS_MIN_JOBS or not _terminal(sys.stderr):
            return
        now = time.monotonic()
        if index >= total:
            self.clear()
        elif not self.shown or now - self.last_draw >= PROGRESS_INTERVAL_S:
            sys.stderr.write(f"{_ERASE_LINE}[{index}/{total}] building artifacts")
            sys.stderr.flush()
            self.shown, self.last_draw = True, now

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write(_ERASE_LINE)
            sys.stderr.flush()
            self.shown = False


_PROGRESS = _ProgressLine()


def progress(index: int, total: int) -> None:
    """Report that ``index`` of ``total`` artifacts are done; the line vanishes at the end."""
    _PROGRESS.update(index, total)


def clear_progress() -> None:
    """Erase a progress line left by an interrupted build before printing anything else."""
    _PROGRESS.clear()
