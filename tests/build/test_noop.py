"""The no-op path stays lean: an up-to-date ``build`` or ``check`` (what pre-commit and ``watch``
run over and over) answers from the build log's snapshot line and a few stat calls, and loads
only the standard library and hotplex's own no-op modules until something is dirty."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# What an up-to-date build or check must not import: the typed records and attrs (about 15 ms
# on a run of about 50 ms), dataclasses (inspect, ast, dis: a third of a no-op's instructions),
# typing, json (and its six patterns: the snapshot's cache is marshal), and any worker or the
# registry of workers; nor pathlib (with the ``urllib.parse`` and ``ipaddress`` it imports
# before Python 3.13, about a seventh of a no-op's instructions: its paths are ``str``).
NOT_ON_THE_NOOP_PATH = (
    *("hotplex.records", "attrs", "attr", "typing", "dataclasses", "inspect", "json"),
    *("pathlib", "urllib", "ipaddress"),
)
NOT_UNDER = ("hotplex.targets", "hotplex.registry", "hotplex.manifest.model")

_PROBE = """
import sys
# an editable install's finder imports these at start (pathlib a package of modules on Python
# 3.13): the run must not import them again
for name in [m for m in sys.modules if m.split('.')[0] in ('pathlib', 'urllib', 'ipaddress')]:
    del sys.modules[name]
from hotplex.cli import main
status = main(['-C', sys.argv[1], sys.argv[2]])
modules = sorted(sys.modules)
stdlib = set(sys.stdlib_module_names)
foreign = [  # an editable install's finder is named with a leading underscore
    m for m in modules
    if m.split('.')[0] not in stdlib and m.split('.')[0] != 'hotplex' and not m.startswith('_')
]
import json  # only now: the run must not have imported it
print(json.dumps([status, modules, foreign]))
"""


def _up_to_date_run(hotplex, example_copy, probe: str, command: str) -> list:
    """What ``probe`` prints last, run as an up-to-date ``command`` of the basic example."""
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    assert hotplex("-C", str(root), "build").status == 0  # its stamps no longer racy
    done = subprocess.run(
        [sys.executable, "-c", probe, str(root), command], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.splitlines()
    assert "up to date" in output[-1]
    return json.loads(last)


@pytest.mark.parametrize("command", ["build", "check"])
def test_an_up_to_date_run_imports_only_the_standard_library(hotplex, example_copy, command):
    status, modules, foreign = _up_to_date_run(hotplex, example_copy, _PROBE, command)
    assert status == 0
    assert not [m for m in modules if m.split(".")[0] in NOT_ON_THE_NOOP_PATH]
    assert not [m for m in modules if m.startswith(NOT_UNDER)]
    assert foreign == []  # nothing outside the standard library but hotplex


# The most lines of Python ``re`` may run to compile one pattern of the no-op path (counted,
# so the figure is the same on any machine): a character class spanning the Basic Multilingual
# Plane (``[\x7f-\U0010ffff]``) makes it mark each code point in turn, over 130,000 lines and
# 10 ms, a tenth of a no-op run; its complement (``[^\x00-\x7e]``) a few hundred.
MOST_LINES_PER_PATTERN = 20_000

_PATTERNS = """
import json, re, sys
compiled, real = [], re._compile


def spy(pattern, flags):
    compiled.append((pattern, flags))
    return real(pattern, flags)


re._compile = spy
from hotplex.cli import main
status = main(['-C', sys.argv[1], sys.argv[2]])
re.compile("the spy sees this one")  # the run's own may be none: this shows the spy works
re._compile = real
lines = 0


def count(frame, event, arg):
    global lines
    lines += event == "line"
    return count


costs = []
for pattern, flags in dict.fromkeys(compiled):
    if not isinstance(pattern, (str, bytes)):
        continue
    re.purge()
    lines = 0
    sys.settrace(count)
    re.compile(pattern, flags)
    sys.settrace(None)
    costs.append([lines, repr(pattern)])
