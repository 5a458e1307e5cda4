"""The document a ``data:`` URL holds, when a browser loads it as one that fetches what it names:
HTML, CSS, and those it loads with its XML parser (an XML MIME type: text/xml, application/xml,
any "+xml" such as SVG's and XHTML's; and XSLT's, whose result elements it shows)."""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import urllib.parse

from hotplex.scanning import xml_documents

_HTML_TYPES = ("text/html", "text/css")
_XML_TYPES = ("text/xml", "application/xml", "text/xsl")


def documents(url: str) -> list[tuple[str, bool]]:
    """The document ``url`` holds, as HTML to read (a style sheet in a ``<style>``), each with
    whether it was written whole: an XML document both as HTML and as the HTML its XML reading
    names (``xml_documents``), wider than either; none for a URL that is no such ``data:``."""
    if not url.startswith("data:"):
        return []
    head, comma, body = url[5:].partition(",")
    params = [p.strip().lower() for p in head.split(";")]
    xml = params[0] in _XML_TYPES or params[0].endswith("+xml")
    if not comma or not (xml or params[0] in _HTML_TYPES):
        return []
    data = urllib.parse.unquote_to_bytes(body)
    if "base64" in params[1:]:
        data = re.sub(rb"[^A-Za-z0-9+/]", b"", data)
        try:
            data = base64.b64decode(data + b"=" * (-len(data) % 4))
        except binascii.Error:
            return []
    text = _decoded(data, params[1:])
    if params[0] == "text/css":
        return [(xml_documents.raw_text_element("style", text), True)]
    return [(text, True), xml_documents.as_html(data)] if xml else [(text, True)]


# A byte order mark, and the encoding it names; the WHATWG labels of UTF-16 (any other charset a
# browser decodes is ASCII's superset for markup: read as UTF-8, its tags are the same bytes).
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_UTF16_LABELS = {
    **dict.fromkeys(
        ("utf-16", "utf-16le", "unicode", "unicodefeff", "ucs-2", "iso-10646-ucs-2", "csunicode"),
        "utf-16-le",
    ),
    **dict.fromkeys(("utf-16be", "unicodefffe"), "utf-16-be"),
}


def _decoded(data: bytes, params: list[str]) -> str:
    """``data`` as a browser decodes a document (adversary16 D6): its byte order mark wins, then
    its ``charset`` parameter."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, "replace")
    named = (
        value for name, _, value in (p.partition("=") for p in params) if name.strip() == "charset"
    )
    charset = next(named, "").strip().strip("\"'")
    return data.decode(_UTF16_LABELS.get(charset, "utf-8"), "replace")
