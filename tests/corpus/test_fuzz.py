"""Property-based fuzzing of every stage that reads user- or agent-written text.

Each property says what must hold for *any* input: a typed model or a clean error for any
manifest, an artifact or a positioned error for any source text, the exact body and metadata back
from the frontmatter stripper, and exactly the structure the compiler emitted in the compiled
prompt whatever the content tries. Never another exception.

Short by default (the conftest profile: 150 examples per property). The long run, done before a
release and whose figures the security page (docs/pages/security.md) quotes:

    HOTPLEX_FUZZ_EXAMPLES=100000 pytest tests/corpus/test_fuzz.py -k "frontmatter or sanitizer" -p no:randomly

and a few thousand for the slower whole-build properties (``-k "manifest or build"``).
"""

from __future__ import annotations

import re
import shutil
import string
from pathlib import Path

import pytest
import tomli_w
import yaml
from hotplex import Project
from hotplex.build import Request, run
from hotplex.errors import HotplexError
from hotplex.manifest import load as loading
from hotplex.manifest import model
from hotplex.scanning.sanitize import count_tags
from hotplex.sources import frontmatter
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

# Fixtures reused across the examples of one property are fine: each example rewrites the files.
reuse = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "fuzz"
    (root / "agent-configs/shared").mkdir(parents=True)
    return root


def _fresh(root: Path) -> None:
    """Forget the previous example's build, so each example is a first build."""
    shutil.rmtree(root / "dist", ignore_errors=True)
    shutil.rmtree(root / ".hotplex", ignore_errors=True)


def _is_clean(error: HotplexError, file: str) -> bool:
    """A clean error: every problem names a file and, within a file, a place."""
    return all(
        p.span is not None and p.span.file and (p.span.key or p.span.line or p.span.file != file)
        for p in error.problems
    )


# --- the manifest loader ----------------------------------------------------------------------

KNOWN_KEYS = [
    *("project", "sources", "out", "name", "templates", "channels", "B", "C", "tag", "note"),
    *("source", "file", "channel", "required", "variants", "platforms", "mode", "layout"),
    *("limits", "per_file", "total", "unit", "overflow", "vars", "metacognition", "enabled"),
    *("secrets", "allow", "allow_files", "target", "worker", "base", "profile", "keep", "bot"),
    *("compat", "workspace", "session", "max_chars", "total_max_chars"),
]
WORDS = [
    *("claude-code", "opencode-server", "openclaw", "claude_code", "slack", "feishu", "append"),
    *("replace", "suffix", "directory", "chars", "bytes", "truncate", "error", "main"),
    *("subagent", "soul", "SOUL.md", "agent-configs", "dist", ".", "..", "../x", "/abs", ""),
    *("persona", "rules", "B", "C", "2026.9", "seed", "secret-assignment", "sk-"),
]
keys = st.sampled_from(KNOWN_KEYS) | st.text(string.ascii_letters + "_-. ", min_size=1, max_size=8)
scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.booleans(),
    st.floats(allow_nan=False),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=6,
)
targets = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["cc", "ocs", "claw", "cc"]) | st.text(max_size=4)},
        optional={
            "worker": st.sampled_from(WORDS[:4]) | st.text(max_size=5),
            **{k: values for k in ("platforms", "base", "vars", "profile", "keep", "bot")},
            **{k: values for k in ("compat", "max_chars", "session")},
        },
    ),
    max_size=3,
)
manifests = st.fixed_dictionaries(
    {},
    optional={
        "target": targets,
        **{
            k: st.dictionaries(keys, values, max_size=5)
            for k in ("project", "variants", "limits", "vars", "channels", "secrets")
        },
        "source": st.lists(st.dictionaries(keys, values, max_size=6), max_size=3),
        "metacognition": st.dictionaries(keys, values, max_size=3),
        "extra": values,
    },
)


@reuse
@given(manifests)
def test_manifest_any_table_gives_a_model_or_a_clean_error(project, raw):
    (project / "hotplex.toml").write_text(tomli_w.dumps(raw), encoding="utf-8")
    try:
        loaded = loading.load(project)
    except HotplexError as error:
        assert error.problems and _is_clean(error, "hotplex.toml"), error.render()
    else:
        assert isinstance(loaded.manifest, model.Manifest)


TOML_PIECES = [
    *("[project]\n", "[[target]]\n", "[[source]]\n", "[limits]\n", "[vars]\n", "[variants]\n"),
    *('name = "cc"\n', 'worker = "claude-code"\n', "per_file = 10\n", 'platforms = ["slack"]\n'),
    *("=", '"', "'", "[", "]", "{", "}", ",", "\n", " ", "#", "\\u", "\t", "true", "1e9", "-"),
    *("x", "é", "\0", "\ufeff", '"""', "key.sub", "0x1F", "1979-05-27"),
]


