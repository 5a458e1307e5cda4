"""Packages as the sources stage reads them: each ``[[package]]`` is the folder
``<sources>/<name>/``, its files the ones ``hotplex.lock`` pins, read from the content-addressed
cache in the user's cache folder (``$XDG_CACHE_HOME/hotplex/``). Nothing here touches the
network: ``commands/packages.py`` (``hotplex lock``, ``update``, ``fetch``) writes the lock and
fills the cache; a build only reads them.

The lock is TOML, written the same way for the same packages (sorted, one file per line): per
package where it came from, the commit it resolved to and a digest of every file under the
package's folder.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from hotplex.errors import EXIT_FAILED, HotplexError, Problem, Span
from hotplex.fs import (
    INPUT_CAP,
    Stamp,
    kind_of,
    read_capped,
    read_input_bytes,
    sha256,
    skipped_folder,
    wrong_kind,
)
from hotplex.manifest.model import Model, Package
from hotplex.manifest.read import LOCK_NAME

TYPE_CHECKING = False  # not typing's: a build of a project with packages imports this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    # A local package's files (by their path from the project): each one's stamp and digest.
    Known = dict[str, tuple[Stamp, str]]

LOCK_VERSION = 1
_FETCH_HINT = "run `hotplex fetch` to fill the cache from hotplex.lock"


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


def cache_folder() -> Path:
    """The user's cache folder for hotplex (XDG): shared by projects, never cleaned by them."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hotplex"


def blob_path(digest: str) -> Path:
    """Where the cache keeps the file of ``digest`` ("sha256:<hex>")."""
    hexa = digest.removeprefix("sha256:")
    return cache_folder() / "sha256" / hexa[:2] / hexa


