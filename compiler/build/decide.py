"""Deciding what is dirty and why, as ninja's ``graph.cc`` does: a job's key parts, then every
reason its record no longer holds. Pure: what is true now comes in as values and lookups."""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import cached_property
from typing import Any

from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.records import JobRecord, Stamped

KEY_REASONS = {
    "compiler": "hotplex itself changed",
    "profile": "worker profile changed",
    "target": "target settings changed",
    "layout": "sources, channels, variants or scan settings changed",
    "limits": "limits changed",
}


class Keys:
    """The key parts of each job of one model: what decides its bytes besides its input files.
    Shared parts are computed once per build, a target's once per target."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._targets: dict[str, str] = {}

    @cached_property
    def _shared(self) -> dict[str, str]:
        from hotplex import fingerprint

        manifest = self.model.manifest
        layout = [
            plain(manifest.project),
            plain(manifest.channels),
            plain(self.model.sources),
            plain(manifest.variants, drop=("platforms",)),
            plain(manifest.metacognition),
            plain(manifest.secrets),
            plain(manifest.unicode),
            plain(manifest.injection),
            plain(manifest.skills),
            plain(manifest.memory),
        ]
        return {
            "compiler": fingerprint.compiler_digest(),
            "layout": fingerprint.digest(layout),
            "limits": fingerprint.digest(plain(manifest.limits)),
        }

    def of(self, job: Job) -> dict[str, str]:
        from hotplex import fingerprint

        target = job.target
        if target.name not in self._targets:
            settings = plain(target, drop=("platforms", "vars", "base"))
            self._targets[target.name] = fingerprint.digest(settings)
        shared = self._shared
        return {
            "compiler": shared["compiler"],
            "profile": fingerprint.profile_digest(fingerprint.worker_modules(type(job.worker))),
            "target": self._targets[target.name],
            "layout": shared["layout"],
            "limits": shared["limits"],
        }


def reasons(
    record: JobRecord | None,
    keys: dict[str, str],
    variables: dict[str, str],
    input_digest: Callable[[str], str | None],
    output_digest: Callable[[str, Stamped], str | None],
    origin: Callable[[str], str | None] | None = None,
) -> list[str]:
    """Why the job must be rebuilt; empty when its record still holds. ``origin`` names where
    an input came from, when not from the project (a package at its commit)."""
    if record is None:
        return ["not built before"]
    found = [KEY_REASONS[k] for k in keys if record.keys.get(k) != keys[k]]
    found += [f"variable '{name}' changed" for name in changed_variables(record, variables)]
    for path, old in record.inputs.items():
        new = input_digest(path)
        if new != old:
            came = origin(path) if origin is not None else None
            found.append(input_reason(path, old, new) + (f" ({came})" if came else ""))
    for path, recorded in record.outputs.items():
        current = output_digest(path, recorded)
        if current is None:
            found.append(f"output missing: {path}")
        elif current != recorded.digest:
            found.append(f"output edited by hand: {path}")
    return found


def input_reason(path: str, old: str | None, new: str | None) -> str:
    """Why an input whose digest moved from ``old`` to ``new`` rebuilds (None: absent)."""
    if old is None:
        return f"new input {path}"
    return f"{path} removed" if new is None else f"{path} changed"


def changed_variables(record: JobRecord, current: dict[str, str]) -> list[str]:
    """The template variables the job's files read last time whose values moved since: a
    variable no file reads can change without rebuilding anything."""
    return [name for name, old in record.variables.items() if current.get(name) != old]


def still_current(
    record: JobRecord,
    keys: dict[str, str],
    variables: dict[str, str],
    input_digest: Callable[[str], str | None],
) -> bool:
    """A job a build did not select (``build TARGET``): do its record's keys, variables and
    inputs still hold, so that the snapshot may cover it?"""
    if record.keys != keys or changed_variables(record, variables):
        return False
    return all(input_digest(p) == d for p, d in record.inputs.items())


def check_verdict(
    on_disk: dict[str, str | None],
    changed: list[str],
    recorded: dict[str, Stamped],
    reasons: list[str],
) -> tuple[str, list[str], dict[str, str]]:
    """What `check` says of a job it compiled, as a whole and of each file a build would write:
    missing, else edited (the bytes on disk are not the ones hotplex last wrote), else stale; a
    file not written is current, and so is the set when none is. Without a record (a fresh
    clone) the reasons are the differing files."""
    if not changed:
        return "current", [], {}
    if not recorded:
        reasons = [
            f"output missing: {p}" if on_disk[p] is None else f"{p} differs from a fresh build"
            for p in changed
        ]
    files = {p: _file_verdict(on_disk[p], recorded.get(p)) for p in changed}
    worst = next(s for s in ("missing", "edited", "stale") if s in files.values())
    return worst, reasons, files


def _file_verdict(on_disk: str | None, recorded: Stamped | None) -> str:
    if on_disk is None:
        return "missing"
    return "edited" if recorded is not None and on_disk != recorded.digest else "stale"


def plain(value: Any, drop: tuple[str, ...] = ()) -> Any:
    """attrs instances as plain data, for hashing: each field as ``attrs.asdict`` without
    recursion gives it, by names looked up once per class (a rebuilt set's target is walked
    at every build, and ``asdict`` per instance cost more than the digest)."""
    names = _field_names(type(value))
    if names is not None:
        return {k: plain(getattr(value, k)) for k in names if k not in drop}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@functools.cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The names of an attrs class's fields, in order; None for any other class."""
    from hotplex.generated import attrs

    return tuple(f.name for f in attrs.fields(cls)) if attrs.has(cls) else None
