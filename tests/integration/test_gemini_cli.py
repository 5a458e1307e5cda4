"""Every generated Gemini CLI artifact reaches the model through the real Gemini CLI byte for
byte, at the end of ``systemInstruction``, after Gemini's own base prompt.

``gemini -p`` starts as the built ``launch.json`` says (``GEMINI_CLI_HOME`` relative to the
project), with what a gateway adds: a ``settings.json`` in that home (API-key auth, nothing sent
home), ``GOOGLE_GEMINI_BASE_URL`` pointing at a fake Gemini API on 127.0.0.1, a dummy key and a
trusted workspace. No ``-m``: Gemini's model-routing request comes first and must not carry the
document either. The test reads the captured ``:streamGenerateContent`` requests.

What Gemini CLI 0.61.0 does (observed, and asserted below): the global GEMINI.md is the last
thing in ``systemInstruction``, as ``--- Context from: <absolute path> ---`` / the file's text /
``--- End of Context from: <absolute path> ---`` inside ``<loaded_context>``; it would replace an
``@word`` after a blank outside backticks by an import, which the artifact has already defused.
"""

from __future__ import annotations

import json
import os

import pytest
from fake_api import FakeGemini
from live import LiveCase, home_of, run_live

pytestmark = pytest.mark.integration

WORD_JOINER = "\u2060"
SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False},
}


def texts(content: dict) -> list[str]:
    return [part.get("text", "") for part in content.get("parts", [])]


GEMINI = LiveCase(
    fake=FakeGemini,
    args=lambda url: ["-p", "ping"],
    env=lambda url: {
        "GEMINI_API_KEY": "dummy",
        "GOOGLE_GEMINI_BASE_URL": url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    },
    model_route=":streamGenerateContent",
    home_variable="GEMINI_CLI_HOME",
    home_files={".gemini/settings.json": json.dumps(SETTINGS)},
)


def run_gemini(gemini_cli, artifact, tmp_path, bait: dict[str, str] | None = None) -> list:
    """Run the launch; ``bait`` files go beside the GEMINI.md, where Gemini resolves imports."""
    extra = {f".gemini/{name}": text for name, text in (bait or {}).items()}
    fake, requests = run_live(GEMINI, gemini_cli, artifact, tmp_path, extra)
    for request in fake.requests:  # the routing request too
        body = request.body if isinstance(request.body, dict) else {}
        for content in body.get("contents", []):
            assert not any("<agent-configuration>" in t for t in texts(content)), (
                f"document in a {content.get('role')} message of {request.route}"
            )
    return requests


def assert_system_instruction(request, document: str, memory_file: str) -> str:
    """The document ends ``systemInstruction``, exactly, in Gemini's wrapper, after Gemini's
    own base prompt; returns the system instruction."""
    system = "".join(texts(request.body["systemInstruction"]))
    assert system.startswith("You are Gemini CLI"), "Gemini's base prompt is gone"
    assert system.count(document) == 1
    ending = (
        f"--- Context from: {memory_file} ---\n{document}\n"
        f"--- End of Context from: {memory_file} ---\n</loaded_context>"
    )
    assert system.endswith(ending), f"system instruction ends {system[-300:]!r}"
    return system


def memory_file(artifact) -> str:
    return os.path.abspath(home_of(artifact, "GEMINI_CLI_HOME") / ".gemini/GEMINI.md")


def test_gemini_sends_document_at_end_of_system_instruction(gemini_cli, gemini_prompt, tmp_path):
    document = gemini_prompt.path.read_bytes().decode("utf-8")
    assert document.startswith("<agent-configuration>")
    assert (gemini_prompt.path.parent / "gemini-home/.gemini/GEMINI.md").read_bytes() == (
        gemini_prompt.path.read_bytes()
    )
    for request in run_gemini(gemini_cli, gemini_prompt, tmp_path):
        assert_system_instruction(request, document, memory_file(gemini_prompt))


def test_gemini_keeps_tricky_source_text(gemini_cli, tricky_build, tmp_path):
    """``@alice``, ``@README.md`` and other would-be imports reach Gemini as text (a word joiner
    before the ``@``), with ``README.md`` and ``alice`` lying where Gemini would import them
    from; e-mail addresses, code and an ``@`` after a no-break space (no blank to Gemini's
    import scanner, which knows only space, tab, CR and LF; ``notes.md`` lies there too) are
    untouched; CJK, emoji and CRLF sources arrive as the
    artifact says; blank-line runs are collapsed in the artifact as Gemini would."""
    artifact = tricky_build.artifact("gemini", "prompt.xml")
    document = artifact.path.read_bytes().decode("utf-8")
    for written in tricky_build.expected_text:
        assert written in document.replace(WORD_JOINER, "")
    for defused in ("@alice", "@README.md", "@./docs/adr", "@decorator", "@bob", "@carol"):
        assert WORD_JOINER + defused in document
    untouched = ("`@inline`", "\n@Fenced()", "user@example.com", "\u00a0@notes.md")
    for text in untouched:
        assert text in document
    assert "\n\n\n" not in document

    bait = dict(tricky_build.bait)
    for request in run_gemini(gemini_cli, artifact, tmp_path, bait):
        system = assert_system_instruction(request, document, memory_file(artifact))
        assert not any(text.strip() in system for text in bait.values())
        assert "Import failed" not in system
        assert "Notes:\u00a0@notes.md stay text." in system
