"""The compiler's disk access that needs a rule: confined reads, stamps, atomic writes (what
else touches the disk, and where: docs/pages/contributing.md, after "Writing a worker").

Every path a manifest names is checked here, so no other module can read outside the project or
follow a symlink out of it, and every artifact is written by temp file + rename, so a reader (or a
killed build) only ever sees a whole old or a whole new file.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import json
import math
import os
import posixpath
import re
import stat
from json.encoder import encode_basestring
from pathlib import Path, PurePosixPath

from hotplex.errors import BuildFailed, HotplexError, Problem, Span
from hotplex.values import value

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from typing import Any

STATE_DIR = ".hotplex"  # the build's own state beside the manifest: this log, the cached model
TEMP_SUFFIX = ".tmp"
NAME_MAX = 255  # bytes of one file or folder name, the most Linux, macOS or Windows takes
# Of a temp file's name, what is left for the name it is for: the rest is two dots, the pid
# (10 digits), a dot, a counter (20) and the suffix.
_TEMP_ROOM = NAME_MAX - 2 - 10 - 1 - 20 - len(TEMP_SUFFIX)
# Other people's packages: no walk of the user's files (import, the unread report) enters them.
VENDORED_FOLDERS = frozenset({"node_modules"})


def folded(name: str) -> str:
    """``name`` as a file system that ignores letter case and Unicode normalisation (APFS and
    HFS+ on macOS; NTFS ignores case) compares it: case-folded and canonically composed, so
    ``Pi``/``pi``, ``ß``/``SS`` and ``é`` as one code point or as ``e`` + U+0301 are one name."""
    import unicodedata  # only validation and deletion compare names: not on the no-op path

    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())


def skipped_folder(name: str) -> bool:
    """Whether a walk of the user's files leaves the folder ``name`` out: a hidden one (``.git``,
    ``.venv``) or a vendored one."""
    return name.startswith(".") or name in VENDORED_FOLDERS


@value
class Stamp:
    """What `stat` says about a file: enough to skip re-hashing it when nothing moved."""

    FIELDS = ("mtime_ns", "size", "ino")
    mtime_ns: int
    size: int
    ino: int

    def __init__(self, mtime_ns: int, size: int, ino: int) -> None:
        self.__dict__.update(mtime_ns=mtime_ns, size=size, ino=ino)

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_mtime_ns, st.st_size, st.st_ino)

    def as_list(self) -> list[int]:
        return [self.mtime_ns, self.size, self.ino]


# A file modified this close before it was read may change again within the same timestamp tick
# without its stamp moving (git's "racily clean" case); 2 s on whole-second file systems.
RACY_NS = 20_000_000
COARSE_RACY_NS = 2_000_000_000


def settled(current: Stamp, read_ns: int) -> bool:
    """Whether ``current`` can vouch for the content read at ``read_ns``: it was modified long
    enough before that a later rewrite must move its mtime."""
    window = COARSE_RACY_NS if current.mtime_ns % 1_000_000_000 == 0 else RACY_NS
    return current.mtime_ns < read_ns - window


def stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """The file's stamp, or None when it does not exist (an absent input is a fact too).

    Also None when it cannot be examined (a symlink loop, a name too long): the read that
    follows reports why, with the file's place.
    """
    try:
        return Stamp.of(os.stat(path))
    except (OSError, ValueError):
        return None


def sha256(data: bytes) -> str:
    import hashlib  # here, not above: the no-op path hashes nothing and skips the import

    return hashlib.sha256(data).hexdigest()


# A lone surrogate: how Python decodes a file name's byte that is not UTF-8 (``bad\xff.md``).
_SURROGATE = re.compile("[\ud800-\udfff]")


# What JSON leaves raw in a string and may not print itself: DEL, and anything beyond ASCII.
# Spelt as the complement of the rest: ``re`` compiles a range over the Basic Multilingual
# Plane by marking each code point, 10 ms of every command's start-up.
_BEYOND_ASCII = re.compile("[^\x00-\x7e]")


def json_text(value: object, **options: Any) -> str:
    """JSON that encodes as UTF-8 and prints as itself: a character that does not print itself
    (a lone surrogate, which is how a file name's byte that is not UTF-8 is read, and no UTF-8
    file or pipe takes; U+0085, a bidi override, DEL) is written as its ``\\u`` escape, which
    reads back as the same text, so a terminal shows it as it is and ``console.Shown`` has
    nothing to change in it."""
    return _printable(json.dumps(value, ensure_ascii=False, **options))


# What JSON's encoder (``ensure_ascii=False``) writes for each character it escapes, as UTF-8:
# the backslash first, so that no escape written is escaped again.
_ESCAPES = tuple(
    (bytes([c]), encode_basestring(chr(c))[1:-1].encode()) for c in (0x5C, 0x22, *range(0x20))
)


def json_string_bytes(data: bytes) -> bytes:
    """``json_text(text)`` without its quotes, as UTF-8, for the ``text`` whose UTF-8 is
    ``data``, byte for byte, escaped in its bytes: the encoder visits every character, a tenth
    of an overlaid compile's time on a 12 K document; a replacement of bytes absent from the
    text is one memchr, a line end escaped a copy. No byte of a UTF-8 sequence is below 0x80:
    escaping the bytes is escaping the characters."""
    for byte, escape in _ESCAPES:
        data = data.replace(byte, escape)
    return _printable(data.decode("utf-8")).encode("utf-8")


def _printable(text: str) -> str:
    """``text``, JSON as the encoder wrote it, with every character that does not print itself
    written as its ``\\u`` escape. Text that prints (most, beyond ASCII too) is checked in C:
    a Python call for each character beyond ASCII took 3.7 ms on a 20 K Chinese document. Line
    breaks, an indented dump's, are the only characters JSON text holds raw that do not print."""
    if (text.isascii() and "\x7f" not in text) or text.replace("\n", " ").isprintable():
        return text
    return _BEYOND_ASCII.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    char = match[0]
    if char.isprintable():
        return char
    code = ord(char)
    if code > 0xFFFF:  # as a UTF-16 surrogate pair, as JSON spells it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def is_utf8(name: str) -> bool:
    """Whether a file name read from the disk was UTF-8: Python keeps each byte that was not as a
    lone surrogate, which no artifact, log or terminal can encode."""
    return lone_surrogate(name) is None


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate of ``text`` (a byte that was no UTF-8 in an argument or a file
    name, or a JSON ``\\ud800``), or None: no file can hold it as UTF-8."""
    found = _SURROGATE.search(text)
    return None if found is None else found.group()


def check_relative(rel: str, span: Span) -> PurePosixPath:
    """Refuse a manifest or include path that is absolute or climbs out with '..'."""
    return PurePosixPath(checked_relative(rel, span))


def checked_relative(rel: str, span: Span) -> str:
    """``rel`` as ``check_relative`` checks it, '/'-separated, without making a path object (an
    overlay's keys are checked on every call)."""
    slashed = rel.replace("\\", "/")
    if rel.strip() == "":
        raise HotplexError.single("empty path", span)
    if "\0" in rel:
        raise HotplexError.single(f"path {rel!r} contains a NUL character", span)
    if slashed.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        raise HotplexError.single(
            f"absolute path '{rel}' is not allowed", span, hint="name files relative to the project"
        )
    if ".." in slashed.split("/"):
        raise HotplexError.single(
            f"path '{rel}' escapes its folder with '..'", span, hint="keep every file inside it"
        )
    return slashed


def checked_key(key: str, span: Span, what: str) -> str:
    """A path naming a file of the sources folder as a call gives it (an overlay's key, the
    ``file`` of learned facts), checked as ``checked_relative`` checks it. A backslash is a
    character of a file name on POSIX, and no file a build reads holds one, so it is refused
    rather than taken for a folder separator; ``what`` says what the path is in the message."""
    if "\\" in key:
        raise HotplexError.single(
            f"{what} {key!r} holds a backslash: paths inside the sources folder are '/'-separated",
            span,
            hint=f"did you mean '{key.replace(chr(92), '/')}'?",
        )
    return checked_relative(key, span)


def confine(root: Path, rel: PurePosixPath, span: Span) -> Path:
    """``root/rel`` with symlinks resolved, refused when it lands outside ``root``."""
    joined = root / Path(*rel.parts)
    real = os.path.realpath(joined)
    real_root = _real_root(str(root))
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise HotplexError.single(
            f"'{rel}' resolves to '{from_project(real, real_root)}', outside the project (a"
            " symlink leaving it)",
            span,
        )
    return joined


def from_project(real: str, real_root: str) -> str:
    """A resolved path as a message names it: relative to the project's real folder, so that
    an error served over HTTP tells no client where the server's folders are."""
    return os.path.relpath(real, real_root)


@functools.lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    """The project folder's real path: asked for every confined path, resolved once."""
    return os.path.realpath(root)


@value
class ReadResult:
    FIELDS = ("data", "size", "stamp")
    data: bytes
    size: int  # the file's full size; larger than len(data) when the read was capped
    stamp: Stamp | None  # None: not read from the disk (an overlay's file)

    def __init__(self, data: bytes, size: int, stamp: Stamp | None) -> None:
        self.__dict__.update(data=data, size=size, stamp=stamp)


def read_capped(
    path: Path, cap: int, span: Span, name: str | None = None, tail: bool = False
) -> ReadResult | None:
    """Read at most ``cap`` bytes of a regular file, its last ones if ``tail`` (a daily log's
    newest entries are at its end); None when it does not exist.

    Devices and FIFOs are refused: `/dev/zero` never ends and a FIFO blocks forever. ``name``
    is the file as messages call it (``span`` may point at the manifest key that named it).
    """
    name = span.file if name is None else name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise HotplexError.single(f"'{name}' is a directory, not a file", span) from None
    except OSError as exc:  # permission, a symlink loop, a name too long, ...
        raise HotplexError.single(f"cannot read '{name}': {exc.strerror}", span) from None
    except ValueError:  # only a NUL in a path given on the command line gets here
        raise HotplexError.single(f"cannot read {name!r}: NUL in the path", span) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise HotplexError.single(wrong_kind(name, st.st_mode), span)
        chunks = []
        remaining = min(cap, st.st_size) if st.st_size else cap
        if tail and st.st_size > cap:
            os.lseek(fd, st.st_size - cap, os.SEEK_SET)
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return ReadResult(b"".join(chunks), st.st_size, Stamp.of(st))
    finally:
        os.close(fd)


# The most bytes of a file given on the command line (facts, a transcript, a profile) read.
INPUT_CAP = 16 << 20


def read_input(path: Path, name: str, cap: int = INPUT_CAP) -> str | None:
    """A file the command line names, as UTF-8 text; None when it does not exist
    (``read_input_bytes``)."""
    data = read_input_bytes(path, name, cap)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HotplexError.single(f"not UTF-8 text: {exc.reason}", Span(name)) from None


def read_input_bytes(path: Path, name: str, cap: int = INPUT_CAP) -> bytes | None:
    """A file the command line names; None when it does not exist. Read like an overlay's file
    (``read_capped``): a device or a FIFO is refused without a blocking read, a file over
    ``cap`` bytes is refused, each with the file's name."""
    span = Span(name)
    found = read_capped(path, cap + 1, span, name)
    if found is None:
        return None
    if max(found.size, len(found.data)) > cap:
        raise HotplexError.single(f"'{name}' is larger than {cap >> 20} MiB", span)
    return found.data


def lines_before(path: Path, stop: int) -> int:
    """How many line breaks the first ``stop`` bytes of a file hold: the line a tail read
    starts at, counted only to place a finding in it."""
    count = 0
    with open(path, "rb") as handle:
        while stop > 0:
            chunk = handle.read(min(stop, 1 << 20))
            if not chunk:
                break
            count += chunk.count(b"\n")
            stop -= len(chunk)
    return count


def file_kind(mode: int) -> str:
    """What a file is, as a message names it."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a socket or other special file"


def wrong_kind(name: str, mode: int, wanted: str = "a regular file") -> str:
    """The message for a path that is there but of another kind than ``wanted``: a device or
    a FIFO is named so, never "does not exist"."""
    return f"'{name}' is {file_kind(mode)}, not {wanted}"


def kind_of(path: str | os.PathLike[str]) -> int | None:
    """The mode of what ``path`` names (a symlink followed), None when nothing is there;
    ``stat`` opens nothing, so a FIFO is not waited on."""
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


def write_atomic(path: Path, data: bytes, mode: int | None = None, durable: bool = False) -> Stamp:
    """Replace ``path`` with ``data`` via a temp file in the same folder and a rename; return
    the new file's stamp (taken from the open temp file: the rename keeps it). ``durable``: the
    bytes and the rename are on the disk before it returns (fsync of the file and its folder),
    for a write another must never overtake, even through a power cut.

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
            path.parent.mkdir(parents=True, exist_ok=True)
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
            written = Stamp.of(os.fstat(fd))
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        crash_point()
        os.replace(tmp, path)
        if durable:
            _sync_folder(path.parent)
    except OSError as exc:
        _remove_quietly(tmp)
        raise _write_failed(path, exc) from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    crash_point()
    return written


def _sync_folder(folder: Path) -> None:
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
    stem = temp_stem(path.name)
    while True:
        tmp = f"{path.parent}/.{stem}.{_PID[0]}.{next(_TEMP_NUMBERS)}{TEMP_SUFFIX}"
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


# The descriptors of the locks this process holds. A forked process (``-j``'s workers) closes
# its copies at once: a flock belongs to every descriptor of it, and a worker that outlived a
# killed build must not keep the next build waiting.
_HELD_LOCKS: set[int] = set()


def _after_fork_in_child() -> None:
    """A forked worker names its temp files by its own pid and holds no lock."""
    _PID[0] = os.getpid()
    for fd in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_PID_WIDTH = 10  # digits of the largest pid (2**32)


def _lock_wait(default: float = 60.0) -> float:
    """Seconds a command waits for a lock another holds (HOTPLEX_LOCK_TIMEOUT); a bad value is
    ignored, and so is one no clock reaches (nan, inf, a negative number: each waited forever)."""
    try:
        seconds = float(os.environ.get("HOTPLEX_LOCK_TIMEOUT") or default)
    except ValueError:
        return default
    return seconds if math.isfinite(seconds) and seconds >= 0 else default


LOCK_WAIT_SECONDS = _lock_wait()


class FileLock:
    """An exclusive lock on the file ``path`` (made when missing), so that two commands that
    read, change and replace the same files never interleave: ``holder`` names them in the
    message a waiting one gives up with.

    ``flock`` is released by the kernel when its holder dies, even by SIGKILL: a killed command
    never leaves a stale lock behind (and a forked worker never holds it). The holder writes its
    pid into the file for that message, so the file is opened without following a symlink and
    refused when another name links to it: the pid would land in the file linked to.
    """

    def __init__(self, path: Path, wait_seconds: float, holder: str) -> None:
        self.path = path
        self.wait_seconds = wait_seconds
        self.holder = holder
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        import fcntl
        import time

        span = Span(str(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
            f"{self.wait_seconds:g} s (set HOTPLEX_LOCK_TIMEOUT to wait longer)"
        )

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            _HELD_LOCKS.discard(self._fd)
            os.close(self._fd)  # closing releases the flock
            self._fd = None


class ProjectLock(FileLock):
    """The lock on the project's state folder, so two builds never interleave."""

    def __init__(self, folder: Path, wait_seconds: float) -> None:
        super().__init__(folder / "lock", wait_seconds, "hotplex build")


def _read_quietly(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
