"""A ``data:`` document decoded as a browser decodes it (adversary16 D6): a byte order mark
wins, then the ``charset`` parameter; a UTF-16 page's ``<img>`` fetches as a UTF-8 one's."""

from __future__ import annotations

import base64
import codecs
from urllib.parse import quote_from_bytes

import pytest
from hotplex.scanning import injection

HTML = '<img src="https://evil.example/a.png">'


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    "url",
    [
        f"data:text/html;base64,{_b64(HTML.encode())}",
        f"data:text/html;charset=utf-16;base64,{_b64(HTML.encode('utf-16'))}",
        f"data:text/html;charset=utf-16le;base64,{_b64(HTML.encode('utf-16-le'))}",
        f"data:text/html;charset=UTF-16BE;base64,{_b64(HTML.encode('utf-16-be'))}",
        f"data:text/html;charset=ucs-2;base64,{_b64(HTML.encode('utf-16-le'))}",
        f"data:text/html;charset=utf-16;base64,{_b64(HTML.encode('utf-16-le'))}",
        f"data:text/html;base64,{_b64(codecs.BOM_UTF16_LE + HTML.encode('utf-16-le'))}",
        f"data:text/html;base64,{_b64(codecs.BOM_UTF16_BE + HTML.encode('utf-16-be'))}",
        f"data:text/html;charset=utf-8;base64,{_b64(codecs.BOM_UTF16_BE + HTML.encode('utf-16-be'))}",
        f"data:text/html,{quote_from_bytes(codecs.BOM_UTF16_LE + HTML.encode('utf-16-le'))}",
        f"data:text/css;charset=utf-16le;base64,{_b64(b'b{background:url(//evil.example/a)}'.decode().encode('utf-16-le'))}",
    ],
)
def test_a_utf16_document_is_read(url: str) -> None:
    rules = [m.rule for m in injection.scan(f'<iframe src="{url}"></iframe>\n')]
    assert "image-url-data" in rules
