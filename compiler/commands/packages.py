"""``hotplex lock``, ``hotplex update [NAME]`` and ``hotplex fetch``: the only commands that touch
the network. Each package is read with the ``git`` command (its own authentication, the user's
credential helpers) into a bare mirror in the user's cache folder, with hooks switched off and
no submodule fetched: nothing fetched runs. Every file under the package's folder is digested,
every text file scanned (secrets, hidden text, injection with scope "all") before the package
is used; a finding refuses the package unless its ``allow`` lets it through. The lock and the
cache are written only once every package has been read: a failure keeps the last ones.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hotplex.errors import EXIT_FAILED, EXIT_OK, HotplexError, Problem, Span, suggest
from hotplex.fs import STATE_DIR, file_kind, kind_of
from hotplex.manifest.model import Model, Package
from hotplex.manifest.read import LOCK_NAME
from hotplex.scanning.hidden import visible
from hotplex.sources.package_lock import (
    Locked,
    lock_text,
    lock_to_start_from,
    origin_of,
    without_password,
)
from hotplex.sources.packages import (
    GIT_SAFE,
    blob_path,
    cache_folder,
    cached,
    digest_of,
    edited,
    folder_entries,
    git_url,
    held,
    left_out,
    mirror_path,
    no_real_folder,
    not_held,
)
from hotplex.sources.scanned import scan_package
from hotplex.sources.skill_names import odd_character, one_name_apart
from hotplex.writes import write_atomic

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True)
class Read:
    """A package as read at a commit: its files' bytes by path inside the package."""

    commit: str
    files: dict[str, bytes]


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    from hotplex.manifest import load as loading

    model = loading.load(root, manifest or root / "hotplex.toml")
    lock = lock_to_start_from(root, args.command)
    if not model.manifest.package and not (lock and args.command != "fetch"):
        print(f"{model.manifest_display} declares no [[package]]: nothing to {args.command}")
        return EXIT_OK
    no_real_folder(model)  # a package the build would refuse is never locked
    if args.command == "fetch":
        return _fetch(model, lock)
    names = [p.name for p in model.manifest.package]
    asked = getattr(args, "names", [])
    moving = set(names) if args.command == "update" and not asked else set(asked)
    unknown = sorted(moving - set(names))
    if unknown:
        raise HotplexError.single(
            f"no [[package]] is named '{unknown[0]}'",
            Span(model.manifest_display, key="package"),
            hint=suggest(unknown[0], names) or f"its packages: {', '.join(names)}",
        )
    new: dict[str, Locked] = {}
    read: dict[str, Read] = {}
    refused: list[Problem] = []  # every package's findings, not the first package's alone
    for index, package in enumerate(model.manifest.package):
        old = lock.get(package.name)
        if old is not None and old.agrees(package) and package.name not in moving:
            new[package.name] = old
            continue
        got = _read(model, package, index, None)
        try:
            scan_package(model, package, got.files)
        except HotplexError as exc:
            refused += exc.problems
            continue
        read[package.name] = got
        files = {rel: digest_of(data) for rel, data in got.files.items()}
        new[package.name] = Locked(package.name, origin_of(package), got.commit, files)
    if refused:
        raise HotplexError(refused, exit_status=EXIT_FAILED)
    for got in read.values():
        _store(got.files)
    write_atomic(root / LOCK_NAME, lock_text(new).encode())
    for package in model.manifest.package:
        locked = new[package.name]
        how = (
            package.path is not None
            and package.name not in read
            and edited(model, package, locked, _cap(model))
        )
        print(
            f"{package.name}: kept as {LOCK_NAME} pins it, though its folder {how}: run"
            f" `hotplex update {package.name}` to lock what it holds now"
            if how  # it said "unchanged"
            else _change(lock.get(package.name), locked)
        )
    for name in sorted(lock.keys() - new.keys()):
        print(f"{name}: removed, no [[package]] declares it")
    return EXIT_OK


def _change(old: Locked | None, new: Locked) -> str:
    """What locking did to a package: its commit, and the files added, removed and changed."""
    at = new.commit[:12] or "folder"
    if old is None:
        return f"{new.name}: locked at {at}, {_counted(len(new.files), 'file')}"
    if old.files == new.files and old.commit == new.commit:
        return f"{new.name}: unchanged at {at}"
    lines = [f"{new.name}: {old.commit[:12] or 'folder'} -> {at}"]
    for word, paths in (
        ("added", sorted(new.files.keys() - old.files.keys())),
        ("removed", sorted(old.files.keys() - new.files.keys())),
        (
            "changed",
            sorted(p for p in new.files.keys() & old.files.keys() if old.files[p] != new.files[p]),
        ),
    ):
        lines += [f"  {word}: {p}" for p in paths]
    return "\n".join(lines)


