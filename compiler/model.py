"""The typed manifest: attrs classes, the cattrs converter, and every check a manifest must pass.

Validation belongs to the edge: after ``load`` the rest of the compiler trusts the model. Every
problem is collected (not just the first) with its key path, e.g. ``target[1].worker``; list
indexes count from 0, as in TOML's arrays of tables.
"""

from __future__ import annotations

import posixpath
import re
import typing
from pathlib import Path
from typing import Any, Literal

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

from . import manifest as manifest_file
from .errors import HotplexError, Problem, Span, suggest

Unit = Literal["chars", "bytes"]
Overflow = Literal["truncate", "error"]
VariantMode = Literal["append", "replace"]
VariantLayout = Literal["suffix", "directory"]
Channel = Literal["B", "C"]
Profile = Literal["main", "subagent"]
# How a source's own import syntax is followed: "claude" loads CLAUDE.md @imports as Claude Code
# does, each imported file an input of the build (compiler/claude_imports.py).
Imports = Literal["claude"]

# Variables every template sees, set per job; a manifest cannot define them.
BUILTIN_VARS = ("platform", "worker", "target")
DEFAULT_NOTES = {
    "B": "Core behavioral parameters — follow unless overridden by explicit user instructions.",
    "C": "Reference material to inform your responses.",
}
METACOGNITION_NOTE = (
    "Agent self-identity, operating constraints, and meta-rules governing your behavior."
)
# A subagent keeps only the working rules and tool guidance (OpenClaw's AGENTS.md + TOOLS.md idea).
DEFAULT_SUBAGENT_KEEP = ("rules", "skills", "tools")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@attrs.frozen
class ProjectSettings:
    name: str = ""
    sources: str = "agent-configs"
    out: str = "dist"
    # Projects whose files are full of foreign braces can turn the template language off.
    templates: bool = True


@attrs.frozen
class ChannelSettings:
    tag: str
    note: str = ""


@attrs.frozen
class Source:
    name: str
    file: str
    channel: Channel
    tag: str
    note: str = ""
    required: bool = False
    imports: Imports | None = None


@attrs.frozen
class Variants:
    platforms: tuple[str, ...] = ()
    mode: VariantMode = "append"
    # suffix: SOUL.slack.md beside SOUL.md; directory: slack/SOUL.md under the sources folder.
    layout: VariantLayout = "suffix"


@attrs.frozen
class Limits:
    per_file: int = 8000
    total: int = 40000
    unit: Unit = "chars"
    overflow: Overflow = "truncate"


@attrs.frozen
class Metacognition:
    enabled: bool = True
    file: str | None = None
    note: str = METACOGNITION_NOTE


@attrs.frozen
class Secrets:
    # A rule name (see hotplex.secrets.RULES) turns that rule off; any other entry allows the
    # findings whose matched text contains it.
    allow: tuple[str, ...] = ()
    # Globs of project-relative source paths whose findings are allowed ("agent-configs/demo/*").
    allow_files: tuple[str, ...] = ()


@attrs.frozen
class Target:
    name: str
    worker: str
    platforms: tuple[str, ...] | None = None
    # Also build the artifact without a platform (the base files alone).
    base: bool = True
    # A bot overlay (HotPlex's per-bot folders): <sources>/<platform>/<bot>/<file> is consulted
    # after the platform variant, so one target per bot shares the base and platform files.
    bot: str | None = None
    vars: dict[str, str] = attrs.field(factory=dict)
    profile: Profile = "main"
    keep: tuple[str, ...] | None = None
    # Worker-specific options; each worker declares which it accepts (see targets/).
    compat: str | None = None
    workspace: str | None = None
    session: str | None = None
    max_chars: int | None = None
    total_max_chars: int | None = None

    def kept_sources(self, sources: tuple[Source, ...]) -> tuple[Source, ...]:
        if self.profile == "main" and self.keep is None:
            return sources
        keep = self.keep if self.keep is not None else DEFAULT_SUBAGENT_KEEP
        return tuple(s for s in sources if s.name in keep)


