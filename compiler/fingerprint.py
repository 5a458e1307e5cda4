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

TYPE_CHECKING = False  # not typing's: importing typing costs milliseconds
if TYPE_CHECKING:
    from typing import Any

_PACKAGE_SUFFIXES = (".py", ".md", ".lark", ".toml")
_PACKAGES = (
    "hotplex",
    "hotplex.manifest",
    "hotplex.templates",
    "hotplex.sources",
    "hotplex.scanning",
    "hotplex.text",
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


# What the last finished build recorded of the package (``remember``): the stamp of every file
# (as the snapshot trusts it: -1 for one modified just before it was read), their digests and
# each worker's modules. Used only when every stamp is found again.
_RECORDED: dict[str, Any] = {}


def remember(recorded: dict[str, Any] | None) -> None:
    """Offer what the last build recorded (``recorded()``, kept in its snapshot): when no file
    of the package has moved since, its digests and workers' modules are taken from there
    instead of reading and hashing every file and parsing the workers' imports again."""
    _RECORDED.clear()
    if isinstance(recorded, dict):
        _RECORDED.update(recorded)


def recorded() -> dict[str, Any]:
    """What ``remember`` takes back: the package's stamps, digests, workers' modules and, once a
    build has needed them, the facts of every registered worker (``registered``)."""
    found = {
        "digests": package_state()[1],
        "workers": {_name(w): list(m) for w, m in _WORKER_MODULES.items()},
    }
    facts = _REGISTERED or _RECORDED.get("registered")
    return found | ({"registered": facts} if _facts_shape(facts) else {})


# What ``registered`` found in this process.
_REGISTERED: dict[str, Any] = {}


def registered() -> dict[str, Any]:
    """What a build needs of every registered worker, not only of those its manifest names:
    ``places``, the globs of the files their tools read where hotplex places them (a placed
    file whose target is gone, ``orphans.unlogged_placed``), and ``primaries``, each primary
    output with the outputs of the workers sharing it (``engine``). Taken from what the last
    build recorded while no file of the package has moved, unless every worker is imported
    already (a plug-in or a test may have registered one): importing all of them costs a build
    about 100 M instructions."""
    from hotplex import registry

    if not _REGISTERED:
        package_state()  # decides whether what the last build recorded holds
        known = _RECORDED.get("registered")
        if registry.all_imported() or not _facts_shape(known):
            known = _registered(registry.workers().values())
        _REGISTERED.update(known)
    elif registry.all_imported():
        return _registered(registry.workers().values())
    return _REGISTERED


def _registered(workers: Any) -> dict[str, Any]:
    primaries: dict[str, list[str]] = {}
    for worker in workers:
        (primary,) = (o.name for o in worker.outputs if o.primary)
        primaries.setdefault(primary, []).extend(o.name for o in worker.outputs)
    places = {w.places for w in workers if w.places}
    # Where a placing worker (an editor's) puts skills: each SKILL.md carries the marker too.
    skills = (w.skills for w in workers if w.places)
    places |= {f"{s.folder.format(name='*')}/SKILL.md" for s in skills if s is not None}
    return {"places": sorted(places), "primaries": primaries}


def _facts_shape(value: object) -> bool:
    if not isinstance(value, dict) or set(value) != {"places", "primaries"}:
        return False
    primaries = value["primaries"]
    return (
        _names(value["places"])
        and isinstance(primaries, dict)
        and all(_names(names) for names in primaries.values())
    )


def _names(value: object) -> bool:
    """A list of strings, as the snapshot recorded it (a hand-edited log may hold anything)."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


@lru_cache(maxsize=1)
def package_state() -> tuple[dict[str, Stamp], dict[str, str]]:
    """Stamps and digests of the package files, the stamps taken *before* the reads: a file
    edited meanwhile then shows a stamp the next build does not trust, never the reverse."""
    stamps = {str(path): s for _, path in package_files() if (s := stamp(path)) is not None}
    if _unmoved(stamps):
        return stamps, _RECORDED["digests"]
    _RECORDED.clear()  # the workers' modules recorded are not to be trusted either
    digests = {name: _digest(path.read_bytes()) for name, path in package_files()}
    return stamps, digests


def _unmoved(stamps: dict[str, Stamp]) -> bool:
    """Whether every package file has the stamp the last build recorded (and no file came or
    went), so that the digests it recorded still hold."""
    known = _RECORDED.get("stamps")
    if not isinstance(known, dict) or not isinstance(_RECORDED.get("digests"), dict):
        return False
    return known.keys() == stamps.keys() and all(
        isinstance(known[p], list) and known[p][: Stamp.WIDTH] == s.as_list()
        for p, s in stamps.items()
    )


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
    workers = (f"{WORKERS_PACKAGE}/", f"{WORKERS_PACKAGE}.")  # hotplex.targets and its packages
    parts = {k: v for k, v in digests.items() if not k.startswith(workers)}
    return _digest([__version__, list(sys.version_info[:2]), parts])


WORKERS_PACKAGE = "hotplex.targets"


_WORKER_MODULES: dict[type, tuple[str, ...]] = {}


def _name(worker: type) -> str:
    return f"{worker.__module__}.{worker.__qualname__}"


def worker_modules(worker: type) -> tuple[str, ...]:
    """The modules whose code decides what ``worker`` (a class) emits, derived so that none can be
    missed: the modules of the classes it is made of (its family's too) and, closed over, the
    worker modules they import, inside functions too. Core modules are in ``compiler_digest``;
    a plug-in's own modules are those of its top package."""
    if worker not in _WORKER_MODULES:
        package_state()  # decides whether what the last build recorded holds
        recorded = _RECORDED.get("workers")
        known = recorded.get(_name(worker)) if isinstance(recorded, dict) else None
        own = worker.__module__.partition(".")[0] == "hotplex"  # a plug-in's files are not stamped
        found = tuple(known) if own and _names(known) else _derive_modules(worker)
        _WORKER_MODULES[worker] = found
    return _WORKER_MODULES[worker]


def _derive_modules(worker: type) -> tuple[str, ...]:
    own = worker.__module__.partition(".")[0]

    def counted(module: str) -> bool:
        if module == WORKERS_PACKAGE or module.startswith(WORKERS_PACKAGE + "."):
            return True
        return own != "hotplex" and module.partition(".")[0] == own

    found = {k.__module__ for k in worker.__mro__ if counted(k.__module__)}
    queue = sorted(found)
    while queue:
        for imported in _imports(queue.pop()):
            if counted(imported) and imported not in found and _is_module(imported):
                found.add(imported)
                queue.append(imported)
    return tuple(sorted(found))


def _source_of(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    if file is None:
        spec = find_spec(module)
        file = spec.origin if spec is not None else None
    return Path(file) if file and file.endswith(".py") else None


def _is_module(name: str) -> bool:
    """A module of its own (not a package, nor a name imported from a module)."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):  # "a.b" where ``a`` is a module: b is one of its names
        return False
    return spec is not None and spec.submodule_search_locations is None


def _imports(module: str) -> set[str]:
    """Every module ``module`` names in an import statement, wherever it stands; for ``from a
    import b`` both ``a`` and ``a.b`` (``b`` may be a submodule)."""
    import ast

    path = _source_of(module)
    if path is None:
        return set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def profile_files(modules: tuple[str, ...]) -> dict[str, Path | None]:
    """The files of a worker's modules (``worker_modules``): editing one changes what that worker
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
