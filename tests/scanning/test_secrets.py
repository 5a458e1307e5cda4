"""The secret scanner: its rules, where it places a finding, what the manifest may allow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hotplex.build import Request, run
from hotplex.errors import EXIT_CONFIG, EXIT_FAILED, BuildFailed, HotplexError
from hotplex.text import secret_rules
from hotplex_testing import ENCRYPTED_KEY, FAKE_SECRETS, SHARED
from hypothesis import example, given, settings
from hypothesis import strategies as st

MANIFEST = """\
[variants]
platforms = ["slack"]

[[target]]
name = "cc"
worker = "claude-code"
"""


PRIVATE = "PRIVATE" + " KEY-----"  # assembled: no file of the repository holds a key's shape
AWS = FAKE_SECRETS["aws-access-key-id"]


def found(text: str) -> list[tuple[str, str]]:
    return [(m.rule.name, m.secret) for m in secret_rules.scan(text)]


def build_error(root: Path) -> HotplexError:
    with pytest.raises(HotplexError) as caught:
        run(Request(root))
    return caught.value


def test_every_rule_has_a_fake_to_test_it_with():
    assert set(FAKE_SECRETS) == secret_rules.RULE_NAMES


@pytest.mark.parametrize("rule", sorted(FAKE_SECRETS))
def test_each_rule_finds_its_shape_in_running_text(rule):
    text = f"Deploy notes.\nUse {FAKE_SECRETS[rule]} for staging.\n"
    assert [name for name, _ in found(text)] == [rule]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('DB_PASSWORD="Tr0ub4dor&3"', "Tr0ub4dor&3"),
        ("export API_KEY=abc123xyz", "abc123xyz"),
        ("client-secret: 'q1w2e3r4'", "q1w2e3r4"),
        ('auth_token => "a1b2c3d4"', "a1b2c3d4"),
        ("Password: Hunter22", "Hunter22"),
        ("password: rsa4096x", "rsa4096x"),  # an algorithm's name with more is no name
        ("token: p50k_base2024x", "p50k_base2024x"),
        ("mypassword=hunter22", "hunter22"),
        ('"secret_key": "s3cr3t-value"', "s3cr3t-value"),
        ("redis://:p4ss@cache:6379", "p4ss"),
    ],
)
def test_assignments_are_found_with_the_value_as_the_secret(text, secret):
    assert [s for _, s in found(text)] == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password: ${DB_PASSWORD}",
        'password = os.environ["DB_PASSWORD"]',
        "password=password",
        "token: string",
        "max_tokens: 4096",
        "tokenizer = cl100k_base",
        # a tokenizer's or a key's algorithm is what the value is (adversary19 D8, adversary20 D15)
        "token: cl100k_base",
        "token: p50k_base",
        "token: o200k_base",
        "secret_key: rsa4096",
        "private_key: ed25519",
        'api_key = os.getenv("KEY_ALGO", "sha256")',
        "api_key: <your-api-key>",
        "password: your-password-here",
        "password: '********'",
        "password: {{ db_password }}",
        "token = get_token(scope)",
        "postgres://postgres:postgres@localhost:5432/app",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "task-ant-api03-" + "a1" * 20,
        "AKIA" + "ABCDEFGHIJKLMNO",  # one character short
        "scikit-learn (sk-learn) and sk-" + "1" * 10,
        "the AWS docs use AKIA" + "IOSFODNN7EXAMPLE",
    ],
)
def test_code_placeholders_and_near_misses_are_not_findings(text):
    assert found(text) == []


@pytest.mark.parametrize(
    ("glued", "rule"),
    [
        ("x-", "github-token"),
        ("X", "github-token"),
        ("tok_", "github-token"),
        ("aws-", "aws-access-key-id"),
        ("aws_", "aws-access-key-id"),
        ("aws", "aws-access-key-id"),
        ("my-", "slack-token"),
        ("k_", "anthropic-api-key"),
        ("k-", "openai-api-key"),
    ],
)
def test_a_distinctive_prefix_is_caught_glued_to_what_comes_before(glued, rule):
    """A key pasted after a name (``aws_AKIA…``, ``x-ghp_…``) still reaches the artifact whole."""
    assert found(f"path ~/ws-{glued}{FAKE_SECRETS[rule]}/notes") == [(rule, FAKE_SECRETS[rule])]


WEBHOOK_PATH = FAKE_SECRETS["slack-webhook"].removeprefix("https://")


@pytest.mark.parametrize(
    "written, secret",
    [
        (f"posts to {WEBHOOK_PATH} daily", WEBHOOK_PATH),  # D10 (adversary17): no scheme
        (f"- <{WEBHOOK_PATH}>", WEBHOOK_PATH),
        (f"url={FAKE_SECRETS['slack-webhook']}", FAKE_SECRETS["slack-webhook"]),
        (f"see http://{WEBHOOK_PATH}", WEBHOOK_PATH),
    ],
)
def test_a_slack_webhook_is_found_with_or_without_its_scheme(written, secret):
    assert found(written) == [("slack-webhook", secret)]


@pytest.mark.parametrize(
    "text",
    [
        "my-hooks.slack.com/services/" + "T0000000/B0000000/" + "a1b2" * 6,
        "hooks.slack.com/services/T0 is the docs' example path",
        "desk-ant-eater-and-other-animals-of-the-plains",
        "risk-" + "a1" * 24,
        "BUCKETAKIA" + "Z3MHQK4TPL2XWR7N",  # inside an all-capitals run
        "9AKIA" + "Z3MHQK4TPL2XWR7N",
        "hexoxb-" + "a1b2c3d4e5f6",
        "ASIAN-AMERICAN HISTORY MONTH",
    ],
)
def test_a_prefix_inside_an_ordinary_word_is_not_a_finding(text):
    assert found(text) == []


def _corpus_words() -> list[str]:
    """Every word of the real instruction files, with its case: the text a prefix rule meets."""
    folder = SHARED / "corpus"
    texts = (
        (p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())) if folder.is_dir() else ()
    )
    return sorted({w for text in texts for w in re.findall(r"[A-Za-z0-9]+", text)}) or ["word"]


KEY_PREFIX_RULES = {
    "anthropic-api-key",
    "openai-api-key",
    "github-token",
    "slack-token",
    "aws-access-key-id",
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_corpus_words()), st.sampled_from([" ", "-", "_", "/", ".", ""])),
        max_size=12,
    )
)
def test_ordinary_words_glued_any_way_are_no_key(pieces):
    """Words of real files joined by '-', '_' or nothing never make a key-prefix finding."""
    text = "".join(word + joint for word, joint in pieces)
    assert [m for m in secret_rules.scan(text) if m.rule.name in KEY_PREFIX_RULES] == []


def test_a_glued_key_in_a_manifest_string_stops_the_build(make_project):
    key = FAKE_SECRETS["aws-access-key-id"]
    manifest = MANIFEST + f'\n[vars]\nworkspace = "~/ws-{key}"\n'
    root = make_project({"agent-configs/SOUL.md": "Work in {{ workspace }}.\n"}, manifest=manifest)
    error = build_error(root)
    assert [p.span.file for p in error.problems] and "aws-access-key-id" in str(
        error.problems[0].message
    )
    assert not (root / "dist").exists()


def test_one_finding_per_secret_the_most_specific_rule():
    text = "GITHUB_TOKEN=" + FAKE_SECRETS["github-token"]
    assert found(text) == [("github-token", FAKE_SECRETS["github-token"])]


def _tried_everywhere(text: str) -> list[tuple[str, str]]:
    """The scan without its anchor search: every rule's pattern tried at every offset where one
    of its anchors starts (``startswith`` at each), then one finding per place as ``scan``."""
    lowered = text.replace("\u0130", "i").lower()
    tries = []
    for rule in secret_rules.RULES:
        searched = lowered if rule.fold else text
        group = "secret" if "secret" in rule.pattern.groupindex else 0
        for anchor in rule.anchors:
            for at in range(len(text)):
                if not searched.startswith(anchor, at):
                    continue
                if at and rule.inside_word and rule.inside_word.match(searched, at - 1):
                    continue
                m = rule.pattern.match(searched, at)
                if m and rule.plausible(text[m.start(group) : m.end(group)]):
                    tries.append((m.start(group), rule.name, text[m.start(group) : m.end(group)]))
    tries.sort(key=lambda t: (t[0], -len(t[2])))  # of two at one place, the longer
    kept, end = [], -1
    for start, name, secret in tries:
        if start >= end:
            kept.append((name, secret))
            end = start + len(secret)
    return kept


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *(a for rule in secret_rules.RULES for a in rule.anchors),
                *FAKE_SECRETS.values(),
                *("AKIAKIA", "xoxox", "ghp_gh", "://", "=", ": ", "'", " ", "\n", "_", "-", "İ"),
                *("x", "Z3MHQK4TPL2XWR7N", "hunter2$$", "api_token=", "sk-ant-", "ASIA"),
            ]
        ),
        max_size=16,
    )
)
@example(["api_token=", "api_token=", " ", "Z3MHQK4TPL2XWR7N"])  # a key inside a found value
@example(  # a token left out for starting inside another (xoxb-… runs into ghp_…) hid a third
    [FAKE_SECRETS["slack-token"], FAKE_SECRETS["github-token"], FAKE_SECRETS["github-token"]]
)
def test_the_anchor_search_finds_every_place_a_rule_could_match(pieces):
    """Anchors next to, inside or overlapping one another are all tried, in the rules' order."""
    text = "".join(pieces)
    assert found(text) == _tried_everywhere(text)


