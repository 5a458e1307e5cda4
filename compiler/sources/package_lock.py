"""``hotplex.lock``, read and written: TOML, the same bytes for the same packages (sorted, one
file per line): per package where it came from, the commit it resolved to and a digest of every
file under the package's folder. A lock hotplex did not write is refused before any of it is
used (``NotALock``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hotplex.console import warn
from hotplex.errors import HotplexError, Span
from hotplex.fs import read_input_bytes
from hotplex.manifest.model import Package
from hotplex.manifest.read import LOCK_NAME
from hotplex.sources.skill_names import odd_character

LOCK_VERSION = 1


@dataclass(frozen=True)
class Locked:
    """One package as the lock pins it."""

    name: str
    # the manifest keys it was locked from: git, rev, subdir or path, and the allow it was
    # scanned with (a narrower allow is another declaration: the package is scanned again)
    origin: dict[str, str | list[str]]
    commit: str  # the resolved commit ("" for a local folder)
    files: dict[str, str]  # path inside the package -> "sha256:<hex>"

    def agrees(self, package: Package) -> bool:
        return self.origin == origin_of(package)


def origin_of(package: Package) -> dict[str, str | list[str]]:
    """What the lock records of where a package came from (a password in the URL left out)
    and of the ``allow`` it was scanned with."""
    git = without_password(package.git) if package.git is not None else None
    keys = {"git": git, "rev": package.rev, "subdir": package.subdir, "path": package.path}
    origin: dict[str, str | list[str]] = {k: v for k, v in keys.items() if v is not None}
    if package.allow:
        origin["allow"] = sorted(set(package.allow))
    return origin


def without_password(url: str) -> str:
    """``url`` as the lock and messages show it: ``https://user:secret@host/x`` as
    ``https://user@host/x``, and over http(s) no user either (``https://ghp_…@host/x``: a token
    is written as the user as often as the password). Only a record: git fetches the URL as
    written, its credential helpers keyed by host."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if not at:
        return url
    if scheme.lower() in ("http", "https"):
        return f"{scheme}://{host}{slash}{path}"
    return f"{scheme}://{user.split(':', 1)[0]}@{host}{slash}{path}"


class NotALock(HotplexError):
    """A lock whose text hotplex cannot read (edited by hand, or of another version): what
    ``hotplex lock`` writes again. A lock that is no regular file is not one of these."""


def read_lock(root: Path, display: str = LOCK_NAME) -> dict[str, Locked] | None:
    """The packages ``hotplex.lock`` pins, None when there is none; a lock hotplex cannot read
    is an error placed in it."""
    import tomllib  # only when a lock is read: a project with no package never reads one

    data = read_input_bytes(root / LOCK_NAME, display)  # a FIFO or /dev/zero: named, not read
    if data is None:
        return None
    try:
        table = tomllib.loads(data.decode("utf-8"))
        if table.get("version") != LOCK_VERSION:
            raise NotALock.single(
                f"{display} is of version {table.get('version')!r}; this hotplex reads"
                f" version {LOCK_VERSION}",
                Span(display, key="version"),
                hint="run `hotplex lock` to write it again",
            )
        found = {}
        for name, entry in table.get("package", {}).items():
            files = {str(k): str(v) for k, v in entry.get("files", {}).items()}
            _check_files(name, files, display)
            commit = str(entry.get("commit", ""))
            if commit and not _COMMIT.fullmatch(commit):
                raise NotALock.single(
                    f"{display} is not a lock hotplex wrote: '{commit}' is no commit id",
                    Span(display, key=f"package.{name}.commit"),
                    hint="run `hotplex lock` to write it again",
                )
            origin: dict[str, str | list[str]] = {
                k: str(entry[k]) for k in ("git", "rev", "subdir", "path") if k in entry
            }
            if "allow" in entry:
                origin["allow"] = [str(rule) for rule in entry["allow"]]
            found[name] = Locked(name, origin, commit, files)
        return found
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError, TypeError) as exc:
        raise NotALock.single(
            f"{display} is not a lock hotplex wrote: {exc}",
            Span(display),
            hint="run `hotplex lock` to write it again",
        ) from None


_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 repositories


def _check_files(name: str, files: dict[str, str], display: str) -> None:
    """Each file a path inside the package as ``hotplex lock`` writes it, each digest a
    SHA-256: a lock edited to name ``../SOUL.md`` or ``sha256:/etc/passwd`` would have the build
    read the project's own file, or any file, as the package's."""
    for rel, digest in files.items():
        key = f"package.{name}.files.{json.dumps(rel, ensure_ascii=False)}"
        if any(part in ("", ".", "..") for part in rel.split("/")):
            why = f"'{rel}' is not a path inside the package"
        elif (held := odd_character(rel)) is not None:  # a backslash: a folder on Windows
            why = f"a file name holds {held}, which `hotplex lock` never locks"
        elif not _DIGEST.fullmatch(digest):
            why = f"'{digest}' is no sha256 digest"
        else:
            continue
        raise NotALock.single(
            f"{display} is not a lock hotplex wrote: {why}",
            Span(display, key=key),
            hint="run `hotplex lock` to write it again",
        )


def lock_text(packages: dict[str, Locked]) -> str:
    """The lock's text: the same bytes for the same packages."""
    import tomli_w

    table: dict[str, object] = {"version": LOCK_VERSION}
    table["package"] = {
        name: {
            **dict(sorted(locked.origin.items())),
            **({"commit": locked.commit} if locked.commit else {}),
            "files": dict(sorted(locked.files.items())),
        }
        for name, locked in sorted(packages.items())
    }
    head = "# Written by `hotplex lock` and `hotplex update`; commit it. Do not edit.\n"
    return head + tomli_w.dumps(table)


def lock_to_start_from(root: Path, command: str) -> dict[str, Locked]:
    """The packages the lock pins. One whose text hotplex cannot read (edited by hand, or of
    another version) is what ``lock`` and ``update`` write again, as its error's hint says:
    every package is locked anew from the manifest, with a warning saying why; ``fetch``
    refuses it, as all commands refuse a lock that is a FIFO or a device."""
    try:
        return read_lock(root) or {}
    except NotALock as exc:
        if command == "fetch":
            raise
        warn(f"{exc.problems[0].message}; every package is locked again from the manifest")
        return {}
