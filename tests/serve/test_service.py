"""The service without HTTP: what only a race would show end to end, made deterministic."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from pathlib import Path

import pytest
from hotplex.api import Artifact
from hotplex.errors import HotplexError
from hotplex.fs import sha256
from hotplex.json_writer import json_string_bytes, json_text
from hotplex.serve import compile_route, threaded
from hotplex.serve.answers import Abandoned, Fault, Refused, Served, set_digest
from hotplex.serve.service import Service
from hypothesis import given, settings
from hypothesis import strategies as st


def _settled_long_ago(path: Path) -> None:
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def _still_being_written(path: Path) -> None:
    """Stamped a minute ahead: however long a loaded machine takes to look, the file was
    modified too recently to be taken as saved (stamped now, a look 20 ms later found it
    settled, and the test saw a stale artifact instead of a pause)."""
    ahead = time.time_ns() + 60_000_000_000
    os.utime(path, ns=(ahead, ahead))


def test_a_file_still_being_written_is_awaited_not_served_broken(
    make_project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SOUL.md is read cut inside a UTF-8 character, as an editor writing it in place can leave
    it for an instant; the editor's write completes during the service's pause."""
    root = make_project({"agent-configs/SOUL.md": "café\n"})
    soul = root / "agent-configs/SOUL.md"
    _settled_long_ago(soul)
    service = Service(root, None)
    pauses = []

    async def editor_finishes(seconds: float) -> None:
        pauses.append(seconds)
        soul.write_text("café au lait\n", encoding="utf-8")
        _settled_long_ago(soul)

    async def scenario():
        await service.artifact("cc", "slack")
        soul.write_bytes(b"caf\xc3")  # cut inside a character
        _still_being_written(soul)
        monkeypatch.setattr(threaded.anyio, "sleep", editor_finishes)
        return await service.artifact("cc", "slack")

    served = asyncio.run(scenario())
    assert len(pauses) == 1
    assert served.stale is None
    assert "café au lait" in served.artifact.text


def test_a_settled_broken_file_is_a_broken_project_at_once(make_project) -> None:
    root = make_project({"agent-configs/SOUL.md": "café\n"})
    soul = root / "agent-configs/SOUL.md"
    soul.write_bytes(b"caf\xc3")
    _settled_long_ago(soul)
    service = Service(root, None)
    with pytest.raises(Refused) as refused:
        asyncio.run(service.artifact("cc", "slack"))
    assert refused.value.fault is Fault.BROKEN
    assert refused.value.error.problems[0].span.file == "agent-configs/SOUL.md"


def test_a_project_broken_during_a_compile_is_its_fault_though_fixed_at_once(
    make_project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest is broken when a per-user compile reads it and fixed the next instant,
    before the service asks again whose fault the error was: still the project's (503), never
    the request's (400). The serve benchmark's reload run saw a 400 when the base artifact was
    checked in the same call as the overlay compile."""
    root = make_project({"agent-configs/SOUL.md": "café\n"})
    manifest = root / "hotplex.toml"
    good = manifest.read_text(encoding="utf-8")
    manifest.write_text('[project]\nname = "broken\n', encoding="utf-8")
    _settled_long_ago(manifest)
    service = Service(root, None)
    base = service._base

    def fixed_after_failing(target: str, platform: str | None):
        try:
            return base(target, platform)
        except Exception:
            manifest.write_text(good, encoding="utf-8")
            _settled_long_ago(manifest)
            raise

    monkeypatch.setattr(service, "_base", fixed_after_failing)
    overlay = {"MEMORY.md": "# Memory\n\n- a fact\n"}
    with pytest.raises(Refused) as refused:
        asyncio.run(service.compile("cc", "slack", overlay, None))
    assert refused.value.fault is Fault.BROKEN
    assert refused.value.error.problems[0].span.file == "hotplex.toml"


def test_a_project_broken_only_while_the_overlay_compiles_is_not_the_requests_fault(
    make_project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest is broken while the overlay compile reads it (after the base artifact was
    checked) and fixed before the service asks again whose fault the error was: the request
    is not at fault; the overlay is compiled again on the files as they are now."""
    root = make_project({"agent-configs/SOUL.md": "café\n"})
    manifest = root / "hotplex.toml"
    good = manifest.read_text(encoding="utf-8")
    _settled_long_ago(manifest)
    service = Service(root, None)
    compile_ = service.project.compile
    broken = []

    def broken_while_compiling(target, platform=None, overlay=None, *args, **kwargs):
        if overlay and not broken:
            broken.append(True)
            manifest.write_text('[project]\nname = "broken\n', encoding="utf-8")
            _settled_long_ago(manifest)
            try:
                return compile_(target, platform, overlay, *args, **kwargs)
            finally:
                manifest.write_text(good + "\n", encoding="utf-8")
                _settled_long_ago(manifest)
        return compile_(target, platform, overlay, *args, **kwargs)

    monkeypatch.setattr(service.project, "compile", broken_while_compiling)
    overlay = {"MEMORY.md": "# Memory\n\n- a fact\n"}
    served = asyncio.run(service.compile("cc", "slack", overlay, None))
    assert broken == [True]
    assert "a fact" in served.artifact.text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from('ab"\\\n\x00\x7f\x85\u202eé😀<>&')))
