"""Placed files: artifacts an editor reads at a fixed path in the repository (``.rules``,
``.cursor/rules/x.mdc``), outside ``out``, where the user's own files live too.

hotplex writes such a file only where nothing is, or where the file is its own: its bytes are
those the build log recorded it writing, or it carries hotplex's marker line whose digest matches
the rest of the file (a fresh clone has no log, and a checkout of an older build is still
hotplex's). A marker line copied into a hand-written file, or a placed file edited since, fails
the digest: hotplex does not overwrite it, does not delete it as an orphan, and ``import`` reads
it like any other file. A file that passes is never imported back as a source.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from hotplex.errors import HotplexError, Span

# One line of the file's own Markdown: an HTML comment, which every format here keeps as text.
_MARKER = re.compile(rb"^<!-- hotplex: [^\n]*? sha256:([0-9a-f]{16}) -->\n", re.MULTILINE)


def marked(head: str, body: str, manifest: str, target: str) -> str:
    """``head`` (the format's frontmatter, or nothing), the marker line naming the ``manifest``
    file and the ``target``, then ``body``; the marker's digest covers everything but itself."""
    digest = _digest((head + body).encode("utf-8"))
    line = (
        f"<!-- hotplex: written by `hotplex build` from {_quoted(manifest)}, target"
        f' "{_quoted(target)}"; edit the sources, not this file. sha256:{digest} -->\n'
    )
    return head + line + body


# In a name in the marker, what could end the comment (``-->``), split the line or pass for the
# target's quotes is percent-encoded, as is ``%`` itself; a plain name reads as it is.
_UNSAFE = frozenset('%"<>')


def _quoted(name: str) -> str:
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogateescape"))
        if c in _UNSAFE or not c.isprintable()
        else c
        for c in name
    )


def is_hotplex_file(data: bytes) -> bool:
    """The file carries exactly one marker line, and its digest matches the rest of the file."""
    found = list(_MARKER.finditer(data))
    if len(found) != 1:
        return False
    match = found[0]
    return _digest(data[: match.start()] + data[match.end() :]) == match.group(1).decode()


def unmarked(data: bytes) -> bytes:
    """A file of hotplex's without its marker line: the bytes it was written from (the source
    of a placed ``SKILL.md``, which ``import`` copied from the folder now there)."""
    found = list(_MARKER.finditer(data))
    if len(found) != 1 or not is_hotplex_file(data):
        return data
    return data[: found[0].start()] + data[found[0].end() :]


def without_marker(data: bytes) -> bytes | None:
    """A file with one marker line, matching or not, without it (None: it has none): a placed
    file edited since is the user's text now, but the line is hotplex's and says the file is
    written by a build, which is no longer true of a copy ``import`` adopts."""
    found = list(_MARKER.finditer(data))
    if len(found) != 1 or _ORIGIN.search(found[0].group(0)) is None:
        return None
    return data[: found[0].start()] + data[found[0].end() :]


_ORIGIN = re.compile(rb"written by `hotplex build` from (.+), target \"([^\"]*)\"; edit")


def origin(data: bytes) -> tuple[str, str, bool] | None:
    """The manifest's file name and the target a file's one marker line names, and whether
    the file is hotplex's (False: edited since, its digest no longer matches); None without
    exactly one marker line."""
    found = list(_MARKER.finditer(data))
    named = _ORIGIN.search(found[0].group(0)) if len(found) == 1 else None
    if named is None:
        return None
    from urllib.parse import unquote

    manifest, target = (unquote(named.group(i).decode(), errors="surrogateescape") for i in (1, 2))
    return manifest, target, is_hotplex_file(data)


# No rule file is larger: a bigger one is not read to find out (a 1 GB `.rules` is not hotplex's).
READ_CAP = 64 * 1024 * 1024


def read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (not a symlink, FIFO or device, which a
    read could block on or lead elsewhere) of at most ``READ_CAP`` bytes; else None."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > READ_CAP:
            return None
        with open(path, "rb") as handle:
            return handle.read(READ_CAP + 1)
    except OSError:
        return None


def read_is_hotplex_file(path: Path) -> bool:
    """The same, for a file on disk (a symlink, a special or unreadable file is never hotplex's)."""
    data = read_regular(path)
    return data is not None and is_hotplex_file(data)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def refuse_foreign(
    root: Path, path: str, span: Span, recorded: str | None, sources: str, way_out: str = ""
) -> None:
    """Raise unless the file at ``path`` is absent or hotplex's: the bytes the log recorded
    (``recorded``, their sha256) or a file with a valid marker. No folder on the way and not the
    file itself may be a symlink (``refuse_symlinked``). ``sources`` is the project's sources
    folder, where the hint sends what the file says; ``way_out``, when given, the hint instead
    (a file the target's ``place`` does not name: an editor's placed skill)."""
    full = refuse_symlinked(root, path, span, bool(way_out))
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise HotplexError.single(f"cannot read '{path}': {exc.strerror or exc}", span) from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "no regular file"
        raise HotplexError.single(f"'{path}' is {kind}, not a file hotplex can place", span)
    data = read_regular(full) or b""
    if recorded is not None and hashlib.sha256(data).hexdigest() == recorded:
        return
    if is_hotplex_file(data):
        return
    raise HotplexError.single(
        f"'{path}' exists and hotplex did not write it (or it was edited since): it is never"
        " overwritten",
        span,
        hint=way_out or foreign_hint(sources),
    )


def refuse_symlinked(root: Path, path: str, span: Span, fixed: bool = False) -> Path:
    """``root/path``, unless a folder on the way or the file itself is a symlink: a placed file
    is written (and an orphan deleted) where its path says, nowhere else. ``fixed``: the path is
    not the target's ``place``, so the hint does not offer to set it."""
    full = root
    for part in path.split("/"):
        full = full / part
        if os.path.islink(full):
            link = full.relative_to(root).as_posix()
            instead = "remove the symlink" if link == path else "replace the symlink with a folder"
            raise HotplexError.single(
                f"'{link}' is a symlink: hotplex places '{path}' only through real folders, so it"
                " cannot land somewhere else",
                span,
                hint=instead if fixed else f"{instead}, or set place to another path",
            )
    return full


def foreign_hint(sources: str) -> str:
    """The way out when a place holds the user's own file: ``import`` cannot take it into the
    project whose target places there (the file would be that target's source and output)."""
    folder = f" in '{sources}/'" if sources != "." else ""
    return (
        f"move what it says into the sources{folder} yourself (a new file needs a [[source]]),"
        " then delete or rename it and build again; or set place to another path"
    )