@pytest.mark.parametrize(
    ("text", "block"),
    [
        (f"Keys:\n{ENCRYPTED_KEY}\n\nafter", ENCRYPTED_KEY),  # headers, a blank line, the body
        (  # in a quote, the body holding a token's shape: one finding, the block
            f"> -----BEGIN EC {PRIVATE}\n> {AWS}\n>\n> -----END EC {PRIVATE}\n> after",
            f"-----BEGIN EC {PRIVATE}\n> {AWS}\n>\n> -----END EC {PRIVATE}",
        ),
        (  # no END: to the last line that can be in a key, not over the blank lines after it
            f"- key:\n  -----BEGIN OPENSSH {PRIVATE}\n  b3BlbnNz\n  aC1rZXkt\n\n\nthanks a lot",
            f"-----BEGIN OPENSSH {PRIVATE}\n  b3BlbnNz\n  aC1rZXkt",
        ),
        (FAKE_SECRETS["private-key"], FAKE_SECRETS["private-key"]),  # a BEGIN line alone
    ],
    ids=["encrypted", "quoted", "no-end", "begin-alone"],
)
def test_a_private_key_is_its_whole_block_begin_to_end(text, block):
    assert found(text) == [("private-key", block)]


KEY_LINE = st.from_regex(r"[A-Za-z0-9+/]{64}", fullmatch=True)
WORD = st.from_regex(r"[A-Z]?[a-z]{1,12}", fullmatch=True)


