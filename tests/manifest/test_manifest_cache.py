"""The cached model: an unchanged manifest is not structured again; anything else is a miss."""

from __future__ import annotations

import json
import re

import pytest
from hotplex.build import Request, run
from hotplex.manifest import cache as manifest_cache
from hotplex.manifest import load as loading
from hotplex.manifest import structure
from hotplex_testing import EXAMPLES

CACHE = ".hotplex/manifest.json"


@pytest.mark.parametrize("example", ["basic", "templates", "openclaw", "subagents"])
def test_the_cached_model_is_the_structured_model(example):
    loaded = loading.load(EXAMPLES / example)
    encoded = json.loads(json.dumps(manifest_cache._encode(loaded.manifest)))
    assert manifest_cache._decode(encoded, manifest_cache._classes()) == loaded.manifest


def test_an_unchanged_manifest_is_not_structured_again(example_copy, monkeypatch):
    root = example_copy("basic")
    run(Request(root))
    assert (root / CACHE).is_file()

    def refuse(*_args):
        raise AssertionError("structured again")

    monkeypatch.setattr(structure, "structure", refuse)
    soul = root / "agent-configs/SOUL.md"
    soul.write_text(soul.read_text() + "One more line.\n")
    outcome = run(Request(root))
    assert [j.id for j in outcome.jobs if j.rebuilt] == [j.id for j in outcome.jobs]


def test_an_edited_manifest_is_structured_and_takes_effect(example_copy):
    root = example_copy("basic")
    run(Request(root))
    manifest = root / "hotplex.toml"
    manifest.write_text(
        manifest.read_text().replace('platforms = ["slack", "feishu"]', 'platforms = ["slack"]')
    )
    outcome = run(Request(root))
    assert "feishu" not in {j.platform for j in outcome.jobs}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda text: text.replace('"$class":"Manifest"', '"$class":"os.system"'),
        lambda text: text.replace('"format":2', '"format":99'),
        lambda text: text.replace('"fields":{', '"fields":{"extra":1,', 1),
        lambda text: text[: len(text) // 2],
        # A value of another type, which validation refuses: the digest of the model's line
        # no longer holds (it would have been a model no check has seen, failing later).
        lambda text: re.sub(r'"per_file":([0-9]+|null)', r'"per_file":"\1"', text, count=1),
    ],
    ids=["foreign-class", "format", "extra-field", "torn", "wrong-type"],
)
def test_a_tampered_cache_is_a_miss_never_trusted(example_copy, tamper):
    root = example_copy("basic")
    run(Request(root))
    cache = root / CACHE
    cache.write_text(tamper(cache.read_text()))
    key = manifest_cache.key((root / "hotplex.toml").read_bytes(), "hotplex.toml")
    assert manifest_cache.load(root / ".hotplex", key) is None
    assert run(Request(root)).jobs  # structured afresh


def test_check_reads_the_cache_but_writes_nothing(example_copy):
    root = example_copy("basic")
    run(Request(root, check=True))
    assert not (root / CACHE).exists()
