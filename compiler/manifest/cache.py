"""The structured manifest, kept in ``.hotplex/manifest.json`` so an unchanged manifest is not
structured and validated again (that needs cattrs, a third of a small rebuild's time).

The cache is keyed by the manifest's bytes and hotplex's own files, and holds the validated
model as tagged JSON: each attrs instance names its class, which must be one of the model's or a
registered worker's options class; anything else, or any other surprise, is a miss. Its first
line holds the key and the digest of the model's line, so a model edited by hand (a value of
another type, which validation would have refused) is a miss too, not a model no check has seen.
Never pickle: the file is plain data that this module parses and checks. Like the build log it
is disposable: deleting it costs one structuring.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from hotplex.errors import HotplexError
from hotplex.fs import STATE_DIR
from hotplex.generated import attrs
from hotplex.manifest import model
from hotplex.writes import write_atomic

CACHE_NAME = "manifest.json"
FORMAT = 2


def key(data: bytes, display: str) -> str:
    """What decides the model: the manifest's bytes, its name, and hotplex's own files."""
    from hotplex.fingerprint import package_state

    own = json.dumps(package_state()[1], sort_keys=True).encode()
    return hashlib.sha256(b"\0".join([data, display.encode(), own])).hexdigest()


def load(state_dir: Path, wanted: str) -> model.Manifest | None:
    try:
        head, _, body = (state_dir / CACHE_NAME).read_bytes().partition(b"\n")
        data = json.loads(head)
        if data["format"] != FORMAT or data["key"] != wanted:
            return None
        if data["digest"] != hashlib.sha256(body).hexdigest():
            return None
        found = _decode(json.loads(body), _classes())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return found if isinstance(found, model.Manifest) else None


def save(loaded: model.Model, cache_key: str) -> None:
    """Keep the model for the next build, once a build has finished with it (the log comes
    first on a nearly full disk); a cache that cannot be written is only a miss next time."""
    body = _compact(_encode(loaded.manifest))
    head = {"format": FORMAT, "key": cache_key, "digest": hashlib.sha256(body).hexdigest()}
    with contextlib.suppress(HotplexError, OSError):
        write_atomic(loaded.root / STATE_DIR / CACHE_NAME, _compact(head) + b"\n" + body)


def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


class _Classes(dict):
    """The classes a cached model may name: the model's own, and a worker's options class
    (``worker:NAME``) or one it is made of (``worker:NAME:Class``), looked up when named, so
    only the workers the manifest uses are imported."""

    def __missing__(self, name: str) -> type:
        from hotplex import registry

        _, worker_name, *nested = name.split(":") if name.startswith("worker:") else ("", "")
        worker = registry.get(worker_name)
        if worker is None or len(nested) > 1:
            raise KeyError(name)
        found = {k.__name__: k for k in _nested(worker.Options)}
        kind = found[nested[0]] if nested else worker.Options
        self[name] = kind
        return kind


def _classes() -> dict[str, type]:
    from hotplex.worker import NoOptions

    found = _Classes(
        (name, value)
        for name, value in vars(model).items()
        if isinstance(value, type) and attrs.has(value) and value.__module__ == model.__name__
    )
    found["NoOptions"] = NoOptions
    return found


def _nested(options: type) -> list[type]:
    """The attrs classes an ``Options`` class is made of (a table of sub-agents), from its
    module: the ones its fields name."""
    import sys

    module = vars(sys.modules[options.__module__])
    return [
        value
        for value in module.values()
        if isinstance(value, type)
        and attrs.has(value)
        and value is not options
        and value.__module__ == options.__module__
    ]


def _encode(value: Any) -> Any:
    if attrs.has(type(value)):
        fields = {a.name: _encode(getattr(value, a.name)) for a in attrs.fields(type(value))}
        return {"$class": _name(type(value)), "fields": fields}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, dict):
        return {"$dict": {k: _encode(v) for k, v in value.items()}}
    if value is None or isinstance(value, (str, int, bool, float)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _name(kind: type) -> str:
    if kind.__module__ == model.__name__ or kind.__name__ == "NoOptions":
        return kind.__name__
    from hotplex import registry

    for name, worker in registry.workers().items():
        if worker.Options is kind:
            return f"worker:{name}"
        if kind in _nested(worker.Options):
            return f"worker:{name}:{kind.__name__}"
    raise TypeError(f"cannot cache a {kind.__name__}")


def _decode(value: Any, classes: dict[str, type]) -> Any:
    if isinstance(value, dict):
        if "$class" in value:
            kind = classes[value["$class"]]
            fields = value["fields"]
            if set(fields) != {a.name for a in attrs.fields(kind)}:
                raise ValueError("fields differ")
            return kind(**{k: _decode(v, classes) for k, v in fields.items()})
        if "$tuple" in value:
            return tuple(_decode(v, classes) for v in value["$tuple"])
        return {k: _decode(v, classes) for k, v in value["$dict"].items()}
    if value is None or isinstance(value, (str, int, bool, float)):
        return value
    raise ValueError("unexpected value")
