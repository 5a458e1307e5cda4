"""Cline: the ``.clinerules`` file, or each rule of the ``.clinerules/`` and ``.cline/rules/``
folders (``.md``, ``.markdown``, ``.txt``, not in subfolders), for the targets of the programs
that read them (Cline); a rule its frontmatter disables is left out, as Cline leaves it."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, meta, present, slug

KIND = "Cline"
RULE_TEXTS = (".md", ".markdown", ".txt")


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    single = root / ".clinerules"
    if present(single):
        found.entries.append(Entry("clinerules", single, audience="cline"))
    for folder in (single, root / ".cline" / "rules"):
        rules = folder.iterdir() if folder.is_dir() else ()
        for path in sorted((p for p in rules if present(p)), key=lambda p: p.name.casefold()):
            if path.suffix.lower() not in RULE_TEXTS:
                continue
            if meta(path).get("disabled") is True:
                found.skipped.append(Skip(path, "a Cline rule its frontmatter disables"))
                continue
            found.entries.append(Entry("cline-" + slug(path.stem), path, audience="cline"))
    return found if found.entries or found.skipped else None
