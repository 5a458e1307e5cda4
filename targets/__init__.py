"""Built-in workers, by the name a manifest gives them (``[[target]] worker = ...``).

A worker is one module holding one ``hotplex.worker.Worker`` subclass; adding one is that module
and one line here.
"""

from __future__ import annotations

from hotplex.targets import claude_code, codex, gemini_cli, opencode_server
from hotplex.targets.openclaw import worker as openclaw
from hotplex.worker import Worker

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
