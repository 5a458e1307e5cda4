"""The build log in ``.hotplex/log``: what each artifact was built from, append-only.

Like ninja's ``.ninja_log``: a versioned header, then one JSON line per built job, appended only
after the job's files are in place, so a killed build loses at most the jobs it had not finished.
A ``snapshot`` line closes a finished build with the stamps of every file involved; when it is
the last line and nothing moved, the next build is a no-op without reading the manifest. An
unknown version or a broken header means starting over (with a warning), never a crash; a torn
last line is ignored. The log is compacted (rewritten atomically) when old lines pile up.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fs import write_atomic

STATE_DIR = ".hotplex"
LOG_NAME = "log"
VERSION = 1
HEADER = f"# hotplex log v{VERSION}\n"
# Rewrite the log once it holds this many times more lines than it has live records.
COMPACT_RATIO = 3


@dataclass
class State:
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    snapshot: dict[str, Any] | None = None  # only when it is the log's last line
    files: dict[str, list[Any]] = field(default_factory=dict)  # path -> [mtime, size, ino, digest]
    lines: int = 0
    warning: str | None = None


def log_path(root: Path) -> Path:
    return root / STATE_DIR / LOG_NAME


def load(root: Path) -> State:
    path = log_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return State()
    except (OSError, UnicodeDecodeError) as exc:
        return State(warning=f"ignoring unreadable build log {path}: {exc}; rebuilding everything")
    if not text.startswith(HEADER):
        first = text.split("\n", 1)[0][:60]
        return State(
            warning=f"ignoring build log of another version ({first!r}); rebuilding everything"
        )
    state = State()
    for line in text[len(HEADER) :].split("\n"):
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line torn by a killed build
        state.lines += 1
        if "snapshot" in record:
            state.snapshot = record["snapshot"]
            state.files = record["snapshot"].get("files", {})
        elif "job" in record:
            state.jobs[record["job"]] = record
            state.snapshot = None
        elif "forget" in record:
            state.jobs.pop(record["forget"], None)
            state.snapshot = None
    return state


class Log:
    """Appends records for one build; the caller holds the project lock."""

    def __init__(self, root: Path, state: State) -> None:
        self.root = root
        self.state = state
        path = log_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        _ignore_state_dir(path.parent)
        if state.warning or not path.exists() or self._needs_compaction():
            self._rewrite()
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held for the build

    def _needs_compaction(self) -> bool:
        return self.state.lines > COMPACT_RATIO * (len(self.state.jobs) + 1) + 16

    def _rewrite(self) -> None:
        lines = [HEADER] + [_line(record) for record in self.state.jobs.values()]
        write_atomic(log_path(self.root), "".join(lines).encode("utf-8"))
        self.state.lines = len(self.state.jobs)

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(_line(record))
        self._handle.flush()
        if "job" in record:
            self.state.jobs[record["job"]] = record
        elif "forget" in record:
            self.state.jobs.pop(record["forget"], None)

    def close(self, snapshot: dict[str, Any] | None) -> None:
        if snapshot is not None:
            self._handle.write(_line({"snapshot": snapshot}))
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def _ignore_state_dir(folder: Path) -> None:
    """Keep the state out of version control without asking the user to edit .gitignore."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