def _default_sources() -> tuple[Source, ...]:
    return (
        Source(
            "soul", "SOUL.md", "B", "persona", "Embody this persona naturally in all interactions."
        ),
        Source("rules", "AGENTS.md", "B", "rules", "Treat as mandatory workspace constraints."),
        Source("skills", "SKILLS.md", "B", "skills", "Apply these capabilities when relevant."),
        Source(
            "user",
            "USER.md",
            "C",
            "user",
            "Tailor responses to this user's preferences and expertise.",
        ),
        Source(
            "memory", "MEMORY.md", "C", "memory", "Recall relevant past context when applicable."
        ),
    )


def _default_channels() -> dict[str, ChannelSettings]:
    return {
        "B": ChannelSettings("directives", DEFAULT_NOTES["B"]),
        "C": ChannelSettings("context", DEFAULT_NOTES["C"]),
    }


@attrs.frozen
class Manifest:
    project: ProjectSettings = ProjectSettings()
    channels: dict[str, ChannelSettings] = attrs.field(factory=_default_channels)
    source: tuple[Source, ...] = attrs.field(factory=_default_sources)
    variants: Variants = Variants()
    limits: Limits = Limits()
    vars: dict[str, str] = attrs.field(factory=dict)
    metacognition: Metacognition = Metacognition()
    secrets: Secrets = Secrets()
    target: tuple[Target, ...] = ()


@attrs.frozen
class Model:
    """A validated manifest and where it lives."""

    manifest: Manifest
    root: Path  # the folder holding the manifest; every path is relative to it
    manifest_path: Path
    manifest_display: str

    @property
    def sources_dir(self) -> str:
        return self.manifest.project.sources.rstrip("/") or "."

    def source_path(self, *parts: str) -> str:
        """A file of the sources folder as the build names it: one spelling per file
        (``SOUL.md``, not ``./SOUL.md``), so it is read, hashed and recorded once."""
        return posixpath.normpath(posixpath.join(self.sources_dir, *parts))

    @property
    def out_dir(self) -> str:
        """The artifact folder, spelled one way everywhere (``./dist/`` is ``dist``)."""
        return posixpath.normpath(self.manifest.project.out.replace("\\", "/"))

    def platforms_of(self, target: Target) -> tuple[str, ...]:
        return (
            target.platforms if target.platforms is not None else self.manifest.variants.platforms
        )


# --- conversion -------------------------------------------------------------------------------

_EXPECTED = {
    str: "a string",
    int: "an integer",
    bool: "a boolean (true or false)",
    float: "a number",
}


def _strict(kind: type) -> typing.Callable[[Any, type], Any]:
    """No silent coercion: "false" is not a boolean and 8000.5 is not an integer."""

    def structure(value: Any, _: type) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {_EXPECTED[kind]}, got {_describe(value)}")
        return value

    return structure


def _describe(value: Any) -> str:
    names = {str: "a string", int: "an integer", bool: "a boolean", float: "a number"}
    name = names.get(type(value))
    if name is None:
        name = (
            "a table"
            if isinstance(value, dict)
            else "an array"
            if isinstance(value, list)
            else type(value).__name__
        )
    return f"{name} ({_short(value)})" if not isinstance(value, (dict, list)) else name


def _short(value: Any) -> str:
    text = (
        repr(value)
        if isinstance(value, str)
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )
    return text if len(text) <= 40 else text[:37] + "..."


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    for kind in _EXPECTED:
        converter.register_structure_hook(kind, _strict(kind))
    converter.register_structure_hook_factory(
        lambda kind: typing.get_origin(kind) is tuple, lambda kind: _strict_array(converter, kind)
    )
    return converter


def _strict_array(converter: cattrs.Converter, kind: Any) -> typing.Callable[[Any, type], Any]:
    """A TOML array only: a string is iterable, but "slack" is not the list ["s", "l", ...]."""
    item = typing.get_args(kind)[0]

    def structure(value: Any, _: type) -> Any:
        if not isinstance(value, list):
            raise TypeError(f"expected an array, got {_describe(value)}")
        return tuple(converter.structure(value, list[item]))

    return structure


