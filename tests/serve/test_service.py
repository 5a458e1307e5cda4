"""The service without HTTP: what only a race would show end to end, made deterministic."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hotplex.serve import threaded
from hotplex.serve.answers import Fault, Refused
from hotplex.serve.service import Service


def _settled_long_ago(path: Path) -> None:
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


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
        soul.write_bytes(b"caf\xc3")  # cut inside a character, written this instant
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
