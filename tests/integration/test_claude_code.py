"""Every generated ``prompt.xml`` reaches the model verbatim through the real Claude Code CLI.

``claude --print --append-system-prompt-file <prompt.xml>`` runs against a fake Messages API on
127.0.0.1; the test reads the ``system`` of the captured ``POST /v1/messages`` request.

What Claude Code 2.1.x does with the file (observed, and asserted below): it appends the file's
content unchanged (no trimming: leading whitespace, trailing newlines and CRLF are kept, and
64 K characters arrive whole) to the end of its last ``system`` text block, after a blank line.
"""

import pytest

pytestmark = pytest.mark.integration


def system_blocks(system) -> list[str]:
    """The texts of a Messages API ``system`` field: a string or a list of text blocks."""
    if isinstance(system, str):
        return [system]
    assert isinstance(system, list), f"unexpected system field: {system!r:.200}"
    return [block["text"] for block in system if block.get("type") == "text"]


def test_claude_code_sends_prompt_verbatim(claude_cli, fake_anthropic, claude_prompt, tmp_path):
    text = claude_prompt.path.read_bytes().decode("utf-8")  # the file's exact content
    assert text.startswith("<agent-configuration>")

    done = claude_cli.print_with_prompt_file(claude_prompt.path, fake_anthropic.url, tmp_path)
    assert done.returncode == 0, f"claude exited {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == fake_anthropic.reply  # it finished against the fake

    requests = fake_anthropic.message_requests()
    assert requests, f"no POST /v1/messages; saw {[r.path for r in fake_anthropic.requests]}"
    carrying = [r for r in requests if any(text in b for b in system_blocks(r.body["system"]))]
    assert carrying, "prompt.xml text not found verbatim in any request's system blocks"
    for request in carrying:
        blocks = system_blocks(request.body["system"])
        holders = [b for b in blocks if text in b]
        assert len(holders) == 1
        assert holders[0].count(text) == 1
        # Appended last and unchanged: nothing stripped from or added after the file's content.
        assert holders[0].endswith("\n\n" + text)
        assert holders[0] is blocks[-1]