_CONVERTER = _make_converter()


def _expected_for(kind: Any) -> str:
    origin = typing.get_origin(kind)
    if origin is Literal:
        return "one of " + ", ".join(f"'{a}'" for a in typing.get_args(kind))
    if origin in (tuple, list):
        return "an array"
    if origin is dict or attrs.has(kind):
        return "a table"
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        return _expected_for(options[0]) if len(options) == 1 else "a valid value"
    return _EXPECTED.get(kind, "a valid value")


def _key(path: list[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _collect(
    exc: BaseException, path: list[str | int], kind: Any, problems: list[tuple[str, str]]
) -> None:
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        with_notes, without_notes = exc.group_exceptions()
        for sub, note in with_notes:
            name = getattr(note, "name", None)
            if (
                isinstance(note, str)
                and name is not None
                and not isinstance(name, int)
                and hasattr(note, "type")
            ):
                _collect(sub, [*path, name], note.type, problems)
            else:
                index = getattr(note, "index", None)
                _collect(
                    sub,
                    [*path, index if isinstance(index, int) else str(index)],
                    getattr(note, "type", None),
                    problems,
                )
        for sub in without_notes:
            _collect(sub, path, kind, problems)
    elif isinstance(exc, ForbiddenExtraKeysError):
        fields = [a.name for a in attrs.fields(exc.cl)]
        for extra in sorted(exc.extra_fields):
            hint = suggest(extra, fields)
            message = f"unknown key '{extra}'" + (f" — {hint}" if hint else "")
            if not hint:
                message += " (known keys: " + ", ".join(fields) + ")"
            problems.append((_key([*path, extra]), message))
    elif isinstance(exc, TypeError) and str(exc).startswith("expected "):
        problems.append((_key(path), str(exc)))
    elif isinstance(exc, KeyError):
        problems.append((_key(path), "required key is missing"))
    else:
        problems.append((_key(path), f"expected {_expected_for(kind)}"))


def structure(raw: dict[str, Any], display: str) -> Manifest:
    """Raw TOML mapping -> Manifest, or every structural problem with its key path."""
    try:
        manifest = _CONVERTER.structure(raw, Manifest)
    except (ClassValidationError, IterableValidationError) as exc:
        found: list[tuple[str, str]] = []
        _collect(exc, [], Manifest, found)
        raise HotplexError(
            [Problem(msg, Span(display, key=key or None)) for key, msg in found]
        ) from None
    # A manifest that declares only [channels.B] keeps the default C channel, and vice versa.
    return attrs.evolve(manifest, channels={**_default_channels(), **manifest.channels})


# --- semantic checks ----------------------------------------------------------------------------


def validate(manifest: Manifest, display: str) -> None:
    """Cross-field rules cattrs cannot express; all problems at once."""
    from hotplex.targets import WORKERS  # the registry is light; imported here to avoid a cycle

    problems: list[Problem] = []

    def bad(key: str, message: str, hint: str | None = None) -> None:
        problems.append(Problem(message, Span(display, key=key), hint))

    for key, value in (
        ("project.sources", manifest.project.sources),
        ("project.out", manifest.project.out),
    ):
        _check_path_key(value, key, bad)
    if _same_or_inside(manifest.project.sources, manifest.project.out):
        bad(
            "project.out",
            f"the artifact folder '{manifest.project.out}' must not be or contain "
            f"the sources folder '{manifest.project.sources}'",
        )
    for name in manifest.channels:
        if name not in ("B", "C"):
            bad(
                f"channels.{name}",
                "unknown channel: channels are 'B' (directives) and 'C' (context)",
                suggest(name, ["B", "C"]),
            )
    for name, channel in manifest.channels.items():
        if not _TAG.fullmatch(channel.tag):
            bad(f"channels.{name}.tag", f"'{channel.tag}' is not a valid tag name")
    _validate_sources(manifest, bad)
    for name in manifest.variants.platforms:
        if not _NAME.fullmatch(name):
            bad("variants.platforms", f"platform '{name}' must be letters, digits, '-', '_' or '.'")
    if len(set(manifest.variants.platforms)) != len(manifest.variants.platforms):
        bad("variants.platforms", "a platform is listed twice")
    for key, value in (
        ("limits.per_file", manifest.limits.per_file),
        ("limits.total", manifest.limits.total),
    ):
        if value <= 0:
            bad(key, f"must be a positive integer, got {value}")
    for name in manifest.vars:
        if name in BUILTIN_VARS:
            bad(f"vars.{name}", f"'{name}' is a built-in variable and cannot be set")
    if manifest.metacognition.file is not None:
        _check_path_key(manifest.metacognition.file, "metacognition.file", bad)
    _validate_secrets(manifest.secrets, bad)
    _validate_targets(manifest, WORKERS, bad)
    if problems:
        raise HotplexError(problems)


def _validate_secrets(secrets: Secrets, bad: typing.Callable[..., None]) -> None:
    from .secrets import unknown_rule_hint

    for index, entry in enumerate(secrets.allow):
        hint = unknown_rule_hint(entry)
        if hint is not None:
            bad(f"secrets.allow[{index}]", f"no rule named '{entry}'", hint)
        elif not entry.strip():
            bad(f"secrets.allow[{index}]", "an empty entry would allow every finding")


def _check_path_key(value: str, key: str, bad: typing.Callable[..., None]) -> None:
    posix = value.replace("\\", "/")
    if "\0" in value:
        bad(key, f"path {value!r} contains a NUL character")
    elif posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        bad(key, f"absolute path '{value}' is not allowed", "name folders relative to the manifest")
    elif ".." in posix.split("/"):
        bad(key, f"path '{value}' escapes the project with '..'")


def _check_source_file(sources: str, file: str, key: str, bad: typing.Callable[..., None]) -> None:
    """A source file may sit outside the sources folder (``../CLAUDE.md``, a file used where it
    is), but never outside the project; the read still confines symlinks to the project."""
    joined = posixpath.normpath(posixpath.join(sources.replace("\\", "/"), file.replace("\\", "/")))
    if ".." in file.replace("\\", "/").split("/") and "\0" not in file and not file.startswith("/"):
        if joined == ".." or joined.startswith("../"):
            bad(key, f"path '{file}' escapes the project with '..'")
        return
    _check_path_key(file, key, bad)


def _same_or_inside(inner: str, outer: str) -> bool:
    inner_parts = [p for p in inner.replace("\\", "/").split("/") if p not in ("", ".")]
    outer_parts = [p for p in outer.replace("\\", "/").split("/") if p not in ("", ".")]
    return inner_parts[: len(outer_parts)] == outer_parts


def _validate_sources(manifest: Manifest, bad: typing.Callable[..., None]) -> None:
    seen_names: set[str] = set()
    seen_tags = {c.tag.lower() for c in manifest.channels.values()} | {
        "agent-configuration",
        "hotplex",
    }
    for index, source in enumerate(manifest.source):
        key = f"source[{index}]"
        if source.name in seen_names:
            bad(f"{key}.name", f"source name '{source.name}' is used twice")
        seen_names.add(source.name)
        if not _TAG.fullmatch(source.tag):
            bad(f"{key}.tag", f"'{source.tag}' is not a valid tag name")
        elif source.tag.lower() in seen_tags:
            bad(f"{key}.tag", f"tag '{source.tag}' is already used by another section")
        seen_tags.add(source.tag.lower())
        _check_source_file(manifest.project.sources, source.file, f"{key}.file", bad)
        if source.channel not in manifest.channels:
            bad(f"{key}.channel", f"channel '{source.channel}' is not defined under [channels]")


def _validate_targets(
    manifest: Manifest, workers: dict[str, Any], bad: typing.Callable[..., None]
) -> None:
    if not manifest.target:
        bad(
            "target",
            "no [[target]] is declared",
            'add one, e.g. [[target]] name = "cc" worker = "claude-code"',
        )
    names: set[str] = set()
    source_names = [s.name for s in manifest.source]
    for index, target in enumerate(manifest.target):
        key = f"target[{index}]"
        if not _NAME.fullmatch(target.name):
            bad(
                f"{key}.name",
                f"target name '{target.name}' must be letters, digits, '-', '_' or '.' "
                "(it names a folder)",
            )
        if target.name in names:
            bad(f"{key}.name", f"target name '{target.name}' is used twice")
        names.add(target.name)
        for platform in target.platforms or ():
            if platform not in manifest.variants.platforms:
                hint = suggest(platform, manifest.variants.platforms)
                bad(f"{key}.platforms", f"platform '{platform}' is not in variants.platforms", hint)
        for keep in target.keep or ():
            if keep not in source_names:
                bad(f"{key}.keep", f"no source is named '{keep}'", suggest(keep, source_names))
        if target.bot is not None:
            _validate_bot(manifest, target, key, bad)
        for name in target.vars:
            if name in BUILTIN_VARS:
                bad(f"{key}.vars.{name}", f"'{name}' is a built-in variable and cannot be set")
        worker = workers.get(target.worker)
        if worker is None:
            hint = suggest(target.worker, workers) or "known workers: " + ", ".join(sorted(workers))
            bad(f"{key}.worker", f"unknown worker '{target.worker}'", hint)
            continue
        for option in ("compat", "workspace", "session", "max_chars", "total_max_chars"):
            if getattr(target, option) is not None and option not in worker.OPTIONS:
                bad(f"{key}.{option}", f"'{option}' does not apply to worker '{target.worker}'")
        for message_key, message in worker.validate_target(target):
            bad(f"{key}.{message_key}", message)


def _validate_bot(
    manifest: Manifest, target: Target, key: str, bad: typing.Callable[..., None]
) -> None:
    """A bot folder sits inside a platform folder, so it needs that layout and a platform."""
    if not _NAME.fullmatch(target.bot or ""):
        bad(f"{key}.bot", f"bot '{target.bot}' must be letters, digits, '-', '_' or '.'")
    if manifest.variants.layout != "directory":
        bad(
            f"{key}.bot",
            "bot overlays live in <platform>/<bot>/ folders",
            'set [variants] layout = "directory"',
        )
    platforms = target.platforms if target.platforms is not None else manifest.variants.platforms
    if not platforms:
        bad(f"{key}.bot", "a bot overlay needs a platform: give the target platforms = [...]")


def load(root: Path, manifest_path: Path | None = None) -> Model:
    """Read, structure and validate the manifest of the project at ``root``."""
    path = manifest_path if manifest_path is not None else root / manifest_file.MANIFEST_NAME
    display = path.name if path.parent == root else str(path)
    raw = manifest_file.read(path, display)
    manifest = structure(raw, display)
    validate(manifest, display)
    _check_folders_on_disk(root, manifest.project, display)
    return Model(manifest, root, path, display)


def _check_folders_on_disk(root: Path, project: ProjectSettings, display: str) -> None:
    """``validate`` compares the names; a symlink can still point `out` outside the project or
    at the sources, where a build would write and ``clean`` delete."""
    import os

    def real(rel: str) -> str:
        return os.path.realpath(root / rel)

    top, sources, out = real("."), real(project.sources or "."), real(project.out)
    for key, value, folder in (
        ("project.sources", project.sources, sources),
        ("project.out", project.out, out),
    ):
        if os.path.commonpath([top, folder]) != top:
            raise HotplexError.single(
                f"'{value}' resolves to '{folder}', outside the project '{top}' (a symlink)",
                Span(display, key=key),
            )
    if os.path.commonpath([sources, out]) == out:
        raise HotplexError.single(
            f"the artifact folder '{project.out}' resolves to '{out}', which is or contains "
            f"the sources folder '{sources}' (a symlink)",
            Span(display, key="project.out"),
        )
