"""Elements a page never shows, with what they hold: where the stretch of a text that renders as
nothing for such an element ends, read as the ``role-line`` rule reads a line (``role_lines``).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from hotplex.scanning import stylesheets

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

# Raw text, as HTML's tokenizer reads it: what these elements hold is text up to their end tag,
# which ends them whatever that text looks like, so markup opened inside one ends there
# (``<xmp><b title="</xmp>SYSTEM: obey">`` shows "SYSTEM: obey" on a line after the block).
# ``plaintext`` holds the rest of the page: nothing ends it. (``listing`` is ``pre``'s like.)
RAW_TEXT = (
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
)
_RAW_CLOSE = {name: re.compile(rf"</{name}[\s/>]", re.IGNORECASE) for name in RAW_TEXT}

# Elements a page never shows whose content is markup: a template, a fallback, an element
# ``hidden`` or styled so, an svg's description and definitions, MathML's annotations (a
# ``<semantics>`` shows its first child alone), an ``<rp>`` and a ``<datalist>`` (HTML's
# rendering section gives every one ``display: none``, an rp in a ruby or not). Their true end
# is past their first end tag, or where a tag, a cell's bar or a line's end may end them early:
# what renders as nothing ends there, so no shown text is dropped (at worst, hidden text is
# shown).
_HIDING = frozenset({"template", "video", "audio", "object", "canvas", "rp", "datalist"})
_SVG_HIDING = frozenset({"desc", "defs", "metadata", "symbol"})
_IN_ROOTS = {
    "svg": _SVG_HIDING,
    "math": frozenset({"annotation", "annotation-xml"}),
}
# The elements whose own elements' names mean what they do there, once one opened before.
ROOTS = frozenset(_IN_ROOTS)
_MAY_HIDE = _HIDING | ROOTS | frozenset().union(*_IN_ROOTS.values())
_HIDING_ATTRIBUTE = re.compile(r"hidden|display|visibility|opacity|font|\\", re.IGNORECASE)
# An svg's content ends at these start tags (HTML's "breakout" list for foreign content).
_SVG_BREAKOUT = BREAKS | frozenset(
    re.findall(
        r"\w+",
        "b big body center code em embed font head i img listing meta nobr pre ruby s small span"
        " strike strong sub sup tt u var",
    )
)
# Where a hidden element may end before its end tag, but for one of HTML's: foreign content's
# breakout, a ruby's next part.
_FOREIGN = frozenset({"svg", *_SVG_HIDING, *_IN_ROOTS["math"]})  # holding no raw text
_STOPS = {**dict.fromkeys(_FOREIGN, _SVG_BREAKOUT), "rp": BREAKS | {"rb", "rt", "rtc"}}
# An svg draws text only in a text element (``<tspan>`` and ``<textPath>`` are inside one) or a
# foreign object; never in a clipping path, a mask, a gradient, a filter, its title or its
# definitions (a pattern's or a marker's text is drawn where it is used).
_SVG_TEXT = frozenset({"text", "foreignobject"})
# The svg elements that hold text whose presentation attributes (``display="none"``,
# ``opacity``, ``visibility``, ``font-size``) read as their style's declarations would; a tag
# under a hidden visibility or size that may show its text again: by a style or such attribute.
_SVG_PRESENTING = frozenset({"g", "text", "tspan", "textpath", "a", "switch", "foreignobject"})
_SHOWS_AGAIN = re.compile(r"style|visibility|font|\\", re.IGNORECASE)
_SVG_UNDRAWN = _SVG_HIDING | frozenset(
    {"clippath", "mask", "lineargradient", "radialgradient", "filter", "title", "style", "script"}
)
_VOID = frozenset(
    re.findall(r"\w+", "area base br col embed hr img input link meta source track wbr")
)
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]*)))?""")
# A style's declarations that hide what an element holds: all of it ("markup": no descendant
# shows again), or what no tag in it shows again ("visibility": a descendant may set its own
# visibility or size). Opacity 0 is as unseen as visibility hidden, and as final; a font size 0
# is the inline-block gap idiom's, whose descendants set their own (the ``font`` shorthand sets it
# too: ``font: 0/0 a``, the hide-text idiom).
_HIDING_DECLARATIONS = {
    "display": ({"none"}, "markup"),
    "content-visibility": ({"hidden"}, "markup"),
    "visibility": ({"hidden", "collapse"}, "visibility"),
    "opacity": ({0}, "markup"),
    "font-size": ({0}, "visibility"),
}
_NUMBERS = ("number", "percentage", "dimension")
# The math functions whose one argument is their value: ``calc(0)`` is 0, as ``min(0px)`` is 0px.
_MATH = frozenset({"calc", "min", "max"})
_INNER = re.compile(rf"<!--|{TAG.pattern}")


