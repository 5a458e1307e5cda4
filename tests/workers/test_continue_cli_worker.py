"""The Continue CLI worker: the rule file Continue reads back as ``prompt.xml``, whatever the
document holds, and what it loads by itself. The real ``cn`` is driven in
tests/integration/test_continue_cli.py."""

from __future__ import annotations

import json
import re

from hotplex.api import Project
from hotplex.targets.continue_cli import FRONTMATTER, as_sent
from hotplex.targets.home import JS_WHITESPACE
from hypothesis import given
from hypothesis import strategies as st

MANIFEST = '[metacognition]\nenabled = false\n\n[[target]]\nname = "c"\nworker = "continue-cli"\n'
FOLDER = "dist/c/default"
# Continue 1.5.47's rule reader (parseMarkdownRule, then the trim of the rule), as its bundle
# has it: CR LF to LF; split at /^---\s*$/m; the second part is YAML; the rest, rejoined by
# "---", trimmed. Written here as a split, apart from the worker's deletions.
_JS_SPLIT = re.compile(
    "(?<![^\n\r\u2028\u2029])---[" + re.escape(JS_WHITESPACE) + "]*(?=[\n\r\u2028\u2029]|\\Z)"
)


def continue_reads(rule_file: str) -> str:
    parts = _JS_SPLIT.split(rule_file.replace("\r\n", "\n"))
    assert len(parts) >= 3 and parts[0] == "" and parts[1] == "\nalwaysApply: true\n"
    return "---".join(parts[2:]).strip(JS_WHITESPACE)


TEXTS = st.text(alphabet="-- \t\n\r\u2028\u00a0ax", max_size=60)


@given(TEXTS)
def test_continue_reads_the_rule_file_as_prompt_xml(document):
    """Whatever ``---`` lines, blanks and line ends the document holds, the rule file hotplex
    writes is read back by Continue as exactly what ``prompt.xml`` holds."""
    sent = as_sent("<agent-configuration>\n" + document + "\n</agent-configuration>\n").text
    assert continue_reads(FRONTMATTER + sent) == sent


@given(TEXTS, st.lists(st.integers(0, 60), max_size=5))
def test_each_offset_lands_where_its_text_went(document, offsets):
    """``position`` (the section sizes ``stats`` shows) follows each character kept."""
    marked = list(document)
    for at in sorted({min(o, len(document)) for o in offsets}, reverse=True):
        marked.insert(at, "M")
    text = "".join(marked)
    sent = as_sent(text)
    marks = [i for i, c in enumerate(text) if c == "M"]
    assert [sent.position(i) for i in marks] == [i for i, c in enumerate(sent.text) if c == "M"]


def test_the_home_file_is_a_rule_continue_applies_always(make_project):
    root = make_project(
        {"agent-configs/SOUL.md": "Soul.\r\n\n---\n\nA </context> tag.\n"}, MANIFEST
    )
    artifact = Project.load(root).compile("c")
    home = artifact.files[f"{FOLDER}/continue-home/rules/hotplex.md"].decode("utf-8")
    assert home == FRONTMATTER + artifact.text
    assert "Soul.\n\n---\nA &lt;/context> tag." in artifact.text  # Continue's wrapper is safe
    assert artifact.text.endswith("</agent-configuration>")
    launch = json.loads(artifact.files[f"{FOLDER}/launch.json"])
    assert launch["argv"] == ["cn"]
    assert launch["env"] == {"CONTINUE_GLOBAL_DIR": f"{FOLDER}/continue-home"}
    assert "config.yaml" in launch["gateway_adds"] and "--rule" in launch["gateway_adds"]
    (soul,) = [s for s in artifact.sizes if s.name == "soul"]
    assert soul.injected == soul.raw - 1 > 0  # the blank line after "---"


def test_continue_reads_agents_md_and_its_rules_of_its_own_folder_only(make_project, hotplex):
    """A compiled AGENTS.md and ``.continue/rules/`` rule in the session folder reach Continue raw
    too: ``build``, ``stats`` and ``show`` say so; from a session folder below, they do not."""
    manifest = (
        '[project]\nsources = "."\n\n[[source]]\nname = "style"\nfile = ".continue/rules/a/s.md"'
        '\nchannel = "B"\ntag = "style"\n\n' + MANIFEST.partition("\n\n")[2]
    )
    files = {"AGENTS.md": "Rules.\n", ".continue/rules/a/s.md": "Style.\n", "run/x": ""}
    root = make_project(files, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    (warning,) = [w for w in done.stderr.splitlines() if "raw" in w]
    assert "Continue also reads AGENTS.md, .continue/rules/a/s.md by itself" in warning
    assert "Continue has no switch for them" in warning
    stats = json.loads(hotplex("-C", str(root), "stats", "--json").stdout)["artifacts"][0]
    assert stats["copies"].startswith("a raw copy too: Continue reads AGENTS.md")
    assert "a raw copy too" in hotplex("-C", str(root), "show", "c").stderr
    below = root / "hotplex.toml"
    below.write_text(below.read_text(encoding="utf-8") + 'cwd = "run"\n', encoding="utf-8")
    again = hotplex("-C", str(root), "build")
    assert again.status == 0 and "raw" not in again.stderr, again.stderr
