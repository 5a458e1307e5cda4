"""The artifact files on disk, as one build sees them: each stamped and hashed at most once.

An output is read and hashed only when its stamp moved since the log recorded it; every path is
confined to the project (a symlinked folder or file cannot lead a write or a read outside it).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from hotplex.errors import BuildFailed, Problem, Span
from hotplex.fs import Stamp, check_relative, confine, sha256, stamp, write_atomic
from hotplex.records import Stamped


class Outputs:
    def __init__(self, root: Path, manifest_display: str) -> None:
        self.root = root
        self._root = os.fspath(root)
        self._span = Span(manifest_display, key="project.out")
        self._digests: dict[str, str | None] = {}  # path -> sha256 on disk (None: absent)
        self._stamps: dict[str, Stamp | None] = {}
        self._confined: set[PurePosixPath] = set()  # folders known to stay inside

    def digest(self, path: str, recorded: Stamped | None) -> str | None:
        """The sha256 of the file on disk (None when absent), hashed only when its stamp is not
        the one ``recorded``."""
        if path not in self._digests:
            current = self.stamp(path)
            if current is None:
                digest = None
            elif recorded is not None and _same(current, recorded):
                digest = recorded.digest
            else:
                data = self.read(path)
                digest = None if data is None else sha256(data)
            self._digests[path] = digest
        return self._digests[path]

    def stamp(self, path: str) -> Stamp | None:
        """The file's stamp, taken once per build unless this build writes the file meanwhile."""
        if path not in self._stamps:
            self._stamps[path] = stamp(f"{self._root}/{path}")
        return self._stamps[path]

    def stamped(self, path: str, digest: str, size: int) -> Stamped:
        current = self.stamp(path) or Stamp(-1, -1, -1)
        return Stamped(current.mtime_ns, size, current.ino, digest)

    def write(self, path: str, data: bytes, digest: str) -> None:
        write_atomic(self.path(path), data)
        self._digests[path] = digest
        self._stamps.pop(path, None)

    def read(self, path: str) -> bytes | None:
        try:
            return self.path(path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as exc:
            raise BuildFailed([Problem(f"cannot read '{path}': {exc.strerror or exc}")]) from None

    def path(self, path: str) -> Path:
        """``root/path``, refused when it leads out of the project; folders are resolved once
        per build (a thousand artifacts share a hundred folders)."""
        rel = check_relative(path, self._span)
        if rel.parent not in self._confined:
            confine(self.root, rel.parent, self._span)
            self._confined.add(rel.parent)
        full = self.root / path
        if os.path.islink(full):
            confine(self.root, rel, self._span)
        return full

    def diff(self, new: dict[str, bytes], changed: list[str]) -> str:
        import difflib

        chunks = []
        for path in changed:
            old = self.read(path) or b""
            before = old.decode("utf-8", "replace").splitlines(keepends=True)
            after = new[path].decode("utf-8", "replace").splitlines(keepends=True)
            chunks.extend(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}"))
        return "".join(chunks)


def _same(current: Stamp, recorded: Stamped) -> bool:
    return recorded.same_stamp(current.mtime_ns, current.size, current.ino)
