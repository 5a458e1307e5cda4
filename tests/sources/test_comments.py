"""HTML comments: kept by default, stripped where the manifest asks (project or source), never in
code; ``stats`` counts the characters of each file that sit in comments."""

from __future__ import annotations

import json
import re

import pytest
from hotplex import Project
from hotplex.errors import HotplexError
from hotplex.sources import comments


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("a <!-- b --> c", ["<!-- b -->"]),
        ("<!-->x", ["<!-->"]),
        ("a <!-- never closed\nmore", ["<!-- never closed\nmore"]),
        ("`<!-- code -->` <!--x-->", ["<!--x-->"]),
        ("```html\n<!-- code -->\n```\n<!-- y -->", ["<!-- y -->"]),
        ("<!-- one --><!-- two -->", ["<!-- one -->", "<!-- two -->"]),
        ("no comment <! -- here", []),
    ],
)
def test_a_comment_is_what_a_rendered_page_hides(text, hidden):
    assert [text[a:b] for a, b in comments.regions(text)] == hidden
    assert comments.hidden_chars(text) == sum(map(len, hidden))


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ("Keep <!-- gone --> this.", "Keep  this."),
        ("# T\n<!-- a whole line -->\nNext.\n", "# T\nNext.\n"),
        ("# T\n  <!--\n  several\n  lines\n-->  \nNext.", "# T\nNext."),
        ("```\n<!-- code stays -->\n```", "```\n<!-- code stays -->\n```"),
        ("End <!-- unclosed", "End "),
    ],
)
def test_strip_removes_comments_and_the_lines_they_stood_alone_on(text, stripped):
    assert comments.strip(text) == stripped


MANIFEST = """\
[project]
html_comments = "{project}"

[[source]]
name = "soul"
file = "SOUL.md"
channel = "B"
tag = "persona"
note = "Persona."
{soul}

[[source]]
name = "rules"
file = "AGENTS.md"
channel = "B"
tag = "rules"
note = "Rules."

[[target]]
name = "cc"
worker = "claude-code"
"""
SOUL = "# Soul\n<!-- maintainers: keep this short -->\nBe kind.\n"
RULES = "Rules <!-- hidden rule --> here; the rest of the file is plain, visible text.\n"


def _sections(root) -> dict[str, str]:
    text = Project.load(root).compile("cc").text
    return dict(re.findall(r"<(persona|rules)>\n[^\n]*\n(.*?)\n</\1>", text, re.S))


@pytest.mark.parametrize(
    ("project", "soul", "expected"),
    [
        ("keep", "", {"persona": SOUL.strip(), "rules": RULES.strip()}),
        (
            "strip",
            "",
            {
                "persona": "# Soul\nBe kind.",
                "rules": "Rules  here; the rest of the file is plain, visible text.",
            },
        ),
        (
            "keep",
            'html_comments = "strip"',
            {"persona": "# Soul\nBe kind.", "rules": RULES.strip()},
        ),
        (
            "strip",
            'html_comments = "keep"',
            {
                "persona": SOUL.strip(),
                "rules": "Rules  here; the rest of the file is plain, visible text.",
            },
        ),
    ],
)
def test_html_comments_per_project_and_per_source(make_project, project, soul, expected):
    root = make_project(
        {"agent-configs/SOUL.md": SOUL, "agent-configs/AGENTS.md": RULES},
        manifest=MANIFEST.format(project=project, soul=soul),
    )
    assert _sections(root) == expected


def test_an_unknown_setting_is_a_configuration_error(make_project):
    root = make_project(
        {"agent-configs/SOUL.md": SOUL},
        manifest=MANIFEST.format(project="remove", soul="html_comments = false"),
    )
    with pytest.raises(HotplexError) as caught:
        Project.load(root)
    assert sorted(p.span.location() for p in caught.value.problems) == [
        "hotplex.toml: project.html_comments",
        "hotplex.toml: source[0].html_comments",
    ]


def test_changing_the_setting_rebuilds(make_project, hotplex):
    root = make_project(
        {"agent-configs/SOUL.md": SOUL, "agent-configs/AGENTS.md": RULES},
        manifest=MANIFEST.format(project="keep", soul=""),
    )
    assert hotplex("-C", str(root), "build").status == 0
    prompt = root / "dist/cc/default/prompt.xml"
    assert "maintainers" in prompt.read_text()
    (root / "hotplex.toml").write_text(MANIFEST.format(project="strip", soul=""))
    assert hotplex("-C", str(root), "build").status == 0
    assert "maintainers" not in prompt.read_text()


def test_stats_counts_the_characters_in_comments_per_file(make_project, hotplex):
    hidden_note = "<!-- " + "hidden instructions " * 10 + "-->"
    root = make_project(
        {
            "agent-configs/SOUL.md": f"---\nx: 1\n---\n# Soul\n{hidden_note}\nKind.\n",
            "agent-configs/AGENTS.md": RULES,
        },
        manifest=MANIFEST.format(project="strip", soul=""),
    )
    result = hotplex("-C", str(root), "stats", "--json")
    assert result.status == 0, result.stderr
    art = json.loads(result.stdout)["artifacts"][0]
    found = {s["name"]: s["comments"] for s in art["sections"]}
    body = f"# Soul\n{hidden_note}\nKind.\n"
    assert found["soul"] == [
        {"file": "agent-configs/SOUL.md", "in_comments": len(hidden_note), "chars": len(body)}
    ]
    assert found["rules"] == [
        {
            "file": "agent-configs/AGENTS.md",
            "in_comments": len("<!-- hidden rule -->"),
            "chars": len(RULES),
        }
    ]
    table = hotplex("-C", str(root), "stats").stdout
    share = round(100 * len(hidden_note) / len(body))
    assert re.search(
        rf"cc/default\s+soul\s.*\s{len(hidden_note)} \({share}%\)\s+agent-configs/SOUL.md", table
    )
    assert f"agent-configs/SOUL.md: {share}% of its characters are in HTML comments" in table
    assert "agent-configs/AGENTS.md:" not in table  # a few words in a comment are not worth a line
