"""Errors as values: every problem carries its place and is rendered once, at the CLI edge.

A ``Problem`` names where (a ``Span``: file plus line/column, or a manifest key path), what, and
optionally how to fix it. Stages raise ``HotplexError`` holding one or more problems; nothing below
the CLI prints or exits.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from hotplex.values import value

# Exit statuses, shared by the CLI and the library's callers.
EXIT_OK = 0
EXIT_FAILED = 1  # stale artifacts (check) or a build that could not finish
EXIT_CONFIG = 2  # usage or configuration error: bad manifest, bad source, bad template
EXIT_INTERNAL = 3  # a bug in hotplex itself

# The characters a message shows of each of its parts (the message, a file, a key, a hint, the
# line under a caret): a key or value the user sent can be a megabyte long, and an error that
# quotes it in each part would be several.
SHOWN = 1000


@value
class Span:
    """Where a problem is: a file, optionally a 1-based line and column or a manifest key path."""

    FIELDS = ("file", "line", "column", "key", "source_line", "line_start")
    file: str
    line: int | None
    column: int | None
    key: str | None
    # The text of ``line``, kept so the problem can show it with a caret without re-reading; from
    # its character ``line_start`` on (a long line kept around its column: ``around``).
    source_line: str | None
    line_start: int

    def __init__(
        self,
        file: str,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
        source_line: str | None = None,
        line_start: int = 0,
    ) -> None:
        self.__dict__.update(
            file=file,
            line=line,
            column=column,
            key=key,
            source_line=source_line,
            line_start=line_start,
        )

    def around(self, size: int) -> Span:
        """This span with its line kept from ``SHOWN + size + 1`` characters before its column to
        as many after its ``size`` characters: all a caret line can show of it (the same text and
        ellipses), and any text as long met there whole, which a line's many problems each
        copying the whole line made the square of the line."""
        if self.source_line is None or self.column is None:
            return self
        at = self.column - 1 - self.line_start
        margin = SHOWN + size + 1
        start = max(0, at - margin)
        return self.replace(
            source_line=self.source_line[start : at + size + margin],
            line_start=self.line_start + start,
        )

    def location(self) -> str:
        parts = [shown(self.file)]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        where = ":".join(parts)
        return f"{where}: {shown(self.key)}" if self.key else where

    @classmethod
    def at_offset(cls, file: str, text: str, offset: int) -> Span:
        """The span of a character offset in ``text`` (line and column counted from 1)."""
        return Lines(text).span(file, offset)


class Lines:
    """Where each line of a text starts, to place many offsets in it: each place is a bisect,
    where counting the lines from the start for each cost the square of the places (thousands
    of findings in one file); a line's text is sliced once, shared by the spans on it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        at = text.find("\n")
        while at >= 0:
            self.starts.append(at + 1)
            at = text.find("\n", at + 1)
        self._line: dict[int, str] = {}

    def index(self, offset: int) -> int:
        """The line (counted from 0) of a character offset."""
        return bisect.bisect_right(self.starts, offset) - 1

    def line(self, index: int) -> str:
        """The text of line ``index`` (counted from 0), without its line break."""
        line = self._line.get(index)
        if line is None:
            end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
            line = self._line[index] = self.text[self.starts[index] : end]
        return line

    def span(self, file: str, offset: int) -> Span:
        """The span of a character offset (line and column counted from 1)."""
        index = self.index(offset)
        column = offset - self.starts[index] + 1
        return Span(file, index + 1, column, source_line=self.line(index))


