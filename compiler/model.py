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
    # false: the workers' default sources are dropped and [[source]] is the whole list.
    default_sources: bool = True
    # Globs of paths under the sources folder that no artifact reads, on purpose (no warning).
    ignore: tuple[str, ...] = ()


@attrs.frozen
class ChannelSettings:
    tag: str
    note: str = ""


@attrs.frozen
class Source:
    """A source as the build uses it: a worker's default, a declaration, or both merged."""

    name: str
    file: str
    channel: Channel
    tag: str
    note: str = ""
    required: bool = False
    # false: a leading '---' is text, not metadata (files an agent writes, such as MEMORY.md).
    frontmatter: bool = True


@attrs.frozen
class DeclaredSource:
    """A ``[[source]]`` table as written: with a default's name it changes only the keys it sets;
    a new name needs ``file``, ``channel`` and ``tag``."""

    name: str
    file: str | None = None
    channel: Channel | None = None
    tag: str | None = None
    note: str | None = None
    required: bool | None = None
    frontmatter: bool | None = None

    def set_keys(self) -> dict[str, Any]:
        return {k: v for k, v in attrs.asdict(self).items() if v is not None and k != "name"}


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


def _default_channels() -> dict[str, ChannelSettings]:
    return {
        "B": ChannelSettings("directives", DEFAULT_NOTES["B"]),
        "C": ChannelSettings("context", DEFAULT_NOTES["C"]),
    }


@attrs.frozen
class Manifest:
    project: ProjectSettings = ProjectSettings()
    channels: dict[str, ChannelSettings] = attrs.field(factory=_default_channels)
    source: tuple[DeclaredSource, ...] = ()
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
    # The project's sources: the workers' defaults merged with [[source]] (see
    # ``effective_sources``), in output order; and by target name, the ones it reads.
    sources: tuple[Source, ...] = ()
    read_by: dict[str, tuple[Source, ...]] = attrs.field(factory=dict)

    def sources_of(self, target: Target) -> tuple[Source, ...]:
        """The sources ``target`` reads, in output order (see ``target_sources``)."""
        return self.read_by[target.name]

    def source_key(self, source: Source, field: str) -> str:
        """The manifest key that sets ``field`` of ``source``, for placing an error:
        ``source[2].file``, or ``project.sources`` for a default nobody declared."""
        for index, declared in enumerate(self.manifest.source):
            if declared.name == source.name:
                return f"source[{index}].{field}"
        return "project.sources"

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


def validate(manifest: Manifest, display: str) -> tuple[Source, ...]:
    """Cross-field rules cattrs cannot express, all problems at once; the effective sources."""
    workers = worker_registry()
    sources = effective_sources(manifest, workers)
    problems: list[Problem] = []

    def bad(key: str, message: str, hint: str | None = None) -> None:
        problems.append(Problem(message, Span(display, key=key), hint))

    for key, value in (
        ("project.sources", manifest.project.sources),
        ("project.out", manifest.project.out),
    ):
        _check_path_key(value, key, bad)
    if same_or_inside(manifest.project.sources, manifest.project.out):
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
    _validate_sources(manifest, sources, bad)
    for name in manifest.variants.platforms:
        _check_folder_name("variants.platforms", "platform", name, sources, bad)
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
    _validate_targets(manifest, sources, workers, bad)
    for index, pattern in enumerate(manifest.project.ignore):
        if not pattern.strip():
            bad(f"project.ignore[{index}]", "an empty pattern matches nothing")
    if problems:
        raise HotplexError(problems)
    return sources


# A job folder is out/<target>/<platform or JOB_BASE>/: no platform may take the base's name.
JOB_BASE = "default"


