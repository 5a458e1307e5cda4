"""Markdown as CommonMark reads it: markdown-it-py's parser, HTML blocks and inline HTML on, as
the chat clients that show an agent's answer parse it. One for the process: building one costs
about 0.2 ms, as much as a whole compile, and a parse keeps its state in the call, not in it."""

from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@functools.cache
def parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # only a text that needs the parse imports it

    return MarkdownIt("commonmark")
