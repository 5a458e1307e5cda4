"""Source text -> parsed ``Template``: the syntax half of hotplex's template language.

The language is specified in ``grammar/template.lark`` (its header comment is the reference for
constructs, code regions and whitespace control). This module does three things around Lark:

1. A pre-pass finds Markdown code (fenced blocks, inline code spans) and GitHub Actions' ``${{``
   expressions, and hides every ``{`` inside them from the grammar. The masked text keeps the
   original length, so every offset Lark reports is an offset in the user's file.
2. Lark (LALR, contextual lexer) parses the masked text; the tree becomes small immutable nodes with
   whitespace control already applied, so rendering is a plain walk.
3. Every Lark exception is turned into a positioned ``HotplexError`` in one place,
   ``_syntax_error``; no Lark exception leaves this module.

Text without ``{{``, ``{%`` or ``{#`` outside code never reaches Lark (nor imports it): most
instruction files have no template syntax, and the compiler's start-up time matters.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from hotplex.errors import HotplexError, Span, suggest

if TYPE_CHECKING:
    from lark import Lark, Token, Tree
    from lark.exceptions import UnexpectedInput

# Filters and how many arguments each takes; render.py implements them.
FILTERS: dict[str, int] = {"upper": 0, "lower": 0, "trim": 0, "default": 1}
TAGS = ("if", "elif", "else", "endif", "include", "raw", "endraw")
# Deeper nesting (if blocks, plus not/and/or and filter chains within them) is refused with a
# positioned error, long before Python's recursion limit could turn it into a crash.
MAX_NESTING = 50

ESCAPE_HINT = (
    "if this is not meant as a hotplex template, wrap it in {% raw %}…{% endraw %} "
    "or set `template: false` in the file's frontmatter"
)


# --- the parsed template -------------------------------------------------------------------
# Nodes are NamedTuples: immutable, and a tenth of a frozen dataclass's import-time cost.


class Text(NamedTuple):
    value: str


class Var(NamedTuple):
    name: str
    offset: int


class Literal(NamedTuple):
    value: str


class Filter(NamedTuple):
    operand: Value
    name: str
    args: tuple[Value, ...]
    offset: int


Value = Var | Literal | Filter


class Compare(NamedTuple):
    """``left == right`` or ``left != right``."""

    op: str
    left: Value
    right: Value


class Member(NamedTuple):
    """``left in [items]``, or ``not in`` when ``negated``."""

    left: Value
    items: tuple[Value, ...]
    negated: bool


class Not(NamedTuple):
    operand: Test


class BoolOp(NamedTuple):
    """``and`` / ``or`` over two or more operands, evaluated left to right with short-circuit."""

    op: str
    operands: tuple[Test, ...]


Test = Value | Compare | Member | Not | BoolOp


class Output(NamedTuple):
    value: Value


class Branch(NamedTuple):
    test: Test | None  # None for {% else %}
    body: tuple[Node, ...]


class If(NamedTuple):
    branches: tuple[Branch, ...]


class Include(NamedTuple):
    path: str
    offset: int
    # The tag stood on a line of its own (see the whitespace rule): the body gets one final newline.
    standalone: bool


Node = Text | Output | If | Include


@dataclass(frozen=True)
class Template:
    """A parsed source: immutable, so one parse serves every render of every target."""

    file: str
    source: str
    nodes: tuple[Node, ...]

    def span(self, offset: int) -> Span:
        return Span.at_offset(self.file, self.source, offset)


def parse(text: str, file: str) -> Template:
    """Parse ``text`` (``file`` names it in errors); raises HotplexError for any problem."""
    masked = _masked(text, code_regions(text)) if might_have_syntax(text) else text
    if not might_have_syntax(masked):
        return Template(file, text, (Text(text),) if text else ())
    from lark.exceptions import UnexpectedInput

    try:
        tree = _parser().parse(masked)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, masked, file) from None
    return Template(file, text, _Builder(text, file, tree).build(tree))


def has_template_syntax(text: str) -> bool:
    """Whether ``text`` has ``{{``, ``{%`` or ``{#`` outside Markdown code and ``${{ }}``."""
    return might_have_syntax(text) and might_have_syntax(_masked(text, code_regions(text)))


def might_have_syntax(text: str) -> bool:
    """The cheap half of has_template_syntax(): any ``{{``, ``{%`` or ``{#`` at all."""
    return "{{" in text or "{%" in text or "{#" in text


# --- pre-pass: Markdown code and ${{ }} ------------------------------------------------------

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_INLINE = re.compile(r"\\[\\`]|`+|\$\{\{")
_BACKTICKS = re.compile(r"`+")
_MASK = "\x00"


def code_regions(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) offsets of fenced blocks, code spans and ``${{ … }}``."""
    regions: list[tuple[int, int]] = []
    stretch = pos = 0  # ``stretch``: where the current run of non-fenced lines began
    while (fence := _next_fence(text, pos)) is not None:
        start, after_line, marker = fence
        _inline_regions(text, stretch, start, regions)
        end = _fence_closing(text, after_line, marker)
        regions.append((start, end))
        stretch = pos = end
    _inline_regions(text, stretch, len(text), regions)
    return regions


def _next_fence(text: str, pos: int) -> tuple[int, int, str] | None:
    """(line start, next line start, fence marker) of the first opening fence at/after ``pos``."""
    while (match := _FENCE_OPEN.search(text, pos)) is not None:
        marker, info = match.groups()
        pos = match.end() + 1
        # CommonMark: a backtick fence's info string may not contain backticks (it is inline code).
        if marker[0] == "~" or "`" not in info:
            return match.start(), pos, marker
    return None


def _fence_closing(text: str, start: int, marker: str) -> int:
    """The offset just past the line that closes ``marker``, or the end of the text."""
    match = _closing_fence_re(marker[0], len(marker)).search(text, start)
    if match is None:
        return len(text)
    return min(match.end() + 1, len(text))


@functools.lru_cache(maxsize=64)
def _closing_fence_re(char: str, length: int) -> re.Pattern[str]:
    return re.compile(rf"^ {{0,3}}{re.escape(char)}{{{length},}}[ \t]*$", re.MULTILINE)


def _inline_regions(text: str, start: int, end: int, regions: list[tuple[int, int]]) -> None:
    """Append the code spans and ``${{ }}`` of ``text[start:end]`` (no fences in there).

    Inline code never crosses a blank line, so each is searched for within its paragraph; the
    paragraph and its backtick runs are only worked out when an opener is found in it.
    """
    pos = para_end = closeless = start
    runs: dict[int, list[int]] = {}
    for match in _INLINE.finditer(text, start, end):
        found = match.group()
        if match.start() < pos or found[0] == "\\":
            continue
        if match.start() >= para_end:
            blank = _BLANK_LINE.search(text, match.start(), end)
            para_end = closeless = end if blank is None else blank.start()
            runs = _backtick_runs(text, match.start(), para_end)
        if found[0] == "$":
            # After one "${{" found no "}}", later ones in the paragraph need not look again.
            close = text.find("}}", match.end(), para_end) if match.end() < closeless else -1
            closeless = match.end() if close < 0 else closeless
            region_end = close + 2 if close >= 0 else match.end()
        else:
            region_end = _closing_run(runs, len(found), match.end())
            if region_end is None:
                continue  # an unmatched backtick run is literal text
        regions.append((match.start(), region_end))
        pos = region_end


def _backtick_runs(text: str, start: int, end: int) -> dict[int, list[int]]:
    """Start offsets of the maximal backtick runs in ``text[start:end]``, by run length."""
    runs: dict[int, list[int]] = {}
    for run in _BACKTICKS.finditer(text, start, end):
        runs.setdefault(run.end() - run.start(), []).append(run.start())
    return runs


def _closing_run(runs: dict[int, list[int]], length: int, after: int) -> int | None:
    """End of the first run of exactly ``length`` backticks starting at or after ``after``."""
    starts = runs.get(length, [])
    index = bisect.bisect_left(starts, after)
    return starts[index] + length if index < len(starts) else None


def _masked(text: str, regions: list[tuple[int, int]]) -> str:
    """``text`` with every ``{`` inside ``regions`` replaced, so code can never open a tag."""
    if not regions:
        return text
    parts: list[str] = []
    last = 0
    for start, end in regions:
        parts.append(text[last:start])
        parts.append(text[start:end].replace("{", _MASK))
        last = end
    parts.append(text[last:])
    return "".join(parts)


# --- Lark --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The grammar compiled once per process, and cached on disk between runs when possible."""
    from importlib.resources import files

    from lark import Lark

    grammar = (files("hotplex.grammar") / "template.lark").read_text("utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        cache=_cache_file(grammar) or False,
    )


def _cache_file(grammar: str) -> str | None:
    """A cache path under the user cache dir, or None when that is not writable.

    Lark checks a hash of grammar, options and versions inside the file and ignores a stale or
    broken cache; the grammar's hash in the name keeps two hotplex versions from fighting.
    """
    import hashlib
    from pathlib import Path

    import lark

    base = os.environ.get("XDG_CACHE_HOME", "")
    folder = Path(base if os.path.isabs(base) else Path.home() / ".cache") / "hotplex"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    digest = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:16]
    return str(folder / f"template-{digest}.lark-cache")


# --- tree -> nodes, with whitespace control -------------------------------------------------

_RAW_TAG = re.compile(r"\{%[ \t\r\n]*raw[ \t\r\n]*%\}")
_ENDRAW_TAG = re.compile(r"\{%[ \t\r\n]*endraw[ \t\r\n]*%\}")
_RAW_PARTS = re.compile(f"({_RAW_TAG.pattern})(.*)({_ENDRAW_TAG.pattern})", re.DOTALL)
_STATEMENT_OPENERS = {"IF_OPEN", "ELIF_OPEN", "INCLUDE_OPEN"}
_WHOLE_TAGS = {"ELSE_TAG", "ENDIF_TAG", "COMMENT"}


class _Builder:
    """Turns Lark's tree into nodes; knows which lines the whitespace rule removes."""

    def __init__(self, source: str, file: str, tree: Tree) -> None:
        self.source = source
        self.file = file
        self.removed = _removed_lines(source, _statement_tags(tree))
        self.removed_starts = [start for start, _ in self.removed]

    def build(self, tree: Tree) -> tuple[Node, ...]:
        return self.nodes(tree.children, 0)

    def nodes(self, children: list[Any], depth: int) -> tuple[Node, ...]:
        built = (self.node(child, depth) for child in children)
        return tuple(node for node in built if node is not None)

    def node(self, child: Token | Tree, depth: int) -> Node | None:
        from lark import Token

        if isinstance(child, Token):
            return self.literal_text(child)
        if child.data == "output":
            return Output(self.value(child.children[0], depth + 1))
        if child.data == "include":
            opener, path = child.children[0], child.children[1]
            return Include(self.token_text(path)[1:-1], opener.start_pos, self.is_removed(opener))
        return If(tuple(self.branch(branch, depth + 1) for branch in child.children[:-1]))

    def literal_text(self, token: Token) -> Text | None:
        start, end = token.start_pos, token.end_pos
        if token.type == "COMMENT":
            return None
        if token.type == "RAW":
            match = _RAW_PARTS.fullmatch(self.source, start, end)
            assert match is not None  # the RAW terminal has this shape
            start, end = match.span(2)
        start, end = self.clip(start, end)
        return Text(self.source[start:end]) if start < end else None

    def branch(self, tree: Tree, depth: int) -> Branch:
        if depth > MAX_NESTING:
            raise self.too_deep(tree.meta.start_pos)
        body = tree.children[-1]
        test = None if tree.data == "else_branch" else self.test(tree.children[1], depth + 1)
        return Branch(test, self.nodes(body.children, depth))

    def test(self, tree: Tree, depth: int) -> Test:
        if depth > MAX_NESTING:
            raise self.too_deep(tree.meta.start_pos)
        kind, children = tree.data, tree.children
        if kind in ("or_", "and_"):
            operands = tuple(self.test(child, depth + 1) for child in children)
            return BoolOp(kind.rstrip("_"), operands)
        if kind == "not_":
            return Not(self.test(children[0], depth + 1))
        if kind in ("eq", "ne"):
            left, right = (self.value(child, depth + 1) for child in children)
            return Compare("==" if kind == "eq" else "!=", left, right)
        if kind in ("in_", "not_in"):
            items = tuple(self.value(item, depth + 1) for item in children[1].children)
            return Member(self.value(children[0], depth + 1), items, kind == "not_in")
        return self.value(tree, depth)

    def value(self, tree: Tree, depth: int) -> Value:
        if depth > MAX_NESTING:
            raise self.too_deep(tree.meta.start_pos)
        token = tree.children[0]
        if tree.data == "var":
            return Var(str(token), token.start_pos)
        if tree.data == "string":
            return Literal(self.token_text(token)[1:-1])
        return self.filter(tree, depth)

    def filter(self, tree: Tree, depth: int) -> Filter:
        operand, name = tree.children[0], tree.children[1]
        args = tree.children[2].children if len(tree.children) > 2 else []
        arity = FILTERS.get(str(name))
        if arity is None:
            raise self.error(name.start_pos, *_unknown_filter(str(name)))
        if len(args) != arity:
            raise self.error(name.start_pos, _filter_arity(str(name), arity))
        values = tuple(self.value(arg, depth + 1) for arg in args)
        return Filter(self.value(operand, depth + 1), str(name), values, name.start_pos)

    def token_text(self, token: Token) -> str:
        """A token as the user wrote it (the parsed text has code regions masked)."""
        return self.source[token.start_pos : token.end_pos]

    def is_removed(self, token: Token) -> bool:
        index = bisect.bisect_right(self.removed_starts, token.start_pos) - 1
        return index >= 0 and token.start_pos < self.removed[index][1]

    def clip(self, start: int, end: int) -> tuple[int, int]:
        """Cut from a literal piece whatever removed lines overlap it (only at its ends)."""
        index = bisect.bisect_right(self.removed_starts, start) - 1
        if index >= 0 and start < self.removed[index][1]:
            start = self.removed[index][1]
        index = bisect.bisect_right(self.removed_starts, end - 1) - 1
        if index >= 0 and end - 1 < self.removed[index][1]:
            end = self.removed[index][0]
        return start, end

    def error(self, offset: int, message: str, hint: str | None = None) -> HotplexError:
        return HotplexError.single(message, Span.at_offset(self.file, self.source, offset), hint)

    def too_deep(self, offset: int) -> HotplexError:
        return self.error(offset, f"template nests more than {MAX_NESTING} levels deep")


def _unknown_filter(name: str) -> tuple[str, str]:
    known = ", ".join(f"{known}({'…' * arity})" for known, arity in FILTERS.items())
    guess = suggest(name, FILTERS)
    return f"unknown filter '{name}'" + (f" — {guess}" if guess else ""), f"filters: {known}"


def _filter_arity(name: str, arity: int) -> str:
    if arity == 0:
        return f"filter '{name}' takes no arguments"
    return f"filter '{name}' takes exactly one argument, as in {name}(\"text\")"


def _statement_tags(tree: Tree) -> list[tuple[int, int]]:
    """(start, end) of every statement tag and comment, in source order.

    ``{% raw %}…{% endraw %}`` is one token; its two tags are reported separately.
    """
    from lark import Token

    tags: list[tuple[int, int]] = []
    for subtree in tree.iter_subtrees_topdown():
        opener: Token | None = None
        for child in subtree.children:
            if not isinstance(child, Token):
                continue
            if child.type in _STATEMENT_OPENERS:
                opener = child
            elif child.type == "TAG_END" and opener is not None:
                tags.append((opener.start_pos, child.end_pos))
            elif child.type in _WHOLE_TAGS:
                tags.append((child.start_pos, child.end_pos))
            elif child.type == "RAW":
                tags.extend(_raw_tags(child))
    return sorted(tags)


def _raw_tags(token: Token) -> list[tuple[int, int]]:
    match = _RAW_PARTS.fullmatch(str(token))
    assert match is not None  # the RAW terminal has this shape
    base = token.start_pos
    return [(base + match.start(group), base + match.end(group)) for group in (1, 3)]


def _removed_lines(source: str, tags: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The whitespace rule: lines holding only statement tags/comments and spaces/tabs.

    Tags separated by nothing but spaces and tabs form one group; a group that is alone on its
    line(s) removes them, from the line's start through its newline.
    """
    removed: list[tuple[int, int]] = []
    for start, end in _tag_groups(source, tags):
        line_start = source.rfind("\n", 0, start) + 1
        newline = source.find("\n", end)
        line_end = len(source) if newline < 0 else newline
        if _blank(source, line_start, start) and _blank(source, end, line_end):
            removed.append((line_start, len(source) if newline < 0 else newline + 1))
    return removed


def _tag_groups(source: str, tags: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    group: tuple[int, int] | None = None
    for start, end in tags:
        if group is not None and _blank(source, group[1], start):
            group = (group[0], end)
            continue
        if group is not None:
            yield group
        group = (start, end)
    if group is not None:
        yield group


def _blank(source: str, start: int, end: int) -> bool:
    """Whether ``source[start:end]`` holds only spaces and tabs."""
    return not source[start:end].strip(" \t")


# --- Lark exceptions -> problems (the one place) --------------------------------------------

_CLOSERS = {"{{": "}}", "IF_OPEN": "%}", "ELIF_OPEN": "%}", "INCLUDE_OPEN": "%}"}
_TAG_NAMES = {"{{": "{{ … }}", "IF_OPEN": "{% if … %}", "ELIF_OPEN": "{% elif … %}"}
_TAG_NAMES["INCLUDE_OPEN"] = "{% include … %}"
_TEXT_LEVEL = {"TEXT", "COMMENT", "RAW", "ELSE_TAG", "ENDIF_TAG", "TAG_END", "}}"}
_BLOCK_TOKENS = {"ELSE_TAG": "{% else %}", "ENDIF_TAG": "{% endif %}", "ELIF_OPEN": "{% elif %}"}
_TERMINAL_WORDS = {"NAME": "a variable name", "STRING": "a quoted string"}
_FOUND = re.compile(
    r"""[A-Za-z0-9_]+|\{\{|\}\}|\{%|%\}|\{#|#\}|==|!=|"[^"\n]*"|'[^'\n]*'|.""", re.S
)
_TAG_WORD = re.compile(r"\{%[ \t\r\n]*([A-Za-z_][A-Za-z0-9_]*)?")
_OPENERS = re.compile(r"\{\{|\{%|\{#")


class _Failure(NamedTuple):
    """What the parser saw when it stopped; gathered once so each message helper stays small."""

    exc: UnexpectedInput
    source: str
    masked: str
    file: str
    pos: int
    stack: list[Any]

    def span(self, offset: int) -> Span:
        return Span.at_offset(self.file, self.source, offset)

    def error(self, offset: int, message: str, hint: str | None = None) -> HotplexError:
        return HotplexError.single(message, self.span(offset), hint)

    def unexpected(self) -> HotplexError:
        """The fallback when no better explanation applies."""
        return self.error(self.pos, f"unexpected {_found(self.source, self.pos)}")


def _syntax_error(exc: UnexpectedInput, source: str, masked: str, file: str) -> HotplexError:
    """Map any Lark parse failure to one positioned, worded problem."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    token = exc.token if isinstance(exc, UnexpectedToken) else None
    at_end = token is not None and token.type == "$END"
    pos = exc.pos_in_stream
    if at_end or not isinstance(pos, int) or not 0 <= pos <= len(source):
        pos = len(source)
    parser = getattr(exc, "interactive_parser", None)
    stack = list(parser.parser_state.value_stack) if parser is not None else []
    failure = _Failure(exc, source, masked, file, pos, stack)
    opener = _open_tag(stack)
    if opener is not None:
        return _bad_tag(failure, opener)
    if isinstance(exc, UnexpectedCharacters):
        return _stray_tag(failure)
    if at_end:
        return _unclosed_if(failure)
    if token is not None and token.type in _BLOCK_TOKENS:
        return _misplaced_block_tag(failure, token.type)
    return failure.unexpected()


def _open_tag(stack: list[Any]) -> Token | None:
    """The opener of the tag the parser is inside (``{{``, ``{% if`` …), if any.

    An opener stays a bare token on the stack until its closer is shifted after it, so the last
    opener or closer token decides; reduced subtrees (expressions, finished blocks) are skipped.
    """
    from lark import Token

    for item in reversed(stack):
        if isinstance(item, Token):
            kind = _token_kind(item)
            if kind in _CLOSERS:
                return item
            if kind in _TEXT_LEVEL:
                return None
    return None


def _token_kind(token: Token) -> str:
    """Token type, with Lark's anonymous "{{" / "}}" terminals named by their text."""
    return str(token) if token.type.startswith("__ANON") else token.type


def _bad_tag(failure: _Failure, opener: Token) -> HotplexError:
    kind = _token_kind(opener)
    closer, name = _CLOSERS[kind], _TAG_NAMES[kind]
    start = opener.start_pos
    if not _closed_before_next_tag(failure.masked, opener.end_pos, closer):
        written = failure.source[start : opener.end_pos]
        message = f"unterminated '{written}': expected '{closer}' to close it"
        return failure.error(start, message, ESCAPE_HINT)
    found = _found(failure.source, failure.pos)
    expected = _expected(failure.exc)
    message = f"bad expression in {name}: unexpected {found}, expected {expected}"
    return failure.error(failure.pos, message, ESCAPE_HINT)


def _closed_before_next_tag(masked: str, start: int, closer: str) -> bool:
    close = masked.find(closer, start)
    if close < 0:
        return False
    following = _OPENERS.search(masked, start)
    return following is None or close < following.start()


def _expected(exc: UnexpectedInput) -> str:
    """The tokens the parser would have accepted, in words."""
    parser = getattr(exc, "interactive_parser", None)
    names = parser.accepts() if parser is not None else set(getattr(exc, "expected", ()))
    words = sorted({_terminal_word(name) for name in names if name != "$END"}, key=_word_order)
    if not words:
        return "nothing more"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _terminal_word(name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    pattern = _terminal_patterns().get(name)
    return f"'{pattern}'" if pattern is not None else name.lower()


@functools.lru_cache(maxsize=1)
def _terminal_patterns() -> dict[str, str]:
    """Literal text of every fixed-string terminal, e.g. VBAR -> "|"."""
    return {t.name: t.pattern.value for t in _parser().terminals if t.pattern.type == "str"}


def _word_order(word: str) -> tuple[int, str]:
    """Names and strings first, then punctuation and keywords alphabetically."""
    words = list(_TERMINAL_WORDS.values())
    return (words.index(word) if word in words else len(words), word)


def _found(source: str, pos: int) -> str:
    """What stands at ``pos``, quoted as the user wrote it."""
    if pos >= len(source):
        return "the end of the file"
    match = _FOUND.match(source, pos)
    text = match.group() if match else source[pos]
    if text[0] in "'\"" and len(text) > 1:
        return text  # a string literal, already quoted
    return "a line break" if text == "\n" else f"'{text}'"


def _stray_tag(failure: _Failure) -> HotplexError:
    """A ``{%`` or ``{#`` that no terminal matched: unknown, malformed or unclosed."""
    rest, pos = failure.masked, failure.pos
    if rest.startswith("{#", pos):
        return failure.error(pos, "unterminated comment: '{#' has no closing '#}'")
    word_match = _TAG_WORD.match(rest, pos)
    if word_match is None:
        return failure.unexpected()
    word = word_match.group(1)
    if word is None:
        return _nameless_tag(failure)
    if word == "raw" and _RAW_TAG.match(rest, pos):
        return failure.error(pos, "unclosed {% raw %}: the file ends before its {% endraw %}")
    if word == "endraw" and _ENDRAW_TAG.match(rest, pos):
        return failure.error(pos, "unexpected {% endraw %}: no {% raw %} is open")
    if word in TAGS:
        return failure.error(pos, f"malformed {{% {word} %}}: expected '%}}' after '{word}'")
    return _unknown_tag(failure, word)


def _nameless_tag(failure: _Failure) -> HotplexError:
    pos = failure.pos
    if not _closed_before_next_tag(failure.masked, pos + 2, "%}"):
        return failure.error(pos, "unterminated '{%': expected a tag name and '%}'", ESCAPE_HINT)
    names = ", ".join(TAGS[:-1])
    return failure.error(pos, f"expected a tag name after '{{%' ({names})", ESCAPE_HINT)


def _unknown_tag(failure: _Failure, word: str) -> HotplexError:
    guess = suggest(word, TAGS)
    message = f"unknown tag '{word}'" + (f" — {guess}" if guess else "")
    known = "hotplex tags are if/elif/else/endif, include and raw/endraw; "
    return failure.error(failure.pos, message, known + ESCAPE_HINT)


def _innermost_open_if(stack: list[Any]) -> Token | None:
    """The ``{% if`` of the innermost block whose ``{% endif %}`` has not been seen.

    Finished blocks are reduced to ``if_block`` trees; an open one leaves its ``{% if`` token,
    or its reduced ``if_branch``, on the stack.
    """
    from lark import Token

    for item in reversed(stack):
        if isinstance(item, Token) and item.type == "IF_OPEN":
            return item
        if not isinstance(item, Token) and item.data == "if_branch":
            return item.children[0]
    return None


def _unclosed_if(failure: _Failure) -> HotplexError:
    opener = _innermost_open_if(failure.stack)
    if opener is None:
        return failure.unexpected()
    where = failure.span(opener.start_pos).location()
    message = f"unclosed {{% if %}} opened at {where}: the file ends before its {{% endif %}}"
    return failure.error(opener.start_pos, message)


def _misplaced_block_tag(failure: _Failure, kind: str) -> HotplexError:
    name = _BLOCK_TOKENS[kind]
    opener = _innermost_open_if(failure.stack)
    if opener is None:
        return failure.error(failure.pos, f"unexpected {name}: no {{% if %}} is open")
    # The block is open yet refused this tag: only an earlier {% else %} does that.
    where = failure.span(opener.start_pos).location()
    message = f"unexpected {name}: the {{% if %}} opened at {where} already has its {{% else %}}"
    return failure.error(failure.pos, message, "{% else %} comes last, right before {% endif %}")
