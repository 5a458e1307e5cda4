"""Evaluate a parsed template with variables and includes: the semantics half of templates.

The syntax and the whitespace rule live in ``grammar/template.lark`` and ``template.py``; by the
time a template reaches this module it is a tree of plain nodes, so rendering is a walk that
appends strings. Besides the text, a render reports what it depended on (the files it included
and the variables it read) because the build graph needs exactly that to know when to rebuild.

Semantics in brief: variables are strings; a test is true when it yields a non-empty string;
``default(x)`` replaces an undefined or empty value; an undefined variable anywhere else is an
error. An ``{% include %}`` loads the file through the caller's loader (which resolves the path
safely and strips frontmatter), renders it with the same variables unless it opted out with
``template: false``, and inserts it in place of the tag: as-is when the tag shares its line with
other text, with exactly one final newline (nothing when empty) when the tag stood alone on its
line. Include cycles are errors naming the whole chain; loader names and ``file`` must be the same
kind of display path for the chain to be recognised at its first repetition.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from hotplex.errors import HotplexError, Span, suggest
from hotplex.templates import parse as tpl


@dataclass(frozen=True)
class IncludedSource:
    name: str  # display path, e.g. "agent-configs/shared/redlines.md"
    body: str  # text after frontmatter stripping (CRLF already normalised to LF)
    template: bool  # False when the included file opted out (frontmatter `template: false`)


# (path as written in the include tag, span of the tag) -> source. The loader raises HotplexError
# itself for paths escaping the sources folder or missing files.
IncludeLoader = Callable[[str, Span], IncludedSource]


@dataclass(frozen=True)
class Rendered:
    text: str
    includes: tuple[str, ...]  # every file included, transitively, in first-seen order
    variables: frozenset[str]  # every variable read, including ones that fell back to default()


def render(
    text: str, file: str, variables: Mapping[str, str], load_include: IncludeLoader
) -> Rendered:
    """Render ``text`` (named ``file`` in errors); raises HotplexError for any template problem."""
    state = _State(variables, load_include, file)
    try:
        out = state.render_source(text, file)
    except RecursionError:
        # Per-file nesting is capped at parse time; only a very deep include chain gets here.
        message = "templates nest too deeply to render (includes within includes)"
        raise HotplexError.single(message, Span.at_offset(file, text, 0)) from None
    return Rendered(out, tuple(state.includes), frozenset(state.read))


@functools.lru_cache(maxsize=4096)
def _parse(text: str, file: str) -> tpl.Template:
    """Parsed templates are immutable, so one parse per (file, text) serves the whole process."""
    return tpl.parse(text, file)


class _Undefined(NamedTuple):
    """The value of an undefined variable: carried through filters until default() or use."""

    var: tpl.Var


_Result = str | _Undefined


class _State:
    """What one render() call shares across the root template and its includes."""

    def __init__(self, variables: Mapping[str, str], load_include: IncludeLoader, root: str):
        self.variables = variables
        self.load_include = load_include
        self.stack = [root]  # the include chain being rendered, root first
        self.includes: dict[str, None] = {}  # an ordered set
        self.read: set[str] = set()

    def render_source(self, text: str, file: str) -> str:
        if not tpl.might_have_syntax(text):
            return text  # the common case: no cache entry, no parse
        template = _parse(text, file)
        out: list[str] = []
        _Renderer(self, template).nodes(template.nodes, out)
        return "".join(out)


class _Renderer:
    """Evaluates the nodes of one template; errors point into that template's file."""

    def __init__(self, state: _State, template: tpl.Template) -> None:
        self.state = state
        self.template = template

    def nodes(self, nodes: tuple[tpl.Node, ...], out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, tpl.Text):
                out.append(node.value)
            elif isinstance(node, tpl.Output):
                out.append(self.text(node.value))
            elif isinstance(node, tpl.If):
                self.if_(node, out)
            else:
                out.append(self.include(node))

    def if_(self, node: tpl.If, out: list[str]) -> None:
        for branch in node.branches:
            if branch.test is None or self.test(branch.test):
                self.nodes(branch.body, out)
                return

    def include(self, node: tpl.Include) -> str:
        span = self.template.span(node.offset)
        source = self.state.load_include(node.path, span)
        stack = self.state.stack
        if source.name in stack:
            chain = " → ".join([*stack, source.name])
            raise HotplexError.single(f"include cycle: {chain}", span)
        self.state.includes.setdefault(source.name)
        stack.append(source.name)
        body = source.body
        if source.template:
            body = self.state.render_source(body, source.name)
        stack.pop()
        if not node.standalone:
            return body
        body = body.rstrip("\n")
        return body + "\n" if body else ""

    def test(self, test: tpl.Test) -> bool:
        if isinstance(test, tpl.BoolOp):
            results = (self.test(operand) for operand in test.operands)
            return any(results) if test.op == "or" else all(results)
        if isinstance(test, tpl.Not):
            return not self.test(test.operand)
        if isinstance(test, tpl.Compare):
            equal = self.text(test.left) == self.text(test.right)
            return equal if test.op == "==" else not equal
        if isinstance(test, tpl.Member):
            found = self.text(test.left) in [self.text(item) for item in test.items]
            return found != test.negated
        return self.text(test) != ""

    def text(self, value: tpl.Value) -> str:
        """A value that is used, so it must be defined."""
        result = self.value(value)
        if isinstance(result, _Undefined):
            raise self.undefined(result.var)
        return result

    def value(self, value: tpl.Value) -> _Result:
        if isinstance(value, tpl.Literal):
            return value.value
        if isinstance(value, tpl.Var):
            self.state.read.add(value.name)
            found = self.state.variables.get(value.name)
            return _Undefined(value) if found is None else found
        return self.filter(value)

    def filter(self, value: tpl.Filter) -> _Result:
        operand = self.value(value.operand)
        if value.name == "default":
            missing = isinstance(operand, _Undefined) or operand == ""
            return self.text(value.args[0]) if missing else operand
        if isinstance(operand, _Undefined):
            return operand
        if value.name == "upper":
            return operand.upper()
        if value.name == "lower":
            return operand.lower()
        return operand.strip()  # trim; parse() admits no other filter

    def undefined(self, var: tpl.Var) -> HotplexError:
        guess = suggest(var.name, self.state.variables)
        message = f"undefined variable '{var.name}'" + (f" — {guess}" if guess else "")
        fallback = "{{ " + var.name + ' | default("…") }}'
        hint = f"define it under [vars] in the manifest, or write {fallback} for a fallback"
        return HotplexError.single(message, self.template.span(var.offset), hint)
