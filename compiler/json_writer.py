"""The one JSON writer: text that encodes as UTF-8 and prints as itself, for the CLI's
``--json``, the HTTP answers, the build's log and reports, and the artifacts that are JSON."""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from typing import Any


# What JSON leaves raw in a string and may not print itself: DEL, and anything beyond ASCII.
# Spelt as the complement of the rest: ``re`` compiles a range over the Basic Multilingual
# Plane by marking each code point, 10 ms of every command's start-up.
_BEYOND_ASCII = re.compile("[^\x00-\x7e]")


def json_text(value: object, **options: Any) -> str:
    """JSON that encodes as UTF-8 and prints as itself: a character that does not print itself
    (a lone surrogate, which is how a file name's byte that is not UTF-8 is read, and no UTF-8
    file or pipe takes; U+0085, a bidi override, DEL) is written as its ``\\u`` escape, which
    reads back as the same text, so a terminal shows it as it is and ``console.Shown`` has
    nothing to change in it."""
    return _printable(json.dumps(value, ensure_ascii=False, **options))


# What JSON's encoder (``ensure_ascii=False``) writes for each character it escapes, as UTF-8:
# the backslash first, so that no escape written is escaped again.
_ESCAPES = tuple(
    (bytes([c]), encode_basestring(chr(c))[1:-1].encode()) for c in (0x5C, 0x22, *range(0x20))
)

_ASCII = bytes(range(0x80))
_UNESCAPED = bytes(set(range(0x100)) - {byte[0] for byte, _escape in _ESCAPES})


def json_string_bytes(data: bytes) -> bytes:
    """``json_text(text)`` without its quotes, as UTF-8, for the ``text`` whose UTF-8 is
    ``data``, byte for byte, escaped in its bytes: the encoder visits every character, a tenth
    of an overlaid compile's time on a 12 K document; only the bytes it holds are replaced, a
    line end escaped a copy. No byte of a UTF-8 sequence is below 0x80:
    escaping the bytes is escaping the characters. ``UnicodeDecodeError`` when ``data`` is not
    UTF-8."""
    escaped, beyond = _escaped(data)
    if not beyond and b"\x7f" not in escaped:  # ASCII that prints itself: nothing to decode
        return escaped
    return _checked(escaped, beyond)[0]


def json_string(data: bytes) -> tuple[bytes, str]:
    """``json_string_bytes(data)`` and its text: checking that the escaped bytes are UTF-8
    decodes them, so a caller that wants both (a gateway's answer: the file and its text) has
    the text of that one decode."""
    return _checked(*_escaped(data))


def _escaped(data: bytes) -> tuple[bytes, bytes]:
    """``data`` with the bytes JSON escapes escaped, and its bytes beyond ASCII."""
    found = data.translate(None, _UNESCAPED)  # the bytes to escape, often only line ends
    for byte, escape in _ESCAPES:
        if byte in found:
            data = data.replace(byte, escape)
    return data, data.translate(None, _ASCII)


def _checked(escaped: bytes, beyond: bytes) -> tuple[bytes, str]:
    # Text that prints itself (most, beyond ASCII too) is the escaped bytes as they are, not
    # encoded again: only its characters beyond ASCII are checked (a UTF-8 sequence holds no
    # ASCII byte, so its bytes without the ASCII ones are those characters).
    text = escaped.decode("utf-8")  # UnicodeDecodeError: not UTF-8 text
    if b"\x7f" in escaped or not beyond.decode("utf-8").isprintable():
        text = _printable(text)
        return text.encode("utf-8"), text
    return escaped, text


def _printable(text: str) -> str:
    """``text``, JSON as the encoder wrote it, with every character that does not print itself
    written as its ``\\u`` escape. Text that prints (most, beyond ASCII too) is checked in C:
    a Python call for each character beyond ASCII took 3.7 ms on a 20 K Chinese document. Line
    breaks, an indented dump's, are the only characters JSON text holds raw that do not print."""
    if (text.isascii() and "\x7f" not in text) or text.replace("\n", " ").isprintable():
        return text
    return _BEYOND_ASCII.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    char = match[0]
    if char.isprintable():
        return char
    code = ord(char)
    if code > 0xFFFF:  # as a UTF-16 surrogate pair, as JSON spells it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"
