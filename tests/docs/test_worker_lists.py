"""The lists of workers on the site and in the README are the registry's: a worker added, renamed
or reordered without its row fails here, wherever the text lives."""

from __future__ import annotations

import re

import pytest
from docsite import hooks, table_rows, written
from hotplex import registry
from hotplex_testing import REPO

TICKED = re.compile(r"`([^`]+)`")


# The manifest example's `worker =` line, whose comment lists the workers: "# a | b | ...".
WORKER_LIST = re.compile(r"^worker = .*# [\w-]+ \|", re.M)


def _holding(marker: str | re.Pattern) -> dict[str, str]:
    """The pages (and the README) with a line starting with ``marker``; at least one."""
    pattern = (
        marker if isinstance(marker, re.Pattern) else re.compile("^" + re.escape(marker), re.M)
    )
    found = {name: text for name, text in written().items() if pattern.search(text)}
    assert found, f"no page has {pattern.pattern!r}"
    return found


@pytest.mark.parametrize("name", ["README.md", "index.md"])
def test_worker_table_matches_registry(name):
    text = written()[name]
    rows = table_rows(text, "| worker | artifact |")
    assert [TICKED.fullmatch(row[0]).group(1) for row in rows] == list(registry.names())
    for row, worker in zip(rows, registry.workers().values(), strict=True):
        for output in worker.outputs:
            if "*" not in output.name:
                assert output.name.rpartition("/")[2] in row[1], (worker.name, output.name)
        assert row[2] == worker.delivery, worker.name
        assert row[3] == (worker.verified.text() if worker.verified else "nothing yet")


def test_readme_table_is_the_generated_one():
    """The README's table is what the site's front page shows, without its links."""
    assert hooks.worker_table() in written()["README.md"]


@pytest.mark.parametrize("name", sorted(_holding(WORKER_LIST)))
def test_worker_key_comment_lists_every_worker(name):
    lines = written()[name].splitlines()
    at = next(i for i, line in enumerate(lines) if WORKER_LIST.match(line))
    listed = lines[at].partition("# ")[2]
    for more in lines[at + 1 :]:  # the list goes on in comment lines under the key
        if not more.lstrip().startswith("# |"):
            break
        listed += " " + more.lstrip()[2:]
    assert listed == " | ".join(registry.names())


@pytest.mark.parametrize(
    ("file", "audiences"),
    [
        ("`CLAUDE.md`", ("claude-code",)),
        ("`AGENTS.md`", ("agents", "claude-code")),
        ("`GEMINI.md`", ("gemini",)),
        ("`QWEN.md`", ("qwen",)),
        ("`.kilocode/rules/*.md`", ("kilo",)),
        ("`.aider.conf.yml`", ("aider",)),
    ],
)
@pytest.mark.parametrize("name", sorted(_holding("| you have | source | target |")))
def test_import_table_matches_imports_read(name, file, audiences):
    """The targets ``hotplex import`` gives each tool's file: its readers' (AGENTS.md also Claude
    Code's, where no CLAUDE.md sits beside it)."""
    rows = table_rows(written()[name], "| you have | source | target |")
    row = next(r for r in rows if r[0].startswith(file))
    targets = {w.init_target[0] for w in registry.workers().values()}
    named = set(TICKED.findall(row[2])) & targets
    expected = {
        w.init_target[0] for w in registry.workers().values() if set(audiences) & w.imports_read
    }
    assert named == expected


def _pinned() -> dict[str, str]:
    """The version .ci/install-components installs, by the live test that drives the program."""
    script = (REPO / ".ci/install-components").read_text(encoding="utf-8")
    versions = dict(re.findall(r'^\s+"(\S+) (\S+) \S+"$', script, re.M))
    versions |= {
        pkg: v
        for v, pkg in re.findall(r'^readonly \w+="(\S+)"\s+# (?:PyPI|npm) (\S+)', script, re.M)
    }
    tests = re.findall(
        r"^#\s+(\S+)(?: \((?:PyPI|npm)\))?\s+->.*\((tests/integration/\S+\.py)\)", script, re.M
    )
    return {test: versions[package] for package, test in tests}


@pytest.mark.parametrize("name", registry.names())
def test_each_worker_names_what_checks_it(name):
    """A live-tested worker's version is the one CI installs; other evidence exists and names it."""
    verified = registry.workers()[name].verified
    assert verified is not None, f"{name} says nothing of what checked it"
    evidence = REPO / verified.evidence
    assert evidence.is_file(), verified.evidence
    if verified.evidence in _pinned():
        assert verified.version == _pinned()[verified.evidence]
    elif verified.version is not None:
        assert verified.version in evidence.read_text(encoding="utf-8")
