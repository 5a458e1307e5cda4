"""Decode a source file and strip its YAML frontmatter.

Workers must never see the frontmatter, a BOM or a CR (Claude Code appends the file verbatim), and
a fence that is opened but never closed is an error: passing it through would leak the metadata
into the prompt, and guessing where it ends would hide a typo.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from hotplex.errors import HotplexError, Span
from hotplex.values import value

_BOM = "\ufeff"
# A frontmatter fence is a line of exactly three dashes (trailing blanks tolerated); a line such as
# "---（draft）" is text, not a fence.
_FENCE = re.compile(r"---[ \t]*")
_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*")


# A file an agent writes (MEMORY.md) may start with a Markdown rule that only looks like a fence.
NOT_METADATA_HINT = (
    "if the '---' on line 1 is a Markdown rule, not metadata: set frontmatter = false on the"
    ' file\'s [[source]] (e.g. [[source]] name = "memory" frontmatter = false), or start the'
    " file with a blank line or write the rule as '***'"
)


@value
class Stripped:
    FIELDS = ("body", "meta", "body_line")
    body: str
    meta: dict[str, Any]
    # 1-based line of the original file where ``body`` starts, to map template positions back.
    body_line: int

    def __init__(self, body: str, meta: dict[str, Any] | None = None, body_line: int = 1):
        self.__dict__.update(body=body, meta={} if meta is None else meta, body_line=body_line)


def decode(data: bytes, file: str) -> str:
    """UTF-8 text with the BOM dropped and every line end turned into LF.

    A NUL byte is refused too: it is valid UTF-8 but means a binary file or UTF-16 without a
    byte-order mark, and it would end the prompt early in any C string downstream.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = (
            "the file is UTF-16: it starts with a UTF-16 byte-order mark"
            if data.startswith((b"\xff\xfe", b"\xfe\xff"))
            else f"byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}"
        )
        raise HotplexError.single(
            f"not valid UTF-8 ({where})",
            Span(file),
            hint="save the file as UTF-8",
        ) from None
    return checked(text, file)


def checked(text: str, file: str) -> str:
    """``decode`` of a text already decoded (a worker's answer): the NUL refused, the BOM
    dropped, every line end turned into LF."""
    nul = text.find("\0")
    if nul >= 0:
        at = Span.at_offset(file, text, nul)  # its line is not shown: it may be a megabyte of NULs
        raise HotplexError.single(
            "a NUL character: this looks like a binary file or UTF-16 text, not UTF-8 Markdown",
            Span(file, at.line, at.column),
            hint="save the file as UTF-8 text",
        )
    return as_source(text)


def as_source(text: str) -> str:
    """A text as a source file's is read: the BOM dropped, every line end turned into LF. A
    NUL is kept: given as text (an overlay's ``str``), it is no sign of a binary file but a
    control character, which the hidden-text scan finds where it is."""
    return normalise_newlines(text.removeprefix(_BOM))


def normalise_newlines(text: str) -> str:
    if "\r" not in text:  # nearly every text: one memchr, not a substring search of it all
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip(text: str, file: str) -> Stripped:
    """Split normalised text into frontmatter metadata and body."""
    if not _FENCE.fullmatch(text.partition("\n")[0]):  # most files: no line split at all
        return Stripped(text)
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if _CLOSE.fullmatch(lines[index]):
            meta = _parse_yaml("\n".join(lines[1:index]), file)
            return Stripped("\n".join(lines[index + 1 :]), meta, body_line=index + 2)
    raise HotplexError.single(
        "unclosed frontmatter: the '---' on line 1 has no closing '---'",
        Span(file, 1, 1, source_line=lines[0]),
        hint="close the metadata block with a line of '---', or remove the opening line (a"
        " Markdown rule? set frontmatter = false on the file's [[source]])",
    )


def strip_data(text: str, file: str) -> Stripped:
    """``strip`` for a text that is data (an overlay, which the agent or user it belongs to
    wrote): frontmatter that does not parse (a Markdown rule on line 1, YAML that is no mapping,
    an unclosed block) is kept as text, never an error that would fail that user's every
    compile; the text is scanned as any other body."""
    try:
        return strip(text, file)
    except HotplexError:
        return Stripped(text)


def _parse_yaml(block: str, file: str) -> dict[str, Any]:
    if not block.strip():
        return {}
    import frontmatter  # python-frontmatter; imported here because only this path needs YAML
    import yaml

    try:
        meta = frontmatter.YAMLHandler().load(block, Loader=_unique_keys_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2  # +1 for 1-based, +1 for the fence
        column = mark.column + 1 if mark is not None else 1
        source_line = block.split("\n")[line - 2] if line - 2 < block.count("\n") + 1 else None
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise HotplexError.single(
            f"invalid frontmatter: {problem}",
            Span(file, line, column, source_line=source_line),
            hint=NOT_METADATA_HINT,
        ) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise HotplexError.single(
            f"frontmatter must be a mapping of keys, not {type(meta).__name__}",
            Span(file, 2, 1),
            hint=NOT_METADATA_HINT,
        )
    return meta


@functools.cache
def _unique_keys_loader() -> type:
    """python-frontmatter's loader, refusing a key written twice in one mapping: YAML says keys
    are unique, PyYAML keeps the last without a word (the first value the reader sees is
    dropped), and a YAML 1.2 reader such as a Node program's refuses the whole mapping."""
    import yaml
    from frontmatter.default_handlers import SafeLoader

    class UniqueKeys(SafeLoader):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            first: dict[tuple[str, str], int] = {}
            for key, _value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                if (key.tag, key.value) in first:
                    line = first[key.tag, key.value] + 2  # 1-based, after the fence
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key '{key.value}' written twice (first on line {line})",
                        key.start_mark,
                    )
                first[key.tag, key.value] = key.start_mark.line
            return super().construct_mapping(node, deep)

    return UniqueKeys


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def trim(text: str) -> str:
    """Blank lines around a file's content carry no meaning in a section."""
    return _LEADING_BLANK_LINES.sub("", text).rstrip()


def value_places(text: str) -> dict[str, tuple[int, int]]:
    """Where each value of ``text``'s frontmatter starts (line, column, from 1), by key path
    (``metadata.note``, ``tags[0]``), as YAML reads it; none for a frontmatter it cannot."""
    import yaml

    if not text.startswith("---\n"):
        return {}
    head = text[4:].split("\n---", 1)[0]
    try:
        root = yaml.compose(head, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    places: dict[str, tuple[int, int]] = {}

    def walk(node: Any, path: str) -> None:
        if path:
            places[path] = (node.start_mark.line + 2, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for name, item in node.value:
                walk(item, f"{path}.{name.value}" if path else str(name.value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, f"{path}[{index}]")

    if root is not None:
        walk(root, "")
    return places
