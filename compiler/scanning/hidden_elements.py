"""Elements a page never shows, with what they hold: where the stretch of a text that renders as
nothing for such an element ends, read as the ``role-line`` rule reads a line (``role_lines``).
"""

from __future__ import annotations

import re

TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,30})(?:[\s/](?:\"[^\"]*\"|'[^']*'|[^\"'<>])*+)?>")
# The elements whose box starts a line, as the HTML standard's rendering section styles them
# (15.3.3 flow content, 15.3.6 sections and headings, 15.3.7 lists, 15.3.8 tables, 15.3.12
# fieldset and legend, 15.5.4 details and summary: "display: block", "list-item" and the table
# parts), "br" (its "display-outside: newline"), and "optgroup" and "option", which browsers'
# own sheets show as blocks. "html", "body" and "head" are left: their tags in a page's body are
# dropped by the parser, and break no line.
BREAKS = frozenset(
    re.findall(
        r"\w+",
        "address blockquote center dialog div figure figcaption footer form header hr legend"
        " listing main p plaintext pre search xmp article aside h1 h2 h3 h4 h5 h6 hgroup nav"
        " section dir dd dl dt menu ol ul li table caption colgroup col thead tbody tfoot tr td"
        " th fieldset details summary br optgroup option",
    )
)

# Elements a page never shows whose content is markup: a template, a fallback, an element
# ``hidden`` or ``display: none``, an svg's description and definitions. Their true end is past
# their first end tag, or where a tag, a cell's bar or a line's end may end them early: what
# renders as nothing ends there, so no shown text is dropped (at worst, hidden text is shown).
_HIDING = frozenset({"template", "video", "audio", "object", "canvas"})
_SVG_HIDING = frozenset({"desc", "defs", "metadata", "symbol"})
_MAY_HIDE = _HIDING | _SVG_HIDING | {"svg"}
_HIDING_ATTRIBUTE = re.compile("hidden|display", re.IGNORECASE)
# An svg's content ends at these start tags (HTML's "breakout" list for foreign content).
_SVG_BREAKOUT = BREAKS | frozenset(
    re.findall(
        r"\w+",
        "b big body center code em embed font head i img listing meta nobr pre ruby s small span"
        " strike strong sub sup tt u var",
    )
)
_VOID = frozenset(
    re.findall(r"\w+", "area base br col embed hr img input link meta source track wbr")
)
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]*)))?""")
_CSS_GAP = r"(?:\s|/\*[^*]{0,200}\*/)*+"  # blanks and comments
_HIDING_STYLE = re.compile(  # searched for in a style attribute's value, lowered
    rf"(?:^|[;\s/])(?:display{_CSS_GAP}:{_CSS_GAP}(none)|visibility{_CSS_GAP}:{_CSS_GAP}(?:hidden|collapse))\b"
)


def may_hide(tag: re.Match[str], name: str) -> bool:
    """Whether the element the start tag ``tag`` (named ``name``) opens may hide what it holds:
    a cheap look, before ``end``."""
    return name in _MAY_HIDE or _HIDING_ATTRIBUTE.search(tag.group()) is not None


def end(view: str, tag: re.Match[str], svg: bool, ahead: dict[str, int]) -> int | None:
    """Where what the element ``tag`` opens renders as nothing to, when a page never shows it:
    past its first end tag, or the first place before that which may end it; None: shown."""
    name = tag[2].lower()
    hiding = _hiding(tag, name, svg)
    if hiding is None or name in _VOID:
        return None
    ends = (closed(view, closer, tag.end(), ahead) for closer in ("\n", "|"))
    limit = min((found - 1 for found in ends if found is not None), default=len(view))
    stops = _SVG_BREAKOUT if name in _SVG_HIDING else BREAKS
    held: dict[str, int] = {}  # each element opened inside, not yet ended
    for inner in TAG.finditer(view, tag.end(), limit):
        inner_name = inner[2].lower()
        if inner[1] and inner_name == name:
            return inner.end()
        if inner[1] and not held.get(inner_name):
            return inner.start()  # an end tag of what holds it ends it too
        if inner[1]:
            held[inner_name] -= 1
        elif hiding == "visibility" or inner_name == name or inner_name in stops:
            return inner.start()  # what it holds may be shown, or it may end here
        elif inner_name not in _VOID:
            held[inner_name] = held.get(inner_name, 0) + 1
    return limit


def _hiding(tag: re.Match[str], name: str, svg: bool) -> str | None:
    """How the element ``tag`` opens hides what it holds: "markup" (all), "visibility" (what no
    tag in it shows again), None: not. An attribute's first place counts, as HTML reads it."""
    if name in _HIDING or (svg and name in _SVG_HIDING):
        return "markup"
    values: dict[str, str] = {}
    for attribute in _ATTRIBUTE.finditer(tag.group(), tag.end(2) - tag.start()):
        values.setdefault(attribute[1].lower(), attribute[2] or attribute[3] or attribute[4] or "")
    style = _HIDING_STYLE.search(values.get("style", "").lower())
    if "hidden" in values or (style and style[1]):
        return "markup"
    return "visibility" if style else None


def closed(view: str, closer: str, at: int, ahead: dict[str, int]) -> int | None:
    """Where ``closer``'s first place from ``at`` ends; None when it has none."""
    known = ahead.get(closer)
    if known is None or 0 <= known < at:
        known = ahead[closer] = view.find(closer, at)
    return None if known < 0 else known + len(closer)