print(json.dumps([status, costs]))
"""


@pytest.mark.parametrize("command", ["build", "check"])
def test_an_up_to_date_run_compiles_no_costly_pattern(hotplex, example_copy, command):
    status, costs = _up_to_date_run(hotplex, example_copy, _PATTERNS, command)
    assert status == 0
    assert costs[-1][1] == repr("the spy sees this one")
    assert [c for c in costs if c[0] > MOST_LINES_PER_PATTERN] == []


_IMPORT_ONLY = """
import hotplex, json, sys
print(json.dumps(sorted(m for m in sys.modules if m.startswith('hotplex.'))))
"""


def test_importing_the_package_imports_none_of_its_modules():
    done = subprocess.run([sys.executable, "-c", _IMPORT_ONLY], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


# What a build that recompiles a job whose files have no template syntax, under no injection
# rule, must not import: the template parser and renderer (Lark), the injection rules (and the
# CommonMark parse they run), and
# ``importlib.resources`` (with tempfile, shutil, zipfile and the compression modules).
NOT_FOR_PLAIN_FILES = (
    "hotplex.templates.parse",
    "hotplex.templates.render",
    "hotplex.scanning.injection",
    "markdown_it",
    "importlib.resources",
    "lark",
    "tempfile",
)


def test_a_build_of_plain_files_imports_neither_templates_nor_injection_rules(
    hotplex, example_copy
):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    with open(root / "agent-configs" / "SOUL.md", "a", encoding="utf-8") as soul:
        soul.write("\nOne more line, with no template in it.\n")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), "build"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.splitlines()
    assert "rebuilt" in output[-1] and " 0 rebuilt" not in output[-1]
    status, modules, _ = json.loads(last)
    assert status == 0
    assert not [m for m in modules if m.startswith(NOT_FOR_PLAIN_FILES)]


_DAYS_MANIFEST = """\
[limits]
per_file = 1000
[memory]
logs = "memory/*.md"
[[target]]
name = "cc"
worker = "claude-code"
"""


def test_an_up_to_date_build_repeats_the_days_dropped_without_the_records(hotplex, make_project):
    """A set with cuts to repeat (40 days, most dropped for room): a no-op build says them as
    the build that made them did, from the snapshot, loading neither the records nor the secret
    rules nor any worker."""
    days = {
        f"agent-configs/memory/2026-10-{n:02d}.md": f"- day {n} " + "x" * 200 for n in range(1, 32)
    }
    days |= {
        f"agent-configs/memory/2026-11-{n:02d}.md": f"- day {n} " + "y" * 200 for n in range(1, 10)
    }
    root = make_project(days, manifest=_DAYS_MANIFEST)
    first = hotplex("-C", str(root), "build")
    assert first.status == 0, first.stderr
    assert "older days, agent-configs/memory/2026-10-01.md" in first.stderr
    assert hotplex("-C", str(root), "build").status == 0  # its stamps no longer racy
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), "build"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == first.stderr
    status, modules, foreign = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and foreign == []
    assert not [m for m in modules if m.split(".")[0] in NOT_ON_THE_NOOP_PATH]
    assert not [m for m in modules if m.startswith(NOT_UNDER)]
    assert "hotplex.text.secret_rules" not in modules


def test_a_slow_build_imports_only_the_workers_its_manifest_names(hotplex, example_copy):
    """The places every worker's tools read and the outputs their folders share come from what
    the last build recorded while hotplex's files have not moved, not from importing all."""
    from hotplex import registry

    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    (root / "dist" / "cc" / "default" / "prompt.xml").unlink()  # a slow build, the model cached
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), "build"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "hotplex: 1 rebuilt" in done.stdout
    status, modules, _ = json.loads(done.stdout.splitlines()[-1])
    assert status == 0
    named = {"claude-code", "opencode-server"}
    others = {spec.partition(":")[0] for name, spec in registry.BUILT_IN if name not in named}
    assert others and not others.intersection(modules)


def _line_snapshot(root) -> dict:
    """The full snapshot as the log's line holds it, parsed."""
    lines = (root / ".hotplex" / "log").read_bytes().splitlines()
    return json.loads(next(line for line in reversed(lines) if line.startswith(b'{"snapshot":')))[
        "snapshot"
    ]


def test_a_no_op_build_keeps_the_parsed_snapshot_and_the_next_reads_no_json(
    hotplex, example_copy, monkeypatch
):
    """The first no-op build after a full closing writes the snapshot as parsed beside the log
    (``.hotplex/snapshot``); the next ones load it, parsing no JSON, and find the same stamps."""
    from hotplex.build import closing as closings

    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    assert not (root / ".hotplex" / "snapshot").exists()  # a build writes none: a no-op does
    assert hotplex("-C", str(root), "build").status == 0
    assert hotplex("-C", str(root), "build").status == 0
    assert (root / ".hotplex" / "snapshot").is_file()
    expected = _line_snapshot(root)

    def no_json(*_args, **_kwargs):
        raise AssertionError("the snapshot line was parsed")

    monkeypatch.setattr(json, "loads", no_json)  # closing imports it when it parses
    loaded = closings.load_closing(root)
    assert loaded is not None and loaded.snapshot == expected and loaded.unkept is None


