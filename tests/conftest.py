"""Shared fixtures: temporary projects and the real installed command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"  # CI clones the repository beside a copy of shared/
HOTPLEX = Path(sys.executable).parent / "hotplex"

# Property tests: a short run by default; HOTPLEX_FUZZ_EXAMPLES=100000 for the long one.
settings.register_profile(
    "default", max_examples=int(os.environ.get("HOTPLEX_FUZZ_EXAMPLES", "150")), deadline=None
)
settings.load_profile("default")


@dataclass
class Result:
    status: int
    stdout: str
    stderr: str


def run_hotplex(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> Result:
    """Run the installed `hotplex` command as a user would, in a subprocess."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    done = subprocess.run(
        [str(HOTPLEX), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(done.returncode, done.stdout, done.stderr)


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

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns("dist", ".hotplex"))
        return target

    return copy
