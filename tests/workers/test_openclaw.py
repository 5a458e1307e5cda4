"""The OpenClaw worker: workspace files, the predicted context.md, options and the build report.

OpenClaw's own rules are tested in test_openclaw_context.py and, end to end, against its vectors
in test_openclaw_vectors_e2e.py; here is what the worker adds around them.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
import tomli_w
from hotplex import registry
from hotplex.api import Project
from hotplex.errors import HotplexError
from hotplex.manifest.model import Manifest, Target
from hotplex.records import SectionSize, Skill
from hotplex.sources.skill_listing import listing_problems, listing_safe
from hotplex.targets.openclaw import worker as openclaw
from hotplex.targets.openclaw.context import build_project_context
from hotplex.targets.openclaw.templates import TEMPLATES, workspace_templates
from hypothesis import given
from hypothesis import strategies as st

SOURCES = """\
[project]
sources = "src"

[variants]
platforms = ["slack"]

[[source]]
name = "rules"
file = "AGENTS.md"
channel = "B"
tag = "rules"

[[source]]
name = "soul"
file = "SOUL.md"
channel = "B"
tag = "persona"

[[source]]
name = "user"
file = "USER.md"
channel = "C"
tag = "user"

[[source]]
name = "skills"
file = "SKILLS.md"
channel = "B"
tag = "skills"

