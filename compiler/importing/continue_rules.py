"""Continue's rules: each ``.md`` of ``.continue/rules/`` (in subfolders too), which Continue CLI
reads from its working folder, for the continue-cli target. A rule Continue applies always
(``alwaysApply: true``, or neither ``globs`` nor ``regex``) is a source; one scoped to files or
left to the model is included always, its scope written into the note, as the editors' are; an
``invokable`` one (a prompt used when called) is left out, and said so."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, meta, scoped, slug, sorted_under

KIND = "Continue"
FOLDER = ".continue/rules"
_INVOKABLE = "an invokable Continue rule (used only when called); hotplex has no on-demand rules"


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    folder = root / FOLDER
    for path in sorted_under(folder, ("*.md",)) if folder.is_dir() else ():
        name = "continue-" + slug(path.relative_to(folder).as_posix().removesuffix(".md"))
        values = meta(path)
        if values.get("invokable"):
            found.skipped.append(Skip(path, _INVOKABLE))
        elif values.get("alwaysApply") is True or not (
            "alwaysApply" in values or values.get("globs") or values.get("regex")
        ):
            found.entries.append(Entry(name, path, audience="continue"))
        else:
            found.entries.append(scoped(path, name, "globs", "continue"))
    return found if found.entries or found.skipped else None
