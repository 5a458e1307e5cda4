"""Real instruction files from public repositories (``../shared/corpus/``), taken as they are.

Each of the 15 files is read at test time from the shared folder beside the repository (never
copied into it) and checked twice:

* compiled as the one source of a project with limits large enough: the artifact holds the file's
  text exactly (after frontmatter stripping, CRLF -> LF and reserved-tag escaping), or, when the
  file holds real template syntax outside code, it compiles once the variables it needs are given
  and fails before that with a positioned error, never a traceback;
* imported with ``hotplex import`` from where it lives in its repository: the imported project
  builds at once and holds the text exactly, template-looking text included.

Both allow what the secret scan finds the way a user would (``[secrets] allow_files``) after
checking that it stops the build at a named place: one file documents credentials as examples.

Expected texts are computed here from the files by the issue's rule, independently of the
compiler's own helpers.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from hotplex.api import Project
from hotplex.errors import BuildFailed, HotplexError
from hotplex_testing import run_hotplex, source_body, trimmed

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
STRUCTURAL_TAGS = ("agent-configuration", "directives", "context", "hotplex")


def _entries() -> list:
    index = CORPUS / "index.json"
    if not index.is_file():
        reason = f"no corpus at {CORPUS}: CI keeps shared/ beside the repository clone"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    entries = json.loads(index.read_text(encoding="utf-8"))
    return [pytest.param(entry, id=entry["file"]) for entry in entries]


ENTRIES = _entries()


def test_the_corpus_has_its_fifteen_files():
    if ENTRIES[0].id == "no-corpus":
        pytest.skip(ENTRIES[0].marks[0].kwargs["reason"])
    assert len(ENTRIES) == 15


# --- the rule, written independently -------------------------------------------------------


def escaped(text: str, tags: set[str]) -> str:
    """The reserved-tag rule: the '<' of any spelling of a reserved tag becomes '&lt;'."""
    names = "|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True))
    return re.sub(rf"<(?=\s*/?\s*(?:{names})(?:[\s/>]|$))", "&lt;", text, flags=re.I)


def section(xml: str, tag: str) -> str:
    match = re.search(rf"^<{re.escape(tag)}>\n(.*?)\n</{re.escape(tag)}>$", xml, re.S | re.M)
    assert match, f"no <{tag}> section"
    return match.group(1)


def read(entry: dict) -> bytes:
    raw = (CORPUS / entry["file"]).read_bytes()
    assert len(raw) == entry["bytes"], "the corpus file is not the one index.json describes"
    return raw


# --- compiled as a source ----------------------------------------------------------------------

MANIFEST = """\
[project]
sources = "src"
default_sources = false
[metacognition]
enabled = false
[limits]
per_file = 200000
total = 400000
{vars}
[secrets]
allow_files = {allowed}
[[source]]
name = "doc"
file = {file}
channel = "B"
tag = "{tag}"
note = ""
[[target]]
name = "cc"
worker = "claude-code"
"""
_UNDEFINED = re.compile(r"undefined variable '([A-Za-z_][A-Za-z0-9_]*)'")


def corpus_project(
    root: Path, entry: dict, raw: bytes, variables: dict[str, str], allowed: tuple[str, ...] = ()
) -> str:
    """A project whose one source is the corpus file; the tag, a tag the file itself uses."""
    tag = (entry.get("xml_tag_names") or ["rules"])[0]
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / entry["file"]).write_bytes(raw)
    table = "[vars]\n" + "".join(f'{k} = "{v}"\n' for k, v in variables.items())
    manifest = MANIFEST.format(
        vars=table, allowed=json.dumps(list(allowed)), file=json.dumps(entry["file"]), tag=tag
    )
    (root / "hotplex.toml").write_text(manifest, encoding="utf-8")
    return tag


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_file_compiles_to_its_own_text(entry, tmp_path):
    raw = read(entry)
    variables: dict[str, str] = {}
    allowed: tuple[str, ...] = ()
    for attempt in range(5):
        root = tmp_path / f"attempt{attempt}"
        tag = corpus_project(root, entry, raw, variables, allowed)
        try:
            xml = Project.load(root).compile("cc").text
            break
        except HotplexError as exc:
            problem = exc.problems[0]
            assert problem.span is not None and problem.span.line is not None, exc.render()
            assert problem.span.column is not None and problem.span.source_line, exc.render()
            if name := _UNDEFINED.match(problem.message):
                variables[name.group(1)] = f"VALUE-OF-{name.group(1)}"
            elif problem.message.startswith("possible secret"):
                allowed = (problem.span.file,)
            else:  # real template syntax that is no hotplex template: say both ways out
                assert "{% raw %}" in (problem.hint or "") and "template: false" in problem.hint
                return
    else:
        pytest.fail("still failing after giving every variable it asked for")
    expected = trimmed(source_body(raw))
    for name, value in variables.items():
        expected = re.sub(r"\{\{\s*" + name + r"\s*\}\}", value, expected)
    assert section(xml, tag) == escaped(expected, {tag, *STRUCTURAL_TAGS})


def test_a_corpus_file_with_a_variable_fails_with_its_position_on_the_command_line(tmp_path):
    """HotPlex's own AGENTS.md leaves {{anti_patterns}} for the user: without [vars], exit 2."""
    entry = next((p.values[0] for p in ENTRIES if p.id.startswith("005-")), None)
    if entry is None:
        pytest.skip(f"no corpus at {CORPUS}")
    raw = read(entry)
    corpus_project(tmp_path, entry, raw, {})
    lines = raw.decode().split("\n")
    line = next(n for n, text in enumerate(lines, 1) if "{{anti_patterns}}" in text)
    column = lines[line - 1].index("anti_patterns") + 1  # the caret points at the name
    result = run_hotplex("-C", str(tmp_path), "build")
    assert result.status == 2
    where = f"src/{entry['file']}:{line}:{column}: undefined variable 'anti_patterns'"
    assert where in result.stderr
    assert "    {{anti_patterns}}\n" + " " * (3 + column) + "^" in result.stderr
    assert "Traceback" not in result.stderr


