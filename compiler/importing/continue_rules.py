"""Continue's rules: each ``.md`` of ``.continue/rules/`` (in subfolders too), which Continue CLI
reads from its working folder, for the continue-cli target. A rule Continue applies always
(``alwaysApply: true``, or neither ``globs`` nor ``regex``) is a source; one scoped to files or
left to the model is included always, its scope written into the note, as the editors' are; an
``invokable`` one (a prompt used when called) is left out, and said so."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, meta, one_line, scoped, slug, sorted_under

KIND = "Continue"
FOLDER = ".continue/rules"
_INVOKABLE = "an invokable Continue rule (used only when called); hotplex has no on-demand rules"


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    folder = root / FOLDER
    for path in sorted_under(folder, ("*.md",)) if folder.is_dir() else ():
        name = "continue-" + slug(path.relative_to(folder).as_posix().removesuffix(".md"))
        # A byte order mark before "---" hides the frontmatter from cn, which then sends the
        # rule always, its "---" lines as text: so does the project.
        values = {} if path.read_bytes().startswith(b"\xef\xbb\xbf") else meta(path)
        if values.get("invokable"):
            found.skipped.append(Skip(path, _INVOKABLE))
        elif values.get("alwaysApply") is True or not (
            "alwaysApply" in values or values.get("globs") or values.get("regex")
        ):
            found.entries.append(Entry(name, path, audience="continue"))
        else:
            found.entries.append(_condition(scoped(path, name, "globs", "continue"), values))
    return found if found.entries or found.skipped else None


def _condition(entry: Entry, values: dict) -> Entry:
    """A rule Continue applies on a condition other than files' names keeps it in its note: a
    ``regex`` over the files' text, or the model's choice (``alwaysApply: false`` alone)."""
    if values.get("globs"):
        return entry
    regex = one_line(values.get("regex"))
    when = f"applies to files whose text matches {regex}" if regex else "when the model asks for it"
    return dataclasses.replace(entry, note=f"{entry.note} ({when})")
