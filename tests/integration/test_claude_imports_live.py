"""Each rule of Claude Code's CLAUDE.md loading, checked against the real CLI.

For every case of ``claude_import_cases.CASES``, ``claude --print`` runs in the case's folder
against the fake Messages API; the files it loaded (its first user message) must be exactly what
hotplex's Claude Code artifact holds after ``hotplex import && hotplex build`` in the same
folder. The capture is also compared with the recording the unit tests use, so a new CLI that
changes a rule fails here with the difference. ``HOTPLEX_RECORD=1`` rewrites the recording.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from claude_import_cases import (
    CASES,
    RECORDED,
    captured_entries,
    comparable,
    hotplex_loaded,
    loaded,
    recorded,
    write_case,
)
from conftest import CLAUDE_TIMEOUT, claude_env

pytestmark = pytest.mark.integration


def capture(claude_cli, fake_anthropic, folder) -> list[tuple[str, str]]:
    done = subprocess.run(
        [str(claude_cli.path), "--print", "ping"],
        cwd=folder,
        env=claude_env(folder.parent / "home", fake_anthropic.url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLAUDE_TIMEOUT,
    )
    assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}"
    requests = fake_anthropic.message_requests()
    assert requests, f"no POST /v1/messages; saw {[r.path for r in fake_anthropic.requests]}"
    texts = []
    for request in requests:  # the session's request, not a side request such as a title
        first = request.body["messages"][0]["content"]
        texts.append(first[0]["text"] if isinstance(first, list) else first)
    memory = [text for text in texts if "Contents of " in text]
    return captured_entries(memory[0] if memory else texts[-1], folder)


@pytest.mark.parametrize("case", sorted(CASES))
def test_hotplex_loads_what_claude_code_loads(case, claude_cli, fake_anthropic, tmp_path):
    folder = write_case(tmp_path, case)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "home.md").write_text("from home\n")
    live = comparable(capture(claude_cli, fake_anthropic, folder))
    if os.environ.get("HOTPLEX_RECORD"):
        data = recorded() if RECORDED.exists() else {"cases": {}}
        data["claude_code"] = claude_cli.version
        data["cases"][case] = live
        RECORDED.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    assert hotplex_loaded(folder) == loaded(live)
    kept = recorded()
    assert [list(e) for e in live] == kept["cases"][case], (
        f"Claude Code {claude_cli.version} loads otherwise than {kept['claude_code']} did"
    )
