"""The documentation site's pages as the tests read them: the hand-written ones under
docs/pages/, the ones docs/hooks.py generates, and the README, by name."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from hotplex_testing import REPO

DOCS = REPO / "docs"
CONFIG = DOCS / "mkdocs.yml"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _load_hooks():
    spec = importlib.util.spec_from_file_location("hotplex_docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _load_hooks()


def written() -> dict[str, str]:
    """Every hand-written page, by its path under docs/pages/, the README and the front page
    made from it (its worker table as the README's)."""
    pages = {
        str(path.relative_to(hooks.PAGES)): path.read_text(encoding="utf-8")
        for path in sorted(hooks.PAGES.rglob("*.md"))
    }
    pages["index.md"] = hooks.front_page()
    for name, text in pages.items():
        pages[name] = text.replace(hooks.WORKER_TABLE, hooks.worker_table())
    return {"README.md": (REPO / "README.md").read_text(encoding="utf-8"), **pages}


def every_page() -> dict[str, str]:
    """The hand-written pages, the README and the generated pages."""
    return {**written(), **hooks.generated()}


def blocks(text: str, *languages: str) -> list[str]:
    """The bodies of a page's fenced blocks in those languages."""
    return [body for lang, body in FENCE.findall(text) if lang in languages]


def table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the table in ``text`` whose header line starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def page(path: str) -> Path:
    return hooks.PAGES / path
