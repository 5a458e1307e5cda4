"""Golden artifacts: every example project, every worker, byte for byte (syrupy snapshots).

One snapshot file per example (``__snapshots__/<example>.ambr``): a worker's change touches
only the examples that use it. Regenerate after an intended change with
``pytest tests/golden --snapshot-update`` and review the diff of ``tests/golden/__snapshots__/``.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from hotplex_testing import EXAMPLES, package_repository, run_hotplex
from syrupy.extensions.amber import AmberSnapshotExtension

PROJECTS = sorted(p.parent.name for p in EXAMPLES.glob("*/hotplex.toml"))


class PerExample(AmberSnapshotExtension):
    """Names the snapshot file after the example: ``test_x[basic]`` -> ``basic.ambr``."""

    @classmethod
    def get_file_basename(cls, *, test_location, index):
        return test_location.testname.partition("[")[2].partition("]")[0]


@pytest.fixture
def snapshot(snapshot):
    return snapshot.use_extension(PerExample)


@pytest.fixture
def cache(tmp_path):
    """The package cache of the test ($XDG_CACHE_HOME), never the user's."""
    return {"XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}


def fetched(root, cache):
    """``root`` with its packages' files in the cache. examples/packages names a repository
    beside its manifest, made here from its folder team-rules/ (fixed names and dates: the
    commit its hotplex.lock pins), reached over file://; `hotplex fetch` checks the lock's
    commit and digests against it."""
    if (root / "team-rules").is_dir():
        package_repository(root / "team-rules", root / "team-rules.git")
        done = run_hotplex("-C", str(root), "fetch", env=cache)
        assert done.status == 0, done.stderr
    return root


@pytest.mark.parametrize("example", PROJECTS)
def test_example_artifacts_match_golden(example, example_copy, snapshot, cache):
    root = fetched(example_copy(example), cache)
    result = run_hotplex("-C", str(root), "build", "--json", env=cache)
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["artifacts"], "an example must produce artifacts"
    for artifact in sorted(report["artifacts"], key=lambda a: a["path"]):
        data = (root / artifact["path"]).read_bytes()
        assert len(data) == artifact["bytes"]
        assert _shown(data) == snapshot(name=artifact["path"])


def _shown(data: bytes) -> str:
    """An artifact as its snapshot holds it: its text, or a binary file's (a skill's image,
    copied verbatim) size and digest."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"binary, {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}"


@pytest.mark.parametrize("example", PROJECTS)
def test_example_builds_are_byte_deterministic(example, example_copy, tmp_path, cache):
    """Two copies in different folders give the same bytes: no absolute path, no timestamp (the
    second copy's packages read from the cache the first filled: a build never fetches)."""
    first = example_copy(example)
    second = tmp_path / "elsewhere" / example
    shutil.copytree(first, second)
    fetched(first, cache)
    hashes = []
    for root in (first, second):
        result = run_hotplex("-C", str(root), "build", "--json", env=cache)
        assert result.status == 0, result.stderr
        artifacts = json.loads(result.stdout)["artifacts"]
        hashes.append(sorted((a["path"], a["sha256"]) for a in artifacts))
    assert hashes[0] == hashes[1]
