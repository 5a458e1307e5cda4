"""The compiler's disk access that needs a rule: confined reads, stamps, atomic writes (what
else touches the disk, and where: docs/pages/contributing.md, after "Writing a worker").

Every path a manifest names is checked here, so no other module can read outside the project or
follow a symlink out of it, and every artifact is written by temp file + rename, so a reader (or a
killed build) only ever sees a whole old or a whole new file.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
import stat

from hotplex.errors import HotplexError, Span
from hotplex.values import value

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from pathlib import Path, PurePosixPath  # the no-op path takes str paths: no pathlib

STATE_DIR = ".hotplex"  # the build's own state beside the manifest: this log, the cached model
NAME_MAX = 255  # bytes (or UTF-16 units) of one file or folder name: the most ext4, APFS, NTFS take
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
    """What `stat` says about a file: enough to skip re-hashing it when nothing moved. The ctime
    sees an edit that keeps size, inode and mtime (set back by ``os.utime``, ``cp -p``, tar): no
    one can set it back. A touch or chmod moves it too, which only has the file hashed again."""

    FIELDS = ("mtime_ns", "size", "ino", "ctime_ns")
    WIDTH = len(FIELDS)  # its values in a log's or snapshot's list, where the digest follows
    mtime_ns: int
    size: int
    ino: int
    ctime_ns: int

    def __init__(self, mtime_ns: int, size: int, ino: int, ctime_ns: int) -> None:
        self.__dict__.update(mtime_ns=mtime_ns, size=size, ino=ino, ctime_ns=ctime_ns)

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)

    def as_list(self) -> list[int]:
        return [self.mtime_ns, self.size, self.ino, self.ctime_ns]


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
_SURROGATE = "[\ud800-\udfff]"  # compiled at its first use (re's cache): not on the no-op path


def is_utf8(name: str) -> bool:
    """Whether a file name read from the disk was UTF-8: Python keeps each byte that was not as a
    lone surrogate, which no artifact, log or terminal can encode."""
    return lone_surrogate(name) is None


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate of ``text`` (a byte that was no UTF-8 in an argument or a file
    name, or a JSON ``\\ud800``), or None: no file can hold it as UTF-8."""
    found = re.search(_SURROGATE, text)
    return None if found is None else found.group()


def check_relative(rel: str, span: Span) -> PurePosixPath:
    """Refuse a manifest or include path that is absolute or climbs out with '..'."""
    from pathlib import PurePosixPath  # not at import: the no-op path takes no pathlib

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
    parts = key.split("/")
    longest = max(len(part.encode("utf-8", "surrogatepass")) for part in parts)
    if longest > NAME_MAX:
        raise HotplexError.single(
            f"{what} names a file or folder of {longest} bytes: no disk takes a name over"
            f" {NAME_MAX} bytes, so no project holds it",
            span,
        )
    slashed = checked_relative(key, span)
    if len(parts) > 1 and parts[-1] in ("", "."):  # "USER.md/" would be read as USER.md
        raise HotplexError.single(
            f"{what} {key!r} ends in '/{parts[-1]}', which names a folder, not a file",
            span,
            hint=f"did you mean '{posixpath.normpath(key)}'?",
        )
    return slashed


def confine(root: Path, rel: PurePosixPath, span: Span) -> Path:
    """``root/rel`` with symlinks resolved, refused when it lands outside ``root``."""
    from pathlib import Path

    joined = Path(root, *rel.parts)
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
        # A /proc or /sys file's stat says 0 or 4096 bytes whatever it holds: its size is what
        # the read found when it reached the end.
        start = st.st_size - cap if tail and st.st_size > cap else 0
        if start:
            os.lseek(fd, start, os.SEEK_SET)
        chunks, ended = [], False
        remaining = min(cap, st.st_size) if st.st_size else cap
        while remaining > 0 and not ended:
            chunk = os.read(fd, min(remaining, 1 << 20))
            chunks.append(chunk)
            remaining -= len(chunk)
            ended = not chunk
        data = b"".join(chunks)
        size = start + len(data) if ended else max(st.st_size, len(data))
        return ReadResult(data, size, Stamp.of(st))
    except OSError as exc:  # /proc/self/mem (EIO), a write-only /proc file (EINVAL), ...
        raise HotplexError.single(f"cannot read '{name}': {exc.strerror or exc}", span) from None
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


def declared_match(path: str, pattern: str) -> bool:
    """Whether the '/'-separated ``path`` matches ``pattern`` (a declared output, a
    ``[skills] scripts`` entry): ``*``, ``?`` and ``[…]`` match within one path segment, a
    ``**`` segment any number of whole segments."""
    return _match(path.split("/"), pattern.split("/"))


def _match(parts: list[str], wanted: list[str]) -> bool:
    if not wanted:
        return not parts
    if wanted[0] == "**":
        return any(_match(parts[i:], wanted[1:]) for i in range(len(parts) + 1))
    return (
        bool(parts) and fnmatch.fnmatchcase(parts[0], wanted[0]) and _match(parts[1:], wanted[1:])
    )
