"""MkDocs hooks: the reference pages made from the code at build time.

A page per registered worker (``reference/workers/<name>.md``), the manifest reference
(``reference/manifest.md``) and the command reference (``reference/cli.md``) are written here from
the registry, the manifest model and the CLI's parser, so a worker added to ``BUILT_IN`` gets its
page and its nav line with no hand edit, and a removed one loses both.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import attrs
from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
WORKERS_DIR = "reference/workers"
WORKERS_NAV = "Workers"  # the nav section the generated worker pages are listed under


# -- the pages -----------------------------------------------------------------------------------


def worker_pages() -> dict[str, str]:
    """Each registered worker's page, by its path under the pages folder, in registry order."""
    from hotplex import registry

    return {
        f"{WORKERS_DIR}/{name}.md": worker_page(worker)
        for name, worker in registry.workers().items()
    }


def worker_page(worker: Any) -> str:
    """One worker's reference: what it emits, how its program gets it, its keys and budgets."""
    lines = [f"# `{worker.name}`", ""]
    target, comment = worker.init_target
    lines += [comment[:1].upper() + comment[1:] + ".", ""]
    lines += ["## Outputs", "", "| file | kind |", "|---|---|"]
    for output in worker.outputs:
        primary = " (primary)" if output.primary else ""
        lines.append(f"| `{output.name}` | {output.kind}{primary} |")
    lines.append("")
    if worker.places:
        placed = worker.placed_default if hasattr(worker, "placed_default") else None
        lines += ["## Placed in the repository", ""]
        lines += [f"Searched for placed files at `{worker.places}`."]
        if placed:
            lines += [f"Written by default at `{placed}`."]
        lines.append("")
    lines += ["## How its program gets it", "", docstring_markdown(worker), ""]
    lines += ["## Target keys", "", *options_table(worker.Options), ""]
    own = worker.own_files
    lines += ["## Files its program loads by itself", ""]
    if own is None:
        lines += ["None: the program reads only what hotplex places.", ""]
    else:
        lines += [
            f"{own.program} reads {', '.join(f'`{n}`' for n in own.names)} from the folders"
            f" it starts in{' and above' if own.above else ''}, and {own.home}.",
            "",
            f"Switch: {own.switch or 'none (the program has no way to turn them off)'}.",
            "",
        ]
    lines += ["## Budgets", ""]
    lines += [
        worker.own_limits
        or "The manifest's `[limits]` (`per_file`, `total`, `unit`), shared by every section.",
        "",
    ]
    lines += [
        "## Start a target of it",
        "",
        "```toml",
        "[[target]]",
        f'name = "{target}"',
        f'worker = "{worker.name}"',
        "```",
        "",
    ]
    return "\n".join(lines)


def docstring_markdown(worker: Any) -> str:
    """The worker module's docstring, its reStructuredText literals as Markdown code."""
    text = inspect.getdoc(sys.modules[type(worker).__module__]) or ""
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    # A ``::`` paragraph ends on a literal block: indented lines, fenced here.
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.endswith("::"):
            out.append(line[:-1])
            out += ["", "```text"]
            fenced = True
            continue
        if fenced and line and not line.startswith(" "):
            out += ["```", ""]
            fenced = False
        out.append(line[4:] if fenced else line)
    if fenced:
        out.append("```")
    return "\n".join(out).replace("```text\n\n", "```text\n").replace("\n\n```\n", "\n```\n")


def options_table(options: type) -> list[str]:
    """The target keys an ``Options`` attrs class adds, with types and defaults."""
    if not attrs.has(options) or not attrs.fields(options):
        return ["None beyond the keys every `[[target]]` has."]
    rows = ["| key | type | default |", "|---|---|---|"]
    hints = typing.get_type_hints(options)
    for field in attrs.fields(options):
        rows.append(f"| `{field.name}` | {type_name(hints[field.name])} | {default(field)} |")
    return rows