def digest_of(data: bytes) -> str:
    return f"sha256:{sha256(data)}"


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
            raise HotplexError.single(
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
                raise HotplexError.single(
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
        raise HotplexError.single(
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
        key = f'package.{name}.files."{rel}"'
        if any(part in ("", ".", "..") for part in rel.split("/")):
            why = f"'{rel}' is not a path inside the package"
        elif not _DIGEST.fullmatch(digest):
            why = f"'{digest}' is no sha256 digest"
        else:
            continue
        raise HotplexError.single(
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


@dataclass(frozen=True)
class Pinned:
    """The package files a build reads: by their path as the build names them
    (``<sources>/<name>/<file>``), the digest the lock pins."""

    sources_dir: str
    names: frozenset[str]
    files: dict[str, str] = field(default_factory=dict)
    commits: dict[str, str] = field(default_factory=dict)
    folders: tuple[str, ...] = ()  # the local packages' folders, as the manifest names them
    # Their files' stamps and digests, as compared with the lock (``edited``), for the snapshot.
    local: Known = field(default_factory=dict)

    def package_of(self, display: str) -> str | None:
        """The package ``display`` is a file of, if any."""
        prefix = "" if self.sources_dir == "." else self.sources_dir + "/"
        if not display.startswith(prefix):
            return None
        name = display[len(prefix) :].split("/", 1)[0]
        return name if name in self.names and "/" in display[len(prefix) :] else None

    def origin(self, display: str) -> str | None:
        """Where a package file comes from, for ``--explain``: the package and its commit."""
        name = self.package_of(display)
        return None if name is None else self.described(name)

    def packages_of(self, files: Iterable[str]) -> tuple[str, ...]:
        """The packages a section's files come from, by name (``stats``, ``show``)."""
        return tuple(sorted({n for f in files if (n := self.package_of(f)) is not None}))

    def described(self, name: str) -> str:
        """A package as messages name it: ``package 'team' at 945af4730994``."""
        commit = self.commits.get(name)
        return f"package '{name}'" + (f" at {commit[:12]}" if commit else "")

    def locate(self, display: str, span: Span) -> Path | None:
        """Where the cache keeps a package file; None when the package has no such file (it
        is absent: a local file never stands in for it)."""
        digest = self.files.get(display)
        if digest is None:
            return None
        path = cache_file(digest, display, span)
        if path is None:
            raise missing_error([display], span)
        return path

    def verify(self, display: str, data: bytes, span: Span) -> None:
        """A cached file whose bytes are not those the lock pins is never used."""
        if digest_of(data) != self.files[display]:
            raise tampered_error([display], span)


def cache_file(digest: str, display: str, span: Span | None = None) -> Path | None:
    """The cache's file of ``digest`` (the package file ``display``), None when it is not
    there. Anything there but a regular file (a FIFO would block a read, a device never end, a
    folder cannot be read) is an error naming the cache file, repaired by `hotplex fetch`."""
    path = blob_path(digest)
    mode = kind_of(path)
    if mode is None:
        return None
    if not stat.S_ISREG(mode):
        raise HotplexError.single(
            f"{wrong_kind(str(path), mode)}: the cache's copy of '{display}'",
            span,
            hint=_FETCH_HINT,
            exit_status=EXIT_FAILED,
        )
    return path


def cached(digest: str, display: str) -> bytes | None:
    """The bytes the cache keeps for ``digest`` (``cache_file``), read without waiting on a
    FIFO put there after the look; None when it holds none."""
    path = cache_file(digest, display)
    if path is None:
        return None
    found = read_capped(path, INPUT_CAP, Span(str(path)))
    return None if found is None else found.data


def _differs(data: bytes | None, digest: str) -> bool:
    return data is None or digest_of(data) != digest


def missing_error(displays: list[str], span: Span | None = None) -> HotplexError:
    return _cache_error("package files pinned by {lock} are not in the cache", displays, span)


def tampered_error(displays: list[str], span: Span | None = None) -> HotplexError:
    return _cache_error(
        "cached package files do not match the digest {lock} pins",
        displays,
        span,
        "the cache was changed after it was filled; ",
    )


def _cache_error(what: str, displays: list[str], span: Span | None, why: str = "") -> HotplexError:
    """One error for every file of the cache that is not as the lock pins it (exit 1)."""
    more = f" and {len(displays) - 3} more" if len(displays) > 3 else ""
    return HotplexError.single(
        f"{what.format(lock=LOCK_NAME)}: {', '.join(displays[:3])}{more}",
        span,
        hint=why + _FETCH_HINT,
        exit_status=EXIT_FAILED,
    )


def pinned(
    model: Model, frozen: bool = False, cap: int = 0, known: Known | None = None
) -> tuple[Pinned | None, list[str]]:
    """The package files of ``model`` as its lock pins them, and the warnings a stale lock
    gives; None when the manifest declares no package. ``frozen`` (``--frozen`` or
    ``[project] frozen``) makes a stale lock an error, exit 1, and re-hashes every cached file.
    ``cap`` (the read cap; 0: not asked) has each local package's folder compared with the
    lock, hashing only the files whose stamps moved since ``known`` (``edited``)."""
    local: Known = dict(known or {})
    packages = model.manifest.package
    lock = read_lock(model.root) or {}
    if not packages and not lock:
        return None, []
    frozen = frozen or model.manifest.project.frozen
    no_real_folder(model)
    declared = {p.name for p in packages}
    stale = [
        (
            Span(LOCK_NAME, key=f"package.{name}"),
            f"package '{name}' is in {LOCK_NAME}, but no [[package]] declares it",
        )
        for name in sorted(lock.keys() - declared)
    ]
    drifted: list[str] = []  # a local package's folder, which the lock holds as it was
    for index, package in enumerate(packages):
        locked = lock.get(package.name)
        key = Span(model.manifest_display, key=f"package[{index}]")
        if locked is None:
            stale.append((key, f"package '{package.name}' is not in {LOCK_NAME}"))
        elif not locked.agrees(package):
            stale.append((key, f"package '{package.name}' is declared otherwise than locked"))
        elif package.path is None or not cap:
            continue
        elif how := edited(model, package, locked, cap, local):
            drifted.append(
                f"package '{package.name}': the folder '{package.path}' {how}; the build reads"
                f" the files {LOCK_NAME} pins: run `hotplex update {package.name}` to lock what"
                " it holds now"
            )
    if stale and frozen:
        raise HotplexError(
            [
                Problem(f"{message} (--frozen)", span, "run `hotplex lock` and commit hotplex.lock")
                for span, message in stale
            ],
            exit_status=EXIT_FAILED,
        )
    warnings = [f"{message}: run `hotplex lock`" for _, message in stale] + drifted
    if not packages:
        return None, warnings
    files, commits = {}, {}
    for package in packages:
        locked = lock.get(package.name)
        for rel, digest in (locked.files if locked else {}).items():
            files[model.source_path(package.name, rel)] = digest
        commits[package.name] = locked.commit if locked else ""
    missing = [d for d, digest in files.items() if cache_file(digest, d) is None]
    if missing:
        raise missing_error(missing)
    if frozen:
        bad = [d for d, digest in files.items() if _differs(cached(digest, d), digest)]
        if bad:
            raise tampered_error(bad)
    names = frozenset(p.name for p in packages)
    folders = tuple(os.path.join(model.root, p.path) for p in packages if p.path is not None)
    return Pinned(model.sources_dir, names, files, commits, folders, local), warnings


def left_out(rel: str) -> bool:
    """Whether a package's file is no part of it, as no part of the sources folder: a hidden
    file or one in a hidden folder (``.git/``, ``.env``) or in ``node_modules/``."""
    return any(skipped_folder(part) for part in rel.split("/"))


def folder_entries(folder: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """Each file of a local package's folder (and each link to a folder in it), sorted: its path
    inside the package and on disk. What the sources folder's walk leaves out (``left_out``)
    is no part of it: a checkout's ``.git/`` is not locked."""
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not skipped_folder(d))
        kept = sorted(n for n in names if not skipped_folder(n))
        for name in kept + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            yield os.path.relpath(path, folder).replace(os.sep, "/"), path


def edited(
    model: Model, package: Package, locked: Locked, cap: int, known: Known | None = None
) -> str | None:
    """How a local package's folder differs from what the lock pins, if it does: an edit there
    after ``hotplex lock`` that the build, reading the lock, leaves out. No file over ``cap``
    (the read cap) is read. ``known``: each file's stamp and digest as the last build took
    them (by its path from the project), as the build's other inputs: a file whose stamp has
    not moved is not read again; each one taken here is put in it."""
    folder = Path(model.root, package.path or ".")
    if not folder.is_dir():
        return "no longer exists"
    found, changed = {}, "was edited since it was locked"
    known = {} if known is None else known
    try:
        for rel, path in folder_entries(folder):
            if not os.path.isfile(path):
                continue
            if rel not in locked.files:
                return changed  # a file added
            now = Stamp.of(os.stat(path))  # taken before the read: a later write moves it
            if now.size > cap:  # never locked so: not read whole on every build
                return "holds a file over the read cap"
            display = os.path.relpath(path, model.root)
            last = known.get(display)
            digest = last[1] if last and last[0] == now else digest_of(Path(path).read_bytes())
            known[display] = (now, digest)
            found[rel] = digest
    except OSError:
        return "cannot be read"
    return None if found == locked.files else changed


def no_real_folder(model: Model) -> None:
    """A package is a folder of the sources folder that is not there on disk."""
    problems = []
    for index, package in enumerate(model.manifest.package):
        real = model.source_path(package.name)
        if os.path.lexists(model.root / real):
            kind = "folder" if os.path.isdir(model.root / real) else "file"
            problems.append(
                Problem(
                    f"'{real}' is both a {kind} of the sources folder and the package"
                    f" '{package.name}' (package[{index}])",
                    Span(model.manifest_display, key=f"package[{index}].name"),
                    "rename the package or move the folder: a package file is never"
                    " overridden by a local one",
                )
            )
    if problems:
        raise HotplexError(problems)
