"""``.hermes.md``: Hermes Agent's project file, read from the working folder (``HERMES.md`` when
there is none). Hermes loads only the first of its project files, so the other is left out, said
why. A ``HERMES_HOME`` is a workspace of its own (``hotplex.targets.hermes_import``)."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, present

KIND = "Hermes Agent"
NAMES = (".hermes.md", "HERMES.md")


def find(root: Path) -> Found | None:
    there = [root / name for name in NAMES if present(root / name)]
    if not there:
        return None
    found = Found(KIND, root, entries=[Entry("hermes", there[0], audience="hermes")])
    why = f"Hermes Agent reads only the first of {' and '.join(NAMES)}: {there[0].name} here"
    found.skipped += [Skip(path, why) for path in there[1:]]
    return found
