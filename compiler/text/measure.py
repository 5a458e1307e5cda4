"""How big a text is in a budget's unit: a leaf module, so everything that sizes text (the
limits, the daily logs read before them, the workers, ``stats``) imports it from below."""


def measure(text: str, unit: str) -> int:
    """Size in a unit: "chars" (code points), "bytes" (UTF-8), "utf16" (JavaScript's length) or
    "columns" (a terminal's: a wide ideograph two, a combining mark or a control none)."""
    if unit == "columns":
        from wcwidth import wcwidth  # Unicode's width tables

        return sum(max(wcwidth(c), 0) for c in text)
    if unit == "bytes":
        return len(text.encode("utf-8"))
    if unit == "utf16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)
