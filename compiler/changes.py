"""How a command changes files that another command may change too: a lock that keeps the two
from interleaving (the build's, ``learn``'s and ``memory compact``'s, each a ``flock`` the kernel
releases when its holder dies), and ``Changes``, several files changed all or none."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat

from hotplex.errors import BuildFailed, HotplexError, Problem, Span
from hotplex.fs import wrong_kind
from hotplex.writes import folder_of, write_atomic

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from pathlib import Path  # the build's lock is taken with a ``str`` path: no pathlib

# The descriptors of the locks this process holds. A forked process (``-j``'s workers) closes
# its copies at once: a flock belongs to every descriptor of it, and a worker that outlived a
# killed build must not keep the next build waiting.
_HELD_LOCKS: set[int] = set()


def _after_fork_in_child() -> None:
    """A forked worker holds no lock."""
    for fd in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_PID_WIDTH = 10  # digits of the largest pid (2**32)


LOCK_TIMEOUT = "HOTPLEX_LOCK_TIMEOUT"
LONGEST_LOCK_WAIT = 86400.0  # one day: a longer wait is a typo (``1e30`` for ``1e3``), not a plan
# A count of seconds as the docs write it, ASCII only: ``float`` also takes ``1_000``, ``+5``,
# ``-0``, blanks around it and other scripts' digits (``５``, ``٥``) (adversary17 D7).
_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def lock_wait_seconds(default: float = 60.0) -> float:
    """Seconds a command waits for a lock another holds: ``HOTPLEX_LOCK_TIMEOUT``, a count of
    seconds from 0 to a day, else ``default``. Any other value is an error at the variable:
    ``nan``, ``inf``, a negative number and ``9e99`` waited forever (adversary3, adversary17
    D7), and a typo taken for the default kept a CI job waiting without a word (adversary16
    D11)."""
    written = os.environ.get(LOCK_TIMEOUT)
    if written is None:
        return default
    seconds = float(written) if _SECONDS.fullmatch(written) else None
    if seconds is None or seconds > LONGEST_LOCK_WAIT:
        raise HotplexError.single(
            f"{written!r} is no count of seconds to wait for a lock, from 0 to"
            f" {LONGEST_LOCK_WAIT:g} (a day)",
            Span("environment", key=LOCK_TIMEOUT),
            hint=f"set {LOCK_TIMEOUT} to ASCII digits, e.g. 120 or 0.5, or unset it for 60",
        )
    return seconds


class FileLock:
    """An exclusive lock on the file ``path`` (made when missing), so that two commands that
    read, change and replace the same files never interleave: ``holder`` names them in the
    message a waiting one gives up with.

    ``flock`` is released by the kernel when its holder dies, even by SIGKILL: a killed command
    never leaves a stale lock behind (and a forked worker never holds it). The holder writes its
    pid into the file for that message, so the file is opened without following a symlink and
    refused when another name links to it: the pid would land in the file linked to.
    """

    def __init__(self, path: str | Path, wait_seconds: float, holder: str) -> None:
        self.path = path
        self.wait_seconds = wait_seconds
        self.holder = holder
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        import fcntl
        import time

        span = Span(str(self.path))
        try:
            os.makedirs(folder_of(self.path), exist_ok=True)
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(self.path, flags | getattr(os, "O_NONBLOCK", 0), 0o644)
        except IsADirectoryError:
            raise HotplexError.single(
                f"'{self.path}' is a directory, not a regular file", span
            ) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
                raise HotplexError.single(wrong_kind(str(self.path), stat.S_IFLNK), span) from None
            raise BuildFailed(
                [Problem(f"cannot create the lock '{self.path}': {exc.strerror or exc}")]
            ) from None
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):  # a FIFO or a device: no lock a second run would see
            os.close(fd)
            raise HotplexError.single(wrong_kind(str(self.path), found.st_mode), span)
        if found.st_nlink > 1:  # a hard link: the pid would be written into the other name
            os.close(fd)
            raise HotplexError.single(
                f"'{self.path}' is a hard link ({found.st_nlink} names), not a lock file of "
                "its own",
                span,
            )
        deadline = time.monotonic() + self.wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_quietly(fd)
                    os.close(fd)
                    raise BuildFailed([Problem(self._busy(holder))]) from None
                time.sleep(0.02)
        with contextlib.suppress(OSError):  # fixed width: overwrites any holder's, no truncate
            os.pwrite(fd, f"{os.getpid():>{_PID_WIDTH}}\n".encode(), 0)
        self._fd = fd
        _HELD_LOCKS.add(fd)
        return self

    def _busy(self, holder: str) -> str:
        who = f" (pid {holder})" if holder.isdigit() else ""
        return (
            f"another {self.holder}{who} holds {self.path}; gave up after "
            f"{self.wait_seconds:g} s (set {LOCK_TIMEOUT} to wait longer)"
        )

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            _HELD_LOCKS.discard(self._fd)
            os.close(self._fd)  # closing releases the flock
            self._fd = None


class ProjectLock(FileLock):
    """The lock on the project's state folder, so two builds never interleave."""

    def __init__(self, folder: str | Path, wait_seconds: float) -> None:
        super().__init__(os.path.join(folder, "lock"), wait_seconds, "hotplex build")


def _read_quietly(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""


class Changes:
    """Files changed one at a time, all or none: should one change fail (the caller's code
    between them included), those already made are undone, newest first, and an ``OSError``
    becomes one error saying every file is as it was (``what`` names the command). A file
    already holding its bytes is not rewritten (its mtime, which watchers see, kept). What
    ``hotplex learn`` (a profile and its history) and ``memory compact`` (months, histories,
    archived days) write goes through it."""

    def __init__(self, what: str, root: Path) -> None:
        self.what = what
        self.root = root  # named in the error when the failing call names no file
        self._undo: list[tuple[Path, Path | None, bytes | None]] = []

    def write(self, path: Path, data: bytes, durable: bool = False) -> bool:
        """``data`` written to ``path`` atomically (``write_atomic``), unless it holds them;
        whether it changed."""
        try:
            before: bytes | None = path.read_bytes()
        except FileNotFoundError:
            before = None
        if before == data:
            return False
        write_atomic(path, data, durable=durable)
        self._undo.append((path, None, before))
        return True

    def rename(self, source: Path, target: Path) -> None:
        os.rename(source, target)
        self._undo.append((target, source, None))

    def __enter__(self) -> Changes:
        return self

    def __exit__(self, kind: type | None, exc: BaseException | None, _tb: object) -> None:
        if exc is None:
            return
        for path, moved_from, before in reversed(self._undo):
            if moved_from is not None:
                os.rename(path, moved_from)
            elif before is None:
                path.unlink(missing_ok=True)
            elif path.read_bytes() != before:
                write_atomic(path, before)
        if isinstance(exc, OSError):
            raise HotplexError.single(
                f"{self.what} failed, every file is as it was: {exc.strerror or exc}",
                Span(str(exc.filename or self.root)),
            ) from None