[[source]]
name = "tools"
file = "TOOLS.md"
channel = "B"
tag = "tools"
"""


def _project(make_project, files: dict[str, str], target: str = "", sources: str = SOURCES) -> Path:
    """A project whose one target ("claw") is an OpenClaw worker with the given extra options."""
    manifest = f'{sources}\n[[target]]\nname = "claw"\nworker = "openclaw"\n{target}'
    root = make_project({f"src/{name}": text for name, text in files.items()}, manifest=manifest)
    (root / "src").mkdir(exist_ok=True)  # a missing sources folder is an error of its own
    return root


def _compile(root: Path, platform: str | None = None):
    return Project.load(root).compile("claw", platform)


def _problems(root: Path) -> list[tuple[str | None, str]]:
    with pytest.raises(HotplexError) as caught:
        Project.load(root)
    return [(p.span.key if p.span else None, p.message) for p in caught.value.problems]


# --- registration and options -------------------------------------------------------------------


def test_worker_is_registered_with_its_options() -> None:
    assert isinstance(registry.workers()["openclaw"], openclaw.OpenClaw)
    assert sorted(attrs.fields_dict(registry.workers()["openclaw"].Options)) == [
        "compat",
        "max_chars",
        "session",
        "total_max_chars",
        "workspace",
    ]


@pytest.mark.parametrize(
    ("option", "key", "expected"),
    [
        ('compat = "2026.09"', "compat", "unknown compat '2026.09' (expected one of '2026.9', "),
        ('session = "subagents"', "session", "unknown session 'subagents' (expected one of 'm"),
        ("max_chars = 0", "max_chars", "must be a positive integer, got 0"),
        ("total_max_chars = -5", "total_max_chars", "must be a positive integer, got -5"),
        ('compat = "seed"\ntotal_max_chars = 9', "total_max_chars", "compat 'seed' has no total"),
        ('workspace = "ws"', "workspace", "'ws' must be an absolute path or start with '~/'"),
        ('workspace = "~alice/ws"', "workspace", "'~alice/ws' must be an absolute path or"),
        ('workspace = "/srv/a/../ws"', "workspace", "'/srv/a/../ws' is not normalised: OpenCla"),
        ('workspace = "/srv/\\tws"', "workspace", "must be one line without control characters"),
        ('max_chars = "100"', "max_chars", "expected an integer, got a string ('100')"),
    ],
)
def test_bad_options_are_reported_with_their_key(
    make_project, option: str, key: str, expected: str
) -> None:
    root = _project(make_project, {}, option)
    ((found_key, message),) = _problems(root)
    assert found_key == f"target[0].{key}"
    assert message.startswith(expected)


def test_suggestion_names_the_close_value(make_project) -> None:
    root = _project(make_project, {}, 'session = "subagents"')
    ((_, message),) = _problems(root)
    assert message.endswith("did you mean 'subagent'?")


def test_openclaw_options_do_not_apply_to_other_workers(make_project) -> None:
    manifest = f'{SOURCES}\n[[target]]\nname = "cc"\nworker = "claude-code"\nsession = "main"\n'
    root = make_project({}, manifest=manifest)
    assert _problems(root) == [
        ("target[0].session", "'session' does not apply to worker 'claude-code'")
    ]


@pytest.mark.parametrize("workspace", ["/", "/srv/ws/", "~", "~/ws"])
def test_absolute_and_home_workspaces_are_accepted(make_project, workspace) -> None:
    root = _project(make_project, {}, f'workspace = "{workspace}"')
    assert Project.load(root).targets() == ["claw"]


def test_defaults_and_the_subagent_profile(make_project) -> None:
    root = _project(make_project, {}, 'profile = "subagent"')
    (target,) = Project.load(root).model.manifest.target
    assert openclaw.settings(target) == openclaw.Settings(
        compat="2026.9",
        session="subagent",
        workspace="~/.openclaw/workspace",
        max_chars=None,
        total_max_chars=None,
    )
    options = openclaw.Options(session="cron", compat="seed")
    explicit = Target("x", "openclaw", profile="subagent", options=options)
    assert openclaw.settings(explicit) == openclaw.Settings(
        "seed", "cron", "~/.openclaw/workspace", None, None
    )


# --- the workspace files ------------------------------------------------------------------------


def test_layout_and_workspace_bytes(make_project) -> None:
    files = {
        "AGENTS.md": "---\nversion: 2\n---\n\n# Rules\nWork on {{ platform | upper }}.\n\n\n",
        "SOUL.md": "# Soul\nBe brief.\n",
        "SOUL.slack.md": "---\nplatform: slack\n---\n## On Slack\nUse threads.\n",
    }
    artifact = _compile(_project(make_project, files), "slack")
    folder = "dist/claw/slack"
    # Source order; no file for the META-COGNITION block, which is HotPlex's, not OpenClaw's.
    assert list(artifact.files) == [
        f"{folder}/workspace/AGENTS.md",
        f"{folder}/workspace/SOUL.md",
        f"{folder}/context.md",
    ]
    assert artifact.path == f"{folder}/context.md"
    assert artifact.files[f"{folder}/workspace/AGENTS.md"] == b"# Rules\nWork on SLACK.\n"
    assert artifact.files[f"{folder}/workspace/SOUL.md"] == (
        b"# Soul\nBe brief.\n\n## On Slack\nUse threads.\n"
    )


def test_context_md_is_what_openclaw_builds_from_the_written_files(example_copy) -> None:
    root = example_copy("openclaw")
    project = Project.load(root)
    for job in project.jobs():
        artifact = project.compile(job.target.name, job.platform)
        prefix = artifact.path.removesuffix("context.md") + "workspace/"
        on_disk = {
            path.removeprefix(prefix): data.decode("utf-8")
            for path, data in artifact.files.items()
            if path.startswith(prefix)
        }
        target = job.target
        expected = build_project_context(
            on_disk,
            compat=target.options.compat or "2026.9",
            session="subagent" if target.profile == "subagent" else "main",
            workspace=target.options.workspace or "~/.openclaw/workspace",
            max_chars=target.options.max_chars,
        )
        assert artifact.text == expected.text, job.id
        assert artifact.files[artifact.path] == expected.text.encode("utf-8")
        assert artifact.warnings == expected.warnings


def test_missing_file_is_marked_with_the_workspace_path(make_project) -> None:
    artifact = _compile(_project(make_project, {"AGENTS.md": "rules"}, 'workspace = "/srv/ws"'))
    assert "## /srv/ws/SOUL.md\n[MISSING] Expected at: /srv/ws/SOUL.md" in artifact.text
    assert not any(path.endswith("/SOUL.md") for path in artifact.files)


def test_empty_source_is_an_empty_file_openclaw_skips(make_project) -> None:
    files = {"AGENTS.md": "rules", "SOUL.md": "---\nversion: 1\n---\n\n"}
    artifact = _compile(_project(make_project, files, 'workspace = "/ws"'))
    assert artifact.files["dist/claw/default/workspace/SOUL.md"] == b""
    assert "SOUL.md" not in artifact.text  # neither [MISSING] nor the persona guidance
    assert SectionSize("soul", ("src/SOUL.md",), 0, 0, "utf16") in artifact.sizes
    assert artifact.truncations == () and artifact.warnings == ()


@pytest.mark.parametrize(
    ("compat", "injected"), [("2026.9", ["AGENTS.md"]), ("seed", ["AGENTS.md", "TOOLS.md"])]
)
def test_subagent_profile_keeps_rules_and_tools(make_project, compat, injected) -> None:
    files = {"AGENTS.md": "rules", "SOUL.md": "soul", "TOOLS.md": "tools", "USER.md": "user"}
    options = f'profile = "subagent"\ncompat = "{compat}"\nworkspace = "/ws"'
    artifact = _compile(_project(make_project, files, options))
    written = sorted(Path(p).name for p in artifact.files if "/workspace/" in p)
    assert written == ["AGENTS.md", "TOOLS.md"]
    headings = [line for line in artifact.text.splitlines() if line.startswith("## ")]
    assert [Path(h[3:]).name for h in headings] == injected


def test_files_openclaw_does_not_read_are_written_with_a_warning(make_project) -> None:
    files = {"AGENTS.md": "rules", "SKILLS.md": "skills", "TOOLS.md": "tools"}
    artifact = _compile(_project(make_project, files, 'workspace = "/ws"'))
    assert "dist/claw/default/workspace/TOOLS.md" in artifact.files
    assert "tools" not in artifact.text.splitlines()
    reads = "AGENTS.md, SOUL.md, IDENTITY.md, USER.md, BOOTSTRAP.md, MEMORY.md"
    assert artifact.warnings == tuple(
        f"{name} is written to the workspace, but OpenClaw 2026.9 does not inject it into"
        f" Project Context (it reads {reads})"
        for name in ("SKILLS.md", "TOOLS.md")
    )


def test_seed_reads_tools_md(make_project) -> None:
    files = {"AGENTS.md": "rules", "TOOLS.md": "use rg"}
    artifact = _compile(_project(make_project, files, 'compat = "seed"'))
    assert "## TOOLS.md\nuse rg" in artifact.text
    assert artifact.warnings == ()


def test_two_sources_for_one_workspace_file_are_an_error(make_project) -> None:
    sources = SOURCES + '\n[[source]]\nname = "soul2"\nfile = "extra/soul.md"\nchannel = "B"\n'
    sources += 'tag = "soul2"\n'
    root = _project(make_project, {"SOUL.md": "a", "extra/soul.md": "b"}, sources=sources)
    with pytest.raises(HotplexError) as caught:
        _compile(root)
    (problem,) = caught.value.problems
    assert problem.span is not None and problem.span.key == "source[5].file"
    assert problem.message == (
        "sources 'soul' and 'soul2' would both be the OpenClaw workspace file 'soul.md'"
    )


# --- cuts and the report ------------------------------------------------------------------------


def test_per_file_cut_is_a_truncation_and_openclaws_warning(make_project) -> None:
    files = {"AGENTS.md": "rules", "SOUL.md": "# Soul\n" + "s" * 993}
    artifact = _compile(_project(make_project, files, 'workspace = "/ws"\nmax_chars = 500'))
    (cut,) = (t.to_json() for t in artifact.truncations)
    after = cut.pop("after")
    assert cut == {
        "section": "soul",
        "files": ["src/SOUL.md"],
        "limit": "openclaw.max_chars",
        "before": 1000,
        "unit": "utf16",
        "style": "head 75% / tail 25%",
    }
    assert 0 < after <= 500
    assert artifact.warnings == (
        "workspace bootstrap file SOUL.md is 1000 chars (limit 500); truncating in injected"
        " context",
    )


def test_user_md_cap_is_named(make_project) -> None:
    artifact = _compile(_project(make_project, {"USER.md": "u" * 5000}, 'workspace = "/ws"'))
    (cut,) = artifact.truncations
    assert (cut.section, cut.limit, cut.before) == ("user", "openclaw.user_cap", 5000)


def test_silent_stop_of_the_total_budget_is_reported(make_project) -> None:
    # AGENTS.md spends the whole total; OpenClaw then stops without a word.
    files = {"AGENTS.md": "a" * 100, "SOUL.md": "soul", "USER.md": "user"}
    options = 'workspace = "/ws"\ntotal_max_chars = 100'
    artifact = _compile(_project(make_project, files, options))
    assert artifact.warnings == ()
    assert [(c.section, c.limit, c.before, c.after) for c in artifact.truncations] == [
        ("soul", "openclaw.total_max_chars", 4, 0),
        ("user", "openclaw.total_max_chars", 4, 0),
    ]


def test_session_filtering_is_no_cut(make_project) -> None:
    files = {"AGENTS.md": "rules", "SOUL.md": "soul", "USER.md": "user"}
    artifact = _compile(_project(make_project, files, 'session = "subagent"'))
    assert artifact.truncations == () and artifact.warnings == ()
    assert [size.injected for size in artifact.sizes] == [5, 0, 0]


def test_hotplex_limits_do_not_apply(make_project) -> None:
    text = "# Soul\n" + "x" * 3000
    sources = SOURCES + '\n[limits]\nper_file = 100\ntotal = 200\noverflow = "error"\n'
    artifact = _compile(_project(make_project, {"SOUL.md": text}, sources=sources))
    assert artifact.files["dist/claw/default/workspace/SOUL.md"] == f"{text}\n".encode()
    assert text in artifact.text
    assert artifact.truncations == ()


def test_budgets_are_openclaws() -> None:
    worker, manifest, Options = registry.workers()["openclaw"], Manifest(), openclaw.Options

    def budgets(options: openclaw.Options) -> tuple[int | None, int | None]:
        found = worker.budgets(Target("a", "openclaw", options=options), manifest)
        return found.per_file, found.total

    assert budgets(Options()) == (20_000, 60_000)
    assert budgets(Options(max_chars=5, total_max_chars=9)) == (5, 9)
    assert budgets(Options(compat="seed")) == (20_000, None)


def test_build_report_and_stats_through_the_cli(example_copy, hotplex) -> None:
    root = example_copy("openclaw")
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    entries = {a["path"]: a for a in json.loads(result.stdout)["artifacts"]}
    context = entries["dist/claw/telegram/context.md"]
    assert context["warnings"] == [
        "workspace bootstrap file MEMORY.md is 1813 chars (limit 1500); truncating in injected"
        " context"
    ]
    (cut,) = context["truncations"]
    assert (cut["files"], cut["limit"], cut["before"]) == (
        ["workspace-src/MEMORY.md"],
        "openclaw.max_chars",
        1813,
    )
    assert "dist/claw/telegram/workspace/MEMORY.md" in entries

    stats = hotplex("-C", str(root), "stats", "--json", "claw")
    assert stats.status == 0, stats.stderr
    art = json.loads(stats.stdout)["artifacts"][1]
    assert (art["artifact"], art["unit"], art["per_file"], art["total"]) == (
        "claw/telegram",
        "utf16",
        1500,
        60_000,
    )
    memory = next(s for s in art["sections"] if s["name"] == "memory")
    assert (memory["raw"], memory["size"]) == (1813, cut["after"])
    assert memory["truncations"] == [f"openclaw.max_chars: 1813→{cut['after']}"]


# --- templates for `hotplex init --worker openclaw` ---------------------------------------------


def test_workspace_templates_write_bootstrap_only_when_brand_new() -> None:
    names = ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"]
    assert list(workspace_templates()) == [*names[:5], "HEARTBEAT.md", "BOOTSTRAP.md"]
    assert list(workspace_templates(brand_new=False)) == names


@pytest.mark.parametrize("compat", ["2026.9", "seed"])
def test_templates_build_and_fit_openclaws_budgets(make_project, compat: str) -> None:
    manifest = {
        "project": {"sources": "src"},
        "source": [
            {"name": t.source, "file": t.file, "channel": t.channel, "tag": t.tag, "note": t.note}
            for t in TEMPLATES
        ],
        "target": [{"name": "claw", "worker": "openclaw", "compat": compat, "workspace": "/ws"}],
    }
    files = {f"src/{name}": text for name, text in workspace_templates().items()}
    artifact = Project.load(make_project(files, manifest=tomli_w.dumps(manifest))).compile("claw")
    assert artifact.truncations == ()
    unread = {w.split(" ", 1)[0] for w in artifact.warnings}
    assert unread == (set() if compat == "seed" else {"TOOLS.md", "HEARTBEAT.md"})
    for name, text in workspace_templates().items():
        assert (text.rstrip() in artifact.text) is (name not in unread)


def test_an_openclaw_cut_inside_a_flag_is_a_warning(make_project):
    from hotplex import Project
    from hotplex.scanning import hidden

    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    split = []
    for max_chars in (*range(190, 214), 20000):
        manifest = f'[[target]]\nname = "claw"\nworker = "openclaw"\nmax_chars = {max_chars}\n'
        root = make_project(
            {"agent-configs/SOUL.md": "Fans of " + england * 60 + "\n"},
            manifest,
            name=f"p{max_chars}",
        )
        artifact = Project(root).compile("claw")
        warned = any("hidden text in Project Context" in w for w in artifact.warnings)
        assert warned == bool(hidden.scan(artifact.text)), max_chars
        split.append(warned)
    assert any(split) and not split[-1]  # cuts inside a flag are told; no cut, no warning


# --- Agent Skills: OpenClaw's listing ------------------------------------------------------------


def _xml(text: str) -> str:
    """OpenClaw 2026.9.6's ``escapeSkillXml``."""
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        text = text.replace(raw, escaped)
    return text.replace("'", "&apos;")