def test_a_snapshot_cache_not_of_the_line_is_not_used(hotplex, example_copy):
    """A cache of other bytes (another closing's, with the line it was kept with), or one that
    is not a cache at all, is a miss (truncated, or kept under another Python's tag, too): the line is parsed, and
    the next no-op rewrites it."""
    import marshal

    from hotplex.build import closing as closings

    root = example_copy("basic")
    for _ in range(3):
        assert hotplex("-C", str(root), "build").status == 0
    cache = root / ".hotplex" / "snapshot"
    tag, line, snap = marshal.loads(cache.read_bytes())
    expected = _line_snapshot(root)
    lying = {**snap, "files": {}, "outputs": {t: {} for t in snap["outputs"]}}
    other = line.replace(b'"version"', b'"versioN"')
    whole = cache.read_bytes()
    truncated = whole[: len(whole) // 2]
    other_python = f"{tag.rpartition(' ')[0]} {sys.hexversion + 1}"  # its marshal may differ
    from_another_python = marshal.dumps((other_python, line, lying))
    for kept in (
        marshal.dumps((tag, other, lying)),
        b"not a cache",
        b"",
        truncated,
        from_another_python,
    ):
        cache.write_bytes(kept)
        loaded = closings.load_closing(root)
        assert loaded is not None and loaded.snapshot == expected
        assert loaded.unkept is not None
    assert "up to date" in hotplex("-C", str(root), "build").stdout
    assert marshal.loads(cache.read_bytes()) == (tag, line, expected)


def test_the_snapshot_cache_holds_each_repeated_stamp_once(hotplex, example_copy):
    """Equal times (a build stamps most files within a few clock ticks) are one object in the
    cache, which marshal writes once and then refers to: the load makes each value once."""
    import marshal

    root = example_copy("basic")
    for _ in range(3):
        assert hotplex("-C", str(root), "build").status == 0
    _tag, _line, snap = marshal.loads((root / ".hotplex" / "snapshot").read_bytes())
    tables = [snap["files"], snap["dirs"], snap["package"], *snap["outputs"].values()]
    times = [n for table in tables for rec in table.values() if rec for n in rec[:4:3]]
    assert len(set(times)) < len(times)  # repeats there are
    assert len({id(n) for n in times}) == len(set(times))


def test_after_a_touched_build_the_cache_still_holds_the_full_snapshot(
    hotplex, example_copy, monkeypatch
):
    """A delta closing leaves the full closing as it was, so its cache still holds: the
    touched build and the no-op after it merge the delta into the cached snapshot."""
    from hotplex.build import closing as closings
    from hotplex.build.log import merged

    root = example_copy("basic")
    for _ in range(3):
        assert hotplex("-C", str(root), "build").status == 0
    soul = root / "agent-configs" / "SOUL.md"
    soul.write_text(soul.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    assert "rebuilt" in hotplex("-C", str(root), "build").stdout
    last = (root / ".hotplex" / "log").read_bytes().splitlines()[-1]
    assert last.startswith(b'{"delta":')
    delta = json.loads(last)["delta"]
    expected = merged(_line_snapshot(root), delta["snapshot"])
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda line: real(line) if line == last else 1 / 0)
    loaded = closings.load_closing(root)
    assert loaded is not None and loaded.snapshot == expected and loaded.unkept is None


def test_clean_removes_the_snapshot_cache_with_the_log(hotplex, example_copy):
    """``clean`` deletes the build state: the snapshot's cache too, not only the log."""
    root = example_copy("basic")
    for _ in range(3):
        assert hotplex("-C", str(root), "build").status == 0
    assert (root / ".hotplex" / "snapshot").is_file()
    assert hotplex("-C", str(root), "clean").status == 0
    assert not (root / ".hotplex" / "snapshot").exists()
    assert not (root / ".hotplex" / "log").exists()


@pytest.mark.parametrize("point", [1, 2])
def test_a_no_op_killed_while_it_keeps_the_snapshot_leaves_a_build_that_still_holds(
    hotplex, example_copy, point
):
    """Killed before or after the rename of the snapshot's cache (kill points 1 and 2 of a
    no-op build that keeps it), the next builds are no-ops all the same, with the cache of the
    line."""
    import marshal

    root = example_copy("basic")
    for _ in range(3):
        assert hotplex("-C", str(root), "build").status == 0
    (root / ".hotplex" / "snapshot").unlink()  # the next no-op keeps it again
    killed = hotplex("-C", str(root), "build", env={"HOTPLEX_CRASH_AT": str(point)})
    assert killed.status != 0
    for _ in range(2):
        again = hotplex("-C", str(root), "build")
        assert again.status == 0 and "0 rebuilt" in again.stdout
    _tag, line, snap = marshal.loads((root / ".hotplex" / "snapshot").read_bytes())
    assert snap == _line_snapshot(root) and json.loads(line)["snapshot"] == snap
