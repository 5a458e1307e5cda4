"""Where ``hotplex memory compact`` reads and writes: the logs' folder and its companions (the
compacted months, their histories, the archive), and a day's bytes wherever it now is."""

from __future__ import annotations

from pathlib import Path

from hotplex.errors import HotplexError, Span
from hotplex.fs import check_relative, confine
from hotplex.generated import attrs
from hotplex.manifest.vocabulary import split_glob
from hotplex.sources.compacted import ARCHIVE_FOLDER, COMPACTED_FOLDER, HISTORY_FOLDER, folder_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model


@attrs.frozen
class Folders:
    logs: str
    pattern: str
    compacted: str
    history: str
    archive: str


def folders(model: Model) -> Folders:
    """The logs' folder and its companions, as project paths; an error without ``[memory]``."""
    memory = model.manifest.memory
    span = Span(model.manifest_display, key="memory.logs")
    if memory.logs is None:
        raise HotplexError.single(
            "no daily logs to compact: [memory] logs is not set",
            span,
            hint='[memory] logs = "memory/*.md" and compact_after_days = 30',
        )
    if memory.compact_after_days is None:
        raise HotplexError.single(
            "[memory] compact_after_days is not set: no day is old enough to compact",
            Span(model.manifest_display, key="memory.compact_after_days"),
            hint="[memory] compact_after_days = 30  (days before the newest day)",
        )
    folder, pattern = split_glob(memory.logs)
    logs = model.source_path(folder)
    return Folders(
        logs,
        pattern,
        folder_of(logs, COMPACTED_FOLDER),
        folder_of(logs, HISTORY_FOLDER),
        folder_of(logs, ARCHIVE_FOLDER),
    )


def original(root: Path, where: Folders, name: str) -> tuple[bytes, str] | None:
    """A day's bytes and path, from the logs folder or the archive; a day that is a symlink
    leaving the project is refused, as a build refuses it."""
    for folder in (where.logs, where.archive):
        shown = f"{folder}/{name}"
        span = Span(shown)
        data = file_bytes(confine(root, check_relative(shown, span), span))
        if data is not None:
            return data, shown
    return None


def file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
