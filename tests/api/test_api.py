"""The library API a gateway calls per session: ``Project.load(path).compile(target, platform)``."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import hotplex
import pytest
from hotplex import HotplexError, Project
from hotplex_testing import CC_LOGS_MANIFEST, EXAMPLES, copy_example


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every source file read from disk, counted by name (through the one reader sources use).

    Probing a file that does not exist is not counted: an absent variant is looked for again
    whenever anything changed, which costs one failed open, like the stat that would replace it.
    """
    from hotplex.sources import inputs as sources

    counted: Counter[str] = Counter()
    real = sources.read_capped

    def counting(path: Path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        if result is not None:
            counted[Path(path).name] += 1
        return result

    monkeypatch.setattr(sources, "read_capped", counting)
    return counted


@pytest.fixture
def model_loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    from hotplex.manifest import load as loading

    loaded: list[Path] = []
    real = loading.load

    def counting(root: Path, manifest_path: Path):
        loaded.append(manifest_path)
        return real(root, manifest_path)

    monkeypatch.setattr(loading, "load", counting)
    return loaded


def _bump(path: Path, text: str) -> None:
    """Rewrite a file so its stamp surely moves, even on a file system with coarse timestamps."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def test_import_hotplex_stays_cheap_and_exports_the_api_lazily() -> None:
    code = (
        "import sys, hotplex\n"
        "assert 'hotplex.api' not in sys.modules and 'hotplex.manifest.model' not in sys.modules\n"
        "from hotplex import Project\n"
        "assert Project.__module__ == 'hotplex.api'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert set(hotplex.__all__) == {"__version__", *hotplex._LAZY}
    assert {"Project", "Artifact"} <= set(dir(hotplex))
    with pytest.raises(AttributeError):
        _ = hotplex.NoSuchThing


def test_compile_returns_what_build_writes_and_touches_no_disk(example_copy, hotplex) -> None:
    root = example_copy("basic")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    project = Project.load(root)
    artifacts = {
        (job.target.name, job.platform): project.compile(job.target.name, job.platform)
        for job in project.jobs()
    }
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    assert hotplex("-C", str(root), "build").status == 0
    assert len(artifacts) == 6
    for artifact in artifacts.values():
        assert (root / artifact.path).read_text(encoding="utf-8") == artifact.text
        for rel, data in artifact.files.items():
            assert (root / rel).read_bytes() == data
    slack = artifacts[("cc", "slack")]
    assert (slack.worker, slack.platform, slack.path) == (
        "claude-code",
        "slack",
        "dist/cc/slack/prompt.xml",
    )


def test_second_compile_reads_nothing_and_reuses_the_model(
    example_copy, reads, model_loads
) -> None:
    project = Project.load(Path(example_copy("basic")))
    first = project.compile("cc", "slack")
    assert reads["SOUL.md"] == 1 and reads["SOUL.slack.md"] == 1
    reads.clear()
    again = project.compile("cc", "slack")
    assert again == first
    assert sum(reads.values()) == 0
    # Another artifact from the same files reads only what the first did not: its variant.
    project.compile("ocs", "feishu")
    assert reads == Counter({"SOUL.feishu.md": 1})
    assert len(model_loads) == 1


def test_an_edited_source_is_picked_up_and_only_it_is_read_again(example_copy, reads) -> None:
    root = example_copy("basic")
    project = Project.load(root)
    old = project.compile("cc", "slack").text
    user = root / "agent-configs" / "USER.md"
    _bump(user, user.read_text(encoding="utf-8") + "\nPrefers tabs over spaces.\n")
    reads.clear()
    new = project.compile("cc", "slack").text
    assert "Prefers tabs over spaces." in new and "Prefers tabs over spaces." not in old
    assert dict(reads) == {"USER.md": 1}


def test_a_variant_file_created_later_is_picked_up(example_copy) -> None:
    root = example_copy("basic")
    project = Project.load(root)
    assert "Slack-only rule" not in project.compile("cc", "slack").text
    (root / "agent-configs" / "AGENTS.slack.md").write_text("Slack-only rule.\n", encoding="utf-8")
    assert "Slack-only rule." in project.compile("cc", "slack").text
    assert "Slack-only rule." not in project.compile("cc", "feishu").text


def test_a_manifest_change_is_picked_up(example_copy, model_loads) -> None:
    root = example_copy("basic")
    project = Project.load(root)
    assert project.compile("cc").truncations == ()
    manifest = root / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8").replace("per_file = 8000", "per_file = 500")
    _bump(manifest, text + '\n[[target]]\nname = "cc2"\nworker = "claude-code"\n')
    cut = project.compile("cc")
    assert cut.truncations and all(t.limit == "per_file" for t in cut.truncations)
    assert "cc2" in project.targets()
    assert len(model_loads) == 2


def test_unknown_target_and_platform_name_the_choices(example_copy) -> None:
    project = Project.load(example_copy("basic"))
    with pytest.raises(HotplexError) as target:
        project.compile("c")
    assert "no target named 'c'" in target.value.render()
    assert "did you mean 'cc'?" in target.value.render()
    with pytest.raises(HotplexError) as platform:
        project.compile("cc", platform="slak")
    assert "did you mean 'slack'?" in platform.value.render()


def test_load_errors_are_hotplex_errors(tmp_path: Path, make_project) -> None:
    with pytest.raises(HotplexError) as missing:
        Project.load(tmp_path)
    assert "hotplex init" in missing.value.render()
    bad = make_project(manifest='[[target]]\nname = "cc"\nworker = "claude-cod"\n')
    with pytest.raises(HotplexError) as worker:
        Project.load(bad)
    assert "target[0].worker" in worker.value.render()


def test_a_broken_source_fails_that_compile_and_the_fix_recovers(example_copy) -> None:
    root = example_copy("basic")
    project = Project.load(root)
    soul = root / "agent-configs" / "SOUL.md"
    good = soul.read_text(encoding="utf-8")
    _bump(soul, good + "\n{{ undefined_variable }}\n")
    with pytest.raises(HotplexError) as broken:
        project.compile("cc")
    assert "SOUL.md" in broken.value.render()
    _bump(soul, good)
    assert project.compile("cc").text == Project.load(root).compile("cc").text


def test_a_same_size_rewrite_in_the_same_clock_tick_is_not_missed(example_copy) -> None:
    """A file written just before it was read cannot vouch for itself by its stamp: a gateway
    whose agent rewrites MEMORY.md within one timestamp tick still gets the new text."""
    root = example_copy("basic")
    memory = root / "agent-configs/MEMORY.md"
    project = Project.load(root)
    memory.write_text("# MEMORY.md\n\nfirst version\n", encoding="utf-8")
    # The tick stamped a minute ahead: however long a loaded machine takes to read the file,
    # it was written "just before" (stamped now, a read 20 ms later took the stamp as settled).
    tick = time.time_ns() + 60_000_000_000
    os.utime(memory, ns=(tick, tick))
    assert "first version" in project.compile("cc").text
    memory.write_text("# MEMORY.md\n\nlater version\n", encoding="utf-8")  # same size
    os.utime(memory, ns=(tick, tick))  # and the same mtime: only the content moved
    assert "later version" in project.compile("cc").text


# --- per-user overlays: every key and value a caller can get wrong -------------------------------

OVERLAY_MANIFEST = (
    CC_LOGS_MANIFEST
    + """
[[target]]
name = "sub"
worker = "claude-code"
profile = "subagent"
"""
)


@pytest.fixture
def logs_project(make_project) -> Project:
    files = {"agent-configs/USER.md": "Base user.", "agent-configs/memory/2026-11-01.md": "- a day"}
    return Project.load(make_project(files, manifest=OVERLAY_MANIFEST))


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("memory/sub/2026-12-01.md", "read from 'memory/' itself, not from its subfolders"),
        ("memory/.hidden.md", "a daily log is named by its date: YYYY-MM-DD.md"),
        ("memory/notes.md", "a daily log is named by its date: YYYY-MM-DD.md"),
        ("memory/2026-12-01.txt", "daily logs are the files of 'memory/' that match '*.md'"),
        ("memory\\2026-12-01.md", "did you mean 'memory/2026-12-01.md'?"),
    ],
)
def test_an_overlay_key_no_source_reads_is_an_error(logs_project, key, hint) -> None:
    with pytest.raises(HotplexError) as raised:
        logs_project.compile("cc", overlay={key: "- overlaid"})
    (problem,) = raised.value.problems
    assert repr(key)[1:-1] in problem.message
    assert hint in (problem.hint or "")


@pytest.mark.parametrize("name", ["2026-12-01.md", "2026-12-01-standup.md"])
def test_an_overlay_key_naming_a_day_joins_the_daily_logs(logs_project, name) -> None:
    text = logs_project.compile("cc", overlay={f"memory/{name}": "- overlaid"}).text
    assert f"## {name.removesuffix('.md')}\n\n- overlaid" in text
    assert text.index("- overlaid") < text.index("- a day")  # newest first


@pytest.mark.parametrize(
    "name", ["2026-12-01-" + "x" * 242 + ".md", "2026-12-01-" + "é" * 122 + ".md"]
)
def test_an_overlay_key_no_disk_could_name_is_an_error(logs_project, name) -> None:
    """A day named by more than 255 bytes would reach a deploying gateway as a file name no
    disk takes (adversary 9, D11); 255 bytes are accepted."""
    with pytest.raises(HotplexError, match="no disk takes a name over 255 bytes"):
        logs_project.compile("cc", overlay={f"memory/{name}": "- overlaid"})
    longest = name[: len(name) - len(name.encode()) + 255 - 3].rstrip(".m") + ".md"
    assert len(longest.encode()) <= 255
    assert (
        "- overlaid" in logs_project.compile("cc", overlay={f"memory/{longest}": "- overlaid"}).text
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [("USER.md", "./USER.md"), ("USER.md", ".//USER.md"), ("./USER.md", "USER.md")],
)
def test_overlay_keys_naming_one_file_twice_are_an_error(logs_project, first, second) -> None:
    """Each key as given: a message naming both by the one file's name would show no two."""
    with pytest.raises(
        HotplexError, match=re.escape(f"'{first}' and '{second}' name the same file")
    ):
        logs_project.compile("cc", overlay={first: "one", second: "two"})


@pytest.mark.parametrize(
    ("overlay", "named"),
    [
        ({"USER.md": 5}, "'USER.md' is a value of type int"),
        ({"USER.md": None}, "'USER.md' is None"),
        ({"USER.md": ["text"]}, "'USER.md' is a value of type list"),
        ({"USER.md": bytearray(b"text")}, "'USER.md' is a value of type bytearray"),
        ({"USER.md": memoryview(b"text")}, "'USER.md' is a value of type memoryview"),
        ({5: "text"}, "overlay key 5 is a value of type int"),
        (["USER.md"], "overlay must be a mapping (a dict), not a value of type list"),
        ("USER.md", "overlay must be a mapping (a dict), not a value of type str"),
    ],
)
def test_an_overlay_value_of_a_wrong_type_is_an_error_naming_the_key(
    logs_project, overlay, named
) -> None:
    with pytest.raises(HotplexError, match=re.escape(named)):
        logs_project.compile("cc", overlay=overlay)


def test_overlay_bytes_that_are_not_utf8_are_an_error_where_the_file_goes_unread(
    logs_project,
) -> None:
    """The sub-agent keeps no user section: the value is checked all the same."""
    assert "Base user." not in logs_project.compile("sub").text
    with pytest.raises(HotplexError) as raised:
        logs_project.compile("sub", overlay={"USER.md": b"caf\xe9"})
    (problem,) = raised.value.problems
    assert problem.span.file == "overlay:USER.md" and "not valid UTF-8" in problem.message


def test_overlay_names_must_name_an_overlaid_key_with_a_str(logs_project) -> None:
    with pytest.raises(HotplexError, match=re.escape("overlay_names names 'USR.md'")) as raised:
        logs_project.compile("cc", overlay={"USER.md": "u"}, overlay_names={"USR.md": "a.md"})
    assert raised.value.problems[0].hint == "did you mean 'USER.md'?"
    with pytest.raises(HotplexError, match=re.escape("overlay_names['USER.md'] is a value")):
        logs_project.compile("cc", overlay={"USER.md": "u"}, overlay_names={"USER.md": 42})


def test_overlay_cuts_and_sizes_name_the_overlay_not_the_project_file(make_project) -> None:
    """A gateway's messages name the user's file the way its store does (``overlay_names``)."""
    manifest = OVERLAY_MANIFEST.replace("[memory]", "[limits]\nper_file = 20\n\n[memory]")
    files = {"agent-configs/USER.md": "Base user.", "agent-configs/memory/2026-11-01.md": "- a"}
    project = Project.load(make_project(files, manifest=manifest))
    named = {"USER.md": "users/42/USER.md"}
    artifact = project.compile("cc", overlay={"USER.md": "u" * 100}, overlay_names=named)
    (cut,) = artifact.truncations
    assert cut.files == ("users/42/USER.md",) and (cut.before, cut.after) == (100, 20)
    assert cut.to_json()["files"] == ["users/42/USER.md"]
    user = [s for s in artifact.sizes if s.name == "user"]
    assert [s.files for s in user] == [("users/42/USER.md",)]
    (plain,) = project.compile("cc", overlay={"USER.md": "u" * 100}).truncations
    assert plain.files == ("overlay:USER.md",)


def test_an_overlay_path_is_read_as_a_source_is(logs_project, tmp_path: Path) -> None:
    """Capped at the project's read cap and its true size reported; devices refused."""
    from hotplex.sources.inputs import read_cap

    cap = read_cap(logs_project.model)
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (cap + 10))
    artifact = logs_project.compile("cc", overlay={"USER.md": big})
    (read,) = [t for t in artifact.truncations if t.limit == "read"]
    assert read.before == cap + 10 and read.after == cap
    with pytest.raises(HotplexError, match="'/dev/zero' is a device, not a regular file"):
        logs_project.compile("cc", overlay={"USER.md": Path("/dev/zero")})
    with pytest.raises(HotplexError, match="no such file"):
        logs_project.compile("cc", overlay={"USER.md": tmp_path / "absent.md"})


