"""The document a ``data:`` URL holds, when a browser loads it as one that fetches what it names:
HTML, CSS, and those it loads with its XML parser (an XML MIME type: text/xml, application/xml,
any "+xml" such as SVG's and XHTML's; and XSLT's, whose result elements it shows)."""

from __future__ import annotations

import base64
import binascii
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
    text = data.decode("utf-8", "replace")
    if params[0] == "text/css":
        return [(xml_documents.raw_text_element("style", text), True)]
    return [(text, True), xml_documents.as_html(data)] if xml else [(text, True)]
