"""The artifact files on disk, as one build sees them: each stamped and hashed at most once.

An output is read and hashed only when its stamp moved since the log recorded it; every path is
confined to the project (a symlinked folder or file cannot lead a write or a read outside it).
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path, PurePosixPath

from hotplex.errors import BuildFailed, Problem, Span
from hotplex.fs import Stamp, checked_relative, confine, sha256
from hotplex.records import Stamped
from hotplex.writes import default_mode, write_atomic


class Outputs:
    """Each file is looked at once (one ``lstat``) and each folder once, and a folder this build
    finds absent is known to hold nothing, so a build from nothing asks the disk about one
    folder (``out``) and then only makes folders (parents first, before their first write) and
    writes files: no failed ``open`` per new folder, nothing stat'ed twice."""

    def __init__(self, root: Path, manifest_display: str) -> None:
        self.root = root
        self._root = os.fspath(root)
        self._span = Span(manifest_display, key="project.out")
        self._digests: dict[str, str | None] = {}  # path -> sha256 on disk (None: absent)
        self._stamps: dict[str, Stamp | None] = {}
        self._modes: dict[str, int] = {}  # path -> mode of the file a write replaces
        self._folders: dict[str, bool] = {"": True}  # folder -> exists (and stays inside)

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
        """The file's stamp, taken once per build (a write of this build sets it)."""
        if path not in self._stamps:
            self._stamps[path] = self._look(path)
        return self._stamps[path]

    def _look(self, path: str) -> Stamp | None:
        rel = checked_relative(path, self._span)  # a path object only for a symlink's confine
        if not self._folder(posixpath.dirname(path)):
            return None  # in a folder that does not exist: no call needed
        full = f"{self._root}/{path}"
        try:
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                confine(self.root, PurePosixPath(rel), self._span)
                st = os.stat(full)
        except (OSError, ValueError):
            return None  # absent, or cannot be examined: the read or the write says why
        self._modes[path] = stat.S_IMODE(st.st_mode)
        return Stamp.of(st)

    def _folder(self, folder: str) -> bool:
        """Whether ``folder`` exists (a symlinked one is confined first); asked of the disk at
        most once per build, and not at all below a folder known to be absent."""
        known = self._folders.get(folder)
        if known is None:
            parent = posixpath.dirname(folder)
            if not self._folder(parent):
                known = False
            else:
                full = f"{self._root}/{folder}"
                try:
                    st = os.lstat(full)
                except (OSError, ValueError):
                    st = None
                if st is not None and stat.S_ISLNK(st.st_mode):
                    confine(self.root, PurePosixPath(folder), self._span)
                known = st is not None
            self._folders[folder] = known
        return known

    def stamped(self, path: str, digest: str, size: int) -> Stamped:
        current = self.stamp(path) or Stamp(-1, -1, -1, -1)
        return Stamped(current.mtime_ns, size, current.ino, current.ctime_ns, digest)

    def write(self, path: str, data: bytes, digest: str) -> None:
        self.stamp(path)  # the file and its folder looked at, once
        self._make(posixpath.dirname(path))
        mode = self._modes.get(path, default_mode())
        self._stamps[path] = write_atomic(Path(f"{self._root}/{path}"), data, mode)
        self._digests[path] = digest

    def _make(self, folder: str) -> None:
        """Make ``folder`` and the missing folders above it, parents first, one ``mkdir`` each."""
        if self._folders.get(folder):
            return
        self._make(posixpath.dirname(folder))
        try:
            os.mkdir(f"{self._root}/{folder}")
        except FileExistsError:  # made meanwhile by someone else: look at it as at any other
            self._folders.pop(folder, None)
            self._folder(folder)
            return
        except OSError as exc:
            message = f"cannot create the folder '{folder}': {exc.strerror or exc}"
            in_the_way = isinstance(exc, NotADirectoryError)
            hint = "a file of that name is in the way" if in_the_way else None
            raise BuildFailed([Problem(message, hint=hint)]) from None
        self._folders[folder] = True

    def read(self, path: str) -> bytes | None:
        try:
            return self.path(path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as exc:
            raise BuildFailed([Problem(f"cannot read '{path}': {exc.strerror or exc}")]) from None

    def path(self, path: str) -> Path:
        """``root/path``, refused when it leads out of the project: its folders and the file
        itself are looked at once per build (a thousand artifacts share a hundred folders)."""
        self.stamp(path)
        return self.root / path

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
    return recorded.same_stamp(current.as_list())
