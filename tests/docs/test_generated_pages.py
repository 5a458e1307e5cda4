"""The reference pages follow the code: a worker registered gets its page and nav line with no
hand edit, a removed one loses both; every manifest key is documented, and only those."""

from __future__ import annotations

import tomllib

import pytest
from docsite import hooks
from hotplex import registry
from hotplex.manifest.structure import structure
from hotplex.manifest.validate import validate
from hotplex.records import Output
from hotplex.worker import Verified, Worker


class Fake(Worker):
    """A worker only this test registers."""

    name = "fake-tool"
    outputs = (Output("fake.md", "document", primary=True),)
    init_target = ("fake", "fake.md for the fake tool")
    delivery = "`fake-tool --read fake.md`"
    verified = Verified("Fake Tool", "1.2.3", "tests/docs/test_generated_pages.py")


@pytest.fixture
def registered(monkeypatch):
    """The registry with ``Fake`` added and ``kiro`` removed, as a code change would leave it."""
    kept = tuple((n, spec) for n, spec in registry.BUILT_IN if n != "kiro")
    monkeypatch.setattr(registry, "BUILT_IN", (*kept, ("fake-tool", f"{__name__}:Fake")))
    registry.workers.cache_clear()
    registry._loaded.clear()
    yield
    registry.workers.cache_clear()
    registry._loaded.clear()


def _nav() -> list:
    config = {"nav": [{"Home": "index.md"}, {"Workers": ["workers.md"]}]}
    return hooks.on_config(config)["nav"][1]["Workers"]


def test_a_registered_worker_gets_its_page_and_nav_line(registered):
    pages = hooks.generated()
    page = pages["reference/workers/fake-tool.md"]
    assert "`fake-tool --read fake.md`" in page
    assert "Fake Tool 1.2.3" in page
    assert "`fake.md`" in page
    assert "reference/workers/fake-tool.md" in _nav()
    assert "[`fake-tool`](reference/workers/fake-tool.md)" in hooks.worker_table(
        "reference/workers/{}.md"
    )
    assert "reference/workers/kiro.md" not in pages
    assert "reference/workers/kiro.md" not in _nav()
    assert "kiro" not in hooks.worker_table()


def test_the_worker_pages_are_the_registry():
    pages = [p for p in hooks.generated() if p.startswith("reference/workers/")]
    assert pages == [f"reference/workers/{name}.md" for name in registry.names()]
    assert _nav() == ["workers.md", *pages]


def test_every_key_is_documented_and_every_entry_is_a_key():
    paths = [key.path for key in hooks.manifest_keys()]
    documented = list(hooks.key_docs())
    assert sorted(set(paths) - set(documented)) == [], "keys without documentation"
    assert sorted(set(documented) - set(paths)) == [], "documentation of no key"
    for path, entry in hooks.key_docs().items():
        assert set(entry) in ({"doc", "example"}, {"doc", "snippet"}), path
        assert entry["doc"].strip(), path


def test_a_new_key_without_documentation_is_found(monkeypatch):
    """The coverage check reads the model: a key the model gains is a key to document."""
    documented = dict(hooks.key_docs())
    del documented["limits.share"]
    monkeypatch.setattr(hooks, "key_docs", lambda: documented)
    paths = {key.path for key in hooks.manifest_keys()}
    assert paths - set(hooks.key_docs()) == {"limits.share"}


PAGE = hooks.manifest_page()


@pytest.mark.parametrize("key", hooks.manifest_keys(), ids=lambda key: key.path)
def test_each_example_is_a_valid_manifest_setting_its_key(key):
    text = hooks.example(key)
    # A manifest declares a target: one is added to an example of another table.
    whole = text if "[[target]]" in text else text + '\n\n[[target]]\nname = "t"\nworker = "pi"\n'
    manifest = structure(tomllib.loads(whole), "example")
    validate(manifest, "example")
    assert f"{key.path.rpartition('.')[2]} = " in text
    assert f"`{key.path}`" in PAGE
    assert text in PAGE


def test_defaults_are_the_models():
    """The page says what the model holds when the key is left out."""
    by_path = {key.path: key for key in hooks.manifest_keys()}
    assert by_path["limits.total"].default == "40000"
    assert by_path["project.sources"].default == '"agent-configs"'
    assert by_path["target[].name"].default == "required"
    assert by_path["limits.unit"].type == '"chars" or "bytes"'
    assert by_path["target[].max_chars"].workers[0] == "openclaw"