@given(
    st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "]),
    st.lists(KEY_LINE, min_size=1, max_size=5),
    st.from_regex(r"[A-Za-z0-9+/]{1,20}={0,2}", fullmatch=True),
    st.lists(st.sampled_from(["", "\n", "\n```\n", "\n```pem\n\n"]), min_size=5, max_size=5),
    st.booleans(),
    st.lists(WORD, max_size=3),
)
def test_a_key_block_ends_at_its_end_or_its_last_base64_line(
    kind, lines, tail, breaks, ended, words
):
    """BEGIN to the END of its kind, over blank lines and a fence broken into it; without the
    END, to its last base64 line: never the one-word paragraphs after it."""
    body = "".join(line + "\n" + breaks[i] for i, line in enumerate(lines[:-1]))
    body += lines[-1] + "\n" + tail
    block = f"-----BEGIN {kind}{PRIVATE}\n{body}" + (f"\n-----END {kind}{PRIVATE}" if ended else "")
    after = "".join(f"\n\n{word}" for word in words)
    assert found(f"- note\n\n{block}{after}\n\n- after\n") == [("private-key", block)]


def test_an_end_of_another_kind_does_not_end_a_key():
    block = f"-----BEGIN RSA {PRIVATE}\n{'A1b2' * 16}\n-----END EC {PRIVATE}\n\n{'Zz9+' * 16}"
    assert found(f"{block}\n\nThanks\n") == [("private-key", block)]


