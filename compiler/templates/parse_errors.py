"""Lark's exceptions -> positioned problems: the one place a template syntax error is worded.

Each failure names ``file:line:column``, shows the line with a caret and says what was expected
(an unclosed ``{% if %}`` names where it opened; an unknown tag such as Liquid's ``{% image %}``
gets both ways out). No Lark exception leaves the template modules.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from hotplex.errors import HotplexError, Span, suggest
from hotplex.templates.grammar import ENDRAW_TAG, ESCAPE_HINT, RAW_TAG, TAGS, parser

if TYPE_CHECKING:
    from lark import Token
    from lark.exceptions import UnexpectedInput


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


def syntax_error(exc: UnexpectedInput, source: str, masked: str, file: str) -> HotplexError:
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
    return {t.name: t.pattern.value for t in parser().terminals if t.pattern.type == "str"}


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
    if word == "raw" and RAW_TAG.match(rest, pos):
        return failure.error(pos, "unclosed {% raw %}: the file ends before its {% endraw %}")
    if word == "endraw" and ENDRAW_TAG.match(rest, pos):
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
