"""attrs's generated methods are compiled once and kept (``hotplex/generated.py``): a second
process that loads the build's records and model compiles none of them, and its classes behave
as attrs makes them."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hotplex import generated
from hotplex.generated import attrs

# Counts the attrs methods compiled while importing the records, the model and the two workers
# of the examples, and uses a frozen record (its hash too) and a mutable one.
_COUNT = """
import json, sys
compiled = []
sys.addaudithook(
    lambda event, args: event == "compile"
    and str(args[1]).startswith("<attrs generated methods hotplex")
    and compiled.append(args[1])
)
import hotplex.records as r, hotplex.manifest.model, targets.claude_code, targets.subagents
from hotplex.generated import attrs
cut = r.Truncation("SOUL", ("SOUL.md",), "total", 10, 5, "chars")
same = r.Truncation("SOUL", ("SOUL.md",), "total", 10, 5, "chars")
try:
    cut.before = 1
    frozen = False
except attrs.exceptions.FrozenInstanceError:
    frozen = True
grown = attrs.evolve(cut, after=6)
print(json.dumps([compiled, cut == same, hash(cut) == hash(same), frozen, grown.after, repr(cut)]))
"""


def _run() -> list:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", _COUNT], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)


def test_a_second_process_compiles_no_attrs_method_and_the_classes_behave():
    _run()  # fills the kept code, when this installation has not yet
    compiled, equal, hashed, frozen, after, shown = _run()
    assert compiled == []
    assert (equal, hashed, frozen, after) == (True, True, True, 6)
    assert shown == (
        "Truncation(section='SOUL', files=('SOUL.md',), limit='total', before=10, after=5,"
        " unit='chars', style='marker', document=None)"
    )


_SOURCE = "def f():\n    return 42\n"
_NAME = "<attrs generated methods hotplex.x.Y>"


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not marshal",
        b"\xe9\x00\x00",
        marshal.dumps({(_SOURCE, _NAME, "exec"): 5}),
        marshal.dumps({1: 2, "key": compile("1", "<x>", "eval"), (1, 2): 3}),
    ],
)
def test_a_damaged_file_of_kept_code_only_costs_the_compile(tmp_path, monkeypatch, damage):
    kept = tmp_path / "generated.marshal"
    kept.write_bytes(damage)
    monkeypatch.setattr(generated, "_PATH", kept)
    monkeypatch.setattr(generated, "_codes", generated._load())
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    namespace: dict = {}
    exec(generated._compile(_SOURCE, _NAME, "exec"), namespace)
    assert namespace["f"]() == 42
    code = generated._load()[(_SOURCE, _NAME, "exec")]  # kept again, whole
    assert code == compile(_SOURCE, _NAME, "exec")


def test_code_compiled_under_dash_o_is_kept_apart():
    """``compile`` strips asserts under -O: its code goes to a file of its own, as a .pyc."""
    names = [
        subprocess.run(
            [
                sys.executable,
                *flags,
                "-c",
                "from hotplex import generated as g; print(g._PATH.name)",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for flags in ([], ["-O"], ["-OO"])
    ]
    tag = sys.implementation.cache_tag
    assert names == [
        f"generated.{tag}.marshal",
        f"generated.{tag}.opt-1.marshal",
        f"generated.{tag}.opt-2.marshal",
    ]


def test_a_programs_own_classes_are_not_kept(tmp_path, monkeypatch):
    """A program that imports hotplex and makes attrs classes of its own (by the thousand,
    perhaps) neither grows the kept file nor rewrites it."""
    kept = tmp_path / "generated.marshal"
    monkeypatch.setattr(generated, "_PATH", kept)
    monkeypatch.setattr(generated, "_codes", {})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    made = [attrs.make_class(f"Mine{n}", ["a", "b"], frozen=True)(n, 2 * n) for n in range(3)]
    assert [m.b for m in made] == [0, 2, 4]
    assert not kept.exists()
    assert generated._codes == {}
    exec(generated._compile(_SOURCE, _NAME, "exec"), {})
    assert list(generated._load()) == [(_SOURCE, _NAME, "exec")]


@pytest.mark.parametrize("stop", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_or_interrupted_keep_leaves_no_temp_file(tmp_path, monkeypatch, stop):
    monkeypatch.setattr(generated, "_PATH", tmp_path / "generated.marshal")
    monkeypatch.setattr(generated, "_codes", {})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)

    def replace(self, target):
        raise stop

    monkeypatch.setattr(type(tmp_path), "replace", replace)
    if isinstance(stop, OSError):
        exec(generated._compile(_SOURCE, _NAME, "exec"), {})  # only the keeping failed
    else:
        with pytest.raises(KeyboardInterrupt):
            generated._compile(_SOURCE, _NAME, "exec")
    assert list(tmp_path.iterdir()) == []


_HOOKED = """
import json, sys
{first}
import hotplex.generated as g, attr._make as made
print(json.dumps([
    made.compile is g._compile,
    "exec_module" in vars(made.__spec__.loader),  # a zip's loader serves other modules too
    g._BeforeAttrs in sys.meta_path,
]))
"""


@pytest.mark.parametrize("first", ["", "import attrs"], ids=["hotplex first", "attrs first"])
def test_attrs_compiles_through_the_kept_code_whoever_imports_it_first(first):
    done = subprocess.run(
        [sys.executable, "-c", _HOOKED.format(first=first)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [True, False, False]


def test_the_kept_code_follows_pythonpycacheprefix(tmp_path):
    """A read-only install keeps its bytecode elsewhere with PYTHONPYCACHEPREFIX: so does this."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path)
    subprocess.run(
        [sys.executable, "-c", "import hotplex.records"], env=env, check=True, capture_output=True
    )
    kept = list(tmp_path.rglob("generated.*.marshal"))
    assert [p.name for p in kept] == [f"generated.{sys.implementation.cache_tag}.marshal"]
    assert kept[0].parent.name == Path(generated.__file__).parent.name  # the package's mirror