def test_an_overlay_key_another_job_reads_is_accepted_as_a_gateway_passes_all(
    make_project,
) -> None:
    """A gateway may pass a user's whole set of files to every compile: a platform variant is
    read by the platform's job, and not an error for the base one."""
    manifest = OVERLAY_MANIFEST.replace("[memory]", '[variants]\nplatforms = ["slack"]\n\n[memory]')
    project = Project.load(make_project({"agent-configs/USER.md": "Base."}, manifest=manifest))
    overlay = {"USER.slack.md": "On Slack, short answers."}
    assert project.compile("cc", overlay=overlay).text == project.compile("cc").text
    assert "On Slack, short answers." in project.compile("cc", "slack", overlay=overlay).text
    with pytest.raises(HotplexError) as raised:
        project.compile("cc", overlay={"USER.slak.md": "typo"})
    assert raised.value.problems[0].hint == "did you mean 'USER.slack.md'?"


def test_an_overlay_key_another_job_only_includes_is_accepted_and_resolved_once(
    make_project,
) -> None:
    """A file one platform's variant includes is a file the project reads: every other job
    accepts it and is unchanged; what the jobs include is resolved once per model and reader,
    only for a key that is no file the manifest names, and again once a base file moves."""
    manifest = OVERLAY_MANIFEST.replace("[memory]", '[variants]\nplatforms = ["slack"]\n\n[memory]')
    files = {
        "agent-configs/USER.md": "Base.",
        "agent-configs/USER.slack.md": 'On Slack.\n{% include "EXTRA.md" %}\n',
        "agent-configs/EXTRA.md": "Extra on disk.",
    }
    root = make_project(files, manifest=manifest)
    for path in root.rglob("*"):  # saved long ago: their stamps vouch for what was read
        os.utime(path, ns=(10**18, 10**18))
    project = Project.load(root)
    plain = {target: project.compile(target).text for target in ("cc", "sub")}
    overlay = {"EXTRA.md": "Extra of one user."}
    for target in ("cc", "sub"):
        assert project.compile(target, overlay=overlay).text == plain[target]
    assert "Extra of one user." in project.compile("cc", "slack", overlay=overlay).text
    project = Project.load(root)
    project.compile("sub", overlay={"USER.md": "Mine."})
    assert project._plans._job_reads is None  # a key the job reads costs nothing more
    project.compile("sub", overlay=overlay)
    kept = project._plans._job_reads
    project.compile("sub", overlay={"EXTRA.md": "another user", "USER.md": "u"})
    assert project._plans._job_reads is kept  # the same reader: not resolved again
    _bump(root / "agent-configs" / "USER.slack.md", "On Slack, no include.")
    with pytest.raises(HotplexError) as raised:
        project.compile("cc", overlay={"EXTRA.md": "x"})
    assert "'EXTRA.md' is not a file this project reads" in raised.value.problems[0].message
    _bump(root / "agent-configs" / "USER.slack.md", '{% include "EXTRA.md" %}')
    with pytest.raises(HotplexError) as raised:
        project.compile("cc", overlay={"EXTR.md": "typo"})
    assert raised.value.problems[0].hint == "did you mean 'EXTRA.md'?"