def _check_folder_name(
    key: str, kind: str, name: str, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    """A platform or bot name becomes a folder (dist/cc/<platform>/, <platform>/<bot>/), so it
    must be a plain ASCII name that takes no other folder's or file's place."""
    if not _NAME.fullmatch(name):
        bad(
            key,
            f"{kind} '{name}' must be ASCII letters, digits, '-', '_' or '.', starting with a"
            " letter or digit (it names a folder)",
        )
    elif name.casefold() == JOB_BASE:
        bad(
            key,
            f"'{name}' is reserved: the artifact without a platform is built in the folder"
            f" '{JOB_BASE}/' of each target",
            "pick another name; `base = true` on a target already builds the default artifact",
        )
    elif name.casefold() in {posixpath.basename(s.file).casefold() for s in sources}:
        bad(key, f"'{name}' is reserved: it is the file name of a source")


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


def same_or_inside(inner: str, outer: str) -> bool:
    inner_parts = [p for p in inner.replace("\\", "/").split("/") if p not in ("", ".")]
    outer_parts = [p for p in outer.replace("\\", "/").split("/") if p not in ("", ".")]
    return inner_parts[: len(outer_parts)] == outer_parts


def effective_sources(manifest: Manifest, workers: dict[str, Any]) -> tuple[Source, ...]:
    """The sources every job draws from, by one rule a user can predict from the manifest:

    the default sources of the project's workers come first (each name once, in the order of the
    first target whose worker has it); a ``[[source]]`` with a default's name, or else with a
    default's file, changes the keys it sets (its name too) in that default's place; any other
    ``[[source]]`` is added after them, in the order written. With ``[project] default_sources =
    false`` only the ``[[source]]`` tables count, in their order. A new source without file,
    channel and tag is left out (``validate`` says so).
    """
    merged: dict[str, Source] = {}
    if manifest.project.default_sources:
        for target in manifest.target:
            worker = workers.get(target.worker)
            for source in worker.default_sources(target) if worker is not None else ():
                merged.setdefault(source.name, source)
    by_file = {_folded(s.file): s.name for s in merged.values()}
    declared_names = {d.name for d in manifest.source}
    for declared in manifest.source:
        keys = declared.set_keys()
        same_file = by_file.get(_folded(declared.file or ""))
        if declared.name in merged:
            merged[declared.name] = attrs.evolve(merged[declared.name], **keys)
        elif same_file in merged and same_file not in declared_names:
            # Renamed in place: the dict is rebuilt to keep the default's position.
            merged = {
                (declared.name if name == same_file else name): (
                    attrs.evolve(source, name=declared.name, **keys)
                    if name == same_file
                    else source
                )
                for name, source in merged.items()
            }
        elif {"file", "channel", "tag"} <= keys.keys():
            merged[declared.name] = Source(declared.name, **keys)
    return tuple(merged.values())


def _folded(file: str) -> str:
    return posixpath.normpath(file.replace("\\", "/")).casefold()


def target_sources(
    manifest: Manifest, sources: tuple[Source, ...], workers: dict[str, Any]
) -> dict[str, tuple[Source, ...]]:
    """By target name, the sources it reads: every declared one, and the defaults of its own
    worker (IDENTITY.md, an OpenClaw default, does not reach a Claude Code target unless a
    ``[[source]] name = "identity"`` declares it); then its ``profile`` and ``keep`` choose."""
    declared = {d.name for d in manifest.source}
    read_by = {}
    for target in manifest.target:
        worker = workers.get(target.worker)
        own = {s.name for s in worker.default_sources(target)} if worker is not None else set()
        if not manifest.project.default_sources:
            own = set()
        mine = tuple(s for s in sources if s.name in declared or s.name in own)
        read_by[target.name] = target.kept_sources(mine)
    return read_by


def _validate_sources(
    manifest: Manifest, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    bare = effective_sources(attrs.evolve(manifest, source=()), worker_registry())
    defaults = {s.name for s in bare}
    default_files = {_folded(s.file) for s in bare}
    seen_names: set[str] = set()
    for index, declared in enumerate(manifest.source):
        key = f"source[{index}]"
        if declared.name in seen_names:
            bad(f"{key}.name", f"source name '{declared.name}' is used twice")
        seen_names.add(declared.name)
        missing = [k for k in ("file", "channel", "tag") if getattr(declared, k) is None]
        replaces = declared.name in defaults or _folded(declared.file or "") in default_files
        if not replaces and missing:
            hint = suggest(declared.name, sorted(defaults))
            known = ", ".join(sorted(defaults)) or "none ([project] default_sources = false)"
            for name in missing:
                bad(
                    f"{key}.{name}",
                    f"required key is missing: '{declared.name}' is no default source here, so"
                    " it needs file, channel and tag",
                    hint or f"the default sources: {known}",
                )
    by_name = {d.name: f"source[{i}]" for i, d in enumerate(manifest.source)}
    taken: dict[str, Source | None] = {c.tag.lower(): None for c in manifest.channels.values()}
    taken.update({"agent-configuration": None, "hotplex": None})
    for source in sources:
        key = by_name.get(source.name, "project.sources")
        owner = taken.get(source.tag.lower(), source)
        if not _TAG.fullmatch(source.tag):
            bad(f"{key}.tag", f"'{source.tag}' is not a valid tag name")
        elif owner is None:
            bad(f"{key}.tag", f"tag '{source.tag}' is already used by another section")
        elif owner is not source and owner.name not in by_name:
            bad(
                f"{key}.tag",
                f"tag '{source.tag}' is already used by the default source '{owner.name}'"
                f" ({owner.file})",
                f"name this source '{owner.name}' to change that default instead, or set"
                " [project] default_sources = false to declare every source yourself",
            )
        elif owner is not source:
            bad(f"{key}.tag", f"tag '{source.tag}' is already used by source '{owner.name}'")
        taken.setdefault(source.tag.lower(), source)
        _check_path_key(source.file, f"{key}.file", bad)
        if source.channel not in manifest.channels:
            bad(f"{key}.channel", f"channel '{source.channel}' is not defined under [channels]")


def worker_registry() -> dict[str, Any]:
    """The built-in workers by name (``hotplex.targets.WORKERS``)."""
    from hotplex.targets import WORKERS  # the registry is light; imported here to avoid a cycle

    return WORKERS


def _validate_targets(
    manifest: Manifest,
    sources: tuple[Source, ...],
    workers: dict[str, Any],
    bad: typing.Callable[..., None],
) -> None:
    if not manifest.target:
        bad(
            "target",
            "no [[target]] is declared",
            'add one, e.g. [[target]] name = "cc" worker = "claude-code"',
        )
    names: set[str] = set()
    source_names = [s.name for s in sources]
    for index, target in enumerate(manifest.target):
        key = f"target[{index}]"
        if not _NAME.fullmatch(target.name):
            bad(
                f"{key}.name",
                f"target name '{target.name}' must be ASCII letters, digits, '-', '_' or '.' "
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
            _check_folder_name(f"{key}.bot", "bot", target.bot, sources, bad)
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
    sources = validate(manifest, display)
    _check_folders_on_disk(root, manifest.project, display)
    read_by = target_sources(manifest, sources, worker_registry())
    return Model(manifest, root, path, display, sources, read_by)


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
    if not os.path.isdir(sources):
        _no_sources_folder(root, project.sources, display)
    if os.path.commonpath([sources, out]) == out:
        raise HotplexError.single(
            f"the artifact folder '{project.out}' resolves to '{out}', which is or contains "
            f"the sources folder '{sources}' (a symlink)",
            Span(display, key="project.out"),
        )


def _no_sources_folder(root: Path, sources: str, display: str) -> typing.NoReturn:
    """A missing sources folder would build artifacts holding nothing but the built-in block."""
    import os

    rel = posixpath.normpath(sources.replace("\\", "/"))
    parent = posixpath.dirname(rel)
    try:
        with os.scandir(root / parent) as entries:
            folders = sorted(
                posixpath.join(parent, e.name)
                for e in entries
                if e.is_dir() and not e.name.startswith(".")
            )
    except OSError:
        folders = []
    hint = suggest(rel, folders) or (
        "folders there: " + ", ".join(folders)
        if folders
        else "create it, or set [project] sources to the folder holding your Markdown files"
    )
    raise HotplexError.single(
        f"the sources folder '{rel}' does not exist in {root}",
        Span(display, key="project.sources"),
        hint=hint,
    )