def test_a_placeholder_word_in_a_key_body_does_not_hide_it():
    body = f"-----BEGIN {PRIVATE}\nMIIEyourxxxx\n-----END {PRIVATE}"
    assert found(body) == [("private-key", body)]
    assert found(f"-----BEGIN XXXX {PRIVATE}") == []


def test_offsets_survive_the_one_character_whose_lower_case_is_longer():
    text = "İİ key İ " + FAKE_SECRETS["secret-assignment"]
    (match,) = secret_rules.scan(text)
    assert text[match.start : match.start + len(match.secret)] == match.secret


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="shared/corpus is not beside the repo")
def test_real_instruction_files_yield_only_their_deliberate_bad_examples():
    """The corpus holds real AGENTS.md/CLAUDE.md files; one shows a leaked password and key as
    "Bad:" examples, and those two lines are the only findings across all of them."""
    places = set()
    for path in sorted((SHARED / "corpus").iterdir()):
        text = path.read_text(encoding="utf-8")
        places |= {(path.name, text.count("\n", 0, m.start) + 1) for m in secret_rules.scan(text)}
    assert places == {
        ("035-nevalions-ansible_base-AGENTS.md", 229),
        ("035-nevalions-ansible_base-AGENTS.md", 230),
    }


def test_a_finding_is_placed_past_the_frontmatter_and_never_printed_whole(make_project):
    key = FAKE_SECRETS["anthropic-api-key"]
    memory = f"---\nkind: memory\n---\n# Memory\n\n- staging key: {key}\n"
    root = make_project({"agent-configs/MEMORY.md": memory}, manifest=MANIFEST)
    error = build_error(root)
    assert isinstance(error, BuildFailed) and error.exit_status == EXIT_FAILED
    (problem,) = error.problems
    assert (problem.span.file, problem.span.line, problem.span.column) == (
        "agent-configs/MEMORY.md",
        6,
        len("- staging key: ") + 1,
    )
    assert "rule anthropic-api-key" in problem.message
    rendered = problem.render()
    assert key not in rendered and key[:12] in rendered
    assert "- staging key: sk-ant-api03…(" in rendered  # the line is shown, redacted
    assert not (root / "dist").exists()  # nothing was written


def test_variant_and_included_files_are_named_as_themselves(make_project):
    files = {
        "agent-configs/SOUL.md": 'Base.\n{% include "shared/ops.md" %}\n',
        "agent-configs/shared/ops.md": "# Ops\n\nRun it.\nToken: " + FAKE_SECRETS["github-token"],
        "agent-configs/SOUL.slack.md": "\n\n" + FAKE_SECRETS["slack-webhook"] + "\n",
    }
    error = build_error(make_project(files, manifest=MANIFEST))
    assert [(p.span.file, p.span.line) for p in error.problems] == [
        ("agent-configs/shared/ops.md", 4)
    ]
    files["agent-configs/shared/ops.md"] = "# Ops\n"
    error = build_error(make_project(files, manifest=MANIFEST, name="again"))
    # The base job is clean now; the slack job fails on its variant file.
    assert [(p.span.file, p.span.line, p.span.column) for p in error.problems] == [
        ("agent-configs/SOUL.slack.md", 3, 1)
    ]


