"""A file's ctime is part of its stamp: an edit that keeps its size, inode and mtime
(``os.utime`` setting the mtime back, ``cp -p``, tar) moves it, and no user can set it back.
A ctime that moved alone (``touch``, ``chmod``, a checkout) only has the file hashed again: its
digest decides, so nothing is rebuilt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hotplex import Project
from hotplex.build.closing import load_closing
from hotplex.build.snapshot import fast_current

LONG_AGO_NS = 10**18  # 2001: a stamp that vouches for its content (``fs.settled``)
SOUL = "agent-configs/SOUL.md"


def _settled(root: Path) -> Path:
    """``root`` with every file's mtime long past, as a project's files are between edits."""
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(LONG_AGO_NS, LONG_AGO_NS))
    return root


def _edit_keeping_the_stamp(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (as long) in place, then set the mtime back: size, inode and
    mtime are what they were; only the ctime moved."""
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_ino, after.st_mtime_ns) == (
        before.st_size,
        before.st_ino,
        before.st_mtime_ns,
    )


def _artifacts(root: Path) -> dict[str, tuple[int, int, int, bytes]]:
    return {
        p.relative_to(root).as_posix(): (
            p.stat().st_mtime_ns,
            p.stat().st_ino,
            p.stat().st_mode,
            p.read_bytes(),
        )
        for p in sorted((root / "dist").rglob("*"))
        if p.is_file()
    }


def _fast(root: Path) -> bool:
    """Whether the next build or check is a no-op on the snapshot alone."""
    return fast_current(root, root / "hotplex.toml", (), load_closing(root)) is not None


@pytest.fixture
def built(example_copy, hotplex) -> Path:
    root = _settled(example_copy("basic"))
    assert hotplex("-C", str(root), "build").status == 0
    assert _fast(root)
    return root


def test_an_edit_keeping_size_inode_and_mtime_is_checked_and_rebuilt(built, hotplex):
    _edit_keeping_the_stamp(built / SOUL, b"You are", b"ZZZ are")
    assert not _fast(built)
    check = hotplex("-C", str(built), "check")
    assert check.status == 1 and "up to date" not in check.stdout.splitlines()[-1]
    assert "cc/default" in check.stdout
    done = hotplex("-C", str(built), "build")
    assert done.status == 0 and "hotplex: 6 rebuilt" in done.stdout, done.stdout
    assert all(b"ZZZ are" in f[3] for p, f in _artifacts(built).items() if p.endswith("prompt.xml"))
    assert "0 rebuilt, 6 up to date" in hotplex("-C", str(built), "build").stdout
    assert _fast(built)


@pytest.mark.parametrize("change", ["touch", "chmod"])
def test_a_moved_ctime_alone_rebuilds_and_rewrites_nothing(built, hotplex, change):
    """Every file of the project, sources and artifacts, touched (mtime and ctime move) or
    chmod'ed (the ctime alone): each is hashed again, nothing is rebuilt or rewritten, and the
    new stamps are recorded, so the next build is a no-op on the snapshot again."""
    for path in built.rglob("*"):
        if path.is_file() and ".hotplex" not in path.parts:
            if change == "touch":
                os.utime(path)
            else:
                mode = path.stat().st_mode
                os.chmod(path, mode ^ 0o001)
                os.chmod(path, mode)
    before = _artifacts(built)
    assert not _fast(built)
    assert hotplex("-C", str(built), "check").status == 0
    done = hotplex("-C", str(built), "build")
    assert done.status == 0 and "hotplex: 0 rebuilt, 6 up to date" in done.stdout, done.stdout
    assert _artifacts(built) == before
    assert _fast(built)


def test_a_loaded_project_sees_an_edit_keeping_size_inode_and_mtime(example_copy):
    """What a long-lived ``Project`` (and so ``hotplex serve``) compiled is not served again
    once a file it read changed, whatever its mtime says."""
    root = _settled(example_copy("basic"))
    project = Project.load(root)
    assert "You are" in project.compile("cc", "slack").text
    _edit_keeping_the_stamp(root / SOUL, b"You are", b"ZZZ are")
    text = project.compile("cc", "slack").text
    assert "ZZZ are" in text and "You are Acme" not in text
