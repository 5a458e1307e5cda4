"""hotplex: compile agent-context Markdown into exact per-worker artifacts.

The library API for gateways::

    from hotplex import Project

    project = Project.load("path/to/project")      # parse and validate once
    prompt = project.compile("cc", platform="slack").text   # per session, in memory

The public names are imported on first use (module ``__getattr__``, PEP 562), so ``import hotplex``
costs next to nothing and the command line's no-op path loads only what it needs.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

# Public name -> the submodule that defines it.
_LAZY = {
    "Project": "api",
    "Artifact": "api",
    "HotplexError": "errors",
    "BuildFailed": "errors",
    "Problem": "errors",
    "Span": "errors",
}
__all__ = [
    "Artifact",
    "BuildFailed",
    "HotplexError",
    "Problem",
    "Project",
    "Span",
    "__version__",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hotplex' has no attribute '{name}'")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