def test_an_answer_escapes_the_text_once_into_the_bytes_of_the_whole_render(text: str) -> None:
    """``POST /v1/compile``'s answer renders the primary file's text once for its two places:
    the same bytes as rendering the whole answer, whatever the text holds (a quote, a
    backslash, a NUL, characters that do not print, what stands in for it while rendering)."""
    text = f"{text}hotplex-text:{'0' * 64}"
    files = {"dist/cc/prompt.xml": text.encode("utf-8", "surrogatepass"), "dist/cc/b.bin": b"\xff"}
    artifact = Artifact(
        "cc", "claude-code", None, "dist/cc/prompt.xml", text, files, (), (), (), "dist/cc"
    )
    digest = set_digest(files)
    # A warning (no part of the digest) spelling the stand-in stays as it is.
    served = Served.of(artifact, (f"hotplex-text:{digest}",))
    assert served.digest == digest
    assert compile_route.answer(served) == json_text(compile_route.artifact_json(served)).encode(
        "utf-8"
    )


def test_a_per_user_answer_takes_from_its_base_artifact_only_the_files_it_holds_the_same() -> None:
    """A file of a per-user answer that its base artifact holds byte for byte is hashed and
    written once for that base artifact (kept with it), then taken as it is; one that differs
    is not, nor is anything of a base artifact rebuilt since: each answer is the whole render
    of its own artifact."""

    def artifact(files: dict[str, bytes]) -> Artifact:
        text = files["dist/cc/prompt.xml"].decode()
        return Artifact(
            "cc", "claude-code", None, "dist/cc/prompt.xml", text, files, (), (), (), "dist/cc"
        )

    def answered(base: Served) -> bytes:
        served = Served.of(artifact(user), (), base)
        assert served.sums == Served.of(artifact(user)).sums
        assert served.digest == set_digest(user)
        answer = compile_route.answer(served)
        assert answer == json_text(compile_route.artifact_json(served)).encode("utf-8")
        return answer

    base_files = {
        "dist/cc/prompt.xml": b"base",
        "dist/cc/a.md": b"same",
        "dist/cc/b.bin": b"\xff",  # written in base64
        "dist/cc/c.md": b"old",
    }
    user = {**base_files, "dist/cc/prompt.xml": b"user's", "dist/cc/a.md": b"sa" + b"me"}
    user["dist/cc/c.md"] = b"new"
    base = Served.of(artifact(base_files))
    assert answered(base) == answered(base)  # the second from the entry kept
    assert list(base.entries) == ["dist/cc/a.md", "dist/cc/b.bin"]
    rebuilt = Served.of(artifact({**base_files, "dist/cc/a.md": b"changed"}))
    assert b'"same"' in answered(rebuilt)
    assert list(rebuilt.entries) == ["dist/cc/b.bin"]  # not a.md, changed since


