"""The manifest ``import`` writes, as TOML: the model built by the planner, unstructured.

Only values that differ from the model's defaults are written, so the file says what the import
decided and nothing more. ``reconcile`` adds new sources to a manifest the user may have edited,
through tomlkit, which keeps every comment, key order and spelling it does not touch.
"""

from __future__ import annotations

from typing import Any

from hotplex.errors import visible
from hotplex.generated import attrs
from hotplex.manifest.model import Manifest, Target

_ORDER = (
    *("project", "metacognition", "limits", "memory", "variants", "skills"),
    *("source", "target"),
)
HEADER = "Written by `hotplex import`; edit freely: running it again only adds new files."


def plain(value: Any) -> Any:
    """An attrs model as TOML values, without the fields left at their defaults; a target's
    worker options are keys of the target table, as the manifest writes them."""
    if attrs.has(type(value)):
        out = {}
        for field in attrs.fields(type(value)):
            if isinstance(value, Target) and field.name in ("options", "misplaced"):
                continue
            item = getattr(value, field.name)
            default = field.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            if item is None or (default is not attrs.NOTHING and item == default):
                continue
            out[field.name] = plain(item)
        return {**out, **plain(value.options)} if isinstance(value, Target) else out
    if isinstance(value, (tuple, list)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def document(manifest: Manifest, comments: dict[str, str]) -> str:
    """The manifest's text; ``comments`` puts a comment line in a [[source]] or [[target]] table,
    keyed by its name."""
    import tomlkit

    values = plain(manifest)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(HEADER))
    for key in _ORDER:
        if key not in values:
            continue
        if key in ("source", "target"):
            tables = tomlkit.aot()
            for item in values[key]:
                tables.append(_table(item, comments.get(f"{key}:{item['name']}")))
            doc.add(key, tables)
        else:
            doc.add(tomlkit.nl())
            doc.add(key, _table(values[key], None))
    return tomlkit.dumps(doc)


def _table(values: dict[str, Any], comment: str | None, blank_after: bool = False) -> Any:
    import tomlkit

    table = tomlkit.table()
    if comment:  # a file's name: one that holds an escape is shown, as messages show it
        table.add(tomlkit.comment(visible(comment)))
    for key, value in values.items():
        table.add(key, value)
    if blank_after:
        table.add(tomlkit.nl())
    return table


def append(
    text: str,
    sources: list[dict[str, Any]],
    keep: dict[int, list[str]],
    targets: list[dict[str, Any]],
    comments: dict[str, str],
) -> str:
    """``text`` with ``sources`` and ``targets`` added, and each existing target ``keep`` names
    (by index) keeping those sources too (a ``keep`` array made when it has none); everything
    else as the user wrote it."""
    import tomlkit

    doc = tomlkit.parse(text)
    if sources:
        existing = doc.setdefault("source", tomlkit.aot())
        for item in sources:
            existing.append(_table(item, comments.get(f"source:{item['name']}"), True))
    for index, names in keep.items():
        table = doc["target"][index]
        if "keep" not in table:
            table["keep"] = list(dict.fromkeys(names))
        else:
            table["keep"].extend(name for name in names if name not in table["keep"])
    if targets:
        existing = doc.setdefault("target", tomlkit.aot())
        if len(existing):
            existing[-1].add(tomlkit.nl())
        for item in targets:
            existing.append(_table(item, comments.get(f"target:{item['name']}"), True))
    return tomlkit.dumps(doc)
