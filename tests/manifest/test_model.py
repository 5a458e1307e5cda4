"""The manifest model: defaults, strict types, and every problem with its key path."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotplex.errors import HotplexError
from hotplex.manifest import load as loading
from hotplex.manifest import model


def load(tmp_path: Path, text: str) -> model.Model:
    (tmp_path / "hotplex.toml").write_text(text, encoding="utf-8")
    (tmp_path / "agent-configs").mkdir(exist_ok=True)
    return loading.load(tmp_path)


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(HotplexError) as caught:
        load(tmp_path, text)
    return [p.render().split("\n")[0] for p in caught.value.problems]


TARGET = '[[target]]\nname = "cc"\nworker = "claude-code"\n'


def test_defaults_are_the_seed_layout(tmp_path):
    loaded = load(tmp_path, TARGET)
    manifest = loaded.manifest
    assert manifest.source == ()  # nothing declared: the worker's defaults apply
    assert [(s.file, s.channel, s.tag) for s in loaded.sources] == [
        ("SOUL.md", "B", "persona"),
        ("AGENTS.md", "B", "rules"),
        ("SKILLS.md", "B", "skills"),
        ("USER.md", "C", "user"),
        ("MEMORY.md", "C", "memory"),
    ]
    assert manifest.project.sources == "agent-configs" and manifest.project.out == "dist"
    assert (manifest.limits.per_file, manifest.limits.total) == (8000, 40000)
    assert (manifest.limits.unit, manifest.limits.overflow) == ("chars", "truncate")
    assert manifest.variants.mode == "append"
    assert manifest.channels["B"].tag == "directives" and manifest.channels["C"].tag == "context"
    assert manifest.metacognition.enabled


def test_one_declared_channel_keeps_the_other_default(tmp_path):
    manifest = load(tmp_path, '[channels.B]\ntag = "must"\nnote = "n"\n' + TARGET).manifest
    assert manifest.channels["B"].tag == "must"
    assert manifest.channels["C"].tag == "context"


def test_misspelt_worker_is_named_with_its_path_and_a_suggestion(tmp_path):
    text = TARGET + '[[target]]\nname = "x"\nworker = "claud-code"\n'
    assert problems(tmp_path, text) == [
        "hotplex.toml: target[1].worker: unknown worker 'claud-code'"
    ]
    with pytest.raises(HotplexError) as caught:
        load(tmp_path, text)
    assert caught.value.problems[0].hint == "did you mean 'claude-code'?"


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        (
            "[limits]\nper_file = 8000.5\n",
            "hotplex.toml: limits.per_file: expected an integer, got a number (8000.5)",
        ),
        (
            '[limits]\nper_file = "8000"\n',
            "hotplex.toml: limits.per_file: expected an integer, got a string ('8000')",
        ),
        (
            '[metacognition]\nenabled = "false"\n',
            "hotplex.toml: metacognition.enabled: expected a boolean (true or false), got a string ('false')",
        ),
        (
            '[limits]\nunit = "words"\n',
            "hotplex.toml: limits.unit: expected one of 'chars', 'bytes'",
        ),
        (
            '[limits]\noverflow = "drop"\n',
            "hotplex.toml: limits.overflow: expected one of 'truncate', 'error'",
        ),
        (
            '[variants]\nplaforms = ["slack"]\n',
            "hotplex.toml: variants.plaforms: unknown key 'plaforms' — did you mean 'platforms'?",
        ),
        (
            '[variants]\nplatforms = "slack"\n',
            "hotplex.toml: variants.platforms: expected an array, got a string ('slack')",
        ),
        ("[vars]\ncount = 3\n", "hotplex.toml: vars.count: expected a string, got an integer (3)"),
        (
            '[projet]\nname = "x"\n',
            "hotplex.toml: projet: unknown key 'projet' — did you mean 'project'?",
        ),
        (
            "[limits]\nper_file = 0\n",
            "hotplex.toml: limits.per_file: must be a positive integer, got 0",
        ),
        (
            '[project]\nout = "agent-configs"\n',
            "hotplex.toml: project.out: the artifact folder 'agent-configs' must not be or contain the sources folder 'agent-configs'",
        ),
        (
            '[project]\nsources = "../elsewhere"\n',
            "hotplex.toml: project.sources: path '../elsewhere' escapes the project with '..'",
        ),
        (
            '[project]\nout = "/tmp/out"\n',
            "hotplex.toml: project.out: absolute path '/tmp/out' is not allowed",
        ),
        (
            '[vars]\nplatform = "x"\n',
            "hotplex.toml: vars.platform: 'platform' is a built-in variable and cannot be set",
        ),
    ],
)
def test_bad_values_are_reported_with_key_paths(tmp_path, snippet, expected):
    assert expected in problems(tmp_path, snippet + TARGET)


def test_every_problem_is_reported_not_just_the_first(tmp_path):
    text = '[limits]\nper_file = "x"\ntotal = 1.5\n[[target]]\nname = "cc"\nworker = "nope"\n'
    found = problems(tmp_path, text)
    assert len(found) == 2  # structure errors stop before semantic checks, but both are listed
    assert any("limits.per_file" in f for f in found) and any("limits.total" in f for f in found)


def test_target_errors(tmp_path):
    text = (
        '[variants]\nplatforms = ["slack"]\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\nplatforms = ["slak"]\nkeep = ["rulez"]\n'
        '[[target]]\nname = "cc"\nworker = "opencode-server"\ncompat = "2026.9"\n'
    )
    found = problems(tmp_path, text)
    assert (
        "hotplex.toml: target[0].platforms: platform 'slak' is not in variants.platforms" in found
    )
    assert "hotplex.toml: target[0].keep: no source is named 'rulez'" in found
    assert "hotplex.toml: target[1].name: target name 'cc' is used twice" in found
    assert (
        "hotplex.toml: target[1].compat: 'compat' does not apply to worker 'opencode-server'"
        in found
    )


def test_no_target_is_an_error(tmp_path):
    assert problems(tmp_path, "") == ["hotplex.toml: target: no [[target]] is declared"]


def test_toml_syntax_error_has_line_and_column(tmp_path):
    with pytest.raises(HotplexError) as caught:
        load(tmp_path, '[project]\nname = "x\n')
    problem = caught.value.problems[0]
    assert problem.span.line == 2 and problem.span.column is not None
    assert problem.message.startswith("invalid TOML:")
    assert "^" in problem.render()


def test_source_channel_must_be_b_or_c(tmp_path):
    text = '[[source]]\nname = "a"\nfile = "A.md"\nchannel = "X"\ntag = "persona"\n' + TARGET
    assert problems(tmp_path, text) == ["hotplex.toml: source[0].channel: expected one of 'B', 'C'"]


def test_source_semantics(tmp_path):
    text = (
        '[[source]]\nname = "a"\nfile = "A.md"\nchannel = "B"\ntag = "persona"\n'
        '[[source]]\nname = "a"\nfile = "/abs.md"\nchannel = "B"\ntag = "directives"\n' + TARGET
    )
    found = problems(tmp_path, text)
    assert "hotplex.toml: source[1].name: source name 'a' is used twice" in found
    assert (
        "hotplex.toml: source[1].tag: tag 'directives' is already used by another section" in found
    )
    assert "hotplex.toml: source[1].file: absolute path '/abs.md' is not allowed" in found


@pytest.mark.parametrize(
    ("channels", "found"),
    [
        # a default source no table declares: the clash is the key written, the group's tag
        (
            '[channels.C]\ntag = "user"\n',
            "hotplex.toml: channels.C.tag: tag 'user' is already used by the default source"
            " 'user' (USER.md)",
        ),
        # two groups of one tag, or a group of the document's own, would open each other's
        (
            '[channels.C]\ntag = "Directives"\n',
            "hotplex.toml: channels.C.tag: tag 'Directives' is already the tag of channel B's group",
        ),
        (
            '[channels.C]\ntag = "hotplex"\n',
            "hotplex.toml: channels.C.tag: tag 'hotplex' is the document's own",
        ),
        (
            '[channels.B]\ntag = "agent-configuration"\n',
            "hotplex.toml: channels.B.tag: tag 'agent-configuration' is the document's own",
        ),
    ],
)
def test_a_group_tag_taken_is_an_error_at_the_channel(tmp_path, channels, found):
    assert problems(tmp_path, channels + TARGET) == [found]


def test_group_tags_of_their_own_are_fine(tmp_path):
    loaded = load(
        tmp_path, '[channels.B]\ntag = "dir"\n[channels.C]\ntag = "directives"\n' + TARGET
    )
    assert loaded.manifest.channels["C"].tag == "directives"


def test_missing_required_keys_are_named(tmp_path):
    found = problems(tmp_path, '[[source]]\nname = "a"\n' + TARGET)
    assert any(p.startswith("hotplex.toml: source[0].file: required key is missing") for p in found)
    assert any(p.startswith("hotplex.toml: source[0].tag: required key is missing") for p in found)


def test_missing_manifest(tmp_path):
    with pytest.raises(HotplexError) as caught:
        loading.load(tmp_path)
    assert "no manifest" in caught.value.render()


# --- the source rule: defaults per worker, extended by [[source]] ----------------------------------


def _names(tmp_path, text):
    loaded = load(tmp_path, text)
    return [(s.name, s.file, s.tag) for s in loaded.sources], loaded


def test_a_source_with_a_defaults_name_changes_only_the_keys_it_sets(tmp_path):
    found, loaded = _names(tmp_path, TARGET + '[[source]]\nname = "user"\nnote = "Who."\n')
    assert [n for n, _, _ in found] == ["soul", "rules", "skills", "user", "memory"]
    user = loaded.sources[3]
    assert (user.file, user.channel, user.tag, user.note) == ("USER.md", "C", "user", "Who.")


def test_a_source_with_a_defaults_file_replaces_it_in_place_under_its_own_name(tmp_path):
    text = TARGET + '[[source]]\nname = "agents"\nfile = "AGENTS.md"\ntag = "policy"\n'
    found, _ = _names(tmp_path, text)
    assert found[:3] == [
        ("soul", "SOUL.md", "persona"),
        ("agents", "AGENTS.md", "policy"),
        ("skills", "SKILLS.md", "skills"),
    ]


def test_new_sources_follow_the_defaults_and_the_switch_drops_them(tmp_path):
    new = '[[source]]\nname = "tools"\nfile = "TOOLS.md"\nchannel = "B"\ntag = "tools"\n'
    found, _ = _names(tmp_path, TARGET + new)
    assert [n for n, _, _ in found] == ["soul", "rules", "skills", "user", "memory", "tools"]
    switch = "[project]\ndefault_sources = false\n"
    found, _ = _names(
        tmp_path,
        switch + TARGET + new + '[[source]]\nname = "soul"\n'
        'file = "SOUL.md"\nchannel = "B"\ntag = "persona"\n',
    )
    assert [n for n, _, _ in found] == ["tools", "soul"]


def test_each_target_reads_its_own_workers_defaults_and_every_declared_source(tmp_path):
    claw = '[[target]]\nname = "claw"\nworker = "openclaw"\n'
    loaded = load(tmp_path, TARGET + claw + '[[source]]\nname = "identity"\n')
    cc, oc = loaded.manifest.target
    assert [s.name for s in loaded.sources_of(cc)] == [
        "soul",
        "rules",
        "skills",
        "user",
        "memory",
        "identity",
    ]
    assert [s.name for s in loaded.sources_of(oc)] == [
        "soul",
        "rules",
        "user",
        "memory",
        "identity",
        "bootstrap",
    ]


@pytest.mark.parametrize(
    ("table", "entry", "rule"),
    [
        ("secrets", "g\u0456thub-token", "github-token"),  # a Cyrillic і
        (
            "secrets",
            "\uff47\uff49\uff54\uff48\uff55\uff42-\uff54\uff4f\uff4b\uff45\uff4e",
            "github-token",
        ),
        ("injection", "role-l\u0456ne", "role-line"),
        ("injection", "r\u043ele-lin\u0435", "role-line"),  # Cyrillic о and е
        ("injection", "\uff32\uff2f\uff2c\uff25\u3000\uff2c\uff29\uff2e\uff25", "role-line"),
        ("unicode", "b\u0456di-mark", "bidi-mark"),
        ("unicode", "\uff42\uff49\uff44\uff49\uff0d\uff4d\uff41\uff52\uff4b", "bidi-mark"),
        ("package", "\u0456nvisible-character", "invisible-character"),
        # Letters and digits alone are the rule's: any dash (the em dash smart punctuation makes
        # of "--"), a dot, a middle dot, or none (adversary19 D4).
        *(
            ("secrets", entry, "github-token")
            for entry in ("github\u2014token", "github\u2015token", "githubtoken", "github-token-")
        ),
        ("secrets", "secretassignment", "secret-assignment"),
        ("secrets", "secret.assignment", "secret-assignment"),
        *(
            ("injection", entry, "role-line")
            for entry in (
                "role\u2014line",
                "role\u2015line",
                "role\u2e3aline",  # two-em dash, category Pd
                "roleline",
                "rolelines",
                "role.line",
                "role-line.",
                "-role-line",
                "role\u2027line",
                "role\u30fbline",
                "ROLE LINE",
            )
        ),
        ("injection", "linkurldata", "link-url-data"),
        # A near miss with punctuation at its edges is still written as a name (adversary20 D10).
        *(
            ("injection", entry, "role-line")
            for entry in (
                "role-lines.",
                ".role-lines",
                "role-lines..",
                "role-lines,",
                "role-lines\u3002",
            )
        ),
        ("secrets", "secret-assignments.", "secret-assignment"),
        ("secrets", "github-tokens.", "github-token"),
        ("unicode", "bidimark", "bidi-mark"),
        ("package", "invisible\u2014character", "invisible-character"),
    ],
)
def test_a_rule_name_in_look_alike_letters_is_an_error_naming_the_rule(
    tmp_path, table, entry, rule
):
    """Taken as a finding's text, a rule name spelt in look-alike letters allowed nothing, without
    a word: the error names the rule its letters show, as for ``github_token``."""
    if table == "package":
        manifest = f'[[package]]\nname = "team"\npath = "team"\nallow = ["{entry}"]\n'
        key = "package[0].allow[0]"
    else:
        manifest = f'[{table}]\nallow = ["{entry}"]\n'
        key = f"{table}.allow[0]"
    (tmp_path / "team").mkdir()
    with pytest.raises(HotplexError) as caught:
        load(tmp_path, manifest + TARGET)
    shown = [p.render() for p in caught.value.problems if p.span.location().endswith(key)]
    assert len(shown) == 1
    assert shown[0].endswith(f"hint: did you mean '{rule}'?")


@pytest.mark.parametrize(
    "entry",
    [
        "System: Ubuntu",  # a finding's text
        "role online",  # words apart: a text, though near a rule
        "role-line attack",
        "<|eot_id|>",
        "img.shields.io",
        "github.com",
        "roleline.com",  # a host near a rule's letters
        "link.data",
        "role\u7ebfline",  # a word of another script between: a text
        # What the allow_hosts checks leave be in allow (adversary21 D9): a host in capitals
        # (matched in lower case), a role line or token holding a host's marks, its full-width
        # role word, a token's break.
        "EXAMPLE.com",
        "example.com.",
        "system.example.com",
        "System: Ubuntu 22.04",
        "\uff33\uff39\uff33\uff34\uff25\uff2d\uff1a visit a.b",
        "<system\\ntitle='a.b'>",
        "&lt;system&gt;",
        "[INST]",
        "ignore all previous instructions",
        "a_b.example.com",
        "[::1]",
    ],
)
def test_a_text_near_a_rule_name_is_no_misspelt_rule(tmp_path, entry):
    """Only a rule's letters, or a near miss written as a name, are a misspelt rule: an
    ``[injection] allow`` entry may be a finding's text or a host."""
    load(tmp_path, f'[injection]\nallow = ["{entry}"]\n' + TARGET)