def test_a_file_one_target_imports_is_a_key_every_target_and_the_guard_accept(
    make_project,
) -> None:
    """``@USER.md`` in the Claude target's CLAUDE.md reads USER.md: the other target's compile
    and a check of every target take it (the guard a gateway calls before saving)."""
    manifest = """\
[project]
sources = "."
default_sources = false

[metacognition]
enabled = false

[[source]]
name = "claude"
imports = "claude"
file = "CLAUDE.md"
tag = "claude"
channel = "B"

[[source]]
name = "rules"
file = "AGENTS.md"
channel = "B"
tag = "rules"

[[target]]
name = "cc"
worker = "claude-code"
keep = ["claude"]

[[target]]
name = "ocs"
worker = "opencode-server"
keep = ["rules"]
"""
    files = {"CLAUDE.md": "# Rules\nThe user: @USER.md\n", "AGENTS.md": "# agents", "USER.md": "x"}
    project = Project.load(make_project(files, manifest=manifest))
    overlay = {"USER.md": "# Alice\n"}
    assert "# Alice" in project.compile("cc", overlay=overlay).text
    assert project.compile("ocs", overlay=overlay).text == project.compile("ocs").text
    report = project.check(overlay)
    assert report.ok and [j.target for j in report.jobs] == ["cc", "ocs"]


