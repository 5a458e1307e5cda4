"""Shared fixtures: temporary projects and the real installed command."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hotplex_testing import EXAMPLES, REPO, SHARED, Result, copy_example, run_hotplex  # noqa: F401
from hypothesis import settings

# Property tests: a short run by default; HOTPLEX_FUZZ_EXAMPLES=100000 for the long one.
settings.register_profile(
    "default", max_examples=int(os.environ.get("HOTPLEX_FUZZ_EXAMPLES", "150")), deadline=None
)
settings.load_profile("default")


def pytest_collection_modifyitems(config, items):
    """Slow tests run only when asked for: `pytest -m slow` or HOTPLEX_SLOW=1."""
    if os.environ.get("HOTPLEX_SLOW") or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow; run with HOTPLEX_SLOW=1 or -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def hotplex() -> Callable[..., Result]:
    return run_hotplex


MINIMAL_MANIFEST = """\
[variants]
platforms = ["slack", "feishu"]

[[target]]
name = "cc"
worker = "claude-code"

[[target]]
name = "ocs"
worker = "opencode-server"
"""


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[..., Path]:
    """Write a project from {relative path: text or bytes}; a manifest is added unless given."""

    def make(
        files: dict[str, str | bytes] | None = None,
        manifest: str | None = MINIMAL_MANIFEST,
        name: str = "project",
    ) -> Path:
        root = tmp_path / name
        root.mkdir()
        if manifest is not None:
            (root / "hotplex.toml").write_text(manifest, encoding="utf-8")
        for rel, content in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return make


@pytest.fixture
def example_copy(tmp_path: Path) -> Callable[[str], Path]:
    """A private copy of examples/<name>, without any build output."""

    return lambda name: copy_example(tmp_path, name)