def test_a_per_user_answer_after_a_base_file_is_saved_holds_the_files_as_they_are_now(
    example_copy,
) -> None:
    """The files written once for a base artifact are never served for the next one: after a
    source that the sub-agent's file reads is saved, the next user's answer holds its new
    bytes, hashed anew, as the whole render of its artifact does."""
    root = example_copy("basic")
    service = Service(root, None)
    overlay = {"MEMORY.md": "- a fact\n"}

    def answered() -> tuple[Served, bytes]:
        served = asyncio.run(service.compile("cc", "slack", overlay, None))
        answer = compile_route.answer(served)
        assert answer == json_text(compile_route.artifact_json(served)).encode("utf-8")
        return served, answer

    before, _ = answered()
    answered()  # the sub-agent's entry now kept with the base artifact
    assert before.base is not None and "dist/cc/slack/subagent.xml" in before.base.entries
    agents = root / "agent-configs" / "AGENTS.md"
    agents.write_text(agents.read_text() + "\nAsk before deleting files.\n")
    _settled_long_ago(agents)
    after, answer = answered()
    subagent = after.artifact.files["dist/cc/slack/subagent.xml"]
    assert subagent != before.artifact.files["dist/cc/slack/subagent.xml"]
    assert after.sums["dist/cc/slack/subagent.xml"] == sha256(subagent)
    assert json_string_bytes(subagent) in answer


def test_a_per_user_compile_takes_the_base_artifact_from_what_it_read(make_project) -> None:
    """After the first call of a job, each per-user compile is one compile: the base artifact
    beside it is the kept one, its files' stamps those the overlay compile just read
    (``Project.base_as_read``), not a second compile; after a base file is saved, the next
    call serves the new base artifact beside an overlay compiled on the same files."""
    root = make_project({"agent-configs/SOUL.md": "You help.\n"})
    for path in root.rglob("*"):
        _settled_long_ago(path)
    service = Service(root, None)
    compiled = []
    compile_ = service.project.compile

    def counting(target, platform=None, overlay=None, **kwargs):
        compiled.append(overlay is not None)
        return compile_(target, platform, overlay, **kwargs)

    service.project.compile = counting
    calls = []
    for user in range(3):
        asyncio.run(service.compile("cc", "slack", {"MEMORY.md": f"- user {user}\n"}, None))
        calls.append(compiled[:])
        compiled.clear()
    assert calls[1:] == [[True], [True]]  # after the first: the overlay's compile alone
    soul = root / "agent-configs" / "SOUL.md"
    soul.write_text("You review.\n", encoding="utf-8")
    os.utime(soul, ns=(2_000_000_000, 2_000_000_000))
    served = asyncio.run(service.compile("cc", "slack", {"MEMORY.md": "- user 3\n"}, None))
    assert "You review." in served.artifact.text and "user 3" in served.artifact.text
    assert "You review." in service._good[("cc", "slack")].artifact.text


def test_a_call_whose_caller_left_is_abandoned_its_error_answered_to_no_one(
    make_project, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call runs on to its end in its thread, after its caller left; its error is taken,
    not logged by asyncio as never retrieved when the future is collected."""
    service = Service(make_project({"agent-configs/SOUL.md": "café\n"}), None)
    release = threading.Event()

    def failing() -> None:
        release.wait()
        raise HotplexError.single("the project broke meanwhile")

    async def left() -> None:
        pass

    seen = threaded.first

    async def seen_then_released(work, gone) -> bool:
        ended = await seen(work, gone)  # the call still waits: its caller left first
        release.set()
        return ended

    monkeypatch.setattr(threaded, "first", seen_then_released)
    with pytest.raises(Abandoned):
        asyncio.run(service._run(failing, Fault.BROKEN, gone=left))
    gc.collect()
    assert "never retrieved" not in caplog.text