def _fetch(model: Model, lock: dict[str, Locked]) -> int:
    """Fill the cache with every file the lock pins, from the commit it pins. What the lock pins
    is scanned as ``lock`` scans it, whether fetched now or already cached: a lock edited to
    another commit brings nothing unscanned. The cache is written only once all passed."""
    fetched: list[Read] = []
    for index, package in enumerate(model.manifest.package):
        locked = lock.get(package.name)
        if locked is None or not locked.agrees(package):
            raise HotplexError.single(
                f"package '{package.name}' is not locked as declared",
                Span(model.manifest_display, key=f"package[{index}]"),
                hint="run `hotplex lock` first",
            )
        if all(_cached(d) for d in locked.files.values()) and (
            package.git is None or held(model, package, locked.commit) == set(locked.files)
        ):  # a lock naming a file its commit does not hold is read from the commit, refused
            files = {rel: cached(d, rel) or b"" for rel, d in locked.files.items()}
            scan_package(model, package, files)
            continue
        got = _read(model, package, index, locked.commit or None)
        other = [
            r for r, d in locked.files.items() if r in got.files and digest_of(got.files[r]) != d
        ]
        span = Span(model.manifest_display, key=f"package[{index}]")
        differ = not_held(package.name, locked.files, got.files, span, other)
        if differ is not None:
            raise differ
        scan_package(model, package, got.files)
        fetched.append(got)
    stored = sum(_store(got.files) for got in fetched)
    print(f"{_counted(stored, 'package file')} fetched into {cache_folder()}")
    return EXIT_OK


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _cached(digest: str) -> bool:
    """Whether the cache holds the file of ``digest``; a FIFO, folder or device in its place
    is not it: fetched again, the file replaces it."""
    with contextlib.suppress(HotplexError):
        data = cached(digest, digest)
        return data is not None and digest_of(data) == digest
    return False


def _store(files: dict[str, bytes]) -> int:
    """Put files into the content-addressed cache; how many were not there."""
    added = 0
    for data in files.values():
        digest = digest_of(data)
        if not _cached(digest):
            path = blob_path(digest)
            _made(path.parent)
            write_atomic(path, data)
            added += 1
    return added


