"""The secret scan reads a text as a model or a renderer reads it (adversary16 D8): a key written
with a Markdown escape, a character reference or markup that renders as nothing inside it is the
key; and ``[secrets] allow`` lets through a finding that is the entry, never one holding it
(adversary16 D14)."""

from __future__ import annotations

import pytest
from hotplex import Project
from hotplex.build import Request, run
from hotplex.errors import BuildFailed
from hotplex.scanning import secrets
from hotplex.scanning.origins import Origin
from hotplex.text import memo
from hotplex_testing import FAKE_SECRETS

GITHUB = FAKE_SECRETS["github-token"]
ANTHROPIC = FAKE_SECRETS["anthropic-api-key"]
AWS = FAKE_SECRETS["aws-access-key-id"]
PRIVATE = "PRIVATE" + " KEY-----"  # assembled: no file of the repository holds a key's shape
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"


def findings(text: str, allow: tuple[str, ...] = ()) -> list[tuple[str, int, int, str]]:
    with memo.uncached():
        found = secrets.find(text, [Origin(text, "MEMORY.md")], secrets.allowance(allow, ()))
    return [(f.rule, f.span.line, f.span.column, f.secret) for f in found]


def split(secret: str, at: int, inside: str) -> str:
    return secret[:at] + inside + secret[at:]


DISGUISED = [
    pytest.param("ghp\\_" + GITHUB[4:], "github-token", id="escaped-underscore"),
    pytest.param(
        "github\\_pat\\_11ABCDEFG0" + "aB3dE6fG9hI2jK5lM8nO1pQ4rS7tU0vW3xY6" * 2,
        "github-token",
        id="escaped-pat",
    ),
    pytest.param(ANTHROPIC.replace("-", "\\-"), "anthropic-api-key", id="escaped-dashes"),
    pytest.param(
        FAKE_SECRETS["slack-token"].replace("-", "\\-", 1), "slack-token", id="escaped-slack"
    ),
    pytest.param('my\\_api\\_key = "Sup3rS3cretValue9"', "secret-assignment", id="escaped-name"),
    pytest.param("ghp&#95;" + GITHUB[4:], "github-token", id="decimal-reference"),
    pytest.param("ghp&#x5F;" + GITHUB[4:], "github-token", id="hex-reference"),
    pytest.param("ghp&lowbar;" + GITHUB[4:], "github-token", id="named-reference"),
    pytest.param(split(GITHUB, 10, "&shy;"), "github-token", id="soft-hyphen-reference"),
    pytest.param(split(GITHUB, 10, "\u00ad"), "github-token", id="soft-hyphen"),
    pytest.param(split(GITHUB, 10, "<wbr>"), "github-token", id="wbr"),
    pytest.param(split(AWS, 4, "&#8203;"), "aws-access-key-id", id="zero-width-reference"),
    pytest.param(split(AWS, 4, "<b></b>"), "aws-access-key-id", id="empty-tags"),
    pytest.param(split(ANTHROPIC, 30, "<!-- -->"), "anthropic-api-key", id="comment"),
    pytest.param(split(ANTHROPIC, 30, "<!--\n-->"), "anthropic-api-key", id="comment-lines"),
    # D1 (adversary17): an empty link or image renders as nothing.
    pytest.param(split(GITHUB, 14, "[](x)"), "github-token", id="empty-link"),
    pytest.param(split(GITHUB, 14, "[]()"), "github-token", id="empty-link-nowhere"),
    pytest.param(split(GITHUB, 14, "[](<>)"), "github-token", id="empty-link-brackets"),
    pytest.param(split(GITHUB, 14, '[](x "t")'), "github-token", id="empty-link-title"),
    pytest.param(split(GITHUB, 14, "[](x\n)"), "github-token", id="empty-link-lines"),
    pytest.param(split(GITHUB, 14, "[][r]"), "github-token", id="empty-reference-link"),
    pytest.param(split(GITHUB, 14, "![](x.png)"), "github-token", id="empty-image"),
    pytest.param(split(AWS, 4, "![][r]"), "aws-access-key-id", id="empty-reference-image"),
    # adversary18 D1: a link whose text is markup that renders as nothing renders as nothing.
    pytest.param(split(GITHUB, 14, "[<b></b>](x)"), "github-token", id="link-of-empty-tags"),
    pytest.param(split(GITHUB, 14, "[<!-- -->](x)"), "github-token", id="link-of-a-comment"),
    pytest.param(split(GITHUB, 14, "[<!-- ] -->](x)"), "github-token", id="link-comment-bracket"),
    pytest.param(split(AWS, 4, "![<i></i>](x.png)"), "aws-access-key-id", id="image-empty-tags"),
    pytest.param(split(AWS, 4, "[<wbr>][r]"), "aws-access-key-id", id="reference-link-tag"),
    # adversary21 D1: an invisible character, which [unicode] allow may let through, reads as
    # nothing inside a key too.
    *(
        pytest.param(split(GITHUB, 14, char), "github-token", id=f"invisible-{ord(char):04X}")
        for char in "\u200b\u200c\u200d\u2060\ufeff"
    ),
    pytest.param(
        f"-----BEGIN&#32;{PRIVATE}\n{KEY_BODY}\n-----END {PRIVATE}",
        "private-key",
        id="key-label",
    ),
]


