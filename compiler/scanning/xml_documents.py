"""A document of an XML media type (a ``data:`` URL's SVG, XHTML or XML) written as the HTML that
fetches what it fetches, for ``fetched.py``'s rules to read.

A browser loads such a document with its XML parser: an element or an attribute is known by its
namespace and local name, whatever prefix names it (``<h:img>`` with ``h`` bound to XHTML is an
image, ``q:href`` with ``q`` bound to XLink is ``xlink:href``), and ``<?xml-stylesheet href=…?>``
fetches a style sheet. ``html.parser`` gives a prefix no meaning, so each element of the XHTML,
SVG or MathML namespace is written here by its local name, each attribute of no namespace by its
local name and each of XLink's as ``xlink:…`` (those of other namespaces fetch nothing), a
``<style>``'s or ``<script>``'s text as its own, and each ``xml-stylesheet``'s ``href`` as a
``<link rel=stylesheet>``.

The standard library's expat reads it, namespace-aware, up to its first well-formedness error (a
browser shows, and fetches from, what came before it). It resolves no external entity and loads
no DTD; it expands internal entities as a browser does, and refuses an expansion past a hundred
times what it has read once that passes 8 MiB (expat 2.4 on; Python ships 2.5 and later). What
is written here stops at ``_FACTOR`` times the document's length besides, the rest unread.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from typing import NamedTuple

_SEPARATOR = " "  # expat names a namespaced element or attribute "URI local"
_SHOWN = frozenset(
    [
        "http://www.w3.org/1999/xhtml",
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1998/Math/MathML",
    ]
)
_XLINK = "http://www.w3.org/1999/xlink"
# Elements whose text a browser reads as a style sheet or a script (which ``fetched.py`` reads
# as HTML for the tags it holds).
_TEXT_READ = ("style", "script")
# A local name html.parser reads as a tag name; another (``_x``, ``é``) is written as this one,
# which the rules give no meaning of its own (its ``style`` and ``background`` still count).
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_UNNAMED = "x-element"
_PSEUDO_HREF = re.compile(r"""(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)')""")
# What the HTML written may hold, against the document's length: an entity expanded far past it
# is markup no person writes, and is left unread.
_FACTOR = 16
_SLACK = 1 << 16


class Written(NamedTuple):
    html: str
    whole: bool  # False when the budget stopped the writing: the rest was left unread


class _Spent(Exception):
    """Raised from a handler to stop expat when the HTML written is over budget."""


def as_html(document: bytes) -> Written:
    """The HTML that fetches what the XML ``document`` fetches when a browser loads it, as far
    as its first well-formedness error."""
    writer = _Writer(_FACTOR * len(document) + _SLACK)
    parser = xml.parsers.expat.ParserCreate(namespace_separator=_SEPARATOR)
    # Internal parameter entities are expanded, as every parser does (``%p;`` declaring an
    # entity: adversary12 D4); an external one is never read (no handler loads it).
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE)
    parser.StartElementHandler = writer.start
    parser.EndElementHandler = writer.end
    parser.CharacterDataHandler = writer.text
    parser.ProcessingInstructionHandler = writer.instruction
    parser.CommentHandler = writer.comment
    try:
        try:
            parser.Parse(document, True)
            whole = True
        except xml.parsers.expat.ExpatError as error:
            # What came before the first error is shown, and written; expat's own bound on
            # what its entities expand to is no error of the document's: the rest is unread.
            whole = "amplification" not in xml.parsers.expat.ErrorString(error.code)
        writer.flush()
    except _Spent:
        whole = False
    return Written("".join(writer.parts), whole)


def raw_text_element(start: str, text: str) -> str:
    """``text`` as the raw text of the element ``<start>`` opens (``style`` or ``script``, and
    its attributes) that html.parser reads whole: each ``</`` in it written ``<\\/``, which a
    style sheet's ``url()`` and strings read as ``</`` (a backslash escapes the ``/``)."""
    tag = start.split(" ", 1)[0]
    inner = text.replace("</", "<\\/")
    return f"<{start}>{inner}</{tag}>"


class _Writer:
    """The HTML written so far, element by element, as expat reports them."""

    def __init__(self, budget: int) -> None:
        self.parts: list[str] = []
        self._left = budget
        # Each open element's tag and attributes as written; a tag None if it is not shown.
        self._open: list[tuple[str | None, str]] = []
        self._text: list[str] = []  # the text of the innermost element, when it is read

    def start(self, name: str, attributes: dict[str, str]) -> None:
        self.flush()
        # Everything expat reports is charged, written or not: an entity expanded to elements,
        # text or attributes no rule reads costs its reading all the same (adversary12 D3).
        self._spend(len(name) + sum(len(n) + len(v) for n, v in attributes.items()))
        tag = _shown_tag(name)
        named = ((_attribute_name(name), value) for name, value in attributes.items())
        written = "".join(f' {n}="{_escaped(value)}"' for n, value in named if n is not None)
        self._spend(len(written))
        self._open.append((tag, written))
        if tag is not None and tag not in _TEXT_READ:
            self._write(f"<{tag}{written}>")

    def end(self, name: str) -> None:
        tag = self._open[-1][0]
        if tag in _TEXT_READ:
            self._text.append("")  # written with its attributes, text or not
        self.flush()
        self._open.pop()
        if tag is not None and tag not in _TEXT_READ:
            self._write(f"</{tag}>")

    def text(self, data: str) -> None:
        self._spend(len(data))
        if self._open and self._open[-1][0] in _TEXT_READ:
            self._text.append(data)

    def comment(self, data: str) -> None:
        self._spend(len(data))

    def instruction(self, target: str, data: str) -> None:
        self._spend(len(target) + len(data))
        if target == "xml-stylesheet":
            self.flush()
            for quoted in _PSEUDO_HREF.finditer(data):
                href = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
                self._write(f'<link rel="stylesheet" href="{href.replace(chr(34), "&quot;")}">')

    def flush(self) -> None:
        """Write the innermost element (a ``<style>``, a ``<script>``) with the text gathered
        for it, as raw text html.parser ends where the XML did, not at a ``</style`` in it."""
        if self._text:
            tag, written = self._open[-1]
            self._write(raw_text_element(f"{tag}{written}", "".join(self._text)))
            self._text = []

    def _write(self, html: str) -> None:
        self._spend(len(html))
        self.parts.append(html)

    def _spend(self, size: int) -> None:
        self._left -= size
        if self._left < 0:
            raise _Spent


def _shown_tag(name: str) -> str | None:
    """The HTML tag an element named ``name`` (expat's "URI local") is written as, or None
    for one of a namespace a browser gives no meaning (its children are still read)."""
    uri, _, local = name.rpartition(_SEPARATOR)
    if uri not in _SHOWN:
        return None
    return local if _TAG_NAME.fullmatch(local) else _UNNAMED


def _attribute_name(name: str) -> str | None:
    uri, _, local = name.rpartition(_SEPARATOR)
    if not uri:
        return local
    return f"xlink:{local}" if uri == _XLINK else None


def _escaped(value: str) -> str:
    """An attribute's value, decoded by expat, as a quoted HTML value html.parser decodes back
    to it: a ``&`` kept literal (``&amp;lt;`` is ``&lt;``, not ``<``), a ``"`` kept inside."""
    return value.replace("&", "&amp;").replace('"', "&quot;")
