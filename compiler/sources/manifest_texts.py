"""The manifest's own texts that reach an artifact as written, each scanned for secrets and hidden
text at its key path like a source's text (``Reader.check_setting``): notes, the target's
``cwd`` (launch.json) and every text of its worker options (a sub-agent's role, description and
model, OpenClaw's workspace), whatever worker declares them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hotplex.generated import attrs

if TYPE_CHECKING:
    from hotplex.sources.reader import Reader


def check(resolver: Reader) -> None:
    """Scan every text of the manifest that reaches the job's artifacts as it is written."""
    model = resolver.model
    manifest = model.manifest
    for source in model.sources_of(resolver.job.target):
        resolver.check_setting(source.note, model.source_key(source, "note"))
    for name, channel in manifest.channels.items():
        resolver.check_setting(channel.note, f"channels.{name}.note")
    if manifest.metacognition.enabled:
        resolver.check_setting(manifest.metacognition.note, "metacognition.note")
    target = resolver.job.target
    key = f"target[{model.target_index(target)}]"
    resolver.check_setting(target.cwd, f"{key}.cwd")  # launch.json's cwd
    for where, text in _option_texts(target.options, key):
        resolver.check_setting(text, where)


def _option_texts(value: object, key: str) -> Iterator[tuple[str, str]]:
    """Every text of a worker's target options, with its key path: a worker writes them into its
    files (a sub-agent's role and description, OpenClaw's workspace), so each is scanned like a
    note, whatever worker declares it."""
    if isinstance(value, str):
        yield key, value
    elif attrs.has(type(value)):
        for name in attrs.fields_dict(type(value)):
            yield from _option_texts(getattr(value, name), f"{key}.{name}")
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _option_texts(item, f"{key}.{name}")
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _option_texts(item, f"{key}[{index}]")