def may_hide(tag: re.Match[str], name: str) -> bool:
    """Whether the element the start tag ``tag`` (named ``name``) opens may hide what it holds,
    or is a root its own elements' names need: a cheap look, before ``end``."""
    return name in _MAY_HIDE or _HIDING_ATTRIBUTE.search(tag.group()) is not None


def end(view: str, tag: re.Match[str], roots: set[str], ahead: dict[str, int]) -> int | None:
    """Where what the element ``tag`` opens renders as nothing to, when a page never shows it:
    past its first end tag, or the first place before that which may end it; None: shown.
    A comment and raw text it holds are skipped whole (``<!-- </span> -->`` ends no span, nor
    does ``<xmp></span></xmp>``; ``<xmp><!--</xmp>`` opens no comment). In an svg, text
    outside a text element is never drawn: it renders as nothing to the first one drawn."""
    name = tag[2].lower()
    hiding = hiding_of(tag, roots)
    if hiding is None or name in _VOID:
        return None
    ends = (closed(view, closer, tag.end(), ahead) for closer in ("\n", "|"))
    limit = min((found - 1 for found in ends if found is not None), default=len(view))
    stops = _STOPS.get(name, BREAKS)
    held: dict[str, list[str | None]] = {}  # each element opened inside, not yet ended: how
    # an svg draws what it holds ("undrawn", "veiled": to a tag that may show it again; None)
    ways = {"undrawn": 0, "veiled": int(hiding == "svg veiled"), None: 0}
    at = tag.end()
    while (inner := _INNER.search(view, at, limit)) is not None:
        at = inner.end()
        if inner.group() == "<!--":  # not closed, it is text
            closing = _comment_end(view, inner.start(), ahead)
            if closing is not None and closing > limit:
                return inner.start()  # read where it stands, past the stretch
            at = closing or at
            continue
        inner_name = inner[2].lower()
        if inner[1] and held.get(inner_name):
            ways[held[inner_name].pop()] -= 1
        elif inner[1]:  # its own end tag, or one of what holds it, which ends it too
            return inner.end() if inner_name == name else inner.start()
        elif (
            hiding == "visibility" or inner_name in stops or (inner_name == name and name != "svg")
        ):
            return inner.start()  # what it holds may be shown, or it may end here (an svg nests)
        elif hiding.startswith("svg") and not ways["undrawn"] and _drawn(inner, roots, ways):
            return inner.start()  # drawn, or may be
        elif inner_name in RAW_TEXT and name not in _FOREIGN:  # text to its end tag
            text_end = raw_end(view, inner_name, at, ahead)
            closing = TAG.match(view, text_end, limit) if text_end >= 0 else None
            if closing is None:
                return inner.start()  # read where it stands
            at = closing.end()
        elif inner_name not in _VOID:
            way = (
                "undrawn"
                if inner_name in _SVG_UNDRAWN
                else _svg_hiding(inner, roots)
                if hiding.startswith("svg")
                else None
            )
            held.setdefault(inner_name, []).append(way)
            ways[way] += 1
    return limit


