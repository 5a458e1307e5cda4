"""What determines an artifact's bytes besides its input files, as named hashes.

Each job's key is a small mapping (compiler, worker profile, target, layout, limits, vars); keeping
the parts apart lets ``--explain`` say which one moved.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from hotplex import __version__
from hotplex.fs import Stamp, stamp

_PACKAGE_SUFFIXES = (".py", ".md", ".lark", ".toml")
_PACKAGES = (
    "hotplex",
    "hotplex.manifest",
    "hotplex.templates",
    "hotplex.sources",
    "hotplex.scanning",
    "hotplex.document",
    "hotplex.build",
    "hotplex.commands",
    "hotplex.importing",
    "hotplex.targets",
    "hotplex.targets.openclaw",
    "hotplex.grammar",
)


@lru_cache(maxsize=1)
def package_files() -> tuple[tuple[str, Path], ...]:
    """The installed files of hotplex that can change an artifact (code, grammar, built-in text),
    each with a name unique across the packages (``hotplex.targets.openclaw/worker.py``).

    Found without importing the subpackages, so the no-op path stays cheap.
    """
    found = []
    for package in _PACKAGES:
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            found.extend(
                (f"{package}/{f.name}", f)
                for f in Path(folder).iterdir()
                if f.suffix in _PACKAGE_SUFFIXES
            )
    return tuple(sorted(found))


@lru_cache(maxsize=1)
def package_state() -> tuple[dict[str, Stamp], dict[str, str]]:
    """Stamps and digests of the package files, the stamps taken *before* the reads: a file
    edited meanwhile then shows a stamp the next build does not trust, never the reverse."""
    stamps = {str(path): s for _, path in package_files() if (s := stamp(path)) is not None}
    digests = {name: _digest(path.read_bytes()) for name, path in package_files()}
    return stamps, digests


def _digest(value: object) -> str:
    data = (
        value
        if isinstance(value, bytes)
        else json.dumps(value, sort_keys=True, default=str).encode()
    )
    return hashlib.sha256(data).hexdigest()[:16]


@lru_cache(maxsize=1)
def compiler_digest() -> str:
    """Everything of hotplex but the worker modules, plus its version and Python's."""
    digests = package_state()[1]
    workers = ("hotplex.targets/", "hotplex.targets.")  # hotplex.targets and its packages
    parts = {k: v for k, v in digests.items() if not k.startswith(workers)}
    return _digest([__version__, list(sys.version_info[:2]), parts])


def profile_files(modules: tuple[str, ...]) -> dict[str, Path | None]:
    """The files of a worker's modules (``Worker.modules``): editing one changes what that worker
    emits. A module outside hotplex (a plug-in) is found where Python loaded it from."""
    installed = dict(package_files())
    found: dict[str, Path | None] = {}
    for module in modules:
        package, _, name = module.rpartition(".")
        key = f"{package}/{name}.py"
        if key in installed:
            found[key] = installed[key]
        else:
            loaded = sys.modules.get(module)
            file = getattr(loaded, "__file__", None)
            found[module] = Path(file) if file else None
    return found


@lru_cache(maxsize=16)
def profile_digest(modules: tuple[str, ...]) -> str:
    digests = package_state()[1]
    parts = {
        key: digests[key] if key in digests else _digest(path.read_bytes() if path else b"")
        for key, path in profile_files(modules).items()
    }
    return _digest(parts)


def digest(value: object) -> str:
    return _digest(value)
