"""What counts as a worker's profile: a change to any of these files rebuilds its artifacts."""

from __future__ import annotations

from hotplex import fingerprint, registry


def test_a_worker_profile_covers_its_companion_modules():
    files = fingerprint.profile_files(_modules("openclaw"))
    assert "hotplex.targets.openclaw/worker.py" in files
    assert "hotplex.targets.openclaw/context.py" in files  # the predictor decides context.md


def test_a_worker_profile_does_not_cover_other_workers():
    files = fingerprint.profile_files(_modules("claude-code"))
    assert not any("openclaw" in f or "opencode" in f for f in files)
    # The agent configuration is core: every worker's artifacts rebuild when it changes.
    assert "hotplex.document/configuration.py" not in files
    assert "hotplex.document/configuration.py" in fingerprint.package_state()[1]


def test_workers_have_distinct_profiles():
    digests = {fingerprint.profile_digest(_modules(name)) for name in registry.workers()}
    assert len(digests) == len(registry.workers())


def _modules(worker: str) -> tuple[str, ...]:
    return fingerprint.worker_modules(type(registry.workers()[worker]))
