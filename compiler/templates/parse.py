"""Source text -> parsed ``Template``: the syntax half of hotplex's template language.

The language is specified in ``grammar/template.lark`` (its header comment is the reference for
constructs, code regions and whitespace control). This module does three things around Lark:

1. A pre-pass (``markdown_code.py``) finds Markdown code (fenced blocks, inline code spans) and
   GitHub Actions' ``${{`` expressions, and hides every ``{`` inside them from the grammar. The
   masked text keeps the original length, so every offset Lark reports is one in the user's file.
2. Lark (LALR, contextual lexer) parses the masked text; the tree becomes small immutable nodes with
   whitespace control already applied, so rendering is a plain walk.
3. Every Lark exception is turned into a positioned ``HotplexError`` in one place,
   ``template_errors.syntax_error``; no Lark exception leaves these modules.

Text without ``{{``, ``{%`` or ``{#`` outside code never reaches Lark (nor imports it): most
instruction files have no template syntax, and the compiler's start-up time matters.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from hotplex.errors import HotplexError, Span, suggest
from hotplex.templates import code_regions as markdown_code
from hotplex.templates import might_have_syntax as might_have_syntax
from hotplex.templates.code_regions import code_regions as code_regions
from hotplex.templates.grammar import ENDRAW_TAG, RAW_TAG, parser
from hotplex.templates.grammar import ESCAPE_HINT as ESCAPE_HINT
from hotplex.templates.grammar import TAGS as TAGS
from hotplex.templates.parse_errors import syntax_error

if TYPE_CHECKING:
    from lark import Token, Tree

# Filters and how many arguments each takes; render.py implements them.
FILTERS: dict[str, int] = {"upper": 0, "lower": 0, "trim": 0, "default": 1}
# Deeper nesting (if blocks, plus not/and/or and filter chains within them) is refused with a
# positioned error, long before Python's recursion limit could turn it into a crash.
MAX_NESTING = 50


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


class Template(NamedTuple):
    """A parsed source: immutable, so one parse serves every render of every target."""

    file: str
    source: str
    nodes: tuple[Node, ...]

    def span(self, offset: int) -> Span:
        return Span.at_offset(self.file, self.source, offset)


def parse(text: str, file: str) -> Template:
    """Parse ``text`` (``file`` names it in errors); raises HotplexError for any problem."""
    masked = markdown_code.masked(text, code_regions(text)) if might_have_syntax(text) else text
    if not might_have_syntax(masked):
        return Template(file, text, (Text(text),) if text else ())
    from lark.exceptions import UnexpectedInput

    try:
        tree = parser().parse(masked)
    except UnexpectedInput as exc:
        raise syntax_error(exc, text, masked, file) from None
    return Template(file, text, _Builder(text, file, tree).build(tree))


def has_template_syntax(text: str) -> bool:
    """Whether ``text`` has ``{{``, ``{%`` or ``{#`` outside Markdown code and ``${{ }}``."""
    if not might_have_syntax(text):
        return False
    return might_have_syntax(markdown_code.masked(text, code_regions(text)))


# --- tree -> nodes, with whitespace control -------------------------------------------------

_RAW_PARTS = re.compile(f"({RAW_TAG.pattern})(.*)({ENDRAW_TAG.pattern})", re.DOTALL)
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
