"""A learned block edited by hand is read by one parser (``hotplex.sources.learned``): what
``hotplex learn`` refuses, a build refuses too, with the same message at the same file:line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hotplex.errors import HotplexError
from hotplex.learning import profile
from hotplex_testing import CC_MANIFEST, run_hotplex

MANIFEST = CC_MANIFEST
START, END = "<!-- hotplex:learned -->", "<!-- /hotplex:learned -->"
FACT = "- a: 1 <!-- learned 2026-12-01 -->"
# USER.md's lines after "# U" and the block's start, what is wrong, and its line in the file.
BAD_BLOCKS = [
    ([FACT, "- a: 1", END], "no fact", 4),
    ([FACT, "- A: 2 <!-- learned 2026-12-01 -->", END], "a fact twice", 4),
    (["- a: 1 <!-- learned 2026-02-30 -->", END], "no day of the calendar", 3),
    (["- a: 1 <!-- learned 2026-12-01, confirmed 2026-11-01 -->", END], "confirmed before", 3),
    ([FACT], "never closed", 2),
    ([FACT, END, START, "- b: 2 <!-- learned 2026-12-01 -->", END], "a second learned block", 5),
    ([FACT, START, END], "a second learned block", 4),
    ([FACT, END, END], "no learned block open", 5),
    ([FACT, "- \u0430: 2 <!-- learned 2026-12-01 -->", END], "look-alike", 4),
]


def text_of(lines: list[str]) -> str:
    return "\n".join(["# U", START, *lines, ""])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "hotplex.toml").write_text(MANIFEST)
    (tmp_path / "agent-configs").mkdir()
    (tmp_path / "agent-configs/AGENTS.md").write_text("# A\n")
    return tmp_path


@pytest.mark.parametrize(("lines", "said", "line"), BAD_BLOCKS)
@pytest.mark.parametrize("command", ["build", "check", "show"])
def test_a_block_learn_refuses_is_a_build_error_with_its_line(
    root: Path, lines, said, line, command
) -> None:
    (root / "agent-configs/USER.md").write_text(text_of(lines))
    args = ["show", "cc"] if command == "show" else [command]
    done = run_hotplex("-C", str(root), *args)
    assert done.status == 2, done.stdout + done.stderr
    assert f"agent-configs/USER.md:{line}:1" in done.stderr and said in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("lines", "said", "line"), BAD_BLOCKS)
def test_learn_and_the_build_say_the_same(root: Path, lines, said, line) -> None:
    user = root / "agent-configs/USER.md"
    user.write_text(text_of(lines))
    with pytest.raises(HotplexError) as learned:
        profile.parse(text_of(lines), "agent-configs/USER.md")
    built = run_hotplex("-C", str(root), "build")
    for problem in learned.value.problems:
        assert problem.render() in built.stderr
    learn = run_hotplex("-C", str(root), "learn", "z=1", "--date", "2026-12-05")
    assert learn.status == 2 and f"agent-configs/USER.md:{line}:1" in learn.stderr


def test_a_block_after_frontmatter_is_placed_in_the_file(root: Path) -> None:
    """The build reads the body after the frontmatter: the line is still the file's."""
    (root / "agent-configs/USER.md").write_text("---\ntemplate: false\n---\n" + text_of(["x", END]))
    done = run_hotplex("-C", str(root), "build")
    assert done.status == 2 and "agent-configs/USER.md:6:1" in done.stderr, done.stderr


EXAMPLES = {
    "fenced": f"```markdown\n{START}\n## Learned facts\n\n- editor: vim <!-- learned 2026-11-02 -->\n{END}\n```\n",
    "indented": f"    {START}\n    - editor: vim <!-- learned 2026-11-02 -->\n    {END}\n",
}


@pytest.mark.parametrize("form", sorted(EXAMPLES))
def test_a_block_shown_as_code_is_the_persons_example_not_the_block(root: Path, form) -> None:
    """Markers in a fence or an indented code block are an example the person wrote: learn
    leaves them as written and keeps its block after them; the build reads them as code."""
    example = EXAMPLES[form]
    user = root / "agent-configs/USER.md"
    user.write_text(f"# U\n\nHow it looks:\n\n{example}\nMy own notes after.\n")
    done = run_hotplex("-C", str(root), "learn", "shell=zsh", "--date", "2026-12-01")
    assert done.status == 0, done.stderr
    done = run_hotplex("-C", str(root), "learn", "editor=emacs", "--date", "2026-12-02")
    assert done.status == 0 and "added" in done.stdout and "superseded" not in done.stdout
    text = user.read_text()
    assert text.startswith(f"# U\n\nHow it looks:\n\n{example}\nMy own notes after.\n")
    assert profile.parse(text, "USER.md").facts.keys() == {"shell", "editor"}
    shown = run_hotplex("-C", str(root), "show", "cc")
    assert shown.status == 0, shown.stderr
    assert "- shell: zsh\n" in shown.stdout and "- editor: emacs\n" in shown.stdout
