"""Neutralise reserved tags inside injected text, so content can never open or close the prompt's
structure.

A reserved tag is any structural tag name the worker emits (the wrapper, the channel groups, the
meta-cognition block and every source's tag). Every spelling counts: any letter case, opening,
closing or self-closing, with attributes, with blanks or a newline inside (``</PERSONA >``,
``<directives/>``, ``<Rules x="1">``, ``< /memory>``). Only the ``<`` of such a tag is escaped (as
``&lt;``, the seed's "targeted HTML escaping"); other Markdown and HTML passes unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

ESCAPED_LT = "&lt;"


@lru_cache(maxsize=64)
def reserved_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """A pattern matching the start of any spelling of any of ``names`` as a tag."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    # The name must end the tag name: followed by a blank, '/', '>' or the end of the text.
    return re.compile(rf"<(?=\s*/?\s*(?:{alternatives})(?:[\s/>]|$))", re.IGNORECASE)


# A '<' with nothing but blanks and a '/' after it, at the very end of a text: harmless alone,
# but a note is followed by its section's text on the next line, so the note "see <" before a
# body starting "/persona>" would spell "</persona>" across the line break.
_DANGLING = re.compile(r"<(?=\s*/?\s*\Z)")


def sanitize(text: str, names: Iterable[str]) -> str:
    escaped = reserved_pattern(frozenset(names)).sub(ESCAPED_LT, text)
    return _DANGLING.sub(ESCAPED_LT, escaped)


def count_tags(text: str, names: Iterable[str]) -> int:
    """How many reserved tags (in any spelling) ``text`` holds; the property tests count with it."""
    return len(reserved_pattern(frozenset(names)).findall(text))
