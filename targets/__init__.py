"""Built-in workers, by the name a manifest gives them (``[[target]] worker = ...``)."""

from __future__ import annotations

from types import ModuleType

from . import claude_code, codex, gemini_cli, openclaw, opencode_server

WORKERS: dict[str, ModuleType] = {
    claude_code.NAME: claude_code,
    opencode_server.NAME: opencode_server,
    openclaw.NAME: openclaw,
    codex.NAME: codex,
    gemini_cli.NAME: gemini_cli,
}