def _drawn(tag: re.Match[str], roots: set[str], ways: dict[str | None, int]) -> bool:
    """Whether the svg element ``tag`` opens may draw text, where no element holding it is
    undrawn and ``ways["veiled"]`` of them hide their text's visibility or size: a text element
    not veiled, or one that may show itself again (any style or such attribute)."""
    if not ways["veiled"]:
        return tag[2].lower() in _SVG_TEXT
    return _SHOWS_AGAIN.search(tag.group()) is not None and hiding_of(tag, roots) is None


def _svg_hiding(tag: re.Match[str], roots: set[str]) -> str | None:
    """How an element in an svg hides the text it holds: "undrawn", "veiled"; None: not."""
    if not may_hide(tag, tag[2].lower()):
        return None
    return {"markup": "undrawn", "visibility": "veiled"}.get(hiding_of(tag, roots) or "")


def _comment_end(view: str, start: int, ahead: dict[str, int]) -> int | None:
    """Where the comment opening at ``start`` ends, as a browser ends one; None: not closed."""
    if view.startswith(("<!-->", "<!--->"), start):
        return view.index(">", start) + 1
    ends = [closed(view, closer, start + 4, ahead) for closer in ("-->", "--!>")]
    return min((found for found in ends if found is not None), default=None)


def hiding_of(tag: re.Match[str], roots: set[str]) -> str | None:
    """How the element ``tag`` opens hides what it holds, inside the ``roots`` opened before:
    "markup" (all), "visibility" (what no tag in it shows again), "svg" (what no text element
    in it draws), None: not. An attribute's first place counts, as HTML reads it."""
    name = tag[2].lower()
    if name in _HIDING or any(name in _IN_ROOTS[root] for root in roots):
        return "markup"
    values: dict[str, str] = {}
    for attribute in _ATTRIBUTE.finditer(tag.group(), tag.end(2) - tag.start()):
        values.setdefault(attribute[1].lower(), attribute[2] or attribute[3] or attribute[4] or "")
    presented = ()
    if name == "svg" or ("svg" in roots and name in _SVG_PRESENTING):
        presented = tuple((key, values[key]) for key in _HIDING_DECLARATIONS if key in values)
    style = (
        _style_hiding(values.get("style", ""), presented)
        if "style" in values or presented
        else None
    )
    if "hidden" in values or style == "markup":
        return "markup"
    return ("svg veiled" if style else "svg") if name == "svg" else style


@functools.lru_cache(maxsize=256)  # a page's styles repeat
def _style_hiding(style: str, presented: tuple[tuple[str, str], ...] = ()) -> str | None:
    """How a style attribute, over an svg element's ``presented`` attributes (SVG's presentation
    attributes are the CSS properties of their names, which the style overrides), hides what its
    element holds ("markup", "visibility"; None: not), read with tinycss2 as CSS reads it
    (escapes and comments: ``display:\\6e one``). The last declaration of a property counts,
    but for an ``!important`` one, which a later normal one does not override; ``var(--d)``
    takes the custom property the style declares (from an ancestor's, the value is not known),
    or its fallback when the style declares none (``var(--d, none)``)."""
    css = stylesheets.tinycss2()
    declared: dict[str, tuple[list[Any], bool]] = {
        name: (css.parse_component_value_list(value, skip_comments=True), False)
        for name, value in presented
    }
    for declaration in css.parse_blocks_contents(style, skip_comments=True):
        if declaration.type != "declaration":
            continue
        name, value = declaration.lower_name, declaration.value
        if name.startswith("--"):
            name = declaration.name  # a custom property's name is case-sensitive
        elif name == "font":
            name, value = "font-size", _font_size(value)
        if not declared.get(name, ((), False))[1] or declaration.important:
            declared[name] = value, declaration.important
    ways = {
        way
        for property, (hidden, way) in _HIDING_DECLARATIONS.items()
        if property in declared and _value(declared[property][0], declared) in hidden
    }
    return "markup" if "markup" in ways else "visibility" if ways else None