def test_what_never_reaches_the_artifact_is_not_a_finding(make_project):
    soul = (
        "{# rotated: " + FAKE_SECRETS["openai-api-key"] + " #}\n"
        '{% if platform == "feishu" %}' + FAKE_SECRETS["slack-token"] + "{% endif %}\n"
        "Persona.\n"
    )
    root = make_project({"agent-configs/SOUL.md": soul}, manifest=MANIFEST)
    assert run(Request(root)).jobs


def test_a_secret_from_a_variable_names_its_manifest_key(make_project):
    token = FAKE_SECRETS["slack-token"]
    manifest = MANIFEST.replace(
        'worker = "claude-code"\n', f'worker = "claude-code"\nvars = {{ bot = "{token}" }}\n'
    )
    root = make_project({"agent-configs/SOUL.md": "Token {{ bot }}.\n"}, manifest=manifest)
    (problem,) = build_error(root).problems
    assert problem.span.location() == "hotplex.toml: target[0].vars.bot"
    manifest = f'[vars]\nbot = "{token}"\n' + MANIFEST
    root = make_project({"agent-configs/SOUL.md": "Token {{ bot }}.\n"}, manifest, name="top")
    (problem,) = build_error(root).problems
    assert problem.span.location() == "hotplex.toml: vars.bot"


def test_a_secret_assembled_by_templates_is_still_caught(make_project):
    tail = FAKE_SECRETS["anthropic-api-key"].removeprefix("sk-ant-")
    manifest = f'[vars]\ntail = "{tail}"\n' + MANIFEST
    root = make_project({"agent-configs/USER.md": "Key: sk-ant-{{ tail }}\n"}, manifest)
    (problem,) = build_error(root).problems
    assert problem.span.file == "agent-configs/USER.md"
    assert "assembled by template expressions" in problem.message


def test_a_secret_in_a_note_names_its_key(make_project):
    manifest = (
        f'[channels.C]\ntag = "context"\nnote = "{FAKE_SECRETS["url-password"]}"\n' + MANIFEST
    )
    root = make_project({"agent-configs/USER.md": "User.\n"}, manifest)
    (problem,) = build_error(root).problems
    assert problem.span.location() == "hotplex.toml: channels.C.note"


@pytest.mark.parametrize(
    "allow",
    [
        'allow = ["secret-assignment"]',
        'allow = ["hotplex-Fake-7!"]',  # the secret, whole
        'allow_files = ["agent-configs/docs/*.md"]',
    ],
)
def test_the_manifest_can_allow_a_finding_by_rule_text_or_file(make_project, allow):
    files = {
        "agent-configs/AGENTS.md": '{% include "docs/db.md" %}\n',
        "agent-configs/docs/db.md": "Never write " + FAKE_SECRETS["secret-assignment"] + "\n",
    }
    root = make_project(files, manifest=MANIFEST)
    assert "secret-assignment" in build_error(root).render()
    root.joinpath("hotplex.toml").write_text(f"[secrets]\n{allow}\n" + MANIFEST)
    assert run(Request(root)).jobs


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ("secret-asignment", "secret-assignment"),
        # another case, '_' or blanks: taken as a secret's text, it allowed nothing without a
        # word (adversary17 D14)
        ("github_token", "github-token"),
        ("Github-Token", "github-token"),
        (" github-token", "github-token"),
        ("SECRET ASSIGNMENT", "secret-assignment"),
        # the other vendors' rules (adversary21 D5)
        ("stripe_api_key", "stripe-api-key"),
        ("google-api-keys", "google-api-key"),
        ("hugingface-token", "huggingface-token"),
        ("JWT", "jwt"),
    ],
)
def test_a_misspelt_rule_name_in_allow_is_a_config_error(make_project, entry, rule):
    root = make_project(manifest=f'[secrets]\nallow = ["{entry}"]\n' + MANIFEST)
    error = build_error(root)
    assert error.exit_status == EXIT_CONFIG
    (problem,) = error.problems
    assert problem.span.location() == "hotplex.toml: secrets.allow[0]"
    assert problem.message == f"no rule named '{entry}'"
    assert problem.hint == f"did you mean '{rule}'?"


