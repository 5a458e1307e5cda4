"""Other vendors' keys (adversary21 D5): each shape found where a key is pasted, and the way
documentation writes them (a placeholder, a test-mode key, a token cut short) left alone."""

from __future__ import annotations

import pytest
from hotplex.build import Request, run
from hotplex.errors import HotplexError
from hotplex.scanning import secrets
from hotplex.text import secret_rules, vendor_keys
from hotplex_testing import CC_MANIFEST, FAKE_SECRETS

VENDOR = sorted(key["name"] for key in vendor_keys.KEYS)  # type: ignore[type-var]
JWT = FAKE_SECRETS["jwt"]


def found(text: str) -> list[tuple[str, str]]:
    return [(m.rule.name, m.secret) for m in secret_rules.scan(text)]


@pytest.mark.parametrize("rule", VENDOR)
@pytest.mark.parametrize(
    "written",
    [
        "{key}",
        "export TOKEN={key}",
        'headers = {{"Authorization": "Bearer {key}"}}',
        "https://api.example.com/v1?key={key}&q=1",
        "| prod | `{key}` |",
        "- key: {key}\r\n- next",
    ],
)
def test_each_vendor_key_is_found_where_a_key_is_pasted(rule, written):
    key = FAKE_SECRETS[rule]
    assert found(written.format(key=key)) == [(rule, key)]


@pytest.mark.parametrize("rule", VENDOR)
@pytest.mark.parametrize(
    "disguise",
    [
        lambda key: f"*{key}*",  # emphasis
        lambda key: f"**{key}**",
        lambda key: key.replace("_", "\\_"),  # a Markdown escape an editor wrote
        lambda key: f"{key[:8]}\u200b{key[8:]}",  # a zero-width space read as nothing
        lambda key: f"{key[:8]}&#8203;{key[8:]}",
    ],
)
def test_a_vendor_key_is_found_however_it_is_written(rule, disguise):
    written = disguise(FAKE_SECRETS[rule])
    assert [f.match.rule.name for f in secrets.matches(f"key {written} here")] == [rule]


@pytest.mark.parametrize("rule", ["stripe-api-key", "huggingface-token", "npm-token"])
def test_a_key_whose_body_holds_no_underscore_is_found_in_underscore_emphasis(rule):
    assert found(f"_{FAKE_SECRETS[rule]}_") == [(rule, FAKE_SECRETS[rule])]


@pytest.mark.parametrize(
    "text",
    [
        # placeholders and cut-short examples
        "Set STRIPE_KEY=sk_" + "live_xxx (or sk_" + "live_... in the dashboard).",
        "sk_" + "live_" + "X" * 24,
        "sk_" + "live_your_key_here",
        "key=AI"
        + "za... and AI"
        + "zaSy"
        + "X" * 33
        + " and AI"
        + "zaSyYourApiKeyHere"
        + "a1" * 8
        + "b",
        "Authorization: Bearer eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx...",
        "hf_" + "x" * 34 + " glpat-" + "x" * 20 + " npm_" + "X" * 36,
        "SG." + "x" * 22 + "." + "x" * 43,
        # test-mode keys move no money; Stripe's guides print one
        "sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc",
        # Twilio's API key SID names a key, it is none
        "SK" + "0123456789abcdef" * 2,
        # names and words that start like a prefix
        "npm_config_registry npm_package_version heyJude desk_" + "live_" + "a1B2" * 6,
        "hf_" + "transformersmodelloadingpipelineconfig",
        "hf_" + "AutoModelForSequenceClassificationX",  # camel case: a capital a word
        "from hf_hub_download import x; hf_" + "HubDownloadConfigurationSettingsX",
        # base64 of JSON that is no token: no "alg" in the first part
        "eyJ" + "uYW1lIjoiYWxpY2UiLCJhZ2UiOjMwfQ.eyJ" + "uYW1lIjoiYm9iIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
    ],
)
def test_documentation_and_near_misses_are_not_findings(text):
    assert found(text) == []


def test_a_token_with_no_signature_is_not_one():
    header, payload, _ = JWT.split(".")
    assert found(f"{header}.{payload}.") == []


@pytest.mark.parametrize("rule", VENDOR)
def test_a_key_glued_to_a_word_is_that_word(rule):
    assert found(f"abc{FAKE_SECRETS[rule]}") == []


def test_every_anchor_is_searched_where_it_starts():
    """The one search finds each anchor from a later character (``_searched``), read behind."""
    text = " ".join(FAKE_SECRETS[rule] for rule in VENDOR) + " rk_" + "live_"
    every = {at for at in range(len(text)) for a in vendor_keys.ANCHORS if text.startswith(a, at)}
    assert sorted(secret_rules._starts(text)) == sorted(every)
    assert len(every) == len(VENDOR) + 2  # a token's payload starts with "eyJ" too


@pytest.mark.parametrize("rule", VENDOR)
def test_a_vendor_rule_is_allowed_by_name(make_project, rule):
    files = {"agent-configs/USER.md": f"- deploy key {FAKE_SECRETS[rule]}\n"}
    root = make_project(files, manifest=CC_MANIFEST)
    with pytest.raises(HotplexError) as caught:
        run(Request(root))
    assert f"(rule {rule})" in caught.value.render()
    root.joinpath("hotplex.toml").write_text(f'[secrets]\nallow = ["{rule}"]\n' + CC_MANIFEST)
    assert run(Request(root)).jobs