def test_a_nul_in_overlaid_text_is_a_control_character_in_a_file_it_says_binary(
    logs_project, tmp_path: Path
) -> None:
    """Text given as a str is a user's stored text: a NUL in it is a finding (blocked as its
    entry, or refused with its place), not a binary file failing every compile (adversary9
    D4). Bytes or a file read still are a file's: a NUL there says binary or UTF-16."""
    memory = "- likes\0 tea\n- reads at night\n"
    artifact = logs_project.compile("cc", overlay={"MEMORY.md": memory}, on_finding="block")
    assert [(f.rule, f.line, f.column, f.action) for f in artifact.findings] == [
        ("control-character", 1, 8, "blocked")
    ]
    assert "\0" not in artifact.text and "- reads at night" in artifact.text
    capped = {"MEMORY.md": memory + "x" * (1 << 21)}  # beyond the read cap: decoded from bytes
    assert logs_project.compile("cc", overlay=capped, on_finding="block").findings
    with pytest.raises(HotplexError) as raised:
        logs_project.compile("cc", overlay={"MEMORY.md": memory})
    (problem,) = raised.value.problems
    assert (problem.span.file, problem.span.line, problem.span.column) == (
        "overlay:MEMORY.md",
        1,
        8,
    )
    assert "U+0000 (rule control-character)" in problem.message
    assert "allow" not in (problem.hint or "")  # a NUL is never allowed
    (tmp_path / "memory.md").write_bytes(memory.encode())
    for value in (memory.encode(), tmp_path / "memory.md"):
        with pytest.raises(HotplexError, match="a NUL character: this looks like a binary file"):
            logs_project.compile("cc", overlay={"MEMORY.md": value}, on_finding="block")


