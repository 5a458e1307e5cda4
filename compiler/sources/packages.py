"""Packages as the sources stage reads them: each ``[[package]]`` is the folder
``<sources>/<name>/``, its files the ones ``hotplex.lock`` pins, read from the content-addressed
cache in the user's cache folder (``$XDG_CACHE_HOME/hotplex/``). Nothing here touches the
network: ``commands/packages.py`` (``hotplex lock``, ``update``, ``fetch``) writes the lock and
fills the cache; a build only reads them.
The lock's text is ``package_lock.py``'s.
"""

from __future__ import annotations

import os
import posixpath
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hotplex.errors import EXIT_FAILED, HotplexError, Problem, Span
from hotplex.fs import (
    INPUT_CAP,
    Stamp,
    kind_of,
    read_capped,
    sha256,
    skipped_folder,
    wrong_kind,
)
from hotplex.manifest.model import Model, Package
from hotplex.manifest.read import LOCK_NAME
from hotplex.sources.package_lock import Locked, read_lock

TYPE_CHECKING = False  # not typing's: a build of a project with packages imports this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    # A local package's files (by their path from the project): each one's stamp and digest.
    Known = dict[str, tuple[Stamp, str]]

_FETCH_HINT = "run `hotplex fetch` to fill the cache from hotplex.lock"

# Nothing a repository brings runs: no hook, no fsmonitor, no transport but the ones a package
# may name (a remote helper, `ext::cmd` or `fd::17`, runs a program or reads a descriptor).
GIT_SAFE = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "protocol.allow=never",
    "-c", "protocol.https.allow=always",
    "-c", "protocol.http.allow=always",
    "-c", "protocol.ssh.allow=always",
    "-c", "protocol.git.allow=always",
    "-c", "protocol.file.allow=always",
    "-c", "submodule.recurse=false",
)  # fmt: skip


def git_url(model: Model, git: str) -> str:
    """``git`` as the mirror fetches it: a relative local path is the project's, not the
    mirror's (a URL, ``host:path`` and an absolute path are as written)."""
    head = git.split("/", 1)[0]
    if "://" in git or ":" in head or os.path.isabs(git):
        return git
    return os.path.normpath(os.path.join(os.path.abspath(model.root), git))


def mirror_path(url: str) -> Path:
    """Where the cache keeps the bare mirror of the repository at ``url``."""
    return cache_folder() / "git" / f"{sha256(url.encode())[:32]}.git"


def held(model: Model, package: Package, commit: str) -> set[str] | None:
    """The files of a git package at ``commit`` as the lock names them, listed from its mirror
    in the cache (no network); None when the mirror does not hold the commit."""
    assert package.git is not None  # a git package
    subdir = posixpath.normpath(package.subdir) if package.subdir else "."
    tree = commit if subdir == "." else f"{commit}:{subdir}"
    try:
        done = subprocess.run(
            ["git", *GIT_SAFE, "ls-tree", "-r", "-z", "--name-only", "--full-tree", tree],
            cwd=mirror_path(git_url(model, package.git)),
            capture_output=True,
            check=False,
        )
    except OSError:  # no mirror, or no git
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {rel for rel in names if rel and not left_out(rel)}


def not_held(
    name: str, pinned: Iterable[str], holds: Iterable[str], span: Span, other: Iterable[str] = ()
) -> HotplexError | None:
    """Where the lock and a package's commit disagree on its files (``pinned`` and ``holds``
    by name, ``other``: bytes), each file named: a lock edited by hand (exit 1); None if they
    agree."""
    pinned, holds = set(pinned), set(holds)
    said = [
        f"{how} {_listed(names)}{tail}"
        for how, names, tail in (
            ("pins", pinned - holds, ", which its commit does not hold"),
            ("does not pin", holds - pinned, ", which its commit holds"),
            ("pins other bytes of", set(other), " than its commit holds"),
        )
        if names
    ]
    if not said:
        return None
    return HotplexError.single(
        f"package '{name}': {LOCK_NAME} {'; it '.join(said)}",
        span,
        hint=f"run `hotplex update {name}` to lock what it holds now",
        exit_status=EXIT_FAILED,
    )


def _listed(names: Iterable[str]) -> str:
    shown = sorted(names)
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    return ", ".join(shown[:3]) + more


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
        raise _unusable(wrong_kind(str(path), mode), display, span)
    return path


def cached(digest: str, display: str) -> bytes | None:
    """The bytes the cache keeps for ``digest``; None when it holds none. One look, on the
    file opened: what is no regular file there (``cache_file``) is refused without a read that
    waits on a FIFO."""
    path = blob_path(digest)
    try:
        found = read_capped(path, INPUT_CAP, Span(str(path)))
    except HotplexError as exc:
        raise _unusable(exc.problems[0].message, display, None) from None
    return None if found is None else found.data


def _unusable(why: str, display: str, span: Span | None) -> HotplexError:
    return HotplexError.single(
        f"{why}: the cache's copy of '{display}'", span, hint=_FETCH_HINT, exit_status=EXIT_FAILED
    )


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
    if frozen:
        _frozen_held(model, lock)
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


def _frozen_held(model: Model, lock: dict[str, Locked]) -> None:
    """``--frozen``: each git package's commit holds the files the lock pins, by name (a lock
    edited to name ``SUB/BASE.md`` got the cache's bytes of ``sub/base.md`` under that name)."""
    problems = []
    for package in model.manifest.package:
        locked = lock.get(package.name)
        if package.git is None or locked is None:
            continue
        span = Span(LOCK_NAME, key=f"package.{package.name}.files")
        names = held(model, package, locked.commit)
        if names is None:
            problems.append(
                Problem(
                    f"package '{package.name}': its commit {locked.commit[:12]} is not in the"
                    " cache to check the files it holds (--frozen)",
                    span,
                    _FETCH_HINT,
                )
            )
        elif (differ := not_held(package.name, locked.files, names, span)) is not None:
            problems += differ.problems
    if problems:
        raise HotplexError(problems, exit_status=EXIT_FAILED)


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