@pytest.mark.parametrize("written, rule", DISGUISED)
@pytest.mark.parametrize("before, after", [("- ", "\n"), ("", ""), ("`", "`"), ("x ", " y")])
def test_a_secret_disguised_as_it_renders_is_found_where_it_starts(written, rule, before, after):
    text = "Intro line.\n" + before + written + after
    (found,) = findings(text)
    assert found[3] and found[3] in written  # the secret as written, where it starts
    assert found[:3] == (rule, 2, len(before) + written.index(found[3]) + 1)


def test_a_disguised_secret_at_the_text_start_and_a_plain_one_beside_it_are_each_found():
    text = "ghp\\_" + GITHUB[4:] + " and " + GITHUB + "\n" + split(AWS, 4, "<i></i>")
    assert [f[:3] for f in findings(text)] == [
        ("github-token", 1, 1),
        ("github-token", 1, len(GITHUB) + 7),
        ("aws-access-key-id", 2, 1),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Use snake\\_case\\_names like my\\_var\\_name and \\*stars\\*.\n",
        "Tom &amp; Jerry &mdash; a &lt;b&gt; tag, 5 &gt; 3, &#169; 2026, caf&eacute;.\n",
        "A <b>bold</b> <!-- note --> word<wbr>break and co&shy;operate.\n",
        "password\\_hint: see the wiki\n",
        "See [the docs](https://example.com/a_b) and [][ref], ![](x.png) [x][] a[]b.\n",
        "An escaped image \\![](x) and link \\[](x) stay text.\n",
        "Read [<b>the docs</b>](https://x) or [a](b)c, [<i>x</i>][r] and ![<b>y</b>](i.png).\n",
        "token\\_type = bearer\n",
    ],
)
def test_ordinary_markdown_and_html_are_no_findings(text):
    assert findings(text) == []


@pytest.mark.parametrize("inside", ["**", " ", "<b> </b>", "<b>\n</b>"])
def test_a_key_split_by_a_link_whose_text_shows_is_not_whole(inside):
    """A link's text of emphasis marks renders them (``**``), one of blanks a blank: the key
    is not shown whole, as it is not written whole."""
    assert findings(split(GITHUB, 14, f"[{inside}](x)")) == []


def test_a_secret_split_by_markup_is_reported_once():
    assert len(findings(f"- {split(GITHUB, 10, '<wbr>')} {split(GITHUB, 12, '&shy;')}\n")) == 2
    assert len(findings(f"token = {GITHUB}\n")) == 1


def test_a_message_shows_no_secret_of_its_line_whole():
    """Each finding redacts its own secret in the line it shows; a disguised one beside it, which
    the message's own redaction (of secrets written whole) does not know, is redacted too."""
    text = f"{GITHUB} {split(ANTHROPIC, 40, '<!-- -->')} {split(AWS, 4, '<b></b>')}\n"
    with memo.uncached():
        found = secrets.find(text, [Origin(text, "MEMORY.md")], secrets.allowance((), ()))
    assert [f.rule for f in found] == ["github-token", "anthropic-api-key", "aws-access-key-id"]
    for finding in found:
        problem = finding.problem()
        assert ANTHROPIC[30:50] not in problem.span.source_line
        assert "HOTPLEXFAKE" not in problem.span.source_line


def test_a_huge_text_full_of_references_is_scanned_whole():
    line = "caf&eacute; a\\_b <i>x</i> <!-- c --> &amp; ok\n"
    text = line * 5_000 + "ghp&#95;" + GITHUB[4:] + "\n" + "<!--" * 5_000
    assert [f[:3] for f in findings(text)] == [("github-token", 5_001, 1)]


MANIFEST = """\
[[target]]
name = "cc"
worker = "claude-code"
"""


def test_a_build_and_a_check_stop_a_disguised_secret(make_project):
    """Each caller's quick look (is there any secret?) reads the text as read too."""
    written = "Notes.\n- ghp\\_" + GITHUB[4:] + "\n"
    clean = make_project({"agent-configs/USER.md": "User.\n"}, manifest=MANIFEST)
    report = Project.load(clean).check({"MEMORY.md": written})
    assert [(f.rule, f.line, f.column) for f in report.findings] == [("github-token", 2, 3)]
    root = make_project({"agent-configs/USER.md": written}, manifest=MANIFEST, name="leaky")
    with pytest.raises(BuildFailed) as failed:
        run(Request(root))
    (problem,) = failed.value.problems
    assert problem.span.location().endswith("USER.md:2:3")
    assert GITHUB[12:] not in failed.value.render()  # redacted as written


# D14: an allow entry is a finding's secret, whole.
@pytest.mark.parametrize(
    "text",
    [
        f"-----BEGIN {PRIVATE}\n{AWS}\n{KEY_BODY}\n-----END {PRIVATE}\n",
        f'- password = "{AWS}.Sup3rS3cretValue9"\n',
        f"- postgres://admin:{AWS}x9Kq@db.example.com/prod\n",
    ],
)
def test_an_allowed_secret_does_not_allow_a_finding_holding_it(text):
    assert findings(text, (AWS,)) != []


def test_an_allowed_secret_allows_that_finding_however_it_is_written():
    assert findings(f"- {AWS} and {split(AWS, 4, '&#8203;')}\n", (AWS,)) == []
    assert findings('- password = "Sup3rS3cretValue9"\n', ("Sup3rS3cretValue9",)) == []