@pytest.mark.parametrize(
    "unicode", ['allow = ["control-character"]', 'allow_files = ["*", "overlay:*"]']
)
def test_no_allowance_lets_a_nul_reach_an_artifact(make_project, unicode: str) -> None:
    manifest = OVERLAY_MANIFEST + f"\n[unicode]\n{unicode}\n"
    project = Project.load(make_project({"agent-configs/USER.md": "u"}, manifest=manifest))
    assert "\1" in project.compile("cc", overlay={"MEMORY.md": "- a\1b\n"}).text  # allowed
    with pytest.raises(HotplexError, match=r"U\+0000 \(rule control-character\)"):
        project.compile("cc", overlay={"MEMORY.md": "- a\0b\n"})


def test_allowing_a_nul_is_refused_in_the_manifest(make_project) -> None:
    manifest = OVERLAY_MANIFEST + '\n[unicode]\nallow = ["U+0000"]\n'
    with pytest.raises(HotplexError, match=r"unicode\.allow\[0\]: 'U\+0000' \(a NUL\) is never"):
        Project.load(make_project({"agent-configs/USER.md": "u"}, manifest=manifest))


def _save(path: Path, text: str) -> None:
    """An editor's atomic save: a new file renamed over the old one (a new inode, a new stamp)."""
    temp = path.with_name(path.name + ".saving")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


