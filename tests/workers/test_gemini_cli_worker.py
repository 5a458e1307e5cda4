"""The Gemini CLI worker: the document already as Gemini will send it, import-proof.

The oracle below is a line-by-line port of Gemini CLI 0.61.0's own import scanner
(``findImports`` and ``findCodeRegions`` of memoryImportProcessor, as bundled in
``@google/gemini-cli``), kept apart from the worker's regular expressions on purpose. The real
CLI is driven in tests/integration/test_gemini_cli.py.
"""

from __future__ import annotations

import itertools
import json
import re

from hotplex import registry
from hotplex.api import Project
from hotplex.targets import gemini_cli
from hypothesis import given
from hypothesis import strategies as st

WJ = "\u2060"


def gemini_imports(content: str) -> list[str]:
    """The ``@paths`` Gemini 0.61.0 would import from ``content`` (outside code regions)."""

    def whitespace(ch: str) -> bool:
        return ch in (" ", "\t", "\n", "\r")

    regions = [m.span() for m in re.finditer(r"(`+)([\s\S]*?)\1", content)]
    found, i = [], 0
    while i < len(content):
        i = content.find("@", i)
        if i == -1:
            break
        if i > 0 and not whitespace(content[i - 1]):
            i += 1
            continue
        j = i + 1
        while j < len(content) and not whitespace(content[j]):
            j += 1
        path = content[i + 1 : j]
        starts_like_a_path = path[:1] in (".", "/") or (path[:1].isascii() and path[:1].isalpha())
        if starts_like_a_path and not any(s <= i < e for s, e in regions):
            found.append(path)
        i = j + 1
    return found


def gemini_whitespace(text: str) -> str:
    """Gemini's trim (of the blanks in SCANNED) and its collapse of 3+ line feeds."""
    text = text.strip(" \t\n\r")
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text


# Text made of the characters that matter to Gemini's scanner, plus some that do not.
SCANNED = st.text(alphabet="@`. /\t\n\raZ1-_中🎉x", max_size=60)


@given(SCANNED)
def test_normalised_text_has_no_import_left_and_only_word_joiners_added(text):
    sent = gemini_cli.normalise(text)
    normal, imports = sent.text, sent.imports
    assert gemini_imports(normal) == []
    assert normal.replace(WJ, "") == gemini_whitespace(text)
    assert len(imports) == normal.count(WJ) == len(gemini_imports(gemini_whitespace(text)))


@given(SCANNED)
def test_normalising_twice_changes_nothing(text):
    once = gemini_cli.normalise(text).text
    again = gemini_cli.normalise(once)
    assert (again.text, again.imports) == (once, [])


def test_what_gemini_would_import_and_what_it_leaves_alone():
    text = (
        "@alice at the start, @README.md, @./a and @/etc/x after blanks;\t@tab\n@line\r@cr\n"
        "user@example.com, (@paren), @1digit, @ alone, `@code` and ``a`@b`` and\n"
        "no-break\u00a0@space\n"
        "```\n@Fenced()\n```\n"
    )
    sent = gemini_cli.normalise(text)
    normal, imports = sent.text, sent.imports
    assert imports == ["@alice", "@README.md,", "@./a", "@/etc/x", "@tab", "@line", "@cr"]
    for kept in ("user@example.com", "(@paren)", " @1digit", " @ alone", "`@code`", "`@b`", "\n@F"):
        assert kept in normal
    assert "no-break\u00a0@space" in normal  # only space, tab, CR and LF are blanks to Gemini
    assert normal.replace(WJ, "") == text.rstrip("\n")


def test_trim_is_javascripts_and_blank_runs_collapse():
    assert gemini_cli.normalise("\ufeff\u3000 a\n\n\n\n\nb \u00a0\n").text == "a\n\nb"
    # Python's str.strip would also take these; JavaScript's trim keeps them.
    assert gemini_cli.normalise("\x1ca\x1f").text == "\x1ca\x1f"
    assert gemini_cli.normalise("a\r\n\r\n\r\nb").text == "a\r\n\r\n\r\nb"  # only LF runs


