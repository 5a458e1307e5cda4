"""Kilo Code's rules: ``.kilocode/rules/*.md``, ``.kilo/rules/*.md`` and ``.kilocoderules``, which
Kilo reads from its working folder (one rule of a name: ``.kilo`` before ``.kilocode``), for the
kilo target."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, present, slug

KIND = "Kilo"
RULE_FOLDERS = (".kilo/rules", ".kilocode/rules")


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    taken = set()
    for folder in RULE_FOLDERS:
        rules = root / folder
        paths = sorted(rules.glob("*.md")) if rules.is_dir() else []
        for path in (p for p in paths if present(p) and p.name not in taken):
            taken.add(path.name)
            found.entries.append(Entry("kilo-" + slug(path.stem), path, audience="kilo"))
    legacy = root / ".kilocoderules"
    if present(legacy):
        found.entries.append(Entry("kilocoderules", legacy, audience="kilo"))
    return found if found.entries else None
