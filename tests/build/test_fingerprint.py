"""What counts as a worker's profile: a change to any of these files rebuilds its artifacts."""

from __future__ import annotations

from hotplex import fingerprint, registry


def test_a_worker_profile_covers_its_companion_modules():
    files = fingerprint.profile_files(registry.workers()["openclaw"].modules)
    assert "hotplex.targets.openclaw/worker.py" in files
    assert "hotplex.targets.openclaw/context.py" in files  # the predictor decides context.md


def test_a_worker_profile_does_not_cover_other_workers():
    files = fingerprint.profile_files(registry.workers()["claude-code"].modules)
    assert not any("openclaw" in f or "opencode" in f for f in files)
    assert "hotplex.document/configuration.py" in files


def test_workers_have_distinct_profiles():
    digests = {fingerprint.profile_digest(w.modules) for w in registry.workers().values()}
    assert len(digests) == len(registry.workers())