@reuse
@given(st.lists(st.sampled_from(TOML_PIECES) | st.text(max_size=3), max_size=40).map("".join))
def test_manifest_any_text_gives_a_model_or_a_clean_error(project, text):
    (project / "hotplex.toml").write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        loading.load(project)
    except HotplexError as error:
        assert error.problems and _is_clean(error, "hotplex.toml"), error.render()


# --- the whole build on arbitrary source text -------------------------------------------------

BUILD_MANIFEST = """\
[project]
sources = "agent-configs"

[variants]
platforms = ["slack"]

[vars]
team = "payments"

[[target]]
name = "cc"
worker = "claude-code"
"""
TEMPLATE_PIECES = [
    *("{{", "}}", "{%", "%}", "{#", "#}", "{{ team }}", "{{ platform }}", "{{ nope }}", " | "),
    *("upper", "default(", '"x"', ")", '{% if platform == "slack" %}', "{% elif team %}"),
    *("{% else %}", "{% endif %}", "{% raw %}", "{% endraw %}", '{% include "shared/x.md" %}'),
    *('{% include "SOUL.md" %}', '{% include "../hotplex.toml" %}', "{%- ", " -%}", "${{ a }}"),
    *("```\n", "`", "---\n", "...\n", "template: false\n", "template: 1\n", "\n", " ", "\t"),
    *("<persona>", "</Rules x=1>", "if", "not", "and", "in", "(", "[", "]", "'", "\\", "é", "\r"),
]
source_texts = st.lists(st.sampled_from(TEMPLATE_PIECES) | st.text(max_size=4), max_size=30).map(
    "".join
)


@reuse
@given(soul=source_texts, include=source_texts)
def test_build_any_source_text_gives_an_artifact_or_a_positioned_error(project, soul, include):
    (project / "hotplex.toml").write_text(BUILD_MANIFEST)
    files = {"agent-configs/SOUL.md": soul, "agent-configs/shared/x.md": include}
    for rel, text in files.items():
        (project / rel).write_bytes(text.encode("utf-8", "surrogatepass"))
    _fresh(project)
    try:
        outcome = run(Request(project))
    except HotplexError as error:
        for problem in error.problems:
            span = problem.span
            assert span is not None and span.file in files, error.render()
            assert span.line is not None or "frontmatter" in problem.message, error.render()
    else:
        assert [j.id for j in outcome.jobs] == ["cc/default", "cc/slack"]
        for job in outcome.jobs:
            text = (project / job.primary).read_text(encoding="utf-8")
            assert text == "" or text.startswith("<agent-configuration>\n")


# --- the frontmatter stripper -----------------------------------------------------------------

