"""The package cache as a build reads it (``sources/packages.py``): a file's bytes by digest,
whatever is in a file's place named, never read."""

from __future__ import annotations

import os

import pytest
from hotplex.errors import EXIT_FAILED, HotplexError
from hotplex.sources.packages import blob_path, cached, digest_of


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def _blob(data: bytes) -> tuple[str, os.PathLike[str]]:
    digest = digest_of(data)
    path = blob_path(digest)
    path.parent.mkdir(parents=True)
    return digest, path


def test_a_cached_file_is_its_bytes_and_an_absent_one_none() -> None:
    digest, path = _blob(b"Pinned.\n")
    assert cached(digest, "agent-configs/team/rules.md") is None
    path.write_bytes(b"Pinned.\n")
    assert cached(digest, "agent-configs/team/rules.md") == b"Pinned.\n"


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_what_is_no_file_in_the_cache_is_named_with_the_fetch_hint(kind) -> None:
    """One look, on the file opened (a FIFO put there is never waited on): the cache file and
    the package file it stands for are named, exit 1, repaired by `hotplex fetch`."""
    digest, path = _blob(b"Pinned.\n")
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    with pytest.raises(HotplexError) as caught:
        cached(digest, "agent-configs/team/rules.md")
    said = "a FIFO (named pipe)" if kind == "fifo" else "a directory"
    (problem,) = caught.value.problems
    assert problem.message == (
        f"'{path}' is {said}, not a regular file: the cache's copy of 'agent-configs/team/rules.md'"
    )
    assert problem.hint == "run `hotplex fetch` to fill the cache from hotplex.lock"
    assert caught.value.exit_status == EXIT_FAILED