def _made(folder: Path) -> Path:
    """A folder of the cache, made where missing: a file in its way is one error naming it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        way = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
        why = f"{way} is a file, not a folder" if way is not None else exc.strerror
        raise HotplexError.single(
            f"cannot make the cache folder {folder}: {why}",
            hint="move what is in its way: the cache is $XDG_CACHE_HOME/hotplex/",
            exit_status=EXIT_FAILED,
        ) from None
    return folder


def _read(model: Model, package: Package, index: int, commit: str | None) -> Read:
    """The package's files, from its folder or from git (at ``commit``, else its rev's newest)."""
    key = f"package[{index}]"
    span = Span(model.manifest_display, key=key)
    if package.path is not None:
        return Read("", _read_folder(model, package, Path(model.root, package.path), span))
    assert package.git is not None and package.rev is not None  # validated
    url = git_url(model, package.git)
    mirror = _mirror(url, span)
    if commit is None:
        commit = _resolve(mirror, package, span)
    elif not _has(mirror, commit):  # on no branch or tag now (a tag moved): asked by its id
        _pinned(mirror, url, package, commit)
    return Read(commit, _read_tree(model, mirror, package, commit, span))


def _has(mirror: Path, commit: str) -> bool:
    done = subprocess.run(
        ["git", *GIT_SAFE, "cat-file", "-e", f"{commit}^{{commit}}"],
        cwd=mirror,
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _pinned(mirror: Path, url: str, package: Package, commit: str) -> None:
    """Fetch the commit the lock pins by its id; one error when the repository lost it."""
    span = Span(LOCK_NAME, key=f"package.{package.name}.commit")
    gone = f"commit {commit[:12]}, which {LOCK_NAME} pins, is no longer in {without_password(url)}"
    fetch = ["fetch", "--quiet", "--no-recurse-submodules", "--no-write-fetch-head"]
    with contextlib.suppress(HotplexError):  # said below, as the commit being gone
        _git([*fetch, "--", url, commit], span, gone, cwd=mirror)
    if not _has(mirror, commit):
        raise HotplexError.single(
            gone,
            span,
            hint="a force-push or a deleted branch; run `hotplex update` to lock what it holds now",
            exit_status=EXIT_FAILED,
        )


def _git(args: list[str], span: Span, what: str, cwd: Path | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *GIT_SAFE, *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:
        raise HotplexError.single(
            f"cannot run git: {exc.strerror}", span, hint="install git", exit_status=EXIT_FAILED
        ) from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        fatal = [line for line in said if line.startswith(("fatal:", "error:"))] or said[-1:]
        raise HotplexError.single(
            f"{what}: {fatal[0] if fatal else f'git exited with {done.returncode}'}",
            span,
            hint=f"{LOCK_NAME} and the cache are as they were",
            exit_status=EXIT_FAILED,
        )
    return done.stdout


def _mirror(url: str, span: Span) -> Path:
    """A bare mirror of ``url`` in the cache, fetched now: its branches and tags, forced."""
    path = mirror_path(url)
    if not (path / "HEAD").exists():
        _made(path.parent)
        _git(["init", "--quiet", "--bare", str(path)], span, "cannot make a git mirror")
    _git(
        [
            "fetch", "--quiet", "--no-recurse-submodules", "--prune", "--prune-tags",
            "--no-write-fetch-head", "--", url,
            "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*",
        ],
        span,
        f"cannot fetch {without_password(url)}",
        cwd=path,
    )  # fmt: skip
    return path


def _resolve(mirror: Path, package: Package, span: Span) -> str:
    rev = package.rev or ""
    branch = rev.removeprefix("refs/heads/")  # a full ref name: the mirror keeps branches so
    for candidate in (f"refs/remotes/origin/{branch}", f"refs/tags/{rev}", rev):
        try:
            out = _git(
                ["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"], span, "", mirror
            )
        except HotplexError:
            continue
        return out.decode().strip()
    raise HotplexError.single(
        f"rev '{rev}' is no branch, tag or commit of {without_password(package.git or '')}",
        Span(span.file, key=f"{span.key}.rev"),
        hint=f"{LOCK_NAME} and the cache are as they were",
        exit_status=EXIT_FAILED,
    )


def _read_tree(
    model: Model, mirror: Path, package: Package, commit: str, span: Span
) -> dict[str, bytes]:
    subdir = posixpath.normpath(package.subdir) if package.subdir else "."
    tree = commit if subdir == "." else f"{commit}:{subdir}"
    if subdir != ".":
        _a_folder(mirror, package, commit, subdir, span)
    listing = _git(
        ["ls-tree", "-r", "-z", "--full-tree", tree], span, "cannot list the package", mirror
    )
    entries = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        head, _, name = record.partition(b"\t")
        mode, kind, oid = head.split(b" ")
        rel = name.decode("utf-8", "surrogateescape")
        if not left_out(rel):
            entries[rel] = (mode, kind, oid.decode())
    _named(model, package, list(entries), span)
    files = {}
    cap = _cap(model)
    for rel, (mode, kind, oid) in sorted(entries.items()):
        where = model.source_path(package.name, rel)
        if kind == b"commit":
            raise _refused(package, where, "is a submodule; hotplex fetches none", span)
        if mode == b"120000":
            target = _git(["cat-file", "blob", oid], span, "cannot read a link", mirror).decode(
                "utf-8", "surrogateescape"
            )
            # resolved in the repository, so `../rules/a.md` from the subdir `rules` is inside
            full = posixpath.normpath(posixpath.join(subdir, posixpath.dirname(rel), target))
            inside = full if subdir == "." else posixpath.relpath(full, subdir)
            if target.startswith("/") or inside == ".." or inside.startswith("../"):
                raise _refused(
                    package, where, f"is a symlink to '{target}', outside the package", span
                )
            if inside not in entries:
                folder = inside == "." or any(e.startswith(f"{inside}/") for e in entries)
                why = "the folder" if folder else "a file the package does not hold,"
                raise _refused(
                    package,
                    where,
                    f"is a symlink to {why} '{target}': only links to its files are followed",
                    span,
                )
            mode, kind, oid = entries[inside]
            if mode == b"120000":
                raise _refused(package, where, "is a symlink to a symlink", span)
        size = int(_git(["cat-file", "-s", oid], span, "cannot read a file", mirror))
        if size > cap:
            raise _refused(package, where, f"is {size} bytes, over the read cap of {cap}", span)
        files[rel] = _git(["cat-file", "blob", oid], span, "cannot read a file", mirror)
    return files


def _a_folder(mirror: Path, package: Package, commit: str, subdir: str, span: Span) -> None:
    """The ``subdir`` of a package is a folder at ``commit``; a symlink or a file there is said
    to be one (a symlink is not followed: name the folder it leads to)."""
    entry = _git(["ls-tree", "-z", commit, "--", subdir], span, "cannot list the package", mirror)
    mode = entry.split(b" ", 1)[0]
    if mode == b"040000":
        return
    at = commit[:12]
    what = {
        b"": f"folder '{subdir}' does not exist at {at}",
        b"120000": f"'{subdir}' at {at} is a symlink, which a subdir never follows: name the"
        " folder it leads to",
        b"160000": f"'{subdir}' at {at} is a submodule; hotplex fetches none",
    }.get(mode, f"'{subdir}' at {at} is a file, not a folder")
    raise HotplexError.single(
        f"package '{package.name}': {what}",
        Span(span.file, key=f"{span.key}.subdir"),
        exit_status=EXIT_FAILED,
    )


def _read_folder(model: Model, package: Package, folder: Path, span: Span) -> dict[str, bytes]:
    if not folder.is_dir():
        raise HotplexError.single(
            f"package '{package.name}': folder '{package.path}' does not exist",
            Span(span.file, key=f"{span.key}.path"),
            exit_status=EXIT_FAILED,
        )
    real = os.path.realpath(folder)
    _not_the_projects(model, package, real, span)
    entries = list(folder_entries(folder))
    _named(model, package, [rel for rel, _ in entries], span)
    files = {}
    cap = _cap(model)
    for rel, path in entries:
        where = model.source_path(package.name, rel)
        target = os.path.realpath(path)
        if os.path.commonpath([real, target]) != real:
            raise _refused(
                package,
                where,
                f"is a symlink to '{os.readlink(path)}', outside the package",
                span,
            )
        mode = kind_of(target)
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise _refused(package, where, f"is {file_kind(mode)}, not a regular file", span)
        if not os.path.isfile(target):
            continue
        size = os.path.getsize(target)
        if size > cap:
            raise _refused(package, where, f"is {size} bytes, over the read cap of {cap}", span)
        files[rel] = Path(target).read_bytes()
    return files


def _not_the_projects(model: Model, package: Package, real: str, span: Span) -> None:
    """A local package is a folder of its own: not one holding the project (its lock, state
    and artifacts would be the package's files), nor one inside the project's sources, ``out``
    or state folder, nor the cache's (each would be read twice, or feed a build its output)."""
    root = os.path.realpath(model.root)
    inside = {
        "the sources folder": model.sources_dir,
        "the out folder": model.out_dir,
        "the build's state folder": STATE_DIR,
    }
    folders = {name: os.path.realpath(os.path.join(root, rel)) for name, rel in inside.items()}
    folders["the package cache"] = os.path.realpath(cache_folder())
    why = None
    if _within(root, real):
        why = "holds the project itself"
    for name, folder in folders.items():
        if why is None and (_within(real, folder) or _within(folder, real)):
            why = f"is, holds or is inside {name}"
    if why is not None:
        raise HotplexError.single(
            f"package '{package.name}': folder '{package.path}' {why}",
            Span(span.file, key=f"{span.key}.path"),
            hint="name a folder of its own, beside the project or in a folder of it",
        )


def _within(inner: str, outer: str) -> bool:
    return os.path.commonpath([inner, outer]) == outer


def _cap(model: Model) -> int:
    from hotplex.sources.inputs import read_cap

    return read_cap(model)


def _named(model: Model, package: Package, names: list[str], span: Span) -> None:
    """A package's file names are printed by `hotplex update` and placed in the sources folder
    as a skill's are: a line break, a control character, a backslash or a byte that is not UTF-8
    in one, or two names one where case is ignored, refuses the package, each named readably."""
    folder = model.source_path(package.name)
    said = [
        f"{_shown(f'{folder}/{rel}')} has a name holding {held}"
        for rel in names
        if (held := odd_character(rel)) is not None
    ]
    plain = [rel for rel in names if odd_character(rel) is None]
    said += [p.message for p in one_name_apart(folder, plain, "a checkout")]
    if said:
        raise HotplexError(
            [_refused(package, "", why, span).problems[0] for why in said], EXIT_FAILED
        )


def _shown(name: str) -> str:
    """A file name as a message shows it: a byte that is not UTF-8 as ``\\xe9``, a character
    that does not show itself as ``<U+000A>``; quoted."""
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return f"'{visible(name)}'"


def _refused(package: Package, where: str, why: str, span: Span) -> HotplexError:
    return HotplexError.single(
        f"package '{package.name}' refused: {f'{where} ' if where else ''}{why}",
        span,
        hint=f"{LOCK_NAME} and the cache are as they were",
        exit_status=EXIT_FAILED,
    )
