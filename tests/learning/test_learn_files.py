"""``hotplex learn``'s files, the real command in a copy of the basic example: what a fact must be
to be written (Unicode text, one field once), the order of the history and the profile under a
kill, what stands where the history or the lock belongs, symlinks, and what ``--file`` may name.
(test_learn_command: the command's writes, reports and errors.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hotplex_testing import run_hotplex


@pytest.fixture
def root(example_copy) -> Path:
    return example_copy("basic")


def learn(root: Path, *args: str):
    return run_hotplex("-C", str(root), "learn", *args)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (".USER.md.history.jsonl", "FIFO (named pipe)"),
        (".USER.md.lock", "directory"),
        (".USER.md.lock", "FIFO (named pipe)"),
    ],
)
def test_no_file_where_the_history_or_lock_belongs_is_exit_2_before_a_write(
    root: Path, name: str, kind: str
) -> None:
    """The profile was renamed into place before the history was read: a FIFO there hung with
    USER.md already changed, a directory was an internal error (exit 3), the old value in
    neither; a directory where the lock belongs was exit 1, the code of a refused fact."""
    user = root / "agent-configs/USER.md"
    assert learn(root, "editor=tabs", "--date", "2026-11-01").status == 0
    before = user.read_bytes()
    odd = root / "agent-configs" / name
    odd.unlink(missing_ok=True)
    odd.mkdir() if kind == "directory" else os.mkfifo(odd)
    for args in (("editor=spaces",), ("--restore", "editor")):
        done = run_hotplex("-C", str(root), "learn", *args, "--date", "2026-12-01", timeout=20)
        assert done.status == 2, done.stdout + done.stderr
        assert f"agent-configs/{name}' is a {kind}, not a regular file" in done.stderr
        assert "internal error" not in done.stderr
        assert user.read_bytes() == before


@pytest.mark.parametrize(
    ("lock", "command"),
    [
        ("agent-configs/.USER.md.lock", ("learn", "editor=nano", "--date", "2026-12-03")),
        (".hotplex/lock", ("build",)),
    ],
)
def test_a_lock_that_is_a_link_is_exit_2_and_nothing_written_through_it(
    root: Path, lock: str, command: tuple[str, ...]
) -> None:
    """The lock was opened through the link and the holder's pid written over the first 11
    bytes of the file it named: hotplex.toml broken in place, the run then failing on it."""
    manifest = root / "hotplex.toml"
    before = manifest.read_bytes()
    link = root / lock
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(os.path.relpath(manifest, link.parent))
    done = run_hotplex("-C", str(root), *command)
    assert done.status == 2, done.stdout + done.stderr
    assert f"{lock}' is a symbolic link, not a regular file" in done.stderr, done.stderr
    assert manifest.read_bytes() == before and link.is_symlink()


def test_a_lock_hard_linked_to_a_project_file_is_exit_2_and_nothing_written(root: Path) -> None:
    """A hard link is no symlink to refuse on open: the pid went into the manifest as well."""
    manifest = root / "hotplex.toml"
    before = manifest.read_bytes()
    lock = root / "agent-configs/.USER.md.lock"
    lock.unlink(missing_ok=True)
    os.link(manifest, lock)
    done = learn(root, "editor=nano", "--date", "2026-12-03")
    assert done.status == 2, done.stdout + done.stderr
    assert "agent-configs/.USER.md.lock' is a hard link (2 names)" in done.stderr, done.stderr
    assert manifest.read_bytes() == before


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_text_that_is_no_unicode_is_exit_2_at_its_fact(
    root: Path, tmp_path: Path, dry_run: tuple[str, ...]
) -> None:
    """A lone surrogate (JSON "\\ud800", or bytes that are no UTF-8 in an argument) reached the
    write: exit 3, "a bug in hotplex"; the dry run printed a diff that could not be written."""
    user = root / "agent-configs/USER.md"
    before = user.read_bytes()
    facts = tmp_path / "f.json"
    facts.write_text('[{"key": "s", "value": "\\ud800"}]')
    day = ("--date", "2026-12-05", *dry_run)
    for args, said in (
        (("--facts", str(facts)), "facts[0].value: not Unicode text (a lone surrogate U+D800)"),
        (("k=\udced\udca0\udc80",), "facts[0].value: not Unicode text (a lone surrogate U+DCED)"),
        (("\udcff=v",), "facts[0].key: not Unicode text (a lone surrogate U+DCFF)"),
    ):
        done = learn(root, *args, *day)
        assert done.status == 2, done.stdout + done.stderr
        assert said in done.stderr and "Traceback" not in done.stderr
    assert user.read_bytes() == before


def test_json_nested_past_the_parsers_depth_is_no_list_of_facts(root: Path, tmp_path: Path) -> None:
    """A 200 KB file of brackets was a RecursionError: exit 3."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    done = learn(root, "--facts", str(deep), "--date", "2026-12-05")
    assert done.status == 2, done.stdout + done.stderr
    assert f"{deep}: not a JSON list of" in done.stderr and "Traceback" not in done.stderr


