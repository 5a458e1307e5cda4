"""Constants and helpers shared by the test modules (imported by name, unlike conftest)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"  # CI clones the repository beside a copy of shared/
HOTPLEX = Path(sys.executable).parent / "hotplex"


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
