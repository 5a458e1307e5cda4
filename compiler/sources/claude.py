"""A source with ``imports = "claude"``, read as Claude Code reads its memory files: each file
it imports is an entry of its own after the file importing it (``claude_imports.py`` has the
rules), every imported path is an input of the job, and frontmatter hotplex would refuse is read
the way Claude Code reads it. Scanned for secrets and hidden text like any source."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotplex.errors import HotplexError, Span
from hotplex.scanning.origins import Origin
from hotplex.sources import frontmatter
from hotplex.sources.claude_imports import body_of, load_order

if TYPE_CHECKING:
    from hotplex.manifest.model import HtmlComments
    from hotplex.sources.reader import Reader


def entries(
    resolver: Reader,
    base: str,
    body: str,
    files: tuple[str, ...],
    span: Span,
    importing: str | None = None,
) -> tuple[str, tuple[str, ...]]:
    """The source's text and each file it imports, as Claude Code loads them: one entry per file
    after the file importing it, joined by a blank line. Every imported path, present or not, is
    an input of the job. ``importing``: the part of ``body`` whose imports are followed (all of
    it when None); an overlaid file's own imports are never followed."""
    origins: dict[str, Origin] = {}

    def read(display: str) -> str | None:
        try:
            loaded = resolver.file(display, span)
        except HotplexError as exc:
            return _literal(resolver, display, span, exc)
        if loaded is None:
            return None
        origins[display] = Origin(loaded.body, display, loaded.body_line)
        return loaded.body

    data = resolver.inputs.overlaid
    root = resolver.model.root
    entries = load_order(
        base, body, root, read, resolver.claude_seen, importing, lambda path: data([path])
    )
    imported = [(path, text) for path, text in entries if path != base]
    for path, text in imported:
        if path in origins:
            resolver.guard(text, lambda p=path: [origins[p]], path)
    text = "\n\n".join(text for _, text in entries)
    return text, files + tuple(path for path, _ in imported)


def text(
    resolver: Reader,
    display: str,
    span: Span,
    html_comments: HtmlComments = "keep",
    meta: bool = True,
) -> str | None:
    """A CLAUDE.md source's own text; see ``_claude_literal`` for frontmatter hotplex refuses."""
    try:
        return resolver.source_text(display, span, html_comments, meta)
    except HotplexError as exc:
        text = _literal(resolver, display, span, exc)
        return frontmatter.trim(text) if text is not None else None


def _literal(resolver: Reader, display: str, span: Span, exc: HotplexError) -> str | None:
    """A file whose frontmatter hotplex refuses, as Claude Code reads it: an unclosed block is
    text, a block of invalid YAML is dropped; no templates (their switch is unreadable). Any
    other problem stands."""
    if not exc.problems[0].message.startswith(("unclosed frontmatter", "invalid frontmatter")):
        raise exc
    raw = resolver.inputs.raw(display, span)
    if raw is None:
        return None
    decoded = frontmatter.decode(raw.data, display)
    body = body_of(decoded)
    resolver.guard(body, lambda: [Origin(decoded, display)], display)
    return body
