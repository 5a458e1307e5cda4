"""What a run of hidden characters spells, shown in its finding's message: tag characters mirror
ASCII, and a run of variation selectors is the known way to smuggle bytes behind one emoji."""

from __future__ import annotations


def decode_tags(chars: str) -> str:
    """The ASCII a run of tag characters spells (U+E0020–U+E007E mirror U+0020–U+007E)."""
    return "".join(chr(ord(c) - 0xE0000) for c in chars if 0xE0020 <= ord(c) <= 0xE007E)


def decode_selectors(chars: str) -> str | None:
    """The text a run of variation selectors encodes one byte each (VS1–VS16 are 0–15, VS17–VS256
    16–255), the known way to smuggle data behind one emoji; None unless it is printable UTF-8."""
    data = bytearray()
    for c in chars:
        code = ord(c)
        if 0xFE00 <= code <= 0xFE0F:
            data.append(code - 0xFE00)
        elif 0xE0100 <= code <= 0xE01EF:
            data.append(code - 0xE0100 + 16)
        else:
            return None
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return decoded if len(decoded) > 1 and decoded.isprintable() else None
