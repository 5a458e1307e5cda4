"""TOML mapping -> typed manifest, with the strict cattrs converter; every problem has a key path.

No silent coercion (``"false"`` is not a boolean, ``8000.5`` not an integer, ``"slack"`` not a
list), unknown keys get a "did you mean". A target's keys are its own plus its worker's
``Options`` (``worker.py``): each worker gets a target class of both, made once, so a misspelt
option is placed and suggested like any other key.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal

import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from hotplex import registry
from hotplex.errors import HotplexError, Problem, Span, suggest
from hotplex.generated import attrs
from hotplex.manifest.model import Manifest, Target, default_channels
from hotplex.worker import NoOptions

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
    converter.register_structure_hook(Target, lambda raw, _: _structure_target(converter, raw))
    return converter


class _TargetOf:
    """Marks a class made by ``_target_class``: which worker's options it carries."""

    worker: str | None
    option_names: tuple[str, ...]


@functools.cache
def _target_class(worker: str | None) -> type:
    """Target's own keys plus ``worker``'s options, as one attrs class for the converter; for an
    unknown worker, every worker's option keys are accepted unchecked (the worker is the error)."""
    attrs.resolve_types(Target)
    own = {a.name: a for a in attrs.fields(Target) if a.name not in ("options", "misplaced")}
    these = {
        name: attrs.field(type=a.type, default=a.default, kw_only=True) for name, a in own.items()
    }
    # Other workers' options are taken unchecked, so that validation can say they do not apply
    # alongside every other problem of the manifest.
    for other in registry.workers().values():
        these.update(
            (a.name, attrs.field(type=Any, default=None, kw_only=True))
            for a in attrs.fields(other.Options)
        )
    option_fields = []
    declared = registry.get(worker) if worker is not None else None
    if declared is not None:
        options_class = declared.Options
        attrs.resolve_types(options_class)
        option_fields = list(attrs.fields(options_class))
        these.update(
            (a.name, attrs.field(type=a.type, default=a.default, kw_only=True))
            for a in option_fields
        )
    suffix = "".join(c if c.isalnum() else "_" for c in worker or "any")
    made = attrs.make_class(f"Target_{suffix}", these, bases=(_TargetOf,), frozen=True)
    made.worker = worker
    made.option_names = tuple(a.name for a in option_fields)
    return made


def _structure_target(converter: cattrs.Converter, raw: Any) -> Target:
    if not isinstance(raw, dict):
        raise TypeError(f"expected a table, got {_describe(raw)}")
    worker = raw.get("worker")
    made = converter.structure(raw, _target_class(worker if isinstance(worker, str) else None))
    values = attrs.asdict(made, recurse=False)
    options = {name: values.pop(name) for name in made.option_names}
    own = set(attrs.fields_dict(Target)) - {"options", "misplaced"}
    misplaced = tuple(k for k, v in values.items() if k not in own and v is not None)
    values = {k: v for k, v in values.items() if k in own}
    declared = registry.get(made.worker) if made.worker is not None else None
    worker_class = declared.Options if declared is not None else NoOptions
    return Target(**values, options=worker_class(**options), misplaced=misplaced)


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
    if origin in (typing.Union, types.UnionType):
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
    return attrs.evolve(manifest, channels={**default_channels(), **manifest.channels})
