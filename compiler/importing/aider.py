"""Aider's ``.aider.conf.yml``: the files its ``read:`` names (Aider's read-only context, sent in
a user message) become sources of the aider target. Aider reads the file from its working
folder, the repository root and the home; the one in the folder imported is the project's."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, present, slug, text_of

KIND = "Aider"
CONFIG = ".aider.conf.yml"


def find(root: Path) -> Found | None:
    config = root / CONFIG
    if not present(config):
        return None
    found = Found(KIND, root, config=config)
    for name in _read(config, found):
        path = root / name
        if not path.resolve().is_relative_to(root.resolve()):
            found.skipped.append(Skip(config, f"its read: names '{name}', outside the project"))
        elif not path.is_file():
            found.skipped.append(Skip(config, f"its read: names '{name}', which is no file here"))
        else:
            stem = path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
            found.entries.append(Entry("aider-" + slug(stem), path, audience="aider"))
    return found if found.entries or found.skipped else None


def _read(config: Path, found: Found) -> list[str]:
    """The names in ``read:`` (one or a list), or none, with a skip saying why."""
    import yaml  # only when a project holds an Aider config

    try:
        values = yaml.safe_load(text_of(config))
    except yaml.YAMLError as exc:
        found.skipped.append(Skip(config, f"not valid YAML ({exc.__class__.__name__})"))
        return []
    read = values.get("read") if isinstance(values, dict) else None
    names = [read] if isinstance(read, str) else read if isinstance(read, list) else []
    return list(dict.fromkeys(str(n) for n in names if isinstance(n, str | Path)))