def _openclaw_entry(name: str, description: str, location: str) -> str:
    """A skill's entry of OpenClaw 2026.9.6's ``<available_skills>`` (``formatSkillCatalog``)."""
    return (
        f"  <skill>\n    <name>{_xml(name)}</name>\n"
        f"    <description>{_xml(description)}</description>\n"
        f"    <location>{_xml(location)}</location>\n  </skill>"
    )


def _skill(description: str) -> Skill:
    return Skill(
        "x", description, "agent-configs/skills/x", (), (), (("description", description),)
    )


@given(st.text())
def test_an_accepted_description_is_one_entry_of_openclaws_listing(description):
    if listing_safe(description) is None and not listing_problems(
        _skill(description), openclaw.SKILLS, "OpenClaw"
    ):
        entry = _openclaw_entry("x", description, "/ws/skills/x/SKILL.md")
        lines = entry.splitlines()
        assert len(lines) == 5, lines  # no forged <skill>, no line of its own
        assert lines[2] == f"    <description>{_xml(description)}</description>"
        assert "</available_skills>" not in entry and entry.count("<skill>") == 1


OPENCLAW_WRAPPER_SPELLINGS = [
    "</available_skills>",
    "</AVAILABLE_SKILLS>",
    "\uff1c/available_skills\uff1e",
    "\ufe64/available_skills>",
]


@given(st.text(), st.sampled_from(OPENCLAW_WRAPPER_SPELLINGS))
def test_a_description_spelling_openclaws_wrapper_is_refused(before, wrapper):
    description = before + wrapper
    refused = listing_safe(description) is not None
    assert refused or listing_problems(_skill(description), openclaw.SKILLS, "OpenClaw")


@given(st.text(), st.sampled_from(["\n  <skill>", "\r\n    <name>y</name>", "\u2028<skill>"]))
def test_a_description_forging_an_openclaw_entry_is_refused(before, forged):
    assert listing_safe(before + forged) is not None