def test_liquid_shortcodes_moved_out_of_their_fence_fail_with_both_ways_out(tmp_path):
    """The bioinformatics-zen CLAUDE.md with its ```liquid fence removed: {% image %} in prose."""
    entry = next((p.values[0] for p in ENTRIES if p.id.startswith("036-")), None)
    if entry is None:
        pytest.skip(f"no corpus at {CORPUS}")
    lines = read(entry).decode("utf-8").split("\n")
    opening = lines.index("```liquid")
    closing = lines.index("```", opening)
    derived = "\n".join(lines[:opening] + lines[opening + 1 : closing] + lines[closing + 1 :])
    line = next(n for n, text in enumerate(derived.split("\n"), 1) if "{% image" in text)

    corpus_project(tmp_path, entry, derived.encode(), {})
    result = run_hotplex("-C", str(tmp_path), "build")
    assert result.status == 2
    assert f":{line}:1: unknown tag 'image'" in result.stderr
    assert "{% raw %}" in result.stderr and "template: false" in result.stderr
    assert "Traceback" not in result.stderr

    opted_out = "---\ntemplate: false\n---\n" + derived
    tag = corpus_project(tmp_path / "opted-out", entry, opted_out.encode(), {})
    xml = Project.load(tmp_path / "opted-out").compile("cc").text
    assert section(xml, tag) == trimmed(derived)


# --- imported from where it lives -------------------------------------------------------------

# Files `hotplex import` finds when pointed at the repository root.
ROOT_FOUND = {
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".cursorrules",
    ".github/copilot-instructions.md",
}


def import_target(repo: Path, path: str) -> Path:
    """What a user would point `hotplex import` at for this file."""
    if path in ROOT_FOUND or path.startswith(".cursor/rules/"):
        return repo
    if Path(path).parent.name == "agent-configs":
        return repo / Path(path).parent
    return repo / path


def compile_target_of(root: Path, source_name: str) -> str:
    """The agent-configuration document of the first target that keeps ``source_name`` (for
    OpenCode, its payload's ``system``)."""
    manifest = tomllib.loads((root / "hotplex.toml").read_text(encoding="utf-8"))
    target = next(t for t in manifest["target"] if source_name in t.get("keep", [source_name]))
    text = Project.load(root).compile(target["name"]).text
    return json.loads(text)["system"] if target["worker"] == "opencode-server" else text


def claude_visible(body: str) -> str:
    """What Claude Code shows of a CLAUDE.md body: without lines that are an HTML comment (and
    the blank lines after them), trimmed (see tests/sources/test_claude_imports.py for every rule)."""
    return re.sub(r"(?m)^<!--[^\n]*-->[ \t]*\n+", "", body).strip()


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_file_imported_as_found_builds_with_its_text(entry, tmp_path):
    from hotplex import importing

    raw = read(entry)
    repo = tmp_path / "repo"
    (repo / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
    (repo / entry["path"]).write_bytes(raw)
    plan = importing.plan([import_target(repo, entry["path"])], repo)
    importing.write(plan)
    assert (repo / entry["path"]).read_bytes() == raw  # used in place, unchanged

    origin = (repo / entry["path"]).resolve()
    source = next(e for e in plan.entries if e.origin.resolve() == origin)
    try:
        xml = compile_target_of(plan.into, source.name)
    except BuildFailed as exc:  # the import said where, and what to add
        notes = plan.notes + [note for found in plan.found for note in found.notes]
        places = {problem.span.location() for problem in exc.problems}
        assert all(
            any(n.startswith(f"{place}: looks like a credential") for n in notes)
            for place in places
        )
        files = sorted({problem.span.file for problem in exc.problems})
        with (plan.into / "hotplex.toml").open("a", encoding="utf-8") as manifest:
            manifest.write(f"\n[secrets]\nallow_files = {json.dumps(files)}\n")
        xml = compile_target_of(plan.into, source.name)
    tags = {e.section_tag for e in plan.entries} | set(STRUCTURAL_TAGS)
    note_and_text = section(xml, source.section_tag).split("\n", 1)
    assert note_and_text[0] == escaped(source.note, tags)
    body = source_body(raw)
    expected = claude_visible(body) if source.imports == "claude" else trimmed(body)
    assert note_and_text[1] == escaped(expected, tags)