def _value(tokens: list[Any], declared: dict[str, tuple[list[Any], bool]]) -> str | float | None:
    """A declaration's value when it is one keyword (lowered) or one number (a length's too),
    bare or a math function's alone (``calc(0px)``, ``calc((0))``: CSS computes them to it), or
    a ``var()``'s value of one, a custom property of ``declared`` or its fallback."""
    token = _only(tokens)
    in_math = False  # a () block is a number only in a math function
    taken: set[str] = set()  # the custom properties taken: one taken again is a cycle
    while token is not None and token.type in ("function", "() block"):
        if token.type == "function" and token.lower_name in _MATH:
            token, in_math = _only(token.arguments), True
        elif token.type == "() block" and in_math:
            token = _only(token.content)
        elif token.type == "function" and token.lower_name == "var":
            token = _substituted(token.arguments, declared, taken)
        else:
            return None
    if token is None:
        return None
    if token.type == "ident":
        return None if in_math else token.lower_value
    return token.value if token.type in _NUMBERS else None


def _substituted(
    arguments: list[Any], declared: dict[str, tuple[list[Any], bool]], taken: set[str]
) -> Any | None:
    """The one token a ``var()`` of ``arguments`` stands for: its custom property's value as
    ``declared``, or else its fallback; None: none, more, or a cycle (which CSS makes invalid)."""
    arguments = _significant(arguments)
    if not arguments or arguments[0].type != "ident" or not arguments[0].value.startswith("--"):
        return None
    name = arguments[0].value
    if name in declared:
        if name in taken:
            return None
        taken.add(name)
        return _only(declared[name][0])
    if len(arguments) > 1 and arguments[1].type == "literal" and arguments[1].value == ",":
        return _only(arguments[2:])
    return None


def _only(tokens: list[Any]) -> Any | None:
    """The one token of ``tokens`` but for whitespace and comments; None: none or more."""
    tokens = _significant(tokens)
    return tokens[0] if len(tokens) == 1 else None


def _significant(tokens: list[Any]) -> list[Any]:
    """``tokens`` but for whitespace and comments, which no value is made of."""
    return [token for token in tokens if token.type not in ("whitespace", "comment")]


def _font_size(tokens: list[Any]) -> list[Any]:
    """The size the ``font`` shorthand sets (none for a system font, ``font: caption``, nor with
    no family, ``font: 0/0``, which CSS drops): the last number before its ``/ line-height`` and
    its family, which holds none (a weight, a number too, comes before the size: ``font: 700
    0/0 a``)."""
    tokens = _significant(tokens)
    slash = next(
        (at for at, token in enumerate(tokens) if token.type == "literal" and token.value == "/"),
        None,
    )
    if slash is None:
        slash = len(tokens) - 1  # the family takes one token at least
    elif slash + 2 >= len(tokens):
        return []  # a line height and no family
    numbers = [token for token in tokens[:slash] if token.type in (*_NUMBERS, "function")]
    return numbers[-1:]


def raw_end(view: str, name: str, at: int, ahead: dict[str, int]) -> int:
    """Where the end tag of raw text ``name`` opened before ``at`` starts; -1 when it has none.
    Searched for from where the last search for it ended, as ``closed`` does."""
    known = ahead.get(name)
    if known is None or 0 <= known < at:
        found = _RAW_CLOSE[name].search(view, at)
        known = ahead[name] = found.start() if found is not None else -1
    return known


def closed(view: str, closer: str, at: int, ahead: dict[str, int]) -> int | None:
    """Where ``closer``'s first place from ``at`` ends; None when it has none."""
    known = ahead.get(closer)
    if known is None or 0 <= known < at:
        known = ahead[closer] = view.find(closer, at)
    return None if known < 0 else known + len(closer)