def test_a_fact_object_giving_a_field_twice_is_an_error_at_that_fact(
    root: Path, tmp_path: Path
) -> None:
    """JSON keeps the last of a field given twice: "a" was dropped without a word, "b" learned."""
    facts = tmp_path / "f.json"
    facts.write_text('[{"key": "c", "value": "1"}, {"key": "a", "value": "x", "key": "b"}]')
    done = learn(root, "editor=tabs", "--facts", str(facts), "--date", "2026-12-05")
    assert done.status == 2, done.stdout + done.stderr
    assert "facts[2].key: 'key' is given twice in one fact" in done.stderr
    assert "- b:" not in (root / "agent-configs/USER.md").read_text()


def _block_and_history(root: Path) -> tuple[str, list[str]]:
    block = (root / "agent-configs/USER.md").read_text()
    history = root / "agent-configs/.USER.md.history.jsonl"
    lines = history.read_text().splitlines() if history.exists() else []
    return block, [json.loads(line)["value"] for line in lines]


@pytest.mark.parametrize("point", [1, 2, 3, 4])
def test_a_run_killed_at_any_write_step_loses_no_fact(root: Path, point: int) -> None:
    """The profile was renamed into place before the history was written: a kill between the
    two left the new value in USER.md and the old one nowhere (``--restore`` found nothing).
    Killed before or after each rename, the old value is now in the block or in the history,
    and a rerun ends where an unbroken run does."""
    assert learn(root, "editor=vim", "--date", "2026-11-01").status == 0
    crash = {"HOTPLEX_CRASH_AT": str(point)}
    args = ("-C", str(root), "learn", "editor=emacs", "--date", "2026-12-01")
    killed = run_hotplex(*args, env=crash)
    assert killed.status == -9, killed.stdout + killed.stderr
    block, retired = _block_and_history(root)
    assert "- editor: vim" in block or "vim" in retired, (block, retired)
    assert learn(root, "editor=emacs", "--date", "2026-12-01").status == 0
    block, retired = _block_and_history(root)
    assert "- editor: emacs" in block and set(retired) == {"vim"}
    restored = learn(root, "--restore", "editor", "--date", "2026-12-02")
    assert restored.status == 0 and "- editor: vim" in _block_and_history(root)[0]


def test_a_profile_linked_inside_the_project_is_written_through_its_link(root: Path) -> None:
    """The link was replaced by a regular file: the file it named kept the old facts, and the
    next edit of it went nowhere the build reads. The history's link likewise."""
    folder = root / "agent-configs"
    (folder / "USER.md").rename(folder / "real-user.md")
    (folder / "USER.md").symlink_to("real-user.md")
    (folder / "real-history.jsonl").write_text("")
    (folder / ".USER.md.history.jsonl").symlink_to("real-history.jsonl")
    assert learn(root, "editor=tabs", "--date", "2026-11-01").status == 0
    done = learn(root, "editor=spaces", "--date", "2026-12-01")
    assert done.status == 0, done.stderr
    assert (folder / "USER.md").is_symlink() and (folder / ".USER.md.history.jsonl").is_symlink()
    assert "- editor: spaces" in (folder / "real-user.md").read_text()
    assert json.loads((folder / "real-history.jsonl").read_text())["value"] == "tabs"


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("hotplex.toml", "not a history (JSON Lines, a name ending '.jsonl')"),
        ("agent-configs/AGENTS.md", "not a history"),
        (".hotplex/h.jsonl", "in .hotplex/, the build's own state"),
        ("dist/h.jsonl", "in the out folder 'dist'"),
    ],
)
def test_a_history_linked_to_no_history_is_refused_before_a_write(
    root: Path, target: str, why: str
) -> None:
    """A history linked to the manifest took the retired fact as a JSON line: exit 0, and the
    next build failed on hotplex.toml's TOML. A source, the build's state or an artifact the
    same."""
    assert learn(root, "editor=vim", "--date", "2026-12-01").status == 0
    user = root / "agent-configs/USER.md"
    named = root / target
    named.parent.mkdir(parents=True, exist_ok=True)
    if not named.exists():
        named.write_text("{}\n")
    link = root / "agent-configs/.USER.md.history.jsonl"
    link.unlink(missing_ok=True)
    link.symlink_to(os.path.relpath(named, link.parent))
    before = (named.read_bytes(), user.read_bytes())
    done = learn(root, "editor=emacs", "--date", "2026-12-02")
    assert done.status == 2, done.stdout + done.stderr
    assert f"a symlink to '{target}', which is {why}" in done.stderr, done.stderr
    assert (named.read_bytes(), user.read_bytes()) == before and link.is_symlink()