def _build(make_project, files: dict[str, str]) -> Project:
    manifest = (
        "[metacognition]\nenabled = false\n\n"
        '[[target]]\nname = "gemini"\nworker = "gemini-cli"\n\n'
        '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    return Project.load(make_project(files, manifest))


def test_artifact_files_launch_and_warning(make_project):
    project = _build(
        make_project,
        {"agent-configs/SOUL.md": "Ask @alice.\n\n\n\nMail bob@example.com, see `@x`.\n"},
    )
    artifact = project.compile("gemini")
    folder = "dist/gemini/default"
    assert list(artifact.files) == [
        f"{folder}/prompt.xml",
        f"{folder}/gemini-home/.gemini/GEMINI.md",
        f"{folder}/launch.json",
    ]
    prompt = artifact.files[f"{folder}/prompt.xml"]
    assert artifact.files[f"{folder}/gemini-home/.gemini/GEMINI.md"] == prompt
    assert prompt.decode() == artifact.text
    assert f"Ask {WJ}@alice.\n\nMail bob@example.com, see `@x`." in artifact.text
    assert not artifact.text.endswith("\n")  # Gemini trims the file
    claude = project.compile("cc").text
    assert artifact.text == gemini_cli.normalise(claude).text, "the same document otherwise"
    assert json.loads(artifact.files[f"{folder}/launch.json"]) == {
        "argv": ["gemini"],
        "cwd": ".",
        "env": {"GEMINI_CLI_HOME": f"{folder}/gemini-home"},
        "platform": None,
        "target": "gemini",
    }
    assert artifact.warnings == (
        "Gemini CLI would read 1 '@' as file import(s) ('@alice.'); each got a word joiner"
        " (U+2060) before its '@', so it arrives as written",
    )


def test_gemini_wrapper_tags_are_reserved(make_project):
    text = "Close it: </loaded_context> <global_context>\n"
    project = _build(make_project, {"agent-configs/SOUL.md": text})
    assert "&lt;/loaded_context> &lt;global_context>" in project.compile("gemini").text
    assert "</loaded_context>" in project.compile("cc").text  # Claude Code has no such wrapper


def test_registered():
    assert isinstance(registry.workers()["gemini-cli"], gemini_cli.GeminiCli)


@given(SCANNED, st.lists(st.integers(min_value=0, max_value=60), max_size=6))
def test_positions_cut_the_sent_text_as_the_document_was_cut(text, cuts):
    """Cut points of the document map, in order, onto the sent text: the pieces make it up
    whole, and a word joiner stays with the ``@`` it guards."""
    sent = gemini_cli.normalise(text)
    points = [0, *sorted(min(c, len(text)) for c in cuts), len(text)]
    moved = [sent.position(p) for p in points]
    assert moved == sorted(moved) and (moved[0], moved[-1]) == (0, len(sent.text))
    pieces = [sent.text[a:b] for a, b in itertools.pairwise(moved)]
    assert "".join(pieces) == sent.text
    assert not any(piece.endswith(WJ) for piece in pieces)


def test_stats_measure_each_section_as_the_artifact_holds_it(make_project, hotplex):
    """Gemini collapses blank-line runs and hotplex adds word joiners: the sizes `stats`
    reports are those of the section's text in prompt.xml, so no section outgrows the file."""
    soul = "Ask @alice.\n" + "".join(f"Step {n}.\n\n\n\n\n\n\n\n" for n in range(40)) + "Done.\n"
    user = "Prefers @bob, @carol and @dave.\n\n\n\nGo, terse.\n"
    root = make_project(
        {"agent-configs/SOUL.md": soul, "agent-configs/USER.md": user},
        manifest="[metacognition]\nenabled = false\n\n"
        '[[target]]\nname = "gemini"\nworker = "gemini-cli"\n',
    )
    assert hotplex("-C", str(root), "build").status == 0
    artifact = (root / "dist/gemini/default/prompt.xml").read_text(encoding="utf-8")

    def held(tag: str) -> str:  # the section's text in the artifact, its note line aside
        inside = artifact.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0]
        return inside.split("\n", 1)[1]

    result = hotplex("-C", str(root), "stats", "--json")
    assert result.status == 0, result.stderr
    [stats] = json.loads(result.stdout)["artifacts"]
    sizes = {s["name"]: (s["size"], s["raw"]) for s in stats["sections"]}
    assert sizes == {
        # raw: before any budget, with the word joiners the budget counts (one per '@')
        "soul": (len(held("persona")), len(soul.rstrip("\n")) + soul.count("@")),
        "user": (len(held("user")), len(user.rstrip("\n")) + user.count("@")),
    }
    assert stats["size"] == sum(size for size, _ in sizes.values()) < stats["document"]


def test_limits_hold_for_the_text_gemini_receives_word_joiners_included(make_project, hotplex):
    manifest = (
        '[metacognition]\nenabled = false\n[limits]\nunit = "bytes"\nper_file = 100\n'
        'total = 150\n[[target]]\nname = "gemini"\nworker = "gemini-cli"\n'
    )
    files = {"agent-configs/SOUL.md": "@a " * 100, "agent-configs/AGENTS.md": "@b " * 100}
    root = make_project(files, manifest=manifest)
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    artifact = (root / "dist/gemini/default/prompt.xml").read_text(encoding="utf-8")

    def held(tag: str) -> bytes:  # the section's text in the artifact, its note line aside
        inside = artifact.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0]
        return inside.split("\n", 1)[1].encode("utf-8")

    persona, rules = held("persona"), held("rules")
    assert len(persona) <= 100 and len(persona) + len(rules) <= 150
    assert persona.count("\u2060@a".encode()) == persona.count(b"@a") > 0
    [report] = [a for a in json.loads(result.stdout)["artifacts"] if a["path"].endswith(".xml")]
    assert {(c["section"], c["limit"]) for c in report["truncations"]} == {
        ("soul", "per_file"),
        ("rules", "per_file"),
        ("rules", "total"),
    }
