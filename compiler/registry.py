"""The workers hotplex knows, by the name a manifest gives them (``[[target]] worker = ...``).

Each is named by a ``"module:Class"`` string and imported on first use, so no core module has an
import edge to a worker: the core asks this module, and the model hands each target's worker to
the stages after the manifest (``Model.workers``, ``Job.worker``). Adding a worker is its module,
one line in ``BUILT_IN`` and the few more steps of "Writing a worker" (docs/pages/contributing.md).
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hotplex.worker import Worker

# Name -> "module:Class"; this order is the order users see (hints, ``hotplex init``, the
# README's worker table, the documentation site).
BUILT_IN = (
    ("claude-code", "hotplex.targets.claude_code:ClaudeCode"),
    ("opencode-server", "hotplex.targets.opencode_server:OpenCodeServer"),
    ("openclaw", "hotplex.targets.openclaw.worker:OpenClaw"),
    ("codex", "hotplex.targets.codex:Codex"),
    ("gemini-cli", "hotplex.targets.gemini_cli:GeminiCli"),
    ("pi", "hotplex.targets.pi:Pi"),
    ("copilot-cli", "hotplex.targets.copilot_cli:CopilotCli"),
    ("cline", "hotplex.targets.cline:Cline"),
    ("qwen-code", "hotplex.targets.qwen_code:QwenCode"),
    ("kilo", "hotplex.targets.kilo:Kilo"),
    ("aider", "hotplex.targets.aider:Aider"),
    ("continue-cli", "hotplex.targets.continue_cli:ContinueCli"),
    ("mistral-vibe", "hotplex.targets.mistral_vibe:MistralVibe"),
    ("cursor", "hotplex.targets.cursor:Cursor"),
    ("copilot", "hotplex.targets.copilot:Copilot"),
    ("windsurf", "hotplex.targets.windsurf:Windsurf"),
    ("zed", "hotplex.targets.zed:Zed"),
    ("junie", "hotplex.targets.junie:Junie"),
    ("kiro", "hotplex.targets.kiro:Kiro"),
    ("droid", "hotplex.targets.droid:Droid"),
    ("hermes-agent", "hotplex.targets.hermes_agent:HermesAgent"),
)


def names() -> tuple[str, ...]:
    """Every worker's name, without importing one."""
    return tuple(name for name, _ in BUILT_IN)


# The workers imported so far, by name: ``workers()`` fills it in ``BUILT_IN`` order, ``get``
# one at a time (a build imports only the workers its manifest names).
_loaded: dict[str, Worker] = {}


@functools.cache
def workers() -> dict[str, Worker]:
    """Every worker, imported once; the one dict the core looks workers up in."""
    ordered = {name: _import(name, spec) for name, spec in BUILT_IN}
    added = {name: w for name, w in _loaded.items() if name not in ordered}
    _loaded.clear()
    _loaded.update(ordered, **added)
    return _loaded


def all_imported() -> bool:
    """Whether ``workers()`` has been asked: every worker is imported (and a test or a plug-in
    may have added one to its dict)."""
    return workers.cache_info().currsize > 0


def get(name: str) -> Worker | None:
    """The worker named ``name`` (None: no such worker), importing it alone."""
    if name not in _loaded:
        spec = dict(BUILT_IN).get(name)
        if spec is None:
            return None
        _import(name, spec)
    return _loaded[name]


def _import(name: str, spec: str) -> Worker:
    if name not in _loaded:
        module, _, cls = spec.partition(":")
        _loaded[name] = getattr(import_module(module), cls)()
    return _loaded[name]


def scaffold_defaults() -> tuple[str, ...]:
    """The workers ``hotplex init`` and ``hotplex import`` scaffold unless told otherwise."""
    return tuple(name for name, worker in workers().items() if worker.scaffold_default)