def manifest_fields() -> list[tuple[str, Any, attrs.Attribute]]:
    """Every manifest key as (path, type, field): ``project.name``, ``target[].worker``, ..."""
    from hotplex.manifest.model import Manifest

    found: list[tuple[str, Any, attrs.Attribute]] = []

    def walk(cls: type, prefix: str) -> None:
        hints = typing.get_type_hints(cls)
        for field in attrs.fields(cls):
            if field.name in HIDDEN_FIELDS.get(cls.__name__, ()):
                continue
            kind = hints[field.name]
            path = f"{prefix}{field.name}"
            record, many = _record(kind)
            if record is not None:
                walk(record, f"{path}[]." if many else f"{path}.")
            else:
                found.append((path, kind, field))

    walk(Manifest, "")
    return found


# Fields of the model that no manifest spells: set by the loader.
HIDDEN_FIELDS = {"Target": ("options", "misplaced")}


def _record(kind: Any) -> tuple[type | None, bool]:
    """The attrs class a type holds (and whether as a list or table of them), or None."""
    if attrs.has(kind):
        return kind, False
    args = typing.get_args(kind)
    origin = typing.get_origin(kind)
    if origin is tuple and args and attrs.has(args[0]):
        return args[0], True
    if origin is dict and len(args) == 2 and attrs.has(args[1]):
        return args[1], True
    return None, False


def type_name(kind: Any) -> str:
    """A type as a manifest author reads it: ``"keep" | "strip"``, ``list of string``."""
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin is typing.Literal:
        return " \\| ".join(f'`"{a}"`' for a in args)
    if origin in (typing.Union, types.UnionType):
        named = [type_name(a) for a in args if a is not type(None)]
        return " \\| ".join(named)
    if origin is tuple:
        return f"list of {type_name(args[0])}"
    if origin is dict:
        return f"table of {type_name(args[1])}"
    if attrs.has(kind):
        return "table"
    return {str: "string", bool: "boolean", int: "integer", typing.Any: "any"}.get(
        kind, getattr(kind, "__name__", str(kind))
    )


def default(field: attrs.Attribute) -> str:
    """A field's default as TOML would spell it, or "required"."""
    value = field.default
    if value is attrs.NOTHING:
        return "required"
    if isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        value = value.factory()
    if value is None:
        return "unset"
    if attrs.has(type(value)):
        return "see below"
    if isinstance(value, dict) and not value:
        return "`{}`"
    import tomli_w

    return "`" + tomli_w.dumps({"v": value}).strip()[4:].replace("|", "\\|") + "`"


def manifest_page() -> str:
    lines = [
        "# Manifest reference",
        "",
        "Every key of `hotplex.toml`, generated from the manifest model. A `[]` in a path is an",
        "array of tables (`[[target]]`) or a table of tables (`[channels.<name>]`).",
        "",
        "| key | type | default |",
        "|---|---|---|",
    ]
    for path, kind, field in manifest_fields():
        lines.append(f"| `{path}` | {type_name(kind)} | {default(field)} |")
    lines.append("")
    return "\n".join(lines)


def cli_page() -> str:
    """The command reference: the hand-written overview, then each command's ``--help``."""
    from hotplex import arguments

    lines = [(HERE / "reference/cli.md").read_text(encoding="utf-8").rstrip(), ""]
    top = arguments.parser([])
    lines += ["## `hotplex --help`", "", "```text", top.format_help().rstrip(), "```", ""]
    for action in top._subparsers._group_actions:  # argparse keeps its sub-parsers here
        for name, command in action.choices.items():
            lines += [f"## `hotplex {name}`", "", "```text", command.format_help().rstrip()]
            lines += ["```", ""]
    return "\n".join(lines)


def generated() -> dict[str, str]:
    """Every generated page, by its path under the pages folder."""
    return {
        "reference/manifest.md": manifest_page(),
        "reference/cli.md": cli_page(),
        **worker_pages(),
    }


# -- the MkDocs events ---------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    """List the generated worker pages in the nav, after the hand-written ones of the section."""
    from hotplex import registry

    pages = [f"{WORKERS_DIR}/{name}.md" for name in registry.names()]
    for entry in config["nav"]:
        if isinstance(entry, dict) and WORKERS_NAV in entry:
            kept = [p for p in entry[WORKERS_NAV] if not _generated_path(p)]
            entry[WORKERS_NAV] = kept + pages
    return config


def _generated_path(entry: Any) -> bool:
    return isinstance(entry, str) and entry.startswith(f"{WORKERS_DIR}/")


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site's files."""
    for path, text in generated().items():
        files.append(File.generated(config, path, content=text))
    return files
