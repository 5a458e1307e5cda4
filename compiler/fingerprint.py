"""What determines an artifact's bytes besides its input files, as named hashes.

Each job's key is a small mapping (compiler, worker profile, target, layout, limits, vars); keeping
the parts apart lets ``--explain`` say which one moved.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from . import __version__

_PACKAGE_SUFFIXES = (".py", ".md", ".lark", ".toml")


@lru_cache(maxsize=1)
def package_files() -> tuple[Path, ...]:
    """The installed files of hotplex that can change an artifact (code, grammar, built-in text).

    Found without importing the subpackages, so the no-op path stays cheap.
    """
    folders = []
    for name in ("hotplex", "hotplex.targets", "hotplex.grammar"):
        spec = find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p) for p in spec.submodule_search_locations)
    return tuple(
        sorted(f for folder in folders for f in folder.iterdir() if f.suffix in _PACKAGE_SUFFIXES)
    )


def _digest(value: object) -> str:
    data = (
        value
        if isinstance(value, bytes)
        else json.dumps(value, sort_keys=True, default=str).encode()
    )
    return hashlib.sha256(data).hexdigest()[:16]


@lru_cache(maxsize=1)
def _file_digests() -> dict[str, str]:
    return {
        f.name if f.parent.name != "targets" else f"targets/{f.name}": _digest(f.read_bytes())
        for f in package_files()
    }


def compiler_digest() -> str:
    """Everything of hotplex but the worker modules, plus its version."""
    parts = {k: v for k, v in _file_digests().items() if not k.startswith("targets/")}
    return _digest([__version__, parts])


def profile_digest(worker_module_file: str) -> str:
    """The worker's own module and the shared target helpers."""
    digests = _file_digests()
    own = f"targets/{Path(worker_module_file).name}"
    shared = {
        k: v
        for k, v in digests.items()
        if k in ("targets/base.py", "targets/agent_configuration.py")
    }
    return _digest([digests.get(own, ""), shared])


def digest(value: object) -> str:
    return _digest(value)
