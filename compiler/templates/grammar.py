"""The template grammar (``grammar/template.lark``), compiled once per process and cached on
disk between runs, and the tag names it knows."""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark

TAGS = ("if", "elif", "else", "endif", "include", "raw", "endraw")
ESCAPE_HINT = (
    "if this is not meant as a hotplex template, wrap it in {% raw %}…{% endraw %} "
    "or set `template: false` in the file's frontmatter"
)
RAW_TAG = re.compile(r"\{%[ \t\r\n]*raw[ \t\r\n]*%\}")
ENDRAW_TAG = re.compile(r"\{%[ \t\r\n]*endraw[ \t\r\n]*%\}")


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The grammar compiled once per process, and cached on disk between runs when possible."""
    from importlib.resources import files

    from lark import Lark

    grammar = (files("hotplex.grammar") / "template.lark").read_text("utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        cache=_cache_file(grammar) or False,
    )


def _cache_file(grammar: str) -> str | None:
    """A cache path under the user cache dir, or None when that is not writable.

    Lark checks a hash of grammar, options and versions inside the file and ignores a stale or
    broken cache; the grammar's hash in the name keeps two hotplex versions from fighting.
    """
    import hashlib
    from pathlib import Path

    import lark

    base = os.environ.get("XDG_CACHE_HOME", "")
    folder = Path(base if os.path.isabs(base) else Path.home() / ".cache") / "hotplex"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    digest = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:16]
    return str(folder / f"template-{digest}.lark-cache")
