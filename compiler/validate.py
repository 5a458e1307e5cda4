"""Cross-field rules of a manifest that the converter cannot express; all problems at once."""

from __future__ import annotations

import posixpath
import re
import typing

from hotplex.targets import WORKERS

from .assemble import BUILT_IN_TAGS
from .errors import HotplexError, Problem, Span, suggest
from .model import BUILTIN_VARS, Manifest, Secrets, Target, Unicode

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def validate(manifest: Manifest, display: str) -> None:
    """Cross-field rules cattrs cannot express; all problems at once."""
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
    _validate_unicode(manifest.unicode, bad)
    if manifest.memory.logs is not None:
        from .memory_logs import validate_glob

        validate_glob(manifest, bad)
    _validate_targets(manifest, bad)
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


def _validate_unicode(unicode: Unicode, bad: typing.Callable[..., None]) -> None:
    from .hidden import allow_entry, unknown_entry_hint

    for index, entry in enumerate(unicode.allow):
        if allow_entry(entry) is None:
            bad(
                f"unicode.allow[{index}]",
                f"'{entry}' is not a code point, a character name or a rule",
                unknown_entry_hint(entry),
            )


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
    seen_tags = {c.tag.lower() for c in manifest.channels.values()} | set(BUILT_IN_TAGS)
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


def _validate_targets(manifest: Manifest, bad: typing.Callable[..., None]) -> None:
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
        worker = WORKERS.get(target.worker)
        if worker is None:
            hint = suggest(target.worker, WORKERS) or "known workers: " + ", ".join(sorted(WORKERS))
            bad(f"{key}.worker", f"unknown worker '{target.worker}'", hint)
            continue
        for option in target.misplaced:
            bad(f"{key}.{option}", f"'{option}' does not apply to worker '{target.worker}'")
        for problem in worker.validate(target, manifest):
            place = f"{key}.{problem.key}" if problem.at_target else problem.key
            bad(place, problem.message, problem.hint)


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
