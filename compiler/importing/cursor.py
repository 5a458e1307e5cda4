"""Cursor: .cursorrules and .cursor/rules/*.mdc, for the targets named by ``--for``.

Cursor's rule kinds: always (``alwaysApply``), auto-attached (``globs``), agent-requested
(``description``) and manual. A scoped rule is included always, its scope written into the note;
a manual rule (used only when @-mentioned) is left out.
"""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import (
    RULES_NOTE,
    Entry,
    Found,
    Skip,
    meta,
    one_line,
    present,
    scoped,
    slug,
    sorted_under,
)

KIND = "Cursor"


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    legacy = root / ".cursorrules"
    if present(legacy):
        found.entries.append(Entry("cursorrules", legacy, audience="for"))
    rules = root / ".cursor" / "rules"
    for path in sorted_under(rules, ("*.mdc", "*.md")):
        stem = path.relative_to(rules).as_posix().rsplit(".", 1)[0].replace("/", "-")
        name = "cursor-" + slug(stem)
        values = meta(path)
        description = one_line(values.get("description"))
        if values.get("alwaysApply") is True:
            found.entries.append(Entry(name, path, audience="for", note=description or RULES_NOTE))
        elif not description and not values.get("globs"):
            why = (
                "a manual Cursor rule (used only when @-mentioned); hotplex has no on-demand rules"
            )
            found.skipped.append(Skip(path, why))
        else:
            found.entries.append(scoped(path, name, "globs", "for"))
    return found if found.entries or found.skipped else None