@value
class Problem:
    FIELDS = ("message", "span", "hint")
    message: str
    span: Span | None
    hint: str | None

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.__dict__.update(message=message, span=span, hint=hint)

    def render(self) -> str:
        message = shown(self.message)
        lines = [f"{self.span.location()}: {message}" if self.span else message]
        span = self.span
        if span is not None and span.source_line is not None and span.column is not None:
            line, at = span.source_line, span.column - 1 - span.line_start
            start = max(0, min(at - SHOWN // 2, len(line) - SHOWN))
            end = start + SHOWN
            # Only the window shown is read: a problem on a megabyte line costs its window.
            # Its secrets are found around it and redacted before the cut (adversary21 D2).
            from hotplex.text.secret_rules import scan

            around = max(0, start - SHOWN)
            found = [(around + m.start, m.secret) for m in scan(line[around : end + SHOWN])]
            found = sorted(found + _values_alone(line, around, end + SHOWN, found))
            column = min(at, len(line))
            before = redacted(line, start, column, found).replace("\t", " ")
            after = redacted(line, column, end, found).replace("\t", " ")
            before = "…" * (start > 0) + visible(before)
            after = visible(after) + "…" * (end < len(line))
            lines.append(f"    {before}{after}")
            lines.append("    " + " " * len(before) + "^")
        if self.hint:
            lines.append(f"  hint: {shown(self.hint)}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"message": shown(self.message)}
        if self.span is not None:
            out["file"] = shown(self.span.file)
            for name in ("line", "column", "key"):
                value = getattr(self.span, name)
                if value is not None:
                    out[name] = shown(value) if name == "key" else value
        if self.hint:
            out["hint"] = shown(self.hint)
        return out


_AS_VALUE = "password: "  # a word read as a key's value


def _values_alone(
    line: str, start: int, stop: int, found: list[tuple[int, str]]
) -> list[tuple[int, str]]:
    """The words of ``line[start:stop]`` a secret rule takes for a key's value, but those in
    ``found``: the line under a caret may be a value whose key is on a line above (a YAML block
    or next-line value, a triple-quoted string's line: adversary23 D8, a template error in it
    showed the value whole)."""
    import re

    from hotplex.text.secret_rules import scan
    from hotplex.text.secret_values import MIXED_RUN

    words, at = [], start
    for word in line[start:stop].split():
        at = line.index(word, at)
        end = at + len(word)
        alone = not any(begin < end and at < begin + len(secret) for begin, secret in found)
        # Random-looking only, as a value read without its key must be (a next line's).
        if alone and re.search(MIXED_RUN, word, re.IGNORECASE):
            words += [(at + m.start - len(_AS_VALUE), m.secret) for m in scan(_AS_VALUE + word)]
        at = end
    return words


class HotplexError(Exception):
    """One or more problems that stop the current operation."""

    def __init__(
        self, problems: list[Problem] | None = None, exit_status: int = EXIT_CONFIG
    ) -> None:
        self.problems = [] if problems is None else problems
        self.exit_status = exit_status
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by value: a parallel build sends errors from its processes."""
        return (_restore, (type(self), self.problems, self.exit_status))

    @classmethod
    def single(
        cls,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        exit_status: int = EXIT_CONFIG,
    ) -> HotplexError:
        return cls([Problem(message, span, hint)], exit_status)


class BuildFailed(HotplexError):
    """The inputs are valid but the build cannot complete (I/O, secrets found): exit 1."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems, exit_status=EXIT_FAILED)


def _restore(kind: type[HotplexError], problems: list[Problem], exit_status: int) -> HotplexError:
    error = Exception.__new__(kind)
    HotplexError.__init__(error, problems, exit_status)
    return error


def shown(text: str) -> str:
    """``text`` as a message, a place or an answer quotes it: every secret in it redacted first
    (a token in a key the client sent, a day's file name), then, when it is longer than ``SHOWN``
    characters, its start and its end with how much is left out between them (cut between
    grapheme clusters), its non-printing characters shown (``visible``)."""
    text = redact_secrets(text)
    if len(text) > SHOWN:
        from hotplex.text.graphemes import floor

        half = SHOWN // 2
        head, tail = floor(text, half), floor(text, len(text) - half)
        text = f"{text[:head]}…({tail - head} more characters)…{text[tail:]}"
    return visible(text)


def redact_secrets(text: str) -> str:
    """``text`` with every secret the scanner finds in it redacted, as a finding's place is: a
    message quotes what the user or a client wrote (a key, a target, a file name)."""
    # Imported here: the no-op path renders no message and loads neither the rules nor dataclasses.
    from hotplex.text.secret_rules import redact, scan

    for match in scan(text):
        text = text.replace(match.secret, redact(match.secret))
    return text


def redacted(text: str, start: int, stop: int, secrets: Iterable[tuple[int, str]]) -> str:
    """``text[start:stop]`` as an excerpt quotes it: each of ``secrets`` (where one starts in
    ``text``, and it as written there, in order) that starts in it redacted whole, so the cut
    keeps no piece of one; one that starts before it is the excerpt's before this, which shows
    it, and is left out."""
    from hotplex.text.secret_rules import redact

    parts, at = [], start
    for begin, secret in secrets:
        end = begin + len(secret)
        if end <= at or begin >= stop:
            continue
        if begin >= start:
            parts += [text[at:begin], redact(secret)]
        at = end
    parts.append(text[at:stop])
    return "".join(parts)


def visible(text: str) -> str:
    """``text`` as a terminal may be given it: every character that does not print itself (a
    line break, an escape sequence, a bidi override, an invisible character in a file name or a
    value the user wrote) written as ``<U+001B>``, so a message is one line that shows what it
    quotes and no terminal obeys it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"<U+{ord(c):04X}>" for c in text)


def suggest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """A "did you mean" phrase for a misspelt name, or None when nothing is close."""
    import difflib  # only a failing command needs it; keep it off every start-up

    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f"did you mean '{match[0]}'?" if match else None
