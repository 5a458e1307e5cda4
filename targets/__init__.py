"""Built-in workers, by the name a manifest gives them (``[[target]] worker = ...``).

A worker is one module holding one ``hotplex.worker.Worker`` subclass; adding one is that module
and one line here.
"""

from __future__ import annotations

from hotplex.worker import Worker

from . import claude_code, codex, gemini_cli, openclaw, opencode_server

WORKERS: dict[str, Worker] = {
    worker.name: worker
    for worker in (
        claude_code.ClaudeCode(),
        opencode_server.OpenCodeServer(),
        openclaw.OpenClaw(),
        codex.Codex(),
        gemini_cli.GeminiCli(),
    )
}