# NEL, LS and PS are line breaks to YAML 1.1, which PyYAML's dumper writes raw: no file written
# by it can round-trip them, whoever reads it.
yaml_chars = st.characters(exclude_categories=("Cs",), exclude_characters="\ufeff\x85\u2028\u2029")
yaml_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(yaml_chars, max_size=30),
)
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(yaml_chars, max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
metadata = st.dictionaries(
    st.text(yaml_chars, min_size=1, max_size=12), yaml_values, min_size=1, max_size=6
)
BODY_PIECES = ["---", "...", "--- ", "---\t", "- a", "#", "key: v", "\n", "\n\n", " ", "é"]
bodies = st.lists(st.sampled_from(BODY_PIECES) | st.text(max_size=8), max_size=30).map("".join)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@given(metadata, bodies, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_frontmatter_any_metadata_and_body_come_back_exactly(meta, body, newline, bom):
    block = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    assume(not any(frontmatter._CLOSE.fullmatch(line) for line in block.split("\n")))
    written = body.replace("\n", newline)
    text = f"---\n{block}---\n".replace("\n", newline) + written
    data = ("\ufeff" if bom else "").encode() + text.encode("utf-8", "surrogatepass")
    try:
        decoded = frontmatter.decode(data, "F.md")
    except HotplexError as error:  # only a NUL the body happened to hold
        assert "\0" in body and error.problems[0].span.line is not None
        return
    stripped = frontmatter.strip(decoded, "F.md")
    assert stripped.meta == meta
    assert stripped.body == _lf(written)
    assert stripped.body_line == block.count("\n") + 3


@given(bodies)
def test_frontmatter_an_unclosed_fence_is_always_an_error_at_line_one(body):
    lines = [ln for ln in _lf(body).split("\n") if not frontmatter._CLOSE.fullmatch(ln)]
    with pytest.raises(HotplexError) as caught:
        frontmatter.strip("---\n" + "\n".join(lines), "F.md")
    span = caught.value.problems[0].span
    assert (span.file, span.line, span.column) == ("F.md", 1, 1)


@given(st.text(max_size=200))
def test_frontmatter_any_text_gives_a_body_or_a_positioned_error(text):
    try:
        stripped = frontmatter.strip(_lf(text), "F.md")
    except HotplexError as error:
        assert all(p.span.file == "F.md" and p.span.line for p in error.problems)
    else:
        assert _lf(text).endswith(stripped.body)


# --- the sanitizer, through the compiler ------------------------------------------------------

SANITIZER_MANIFEST = """\
[project]
templates = false

[unicode]  # invisible characters reach the sanitizer, to disguise tags there
allow = ["invisible-character", "variation-selector", "tag-characters", "bidi-mark", "U+2028"]

[limits]
per_file = {per_file}
total = {total}

[[source]]
name = "soul"
file = "SOUL.md"
channel = "B"
tag = "persona"
note = {note}

[[source]]
name = "rules"
file = "AGENTS.md"
channel = "B"
tag = "Rules"

[[source]]
name = "memory"
file = "MEMORY.md"
channel = "C"
tag = "memory"

[[source]]
name = "user"
file = "USER.md"
channel = "C"
tag = "user.profile"

[[target]]
name = "cc"
worker = "claude-code"
"""
TAGS = ("agent-configuration", "directives", "context", "hotplex", "persona", "Rules", "memory")
TAGS += ("user.profile",)
HOSTILE = [*"<>/ \n\t=\"'&;-.!?x", "&lt;", "</", "/>", "<!--", "-->", "<![CDATA[", "]]>"]
HOSTILE += [t for tag in TAGS for t in (tag, tag.upper(), tag.title(), tag.swapcase())]
HOSTILE += ["PERSONA ", "user", "profile", "agent", "configuration", "\u00a0", "\u2028", "İ", "ſ"]
# Disguises: invisible characters inside a tag, fullwidth '<', '/' and names.
HOSTILE += [
    "\u200b",
    "\ufe0f",
    "\U000e0020",
    "\uff1c",
    "\uff0f",
    "\uff4d\uff45\uff4d\uff4f\uff52\uff59",
]
hostile = st.lists(st.sampled_from(HOSTILE), max_size=80).map("".join)
FILES = ("SOUL.md", "AGENTS.md", "MEMORY.md", "USER.md")


def _structure(prompt: str) -> list[str]:
    """The lines that are exactly a structural tag: the compiler writes each alone on a line."""
    pattern = re.compile(r"</?(" + "|".join(re.escape(t) for t in TAGS) + r")>")
    return [line for line in prompt.split("\n") if pattern.fullmatch(line)]


def _compile(root: Path, texts: list[str], note: str, per_file: int, total: int) -> str:
    manifest = SANITIZER_MANIFEST.format(
        per_file=per_file, total=total, note=tomli_w.dumps({"n": note})[4:].strip()
    )
    (root / "hotplex.toml").write_text(manifest, encoding="utf-8")
    for name, text in zip(FILES, texts, strict=True):
        (root / "agent-configs" / name).write_text(text, encoding="utf-8")
    # The library path compiles exactly the bytes `hotplex build` writes, without the writing.
    return Project.load(root).compile("cc").text


@reuse
@given(st.lists(hostile, min_size=4, max_size=4), hostile)
# Found by this property: a note ending in "<" and a body starting with a tag name made a tag
# across the line between them (sanitize.py now escapes a dangling "<").
@example(texts=["agent-configuration", "", "", ""], note="<")
def test_sanitizer_the_prompt_has_exactly_the_structure_the_compiler_emitted(project, texts, note):
    """Roomy limits: every non-blank file is a section, so the count is known from the input."""
    prompt = _compile(project, texts, note, per_file=100_000, total=1_000_000)
    present = [name for name, text in zip(FILES, texts, strict=True) if text.strip()]
    # The wrapper, <directives> (meta-cognition is always there), <context> when a C file is.
    groups = 2 + any(name in present for name in FILES[2:])
    emitted = 2 * (groups + 1 + len(present))  # each opened and closed; +1 for <hotplex>
    assert count_tags(prompt, TAGS) == emitted
    assert len(_structure(prompt)) == emitted


@reuse
@given(
    st.lists(hostile, min_size=4, max_size=4),
    hostile,
    st.integers(min_value=1, max_value=300),
    st.integers(min_value=1, max_value=900),
)
# Found by the long run: "</memory<" is no tag, but a cut right after "</memory" was, once the
# marker's line break followed it (limits.py now never ends a cut in "<name").
@example(
    texts=[
        *("", "", ""),
        "<<<<<<<&lt;&lt;</--><![CDATA[agent-configurationagent-configurationcontextcontextcontext"
        "contextmemorymemoryuser.profileagentagentconfiguration</memory<<<<<<<<<<<<<<<<<<agent-"
        "configuration>&lt;<![CDATA[agent-configuration<",
    ],
    note="",
    per_file=278,
    total=504,
)
def test_sanitizer_cuts_never_expose_a_tag(project, texts, note, per_file, total):
    """Tight limits cut and drop sections (even meta-cognition); what stays is still exactly the
    emitted structure, properly nested."""
    prompt = _compile(project, texts, note, per_file, total)
    structure = _structure(prompt)
    assert count_tags(prompt, TAGS) == len(structure)
    depth: list[str] = []
    for line in structure:
        if line.startswith("</"):
            assert depth and depth.pop() == line[2:-1]
        else:
            depth.append(line[1:-1])
    assert depth == []
