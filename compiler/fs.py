"""All disk access of the compiler: confined reads, stamps, atomic writes.

Every path a manifest names is checked here, so no other module can read outside the project or
follow a symlink out of it, and every artifact is written by temp file + rename, so a reader (or a
killed build) only ever sees a whole old or a whole new file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import BuildFailed, HotplexError, Problem, Span


@dataclass(frozen=True)
class Stamp:
    """What `stat` says about a file: enough to skip re-hashing it when nothing moved."""

    mtime_ns: int
    size: int
    ino: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_mtime_ns, st.st_size, st.st_ino)

    def as_list(self) -> list[int]:
        return [self.mtime_ns, self.size, self.ino]


def stamp(path: Path) -> Stamp | None:
    """The file's stamp, or None when it does not exist (an absent input is a fact too)."""
    try:
        return Stamp.of(os.stat(path))
    except (FileNotFoundError, NotADirectoryError):
        return None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_relative(rel: str, span: Span) -> PurePosixPath:
    """Refuse a manifest or include path that is absolute or climbs out with '..'."""
    pure = PurePosixPath(rel.replace("\\", "/"))
    if rel.strip() == "":
        raise HotplexError.single("empty path", span)
    if pure.is_absolute() or (len(rel) > 1 and rel[1] == ":"):
        raise HotplexError.single(
            f"absolute path '{rel}' is not allowed", span, hint="name files relative to the project"
        )
    if ".." in pure.parts:
        raise HotplexError.single(
            f"path '{rel}' escapes its folder with '..'", span, hint="keep every file inside it"
        )
    return pure


def confine(root: Path, rel: PurePosixPath, span: Span) -> Path:
    """``root/rel`` with symlinks resolved, refused when it lands outside ``root``."""
    joined = root / Path(*rel.parts)
    real = Path(os.path.realpath(joined))
    real_root = Path(os.path.realpath(root))
    if real != real_root and real_root not in real.parents:
        raise HotplexError.single(
            f"'{rel}' resolves to '{real}', outside '{real_root}' (a symlink leaving the project)",
            span,
        )
    return joined


@dataclass(frozen=True)
class ReadResult:
    data: bytes
    size: int  # the file's full size; larger than len(data) when the read was capped
    stamp: Stamp


def read_capped(path: Path, cap: int, span: Span) -> ReadResult | None:
    """Read at most ``cap`` bytes of a regular file; None when it does not exist.

    Devices and FIFOs are refused: `/dev/zero` never ends and a FIFO blocks forever.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise HotplexError.single(f"'{span.file}' is a directory, not a file", span) from None
    except PermissionError as exc:
        raise HotplexError.single(f"cannot read '{span.file}': {exc.strerror}", span) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise HotplexError.single(
                f"'{span.file}' is not a regular file (device, FIFO or socket)", span
            )
        chunks = []
        remaining = min(cap, st.st_size) if st.st_size else cap
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return ReadResult(b"".join(chunks), st.st_size, Stamp.of(st))
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` via a temp file in the same folder and a rename."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise BuildFailed([Problem(f"cannot write '{path}': {exc.strerror}")]) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        _remove_quietly(tmp)
        raise BuildFailed([Problem(f"cannot write '{path}': {exc.strerror}")]) from None
    except BaseException:
        _remove_quietly(tmp)
        raise


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


class ProjectLock:
    """An exclusive lock on the project's state folder, so two builds never interleave."""

    def __init__(self, folder: Path, wait_seconds: float) -> None:
        self.path = folder / "lock"
        self.wait_seconds = wait_seconds
        self._fd: int | None = None

    def __enter__(self) -> ProjectLock:
        import fcntl
        import time

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise BuildFailed(
                        [
                            Problem(
                                f"another hotplex build of this project holds {self.path}; "
                                f"gave up after {self.wait_seconds:g} s"
                            )
                        ]
                    ) from None
                time.sleep(0.05)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the flock
            self._fd = None