@pytest.mark.parametrize("name", ["USER.md", ".USER.md.history.jsonl"])
def test_a_link_leaving_the_project_is_refused_before_a_write(
    root: Path, tmp_path: Path, name: str
) -> None:
    """Learn read the file outside the project (which a build refuses) and replaced the link."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "U.md").write_text("# U\n")
    link = root / "agent-configs" / name
    link.unlink(missing_ok=True)
    link.symlink_to(outside / "U.md")
    facts = ("editor=tabs", "--date", "2026-12-01")
    done = learn(root, *facts)
    assert done.status == 2, done.stdout + done.stderr
    assert f"'agent-configs/{name}' resolves to '" in done.stderr and "outside the project" in (
        done.stderr
    )
    assert link.is_symlink() and (outside / "U.md").read_text() == "# U\n"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("hotplex.toml", "not Markdown"),
        (".hotplex/manifest.json", "in .hotplex/, the build's own state"),
        (".hotplex/notes.md", "in .hotplex/, the build's own state"),
        ("dist/codex/AGENTS.md", "in the out folder 'dist'"),
        ("README.md", "outside the sources folder 'agent-configs'"),
        ("agent-configs/notes.txt", "not Markdown"),
        ("{outside}/U.md", "outside the project"),
        ("agent-configs/linked.md", "a symlink to 'hotplex.toml', which is not Markdown"),
        ("agent-configs/U\\SER.md", "holds a backslash"),
    ],
)
def test_file_is_refused_where_no_markdown_source_can_be(
    root: Path, tmp_path: Path, name: str, why: str
) -> None:
    """`--file hotplex.toml` appended a learned block to the manifest, exit 0, and every later
    command failed on its TOML; the build state and artifacts took one as well."""
    assert run_hotplex("-C", str(root), "build").status == 0
    (root / ".hotplex/notes.md").write_text("# n\n")
    (root / "README.md").write_text("# r\n")
    (root / "agent-configs/notes.txt").write_text("n\n")
    (root / "agent-configs/linked.md").symlink_to("../hotplex.toml")
    name = name.format(outside=tmp_path)
    target = Path(name) if name.startswith("/") else root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("# U\n")
    before = target.read_bytes()
    done = run_hotplex("learn", "z=1", "--date", "2026-12-01", "--file", name, cwd=root)
    assert done.status == 2, done.stdout + done.stderr
    assert f"{name}: " in done.stderr and why in done.stderr, done.stderr
    assert target.read_bytes() == before


def test_a_profile_a_build_would_read_cut_is_never_written(root: Path) -> None:
    """learn took a USER.md near 1 MiB past it: a build reads a file only so far (the read cap,
    1 MiB for the example's budgets), cut its block's end marker off and failed on every run."""
    user = root / "agent-configs/USER.md"
    line = "- a note of my long profile\n"
    user.write_text("# U\n\n" + line * ((1 << 20) // len(line) - 2), encoding="utf-8")
    before = user.read_bytes()
    done = learn(root, "editor=vim", "shell=zsh", "tz=Europe/Berlin", "--date", "2026-12-01")
    assert done.status == 2, done.stdout + done.stderr
    assert "past the 1,048,576 a build reads of a file" in done.stderr
    assert user.read_bytes() == before
    assert run_hotplex("-C", str(root), "build").status in (0, 1)
    assert not (root / "agent-configs/.USER.md.history.jsonl").exists()