def test_a_class_changed_by_an_upgrade_replaces_its_kept_code(tmp_path, monkeypatch):
    """One entry a class: upgrading hotplex or attrs does not grow the file with dead code."""
    monkeypatch.setattr(generated, "_PATH", tmp_path / "generated.marshal")
    monkeypatch.setattr(generated, "_codes", {})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    newer = _SOURCE.replace("42", "43")
    for source in (_SOURCE, newer):
        generated._compile(source, _NAME, "exec")
    generated._compile(_SOURCE, "<attrs generated methods hotplex.x.Z>", "exec")
    assert sorted(generated._load()) == [
        (_SOURCE, "<attrs generated methods hotplex.x.Z>", "exec"),
        (newer, _NAME, "exec"),
    ]


def test_attrs_still_compiles_a_hotplex_class_through_the_kept_code(tmp_path, monkeypatch):
    """generated.py relies on attrs's internals, not an API: ``attr._make`` calls ``compile`` by
    its global name, and names the code ``<attrs generated … module.Class>``. An attrs that
    moves either would leave every start compiling again, only slower: this fails instead,
    and pyproject.toml admits no attrs this test has not run with."""
    import attr._make as made

    monkeypatch.setattr(generated, "_PATH", tmp_path / "generated.marshal")
    monkeypatch.setattr(generated, "_codes", {})
    moved = f"attrs {attrs.__version__} moved what hotplex/generated.py hooks"
    assert made.compile is generated._compile, moved
    namespace = {"__module__": "hotplex.probe", "__annotations__": {"a": "int"}}
    probe = attrs.frozen(type("Probe", (), namespace))
    assert probe(1) == probe(1) and probe(1).a == 1
    kept = [name for _, name, _ in generated._codes]
    assert kept and all(name.endswith(" hotplex.probe.Probe>") for name in kept), moved
