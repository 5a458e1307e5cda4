"""Files written whole or not at all: ``write_atomic`` writes a temp file beside the target and
renames it over, so a reader (an agent, the next build) never sees half a file, and a killed
build leaves the old one. Its temp files' names (``temp_for``) let a later build find and remove
what a killed one left. ``crash_point`` stops a build between two steps for the crash tests."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import posixpath
import stat

from hotplex.errors import BuildFailed, Problem
from hotplex.fs import NAME_MAX, Stamp, sha256

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from pathlib import Path

TEMP_SUFFIX = ".tmp"
# Of a temp file's name, what is left for the name it is for: the rest is two dots, the pid
# (10 digits), a dot, a counter (20) and the suffix.
_TEMP_ROOM = NAME_MAX - 2 - 10 - 1 - 20 - len(TEMP_SUFFIX)


def write_atomic(path: Path, data: bytes, mode: int | None = None, durable: bool = False) -> Stamp:
    """Replace ``path`` with ``data`` via a temp file in the same folder and a rename; return
    the new file's stamp (of the temp file, still open, after the rename, which moves its ctime).
    ``durable``: the bytes and the rename are on the disk before it returns (fsync of the file
    and its folder), for a write another must never overtake, even through a power cut.

    The new file keeps the mode of the one it replaces (``mode``, when the caller has already
    looked at the file; or the umask's default, like any file the user creates), as a reader of
    the artifact expects. A missing folder is made when the first try fails; a caller writing
    many files makes their folders first (``make_folders``).
    """
    try:
        if mode is None:
            mode = _mode_for(path)
        try:
            fd, tmp = _temp_file(path, mode)
        except FileNotFoundError:  # the folder is new: made on demand, not checked every time
            os.makedirs(folder_of(path), exist_ok=True)
            fd, tmp = _temp_file(path, mode)
    except OSError as exc:
        raise _write_failed(path, exc) from None
    try:
        try:
            if mode & _umask():  # a mode the umask would strip: the replaced file's own
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
            crash_point()
            os.replace(tmp, path)
            written = Stamp.of(os.fstat(fd))
        finally:
            os.close(fd)
        if durable:
            _sync_folder(folder_of(path))
    except OSError as exc:
        _remove_quietly(tmp)
        raise _write_failed(path, exc) from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    crash_point()
    return written


def folder_of(path: str | os.PathLike[str]) -> str:
    """The folder of ``path``, a ``str`` or a ``Path``: the no-op path passes ``str``."""
    return os.path.dirname(path) or "."


def _sync_folder(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def default_mode() -> int:
    """The mode a new file gets: what the umask leaves of 0o666."""
    return 0o666 & ~_umask()


_TEMP_NUMBERS = itertools.count()
_PID = [os.getpid()]  # asked once, and again in a forked worker (register_at_fork below)


def _temp_file(path: Path, mode: int) -> tuple[int, str]:
    """A new file beside ``path``, named ``.<name>.<pid>.<n>.tmp`` (a forked worker has its own
    pid; ``<name>`` is ``temp_stem``'s) and created with ``mode`` through the umask, so that a
    new artifact needs no chmod."""
    stem = temp_stem(os.path.basename(path))
    folder = folder_of(path)
    while True:
        tmp = f"{folder}/.{stem}.{_PID[0]}.{next(_TEMP_NUMBERS)}{TEMP_SUFFIX}"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode), tmp
        except FileExistsError:  # left by a killed build of an earlier process with this pid
            continue


def temp_stem(name: str) -> str:
    """What a temp file beside ``name`` carries of it: the name itself, or, when that would make
    the temp file's name longer than ``NAME_MAX`` (a 250-byte name is legal, its temp name
    would not be), its start, ``~``, 16 hex digits of its sha256 and its extension."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= _TEMP_ROOM:
        return name
    extension = posixpath.splitext(name)[1]
    extension = extension if len(extension.encode("utf-8", "surrogateescape")) <= 16 else ""
    room = _TEMP_ROOM - 17 - len(extension.encode("utf-8", "surrogateescape"))
    start = raw[:room].decode("utf-8", "ignore")  # cut at a character's boundary
    return f"{start}~{sha256(raw)[:16]}{extension}"


def temp_for(name: str) -> str | None:
    """What a temp file ``write_atomic`` made carries of the name it is for (``temp_stem``):
    ``name`` is exactly ``.<stem>.<pid>.<n>.tmp``; None for any other name (a user's
    ``.x.mdc.tmp`` is theirs)."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    parts = name[1 : -len(TEMP_SUFFIX)].rsplit(".", 2)
    numbers = parts[1:]
    if len(parts) != 3 or not parts[0] or not all(n.isascii() and n.isdigit() for n in numbers):
        return None
    return parts[0]


def is_temp_of(name: str, artifact_name: str) -> bool:
    """Whether ``name`` is a temp file ``write_atomic`` made for ``artifact_name``."""
    return temp_for(name) == temp_stem(artifact_name)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return default_mode()


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_failed(path: Path, exc: OSError) -> BuildFailed:
    return BuildFailed(
        [
            Problem(
                f"cannot write '{path}': {exc.strerror or exc}",
                hint="nothing was half-written: the previous file is unchanged; "
                "fix the cause and build again",
            )
        ]
    )


def crash_point() -> None:
    """Fault injection for the crash tests: ``HOTPLEX_CRASH_AT=N`` SIGKILLs this process at the
    N-th write step (before and after each rename, after each log line), so a test can stop a
    build between any two steps without timing luck; ``HOTPLEX_CRASH_SIGNAL=INT`` sends SIGINT
    instead (Ctrl-C). Unset, it costs one comparison."""
    if _CRASH_AT:
        _steps.append(None)
        if len(_steps) == _CRASH_AT:
            import signal

            name = os.environ.get("HOTPLEX_CRASH_SIGNAL", "KILL")
            os.kill(os.getpid(), getattr(signal, f"SIG{name}", signal.SIGKILL))


_CRASH_AT = int(_at) if (_at := os.environ.get("HOTPLEX_CRASH_AT", "")).isdigit() else 0
_steps: list[None] = []


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _after_fork_in_child() -> None:
    """A forked worker names its temp files by its own pid."""
    _PID[0] = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
