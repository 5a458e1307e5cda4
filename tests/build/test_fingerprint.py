"""What counts as a worker's profile: a change to any of these files rebuilds its artifacts."""

from __future__ import annotations

from hotplex import fingerprint, registry
from hotplex.build.decide import plain
from hotplex.generated import attrs
from hotplex.manifest import load as loading


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


def test_a_key_part_holds_every_field_of_the_settings_it_covers(make_project):
    """``plain`` looks each class's field names up once: the data it hashes is still every
    field, nested settings too, as ``attrs.asdict`` gives them, less the fields dropped."""
    root = make_project({"agent-configs/SOUL.md": "# Soul\n"})
    model = loading.load(root, root / "hotplex.toml")
    for target in model.manifest.target:
        assert plain(target) == _as_plain(target)
        assert "vars" not in plain(target, drop=("vars",))
    assert plain(model.manifest.limits) == _as_plain(model.manifest.limits)


def _as_plain(value: object) -> object:
    if attrs.has(type(value)):
        return {k: _as_plain(v) for k, v in attrs.asdict(value, recurse=False).items()}
    if isinstance(value, dict):
        return {k: _as_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_plain(v) for v in value]
    return value