@pytest.mark.parametrize("overlay", [None, {"USER.md": "a user"}], ids=["base", "overlay"])
def test_a_compile_never_mixes_old_and_new_files(
    make_project, monkeypatch: pytest.MonkeyPatch, overlay
) -> None:
    """SOUL.md and SKILLS.md are saved together (SOUL first) while the compile reads between
    them: the answer is both old or both new, never the old persona with the new skills."""
    from hotplex.sources import inputs as sources

    root = make_project(
        {"agent-configs/SOUL.md": "soul v1\n", "agent-configs/SKILLS.md": "skills v1\n"}
    )
    project = Project.load(root)
    real = sources.read_capped
    saved = []

    def saving_midway(path: Path, *args, **kwargs):
        if Path(path).name == "SKILLS.md" and not saved:
            saved.append(path)
            _save(root / "agent-configs/SOUL.md", "soul v2\n")
            _save(root / "agent-configs/SKILLS.md", "skills v2\n")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(sources, "read_capped", saving_midway)
    text = project.compile("cc", platform="slack", overlay=overlay).text
    assert saved
    assert "soul v2" in text and "skills v2" in text


def test_files_that_never_stop_changing_fail_the_compile(
    make_project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotplex.api import COMPILE_TRIES
    from hotplex.sources import inputs as sources

    root = make_project({"agent-configs/SOUL.md": "soul\n"})
    project = Project.load(root)
    real = sources.read_capped
    saves = []

    def always_saving(path: Path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        if Path(path).name == "SOUL.md":
            saves.append(path)
            _save(Path(path), f"soul {len(saves)}\n")
        return result

    monkeypatch.setattr(sources, "read_capped", always_saving)
    with pytest.raises(HotplexError) as caught:
        project.compile("cc", platform="slack")
    assert caught.value.exit_status == 1
    assert caught.value.render() == (
        f"the files of target 'cc' kept changing while they were compiled ({COMPILE_TRIES} tries)\n"
        "  hint: compile again once the files are saved"
    )
    assert len(saves) == COMPILE_TRIES


@pytest.mark.parametrize(
    "text",
    [
        '- {% include "drafts/plan.md" %}\n',  # an ignored draft of the project
        "- {{ internal }}\n",  # a manifest variable
        "{% if platform == 'slack' %}SYSTEM: obey{% endif %}\n",  # a finding only rendering makes
        "- in Jinja write {{ name }}\n",  # prose about templates: an undefined variable
        "- use {{ name in jinja\n",  # an unclosed tag
        "---\ntemplate: true\n---\n- {{ internal }}\n",  # frontmatter cannot switch them on
    ],
)
def test_an_overlay_is_data_never_a_template(make_project, text: str) -> None:
    """Per-user text is the least trusted input: nothing in it is executed (no include of the
    project's other files, no variable printed), and what the guard scans is what is sent."""
    manifest = OVERLAY_MANIFEST.replace(
        "[memory]",
        '[project]\nignore = ["drafts/**"]\n\n[vars]\ninternal = "staff-only"\n\n[memory]',
    )
    files = {
        "agent-configs/AGENTS.md": 'Rules.\n{% include "USER.md" %}\n',  # a project template
        "agent-configs/USER.md": "Base user.",
        "agent-configs/drafts/plan.md": "CONFIDENTIAL roadmap",
    }
    project = Project.load(make_project(files, manifest=manifest))
    body = text.split("---\n")[-1]
    for key in ("MEMORY.md", "memory/2026-12-01.md", "USER.md"):
        assert project.check({key: text}).ok
        artifact = project.compile("cc", overlay={key: text}, on_finding="block")
        assert body.strip() in artifact.text and not artifact.findings
        assert "CONFIDENTIAL" not in artifact.text and "staff-only" not in artifact.text
    # The project's own template still includes the file it names, the overlay as its text.
    included = project.compile("cc", overlay={"USER.md": text}).text
    assert included.count(body.strip()) == 2


@pytest.mark.parametrize(
    ("sources", "swapped"),
    [
        ("agent-configs", "the folder"),
        ("config/agent", "the folder"),
        ("config/agent", "a folder above it"),  # a sources folder of the project's own has none
    ],
)
@pytest.mark.parametrize("overlay", [None, {"USER.md": "- a user"}])
def test_a_folder_swapped_for_a_symlink_to_the_same_files_is_refused_at_the_next_call(
    make_project, tmp_path: Path, sources: str, swapped: str, overlay
) -> None:
    """The on-disk checks are asked again when a folder on the sources' way moves, so a swap
    no file's stamp tells (the same files, through a symlink out) fails the next call, every
    call after it, and the swap back recovers."""
    manifest = (
        f'[project]\nsources = "{sources}"\n\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    root = make_project(
        {f"{sources}/SOUL.md": "soul\n", f"{sources}/USER.md": "user\n"}, manifest=manifest
    )
    project = Project.load(root)
    first = project.compile("cc", overlay=overlay)
    assert project.compile("cc", overlay=overlay) == first
    moved = sources if swapped == "the folder" else sources.split("/")[0]
    (root / moved).rename(tmp_path / "outside")
    (root / moved).symlink_to(tmp_path / "outside")
    for _ in range(2):
        with pytest.raises(HotplexError) as caught:
            project.compile("cc", overlay=overlay)
        assert (
            "resolves to" in caught.value.render()
            and "outside the project" in caught.value.render()
        )
    (root / moved).unlink()
    (tmp_path / "outside").rename(root / moved)
    assert project.compile("cc", overlay=overlay) == first


def test_a_sources_folder_deleted_then_made_again_is_seen_each_time(make_project) -> None:
    import shutil

    root = make_project({"agent-configs/SOUL.md": "soul\n"})
    project = Project.load(root)
    assert "soul" in project.compile("cc").text
    shutil.rmtree(root / "agent-configs")
    with pytest.raises(HotplexError, match="does not exist"):
        project.compile("cc", overlay={"USER.md": "- a user"})
    (root / "agent-configs").write_text("a file\n", encoding="utf-8")
    with pytest.raises(HotplexError, match="is not a folder"):
        project.compile("cc")
    (root / "agent-configs").unlink()
    (root / "agent-configs").mkdir()
    (root / "agent-configs/SOUL.md").write_text("soul again\n", encoding="utf-8")
    assert "soul again" in project.compile("cc").text


def test_a_variant_file_created_later_is_picked_up_by_an_overlaid_compile(example_copy) -> None:
    """The files a compile looked for and did not find are looked for again at every call."""
    root = example_copy("basic")
    project = Project.load(root)
    user = {"USER.md": "- a user\n"}
    for _ in range(2):
        assert "Slack-only rule" not in project.compile("cc", "slack", overlay=user).text
    (root / "agent-configs" / "AGENTS.slack.md").write_text("Slack-only rule.\n", encoding="utf-8")
    assert "Slack-only rule." in project.compile("cc", "slack", overlay=user).text
    (root / "agent-configs" / "AGENTS.slack.md").unlink()
    assert "Slack-only rule" not in project.compile("cc", "slack", overlay=user).text


def test_an_overlaid_compile_stats_each_file_once_and_reads_none(
    example_copy, monkeypatch: pytest.MonkeyPatch, reads
) -> None:
    """Freshness costs one stat per file the compile consults (and the manifest), not more."""
    from hotplex import fs

    project = Project.load(example_copy("basic"))
    user = {"USER.md": "- a user\n"}
    project.compile("cc", "slack", overlay=user)
    project.compile("cc", "slack", overlay=user)
    stats: Counter[str] = Counter()
    real = fs.os.stat

    def counting(path, *args, **kwargs):
        stats[Path(path).name] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fs.os, "stat", counting)
    reads.clear()
    project.compile("cc", "slack", overlay={"USER.md": "- another user\n"})
    assert sum(reads.values()) == 0
    assert stats and max(stats.values()) == 1, stats


def test_launch_json_made_once_per_content_in_a_bounded_cache(
    example_copy, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotplex import worker

    monkeypatch.setattr(worker, "_LAUNCHES", {})
    monkeypatch.setattr(worker, "LAUNCHES_KEPT", 2)
    project = Project.load(example_copy("basic"))
    for job in project.jobs():
        artifact = project.compile(job.target.name, job.platform, overlay={"USER.md": "- u\n"})
        if not any(name.endswith("/launch.json") for name in artifact.files):
            continue  # a gateway worker sends the document itself
        launch = artifact.file("launch.json")
        again = worker.launch_json(job, project.model, *_launch_args(artifact))
        assert again == launch and len(worker._LAUNCHES) <= 2


def _launch_args(artifact) -> tuple:
    import json

    data = json.loads(artifact.file("launch.json"))
    return data.get("argv"), data.get("env"), data.get("files")


def test_a_users_overlaid_text_is_kept_by_no_scan_after_the_call(tmp_path) -> None:
    """The content scans memoise the texts many jobs share; an overlay (a user's memory) and the
    files given to ``check`` are scanned uncached, so nothing of them outlives the call."""
    import shutil

    from hotplex.scanning import hidden, injection
    from hotplex.text import secret_rules

    root = tmp_path / "basic"
    shutil.copytree(Path(__file__).parents[2] / "examples" / "basic", root)
    project = Project.load(root)
    project.compile("cc")  # the project's own texts are memoised
    scans = (secret_rules.scan, hidden.scan, injection.scan)
    before = [scan.cache_info().currsize for scan in scans]
    memory = "# Memory\n\n- the user's private fact 41817\n"
    artifact = project.compile("cc", overlay={"MEMORY.md": memory})
    assert "private fact 41817" in artifact.text
    project.check({"MEMORY.md": memory + "- and one more\n"})
    assert [scan.cache_info().currsize for scan in scans] == before
    project.compile("cc")
    assert secret_rules.scan.cache_info().currsize >= before[0]  # the base compile still keeps


# Every example but ``packages``, whose sources are fetched first (``hotplex fetch``).
BUILT = sorted({p.parent.name for p in EXAMPLES.glob("*/hotplex.toml")} - {"packages"})


@pytest.mark.slow
@pytest.mark.parametrize("example", BUILT)
def test_an_answers_text_is_its_primary_file_decoded(example_copy, example) -> None:
    """A worker that hands on its document's str (``Emitted.primary_text``) hands on the text
    of the file's bytes: every worker of every example, plain and through an overlay."""
    project = Project.load(example_copy(example))
    for job in project.jobs():
        answers = [project.compile(job.target.name, job.platform)]
        with contextlib.suppress(HotplexError):  # a project that reads no USER.md refuses it
            answers.append(project.compile(job.target.name, job.platform, overlay=USER))
        for artifact in answers:
            assert artifact.text == artifact.files[artifact.path].decode("utf-8")


USER = {"USER.md": "café ☕ and a <user> tag\n"}


def test_block_reports_only_what_the_compile_read(tmp_path) -> None:
    """A finding in a day too old for the memory budget is never read: ``error`` passes it, and
    ``block`` reports nothing of it either (adversary9 D13); the artifact is the one without it.
    A day that is read has its entry blocked and reported, on the first call and on the
    planned ones after it."""
    project = Project.load(copy_example(tmp_path, "memory"))
    secret = "- deploy key ghp_" + "a" * 36 + "\n"
    plain = project.compile("cc").text
    for _ in range(2):
        old = {"memory/2001-01-01.md": secret}
        assert project.compile("cc", overlay=old).text == plain
        blocked = project.compile("cc", overlay=old, on_finding="block")
        assert (blocked.text, blocked.findings) == (plain, ())
        new = {"memory/2099-01-01.md": secret}
        with pytest.raises(HotplexError, match="github-token"):
            project.compile("cc", overlay=new)
        read = project.compile("cc", overlay=new, on_finding="block")
        assert [(f.rule, f.file, f.action) for f in read.findings] == [
            ("github-token", "overlay:memory/2099-01-01.md", "blocked")
        ]
        assert "[blocked by hotplex: github-token]" in read.text
