"""Every shell and TOML example on the site and in the README, tested as the README's always were:
each TOML block is a manifest hotplex loads, each ``hotplex`` line one its parser takes, each
name a page uses one that exists (the build's own check, run here without building). The
``hotplex serve`` curl lines run against a live server in tests/serve/test_docs_curl.py."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib

import pytest
from docsite import blocks, every_page, hooks
from hotplex.manifest.structure import structure
from hotplex.manifest.validate import validate
from hotplex_testing import REPO

PAGES = every_page()
TOML = [(name, body) for name, text in PAGES.items() for body in blocks(text, "toml")]
SHELL = [
    (name, line)
    for name, text in PAGES.items()
    for body in blocks(text, "sh", "bash")
    for line in body.replace("\\\n", " ").splitlines()
]


@pytest.mark.parametrize(("name", "body"), TOML, ids=[f"{n}:{b[:30]}" for n, b in TOML])
def test_each_toml_example_is_a_manifest(name, body):
    data = tomllib.loads(body)
    if "target" not in data:  # an example of one table: a manifest has a target beside it
        data["target"] = [{"name": "t", "worker": "pi"}]
    validate(structure(data, name), name)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_page_names_only_what_exists(name):
    assert hooks.unknown_names(PAGES[name]) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("```sh\nhotplex biuld\n```", "invalid choice: 'biuld'"),
        ("```sh\nhotplex build --explian\n```", "unrecognized arguments: --explian"),
        ("Run `hotplex chekc` first.", "no command 'chekc'"),
        ("Run `hotplex show <target> --flie F`.", "hotplex show has no option --flie"),
        ("```sh\nhotplex init --worker claude\n```", 'worker "claude" is not registered'),
        ('```toml\n[[target]]\nworker = "codx"\n```', 'worker "codx" is not registered'),
        ("Set `limits.totl` higher.", "manifest key `limits.totl` does not exist"),
        ("Set `target[2].wroker`.", "manifest key `target[2].wroker` does not exist"),
        ("Run `tests/cli/test_readme.py`.", "`tests/cli/test_readme.py`: no such file"),
        ("See `[limit]`.", None),  # no table of that name: another program's, not checked
        ("See `[metacognition]` and `channels.B.tag`, `target[0].agents.x.role`.", None),
    ],
)
def test_a_name_that_does_not_exist_is_found(text, found):
    problems = hooks.unknown_names(text)
    if found is None:
        assert problems == []
    else:
        assert len(problems) == 1 and found in problems[0], problems


EXTRA = re.compile(r"pip install (?:-e )?'?(?:\.|hotplex)\[([\w,]+)\]'?")


def test_each_pip_install_names_extras_that_exist():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    named = [e for _, line in SHELL for group in EXTRA.findall(line) for e in group.split(",")]
    assert named
    assert sorted(set(named) - set(extras)) == []


SCRIPT = re.compile(r"^python (\S+\.py)\b(.*)")


@pytest.mark.parametrize(
    ("script", "options"),
    sorted(
        {
            (m.group(1), tuple(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", m.group(2))))
            for _, line in SHELL
            if (m := SCRIPT.match(line.strip())) and (REPO / m.group(1)).is_file()
        }
    ),
)
def test_each_script_line_uses_options_the_script_has(script, options):
    """``python benchmarks/run.py --sizes ...``: the options are in the script's ``--help``."""
    shown = subprocess.run(
        [sys.executable, str(REPO / script), "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    for option in options:
        assert re.search(rf"(?<![\w-]){re.escape(option)}\b", shown), (script, option)


def test_what_landed_where_is_what_the_first_build_writes(tmp_path, hotplex):
    """Getting started lists the files the Quick start's build writes: every one, and no other."""
    text = (hooks.PAGES / "getting-started.md").read_text(encoding="utf-8")
    tree = next(body for body in blocks(text, "text") if "examples/basic/" in body)
    listed = sorted(
        line.split()[0] for line in tree.splitlines() if line.strip().startswith("dist/")
    )
    project = tmp_path / "basic"
    shutil.copytree(
        REPO / "examples/basic", project, ignore=shutil.ignore_patterns("dist", ".hotplex")
    )
    assert hotplex("-C", str(project), "build").status == 0
    written = sorted(
        str(p.relative_to(project)) for p in (project / "dist").rglob("*") if p.is_file()
    )
    assert listed == written


def test_the_pre_commit_example_names_the_hooks_this_repository_ships():
    import yaml  # pre-commit's own dependency

    shipped = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    text = (hooks.PAGES / "guides/pre-commit.md").read_text(encoding="utf-8")
    (config,) = blocks(text, "yaml")
    named = {hook["id"] for repo in yaml.safe_load(config)["repos"] for hook in repo["hooks"]}
    assert named and named <= shipped


DIST_PATH = re.compile(r"(?<![\w/.])dist/[\w./-]*\w")


def test_the_paths_a_gateway_is_told_to_use_are_what_a_build_writes(tmp_path, hotplex):
    """``cp -r dist/qwen/slack/qwen-home …``, ``CODEX_HOME=dist/codex/slack/codex-home``: each
    ``dist/`` path in a shell example or a worker's delivery is written by a build of the example
    project whose targets those are (examples/basic: cc and ocs; examples/coding-agents: the CLIs)."""
    from hotplex import registry

    texts = [line for _, line in SHELL] + [w.delivery for w in registry.workers().values()]
    named = {path for text in texts for path in DIST_PATH.findall(text)}
    assert "dist/codex/slack/codex-home" in named
    built = []
    for example in ("basic", "coding-agents"):
        project = tmp_path / example
        shutil.copytree(
            REPO / "examples" / example, project, ignore=shutil.ignore_patterns("dist", ".hotplex")
        )
        assert hotplex("-C", str(project), "build").status == 0
        built.append(project)
    missing = sorted(p for p in named if not any((root / p).exists() for root in built))
    assert missing == []
