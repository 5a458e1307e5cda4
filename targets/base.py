"""What a worker is: a plain module with these names (pre-commit's plug-in shape).

``NAME``            the manifest's ``worker`` value
``OPTIONS``         worker-specific target keys it accepts (others are errors)
``validate_target`` extra checks of a target, as (key, message) pairs
``emit``            sections of one job -> the job's files and report

Workers receive rendered sections and decide what the worker needs: the XML workers sanitize,
limit and assemble; OpenClaw writes its workspace and predicts its own truncation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from hotplex.limits import Truncation
from hotplex.model import Model, Target


@dataclass(frozen=True)
class Section:
    """One source after resolution, frontmatter stripping and rendering; not yet sanitized."""

    name: str
    tag: str
    channel: str
    note: str
    text: str
    files: tuple[str, ...]  # display paths of the files it came from, base first


@dataclass(frozen=True)
class Job:
    """One artifact folder: a target, built for one platform or for the base (None)."""

    target: Target
    platform: str | None

    @property
    def id(self) -> str:
        return f"{self.target.name}/{self.platform or 'default'}"

    def out_dir(self, model: Model) -> str:
        return f"{model.out_dir}/{self.id}"


def plan(model: Model) -> list[Job]:
    """Every job the manifest asks for, in manifest order: each target's base artifact (unless
    ``base = false``), then one per platform."""
    jobs = []
    for target in model.manifest.target:
        if target.base:
            jobs.append(Job(target, None))
        jobs.extend(Job(target, p) for p in model.platforms_of(target))
    return jobs


@dataclass(frozen=True)
class Emitted:
    files: dict[str, bytes]  # project-relative path -> bytes, in a stable order
    primary: str  # the file a user means by "the artifact" (shown by `hotplex show`)
    truncations: tuple[Truncation, ...] = ()
    warnings: tuple[str, ...] = ()
    # Per-section sizes for `hotplex stats`: (section, files, raw size, injected size, unit).
    sizes: tuple[tuple[str, tuple[str, ...], int, int, str], ...] = field(default=())


class Worker(Protocol):
    NAME: str
    OPTIONS: frozenset[str]

    def validate_target(self, target: Target) -> Iterable[tuple[str, str]]: ...

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted: ...


def json_bytes(value: object) -> bytes:
    """Deterministic JSON: sorted keys, two-space indent, UTF-8, final newline."""
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
