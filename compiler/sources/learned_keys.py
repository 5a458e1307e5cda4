"""When two keys are one: compared after NFKC and case folding, blanks collapsed. A key is
compared so and written as it was spelt (``GitHub`` stays ``GitHub``).

A key holding an invisible character (a format control such as U+200B, a variation selector, a
default-ignorable or private-use code point, a control) is an error, never a second key that
looks like the first: ``editor`` and ``edi\u200btor`` cannot both be facts. Nor can ``editor``
and ``еditor`` (a Cyrillic е): a key with another's confusable skeleton (``skeleton``) is an
error naming both, wherever the two meet (one call, the block, the call and the block).
"""

from __future__ import annotations

import functools
import unicodedata

# The most characters of a key once normalised.
MAX_KEY = 80


@functools.cache
def _invisible():
    import regex

    return regex.compile(
        r"[\p{Default_Ignorable_Code_Point}\p{Variation_Selector}\p{Cc}\p{Cf}\p{Co}\p{Cs}"
        r"\p{Cn}\p{Zl}\p{Zp}]",
        regex.V1,
    )


def skeleton(key: str) -> str:
    """UTS #39's skeleton of a key as written, case-folded: its letters that only look Latin (a
    Cyrillic е, a Greek ο) read as the letters they look like, so that ``еditor`` is found to be
    ``editor``'s look-alike and ``SYSTEМ`` (a Cyrillic М) ``system``'s. Taken before the case
    folding, which would turn a look-alike capital into a letter that looks like none. The
    guard's table (``scanning/confusables.py``), which leaves ASCII as it is."""
    from hotplex.scanning.confusables import prototype_text

    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", key))
    if not decomposed.isascii():
        decomposed = unicodedata.normalize("NFD", prototype_text(decomposed))
    return " ".join(decomposed.casefold().split())


def look_alike(spelled: str, other: str, where: str) -> str:
    """Why ``spelled`` cannot be a key beside ``other`` (found ``where``), whose skeleton it
    has."""
    from hotplex.scanning.confusables import prototype_text

    odd = next((c for c in spelled + other if prototype_text(c) != c), None)
    named = "" if odd is None else f" (U+{ord(odd):04X} {unicodedata.name(odd, 'unnamed')})"
    return (
        f"the key {spelled!r} looks like the key {other!r} ({where}) and is another: a look-alike"
        f" letter{named} of another script (Unicode's confusables, UTS #39)"
    )


def spelling(key: str) -> str:
    """The key as written, its blanks collapsed: how the block and the report show it."""
    return " ".join(key.split())


def canonical(key: str) -> tuple[str | None, str | None]:
    """The key as it is compared and written (NFKC, case-folded, blanks collapsed), or None
    and why it cannot be a key."""
    hidden = _invisible().search(key)
    if hidden is not None:
        char = hidden.group()
        name = unicodedata.name(char, "unnamed")
        return None, f"the key holds an invisible character (U+{ord(char):04X} {name})"
    folded = " ".join(unicodedata.normalize("NFKC", key).casefold().split())
    if _invisible().search(folded) is not None:  # NFKC can make one of a visible character
        return None, "the key holds an invisible character once normalised"
    if not folded:
        return None, "the key is empty"
    if len(folded) > MAX_KEY:
        return None, f"the key is {len(folded)} characters long: at most {MAX_KEY}"
    for mark in (":", "<", ">", "`"):
        if mark in folded:
            return None, f"the key holds {mark!r}, which the line's form gives a meaning"
    if folded[0] in "-*+#>":
        return None, "the key starts like a Markdown list or heading marker"
    return folded, None