def test_the_secrets_table_is_part_of_the_build_key(make_project):
    """Allowing a finding must rebuild: the same inputs now give an artifact."""
    files = {"agent-configs/USER.md": FAKE_SECRETS["aws-access-key-id"] + "\n"}
    root = make_project(files, manifest=MANIFEST)
    build_error(root)
    allow = f'[secrets]\nallow = ["{FAKE_SECRETS["aws-access-key-id"]}"]\n'
    root.joinpath("hotplex.toml").write_text(allow + MANIFEST)
    outcome = run(Request(root))
    prompt = (root / "dist/cc/default/prompt.xml").read_text()
    assert FAKE_SECRETS["aws-access-key-id"] in prompt and outcome.jobs[0].rebuilt


OPTION_TEXTS = [
    pytest.param(
        "claude-code",
        'subagents = ["rev"]\n[target.agents.rev]\ndescription = "Reviews."\nrole = "{text}"\n',
        "target[0].agents.rev.role",
        id="subagent-role",
    ),
    pytest.param(
        "opencode-server",
        'subagents = ["rev"]\n[target.agents.rev]\ndescription = "Reviews {text}"\n',
        "target[0].agents.rev.description",
        id="subagent-description",
    ),
    pytest.param(  # OpenCode's: any provider/model passes its check, so the scan is reached
        "opencode-server",
        'subagents = ["rev"]\n[target.agents.rev]\ndescription = "R."\nmodel = "anthropic/{text}"\n',
        "target[0].agents.rev.model",
        id="subagent-model",
    ),
    pytest.param("openclaw", 'workspace = "/ws/{text}"\n', "target[0].workspace", id="workspace"),
    pytest.param("claude-code", 'cwd = "../{text}"\n', "target[0].cwd", id="cwd"),
]


@pytest.mark.parametrize(("worker", "options", "key"), OPTION_TEXTS)
@pytest.mark.parametrize(
    ("text", "expect"),
    [
        pytest.param(FAKE_SECRETS["github-token"], "rule github-token", id="token"),
        pytest.param("a\\u202eb", "U+202E", id="rlo"),
    ],
)
def test_a_target_option_written_into_an_artifact_is_scanned_at_its_key(
    make_project, worker, options, key, text, expect
):
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n' + options.format(text=text)
    root = make_project({"agent-configs/AGENTS.md": "Rules.\n"}, manifest)
    error = build_error(root)
    assert [p.span.location() for p in error.problems] == [f"hotplex.toml: {key}"]
    assert expect in error.problems[0].message
    assert not (root / "dist").exists()


class _Reading:
    """A rule's pattern that counts the characters its matches read."""

    def __init__(self, pattern) -> None:
        self.pattern, self.groupindex, self.read = pattern, pattern.groupindex, 0

    def match(self, text: str, at: int):
        found = self.pattern.match(text, at)
        self.read += 0 if found is None else found.end() - found.start()
        return found


@pytest.mark.parametrize(
    "unit",
    ["sk-ant-", "xoxb-", "sk-proj-", "github_pat_", "xoxp-1-", "sk-ant-your-key-", "xoxb-***-"],
)
def test_a_key_prefix_repeated_is_read_once(monkeypatch, unit: str) -> None:
    """Each place a prefix occurs was tried, and each try ran to the run's end: 8,000 of them
    cost their length squared, 15 s for 40 KB (adversary18 D10). A place inside a secret the rule
    found, or before the placeholder word of one it refused, is not tried again."""
    from hotplex.text import secret_rules

    rules = tuple(rule._replace(pattern=_Reading(rule.pattern)) for rule in secret_rules.RULES)
    monkeypatch.setattr(secret_rules, "RULES", rules)
    text = "- note " + unit * (20_000 // len(unit))
    secret_rules.scan.__wrapped__(text)
    assert sum(rule.pattern.read for rule in rules) <= 2 * len(text)
