"""The commands users run, driven through the installed ``hotplex``: show, stats, init, check --diff,
build --json, watch, and what reaches a terminal (colour, NO_COLOR, the progress line)."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hotplex_testing import HOTPLEX, REPO

ESC = "\x1b["
ERASE_LINE = "\r\x1b[2K"
NINE_PLATFORMS = (
    '[variants]\nplatforms = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]\n\n'
    '[[target]]\nname = "cc"\nworker = "claude-code"\n'
)


def _text(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --- show -------------------------------------------------------------------------------------


def test_show_prints_the_artifact_a_build_writes_and_writes_nothing(example_copy, hotplex):
    root = example_copy("basic")
    before = _tree(root)
    shown = hotplex("-C", str(root), "show", "cc", "--platform", "slack")
    assert shown.status == 0, shown.stderr
    assert _tree(root) == before
    assert hotplex("-C", str(root), "build").status == 0
    assert shown.stdout == _text(root, "dist/cc/slack/prompt.xml")
    base = hotplex("-C", str(root), "show", "ocs")
    assert base.stdout == _text(root, "dist/ocs/default/payload.json")


def test_show_names_the_platforms_when_one_is_wrong(example_copy, hotplex):
    result = hotplex("-C", str(example_copy("basic")), "show", "cc", "--platform", "slak")
    assert result.status == 2
    assert "no platform 'slak'" in result.stderr and "did you mean 'slack'?" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_show_overlay_refuses_a_file_that_never_ends(example_copy, hotplex, tmp_path, kind):
    """Read as a source is: a device or a FIFO is refused at once, never read (or waited on)."""
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "pipe.md"
        os.mkfifo(path)
    root = example_copy("basic")
    result = hotplex("-C", str(root), "show", "cc", "--overlay", f"USER.md={path}", timeout=10)
    assert result.status == 2 and result.stdout == ""
    assert f"overlay:USER.md: '{path}' is a" in result.stderr
    assert "not a regular file" in result.stderr


def test_show_overlay_given_twice_for_one_file_is_an_error(example_copy, hotplex, tmp_path):
    one, two = tmp_path / "one.md", tmp_path / "two.md"
    one.write_text("one", encoding="utf-8")
    two.write_text("two", encoding="utf-8")
    root = example_copy("basic")
    args = ("--overlay", f"USER.md={one}", "--overlay", f"USER.md={two}")
    result = hotplex("-C", str(root), "show", "cc", *args)
    assert result.status == 2
    assert f"--overlay USER.md is given twice ({one}, {two})" in result.stderr


def test_show_overlay_with_an_unknown_key_names_the_key_not_the_file(example_copy, hotplex):
    """``--overlay a=b=c`` splits on the first '=': the unknown FILE 'a' is the error, reported
    before the missing PATH 'b=c' is read."""
    root = example_copy("basic")
    result = hotplex("-C", str(root), "show", "cc", "--overlay", "a=b=c")
    assert result.status == 2 and result.stdout == ""
    assert "overlay:a: overlay 'a' is not a file this project reads" in result.stderr
    assert "b=c" not in result.stderr
    known = hotplex("-C", str(root), "show", "cc", "--overlay", "USER.md=b=c")
    assert known.status == 2 and "overlay:USER.md: cannot read 'b=c': no such file" in known.stderr


def test_show_into_a_closed_pipe_is_quiet(example_copy):
    root = example_copy("basic")
    done = subprocess.run(
        f"'{HOTPLEX}' -C '{root}' show cc | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.stdout == "<agent-con"
    assert all(line.startswith("note: ") for line in done.stderr.splitlines()), done.stderr


# --- stats ------------------------------------------------------------------------------------

BIG_PROJECT = {
    "agent-configs/SOUL.md": "人格" * 1500,  # 3000 chars, all CJK
    "agent-configs/AGENTS.md": "rule line\n" * 250,  # 2499 chars once its last newline is trimmed
    "agent-configs/USER.md": "short user note\n",
}
BIG_MANIFEST = (
    '[limits]\nper_file = 2000\ntotal = 6000\n\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
)


def test_stats_json_shows_sizes_shares_tokens_and_cuts(make_project, hotplex):
    root = make_project(BIG_PROJECT, manifest=BIG_MANIFEST)
    result = hotplex("-C", str(root), "stats", "--json")
    assert result.status == 0, result.stderr
    art, shared = json.loads(result.stdout)["artifacts"]
    assert shared["artifact"] == "cc/default/subagent.xml"  # what every sub-agent gets
    assert (art["artifact"], art["per_file"], art["total"], art["unit"]) == (
        "cc/default",
        2000,
        6000,
        "chars",
    )
    sections = {s["name"]: s for s in art["sections"]}
    assert list(sections) == ["metacognition", "soul", "rules", "user"]
    soul, rules, user = sections["soul"], sections["rules"], sections["user"]
    assert (soul["raw"], soul["size"], soul["share_of_file_limit"]) == (3000, 2000, 1.0)
    assert soul["truncations"] == ["per_file: 3000→2000"]
    assert rules["truncations"][0] == "per_file: 2499→2000"
    assert user["truncations"] == [] and user["share_of_total"] == round(user["size"] / 6000, 4)
    # CJK text costs about a token per character, ASCII about one per four.
    assert 1900 <= soul["tokens"] <= 2000
    assert user["tokens"] == -(-len("short user note") // 4)
    assert art["size"] == sum(s["size"] for s in art["sections"])
    assert art["size"] <= 6000 and art["share_of_total"] == round(art["size"] / 6000, 4)
    built = hotplex("-C", str(root), "build", "--json")
    [report] = [a for a in json.loads(built.stdout)["artifacts"] if a["path"] == art["path"]]
    assert report["truncations"] == art["truncations"]
    assert art["document"] == len(_text(root, art["path"]))


def test_stats_table_has_a_row_per_section_and_totals(make_project, hotplex):
    root = make_project(BIG_PROJECT, manifest=BIG_MANIFEST)
    table = hotplex("-C", str(root), "stats")
    assert table.status == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == [
        "artifact",
        "section",
        "size",
        "unit",
        "%file",
        "%total",
        "≈tokens",
        "truncated",
        "comments",
        "files",
    ]
    soul = next(line for line in lines if " soul " in line)
    assert re.search(
        r"cc/default\s+soul\s+2000\s+chars\s+100%\s+33%\s+\d+\s+per_file: 3000→2000", soul
    )
    assert soul.endswith("agent-configs/SOUL.md")
    assert any(re.match(r"cc/default\s+\(sections\)\s+\d+\s+chars\s+\d+%", line) for line in lines)
    assert any(line.startswith("cc/default") and "(document)" in line for line in lines)
    assert "limits for claude-code: per file 2000, total 6000 chars" in lines
    assert not any(ESC in line for line in lines)


def test_stats_of_an_unknown_target_suggests_one(example_copy, hotplex):
    result = hotplex("-C", str(example_copy("basic")), "stats", "oc")
    assert result.status == 2 and "did you mean 'ocs'?" in result.stderr


def test_a_target_named_twice_is_counted_once(example_copy, hotplex):
    """The no-op path counted `build cc cc` as six sets up to date; the full one as three
    (adversary14 D5)."""
    root = str(example_copy("basic"))
    assert hotplex("-C", root, "build").status == 0
    assert "0 rebuilt, 3 up to date" in hotplex("-C", root, "build", "cc", "cc").stdout
    assert "3 artifact set(s) up to date" in hotplex("-C", root, "check", "cc", "cc", "cc").stdout


# --- init -------------------------------------------------------------------------------------

FIVE = ("SOUL.md", "AGENTS.md", "SKILLS.md", "USER.md", "MEMORY.md")
SCAFFOLD = ["hotplex.toml", *(f"agent-configs/{n}" for n in FIVE), ".gitignore"]


def test_init_scaffolds_a_project_that_builds_at_once(tmp_path, hotplex):
    result = hotplex("-C", str(tmp_path), "init", "agents")
    assert result.status == 0, result.stderr
    root = tmp_path / "agents"
    assert sorted(_tree(root)) == sorted(SCAFFOLD)
    for rel in SCAFFOLD:
        assert f"created {rel}" in result.stdout
    assert "next: hotplex -C agents build" in result.stdout
    built = hotplex("-C", str(root), "build")
    assert built.status == 0, built.stderr
    assert "warning" not in built.stderr
    assert hotplex("-C", str(root), "check").status == 0
    prompt = _text(root, "dist/cc/slack/prompt.xml")
    assert "focused on backend work" in prompt and "communicate in English" in prompt
    assert "{{" not in prompt and "version: 1" not in prompt  # rendered, frontmatter stripped
    assert _text(root, "agent-configs/SOUL.md").count("{{ project_type }}") == 1
    payload = json.loads(_text(root, "dist/ocs/webchat/payload.json"))
    assert "Main languages**: Python, TypeScript" in payload["system"]


def test_init_never_overwrites_and_says_what_it_left_alone(tmp_path, hotplex):
    (tmp_path / "agent-configs").mkdir()
    (tmp_path / "agent-configs" / "SOUL.md").write_text("my own soul\n", encoding="utf-8")
    (tmp_path / "agent-configs" / "USER.md").symlink_to(tmp_path / "nowhere.md")  # dangling
    result = hotplex("-C", str(tmp_path), "init")
    assert result.status == 0, result.stderr
    assert "exists  agent-configs/SOUL.md (left alone)" in result.stdout
    assert "exists  agent-configs/USER.md (left alone)" in result.stdout
    assert "created 5 file(s), left 2 alone; next: hotplex build" in result.stdout
    assert _text(tmp_path, "agent-configs/SOUL.md") == "my own soul\n"
    assert not (tmp_path / "nowhere.md").exists()
    before = _tree(tmp_path)
    again = hotplex("-C", str(tmp_path), "init")
    assert again.status == 0 and "created 0 file(s), left 7 alone" in again.stdout
    assert _tree(tmp_path) == before


def test_init_with_chosen_workers_and_a_name_that_needs_quoting(tmp_path, hotplex):
    result = hotplex(
        "init", str(tmp_path / "p"), "--worker", "opencode-server", "--name", 'say "hi" \\o/'
    )
    assert result.status == 0, result.stderr
    import tomllib

    manifest = tomllib.loads(_text(tmp_path / "p", "hotplex.toml"))
    assert manifest["project"]["name"] == 'say "hi" \\o/'
    assert [t["worker"] for t in manifest["target"]] == ["opencode-server"]
    assert hotplex("-C", str(tmp_path / "p"), "build").status == 0


def test_init_writes_a_name_of_control_characters_as_toml_reads_it(tmp_path, hotplex):
    """DEL needs escaping in TOML and not in JSON; U+0085 and a bidi override need neither."""
    import tomllib

    name = "a\x7fb\u0085c\u202ed\x1b[31m"
    result = hotplex("init", str(tmp_path / "p"), "--worker", "opencode-server", "--name", name)
    assert result.status == 0, result.stderr
    assert tomllib.loads(_text(tmp_path / "p", "hotplex.toml"))["project"]["name"] == name


def test_init_rejects_an_unknown_worker(tmp_path, hotplex):
    result = hotplex("-C", str(tmp_path), "init", "--worker", "claude")
    assert result.status == 2 and "init knows no worker 'claude'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_for_openclaw_writes_its_workspace_templates(tmp_path, hotplex):
    openclaw_templates = pytest.importorskip("hotplex.targets.openclaw.templates")
    result = hotplex("-C", str(tmp_path), "init", "--worker", "openclaw", "--worker", "claude-code")
    assert result.status == 0, result.stderr
    theirs = {
        rel: text
        for rel, text in openclaw_templates.workspace_templates(brand_new=True).items()
        if rel in ("IDENTITY.md", "BOOTSTRAP.md")  # what OpenClaw 2026.9 loads beyond the five
    }
    for rel, text in theirs.items():
        assert f"created agent-configs/{rel}" in result.stdout
        assert _text(tmp_path, f"agent-configs/{rel}") == text
    for rel in ("TOOLS.md", "HEARTBEAT.md"):  # 2026.9 loads neither: no file nobody reads
        assert rel not in result.stdout and not (tmp_path / "agent-configs" / rel).exists()
    assert "\n[[source]]" not in _text(tmp_path, "hotplex.toml")  # the defaults do: none declared
    built = hotplex("-C", str(tmp_path), "build")
    assert built.status == 0, built.stderr
    assert built.stderr == ""  # each target keeps only the files its worker reads: no warnings
    context = _text(tmp_path, "dist/claw/slack/context.md")
    assert theirs["IDENTITY.md"].strip().splitlines()[0] in context
    assert "<identity>" not in _text(tmp_path, "dist/cc/slack/prompt.xml")
    assert "focused on backend work" in _text(tmp_path, "dist/cc/slack/prompt.xml")


def test_init_for_openclaw_in_a_used_folder_adds_no_first_run_file(tmp_path, hotplex):
    pytest.importorskip("hotplex.targets.openclaw.templates")
    (tmp_path / "agent-configs").mkdir()
    (tmp_path / "agent-configs" / "IDENTITY.md").write_text("I am Clawd.\n", encoding="utf-8")
    result = hotplex("-C", str(tmp_path), "init", "--worker", "openclaw")
    assert result.status == 0, result.stderr
    assert "exists  agent-configs/IDENTITY.md (left alone)" in result.stdout
    assert _text(tmp_path, "agent-configs/IDENTITY.md") == "I am Clawd.\n"
    assert not (tmp_path / "agent-configs" / "BOOTSTRAP.md").exists()
    assert "created agent-configs/SKILLS.md" not in result.stdout  # OpenClaw does not read it
    built = hotplex("-C", str(tmp_path), "build")
    assert built.status == 0 and built.stderr == "", built.stderr
    assert "I am Clawd." in _text(tmp_path, "dist/claw/default/context.md")


def test_init_stops_with_an_error_when_a_folder_name_is_taken_by_a_file(tmp_path, hotplex):
    (tmp_path / "agent-configs").write_text("not a folder\n", encoding="utf-8")
    result = hotplex("-C", str(tmp_path), "init")
    assert result.status == 2 and "is a file" in result.stderr and "Traceback" not in result.stderr
    assert _text(tmp_path, "agent-configs") == "not a folder\n"


def test_stats_uses_the_budgets_a_worker_declares(tmp_path, hotplex):
    assert hotplex("-C", str(tmp_path), "init", "--worker", "openclaw").status == 0
    result = hotplex("-C", str(tmp_path), "stats", "--json", "claw")
    assert result.status == 0, result.stderr
    arts = json.loads(result.stdout)["artifacts"]
    from hotplex import Project, registry

    manifest = Project.load(tmp_path).model.manifest
    budgets = registry.workers()["openclaw"].budgets(manifest.target[0], manifest)
    expected = (budgets.per_file, budgets.total)
    assert expected != (8000, 40000)  # not the manifest's [limits]
    assert {(a["per_file"], a["total"], a["unit"]) for a in arts} == {(*expected, "utf16")}
    table = hotplex("-C", str(tmp_path), "stats", "claw").stdout
    assert f"limits for openclaw: per file {expected[0]}, total {expected[1]} utf16" in table


# --- check --diff and build --json -------------------------------------------------------------


def test_check_diff_shows_what_a_build_would_change_per_artifact(example_copy, hotplex):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    with (root / "agent-configs" / "USER.md").open("a", encoding="utf-8") as user:
        user.write("\nPrefers short answers.\n")
    before = _tree(root)
    result = hotplex("-C", str(root), "check", "--diff")
    assert result.status == 1
    assert _tree(root) == before
    for job in ("cc/default", "cc/slack", "cc/feishu"):
        path = f"dist/{job}/prompt.xml"
        assert f"stale: {path} (agent-configs/USER.md changed)" in result.stdout
        assert f"--- a/{path}\n+++ b/{path}\n@@ " in result.stdout
    assert result.stdout.count("\n+Prefers short answers.\n") == 3
    ocs = result.stdout.split("--- a/dist/ocs/slack/payload.json\n", 1)[1]
    assert re.match(
        r"\+\+\+ b/dist/ocs/slack/payload.json\n@@ [^\n]*\n(?:[ -][^\n]*\n)*"
        r'\+  "system": "[^\n]*Prefers short answers',
        ocs,
    )
    assert "run: hotplex -C" in result.stdout.splitlines()[-1]
    plain = hotplex("-C", str(root), "check")
    assert plain.status == 1 and "@@" not in plain.stdout


def test_build_json_reports_each_artifact(make_project, hotplex):
    root = make_project(BIG_PROJECT, manifest=BIG_MANIFEST)
    first = hotplex("-C", str(root), "build", "--json")
    assert first.status == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["errors"] == [] and report["deleted"] == []
    by_path = {a["path"]: a for a in report["artifacts"]}
    assert set(by_path) == {
        "dist/cc/default/prompt.xml",
        "dist/cc/default/subagent.xml",
        "dist/cc/default/launch.json",
    }
    for path, art in by_path.items():
        data = (root / path).read_bytes()
        assert art["sha256"] == hashlib.sha256(data).hexdigest() and art["bytes"] == len(data)
        assert art["rebuilt"] is True and art["reason"] == "not built before"
        assert (art["target"], art["worker"], art["platform"]) == ("cc", "claude-code", None)
    cuts = by_path["dist/cc/default/prompt.xml"]["truncations"]
    assert {
        "section": "soul",
        "files": ["agent-configs/SOUL.md"],
        "limit": "per_file",
        "before": 3000,
        "after": 2000,
        "unit": "chars",
        "style": "marker",
    } in cuts
    assert by_path["dist/cc/default/launch.json"]["truncations"] == []
    again = {
        a["path"]: a
        for a in json.loads(hotplex("-C", str(root), "build", "--json").stdout)["artifacts"]
    }
    assert {p: (a["rebuilt"], a["sha256"]) for p, a in again.items()} == {
        p: (False, a["sha256"]) for p, a in by_path.items()
    }


def test_build_json_reports_errors_as_json(make_project, hotplex):
    root = make_project(manifest='[[target]]\nname = "cc"\nworker = "claude-cod"\n')
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 2
    report = json.loads(result.stdout)
    assert report["artifacts"] == []
    [error] = report["errors"]
    assert error["file"] == "hotplex.toml" and error["key"] == "target[0].worker"


def test_build_json_writes_an_errors_text_as_its_other_documents_do(make_project, hotplex):
    """Through json_writer.json_text, as the document of a build that succeeds: what prints as itself
    (a name beyond ASCII), not as a \\u escape."""
    root = make_project(manifest='[[target]]\nname = "cc"\nworker = "clàude"\n')
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 2
    assert "clàude" in result.stdout and "\\u00e0" not in result.stdout
    assert "clàude" in json.loads(result.stdout)["errors"][0]["message"]


def test_names_differing_only_in_letter_case_are_refused_as_one_folder(make_project, hotplex):
    """``dist/Pi/`` and ``dist/pi/`` are one folder on macOS and Windows: the second set would
    overwrite the first. Refused at the key, naming both, as places are compared."""
    manifest = (
        '[variants]\nplatforms = ["Slack", "slack"]\n'
        '[[target]]\nname = "Pi"\nworker = "pi"\n[[target]]\nname = "pi"\nworker = "pi"\n'
    )
    root = make_project({"agent-configs/SOUL.md": "S\n"}, manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 2 and not (root / "dist").exists()
    assert (
        "hotplex.toml: target[1].name: target names 'Pi' and 'pi' differ only in letter case:"
        " dist/Pi/ and dist/pi/ are one folder on a case-insensitive file system" in result.stderr
    )
    assert "variants.platforms: platforms 'Slack' and 'slack' differ only in letter case" in (
        result.stderr
    )


def test_a_target_name_s_first_character_rule_is_said(make_project, hotplex):
    root = make_project(
        {"agent-configs/SOUL.md": "S\n"}, '[[target]]\nname = ".x"\nworker = "pi"\n'
    )
    result = hotplex("-C", str(root), "build")
    assert result.status == 2 and "starting with a letter or digit" in result.stderr


def test_directory_and_manifest_options_also_work_after_the_command(example_copy, hotplex):
    root = example_copy("basic")
    assert hotplex("build", "-C", str(root)).status == 0
    assert hotplex("-C", "/nonexistent", "check", "-C", str(root)).status == 0
    assert hotplex("check", "-C", str(root), "-f", "hotplex.toml").status == 0


def test_the_manifest_through_a_symlinked_folder_is_the_same_manifest(example_copy, hotplex):
    """adversary22 D9: ``-C proj -f ../link/hotplex.toml`` (``link`` -> ``proj``) was refused as
    another manifest's build state; it is the same file, as it is without ``-C``."""
    root = example_copy("basic")
    link = root.parent / "link"
    link.symlink_to(root.name)
    assert hotplex("-C", str(root), "build").status == 0
    again = hotplex("-C", str(root), "-f", "../link/hotplex.toml", "build")
    assert again.status == 0, again.stderr
    assert "0 rebuilt, 6 up to date" in again.stdout
    assert hotplex("-C", str(root), "-f", "../link/hotplex.toml", "clean").status == 0


def test_a_manifest_path_ending_in_a_slash_names_a_folder(example_copy, hotplex):
    """adversary22 D10: ``-f proj/hotplex.toml/`` was said not to exist (the OS's ENOTDIR)."""
    root = example_copy("basic")
    result = hotplex("-f", f"{root}/hotplex.toml/", "check")
    assert result.status == 2
    assert "names a folder, not a file" in result.stderr
    assert f"did you mean '{root}/hotplex.toml'" in result.stderr


# --- the terminal: colour, NO_COLOR, the progress line -----------------------------------------


def _run_on_terminal(args: list[str], env: dict[str, str], tty: str) -> tuple[int, str, str]:
    """Run hotplex with ``tty`` ("stdout" or "stderr") on a pseudo-terminal, the other on a pipe."""
    master, slave = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, tty: slave}
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm"} | env
    proc = subprocess.Popen([str(HOTPLEX), *args], env=full_env, **streams)
    os.close(slave)
    captured = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        captured += chunk
    os.close(master)
    piped = (proc.stdout or proc.stderr).read()
    status = proc.wait(timeout=30)
    on_tty = captured.decode("utf-8").replace("\r\n", "\n")
    other = piped.decode("utf-8")
    return (status, on_tty, other) if tty == "stdout" else (status, other, on_tty)


def test_colour_only_on_a_terminal_and_never_with_no_color(example_copy, hotplex):
    root = example_copy("basic")
    status, out, _ = _run_on_terminal(["-C", str(root), "build"], {}, "stdout")
    assert status == 0 and f"{ESC}32mbuilt{ESC}0m cc/slack" in out
    (root / "agent-configs" / "USER.md").write_text("changed\n", encoding="utf-8")
    status, out, _ = _run_on_terminal(["-C", str(root), "check"], {"NO_COLOR": "1"}, "stdout")
    assert status == 1 and "stale: dist/cc/slack/prompt.xml" in out and ESC not in out
    status, out, _ = _run_on_terminal(["-C", str(root), "check"], {"TERM": "dumb"}, "stdout")
    assert status == 1 and ESC not in out
    status, out, _ = _run_on_terminal(["-C", str(root), "check"], {}, "stdout")
    assert f"{ESC}31mstale{ESC}0m: dist/cc/slack/prompt.xml" in out
    piped = subprocess.run(
        [str(HOTPLEX), "-C", str(root), "build"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "NO_COLOR"},
    )
    assert piped.returncode == 0 and "built cc/slack" in piped.stdout and ESC not in piped.stdout


def test_progress_line_on_a_terminal_clears_itself(make_project):
    root = make_project({"agent-configs/SOUL.md": "soul\n"}, manifest=NINE_PLATFORMS)
    status, out, err = _run_on_terminal(["-C", str(root), "build"], {"NO_COLOR": "1"}, "stderr")
    assert status == 0
    assert f"{ERASE_LINE}[1/9] building artifacts" in err
    assert err.endswith(ERASE_LINE)  # nothing of it is left on the screen
    assert "\n" not in err
    assert "9 rebuilt" in out and ESC not in out


def test_no_progress_line_when_stderr_is_no_terminal_or_few_artifacts(make_project, example_copy):
    root = make_project({"agent-configs/SOUL.md": "soul\n"}, manifest=NINE_PLATFORMS)
    status, out, err = _run_on_terminal(["-C", str(root), "build", "--json"], {}, "stdout")
    assert status == 0 and err == "" and json.loads(out)["artifacts"]
    few = example_copy("basic")  # 6 artifacts: too few to need one
    status, _, err = _run_on_terminal(["-C", str(few), "build"], {}, "stderr")
    assert status == 0 and err == ""


# --- watch ------------------------------------------------------------------------------------


class _Lines:
    """Lines of a running process's stdout or stderr, awaited with a deadline (an upper bound:
    each wait ends at the line it waits for)."""

    def __init__(self, stream) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            self._queue.put(line)

    def expect(self, fragment: str, timeout: float = 30.0) -> list[str]:
        """Lines up to and including the first that contains ``fragment``."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            got.append(line)
            self.seen.append(line)
            if fragment in line:
                return got
        raise AssertionError(f"no line with {fragment!r} in {timeout} s; got: {''.join(got)}")


# SIGINT back at its default before hotplex starts: a test run started with SIGINT ignored (a
# background job of a non-interactive shell, as CI scripts start one) passes that on, and Python
# keeps an inherited SIG_IGN, so Ctrl-C would never reach the watch.
_SIGINT_DEFAULT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL);"
    " os.execv(sys.argv[1], sys.argv[1:])"
)


def _watch(root: Path) -> subprocess.Popen[str]:
    """``hotplex watch`` in ``root``, as started from a terminal."""
    command = [str(HOTPLEX), "-C", str(root), "watch", "--debounce", "50"]
    return subprocess.Popen(
        [sys.executable, "-c", _SIGINT_DEFAULT, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _edit(path: Path, text: str) -> None:
    """Replace the file whole, as an editor saves, by a rename from outside the project: the
    watch never sees it half written (a truncated file would be a build of its own)."""
    staged = _project_of(path).parent / f".{path.name}.staged"
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)


def _project_of(path: Path) -> Path:
    return next(p for p in path.parents if (p / "hotplex.toml").is_file())


def test_watch_rebuilds_keeps_going_after_an_error_and_says_when_fixed(example_copy):
    pytest.importorskip("watchfiles")
    root = example_copy("basic")
    proc = _watch(root)
    try:
        lines, errors = _Lines(proc.stdout), _Lines(proc.stderr)
        assert "6 rebuilt" in "".join(lines.expect("watching"))
        user, soul = root / "agent-configs" / "USER.md", root / "agent-configs" / "SOUL.md"
        _edit(user, "Prefers tabs.\n")
        cycle = "".join(lines.expect("changes take effect for the next session"))
        assert "changed: agent-configs/USER.md" in cycle and "6 rebuilt" in cycle
        assert "Prefers tabs." in _text(root, "dist/cc/slack/prompt.xml")
        good = soul.read_text(encoding="utf-8")
        _edit(soul, good + "\n{{ no_such_variable }}\n")
        assert "changed: agent-configs/SOUL.md" in "".join(lines.expect("build failed"))
        assert "no_such_variable" in "".join(errors.expect("SOUL.md"))
        assert "Prefers tabs." in _text(root, "dist/cc/slack/prompt.xml")  # last good build
        _edit(soul, good + "\nFixed now.\n")
        assert "changed: agent-configs/SOUL.md" in "".join(lines.expect("fixed"))
        assert "Fixed now." in _text(root, "dist/ocs/feishu/payload.json")
        proc.send_signal(signal.SIGINT)
        lines.expect("stopped watching")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
    assert not any("Traceback" in line for line in errors.seen)
    # Its own output (dist/, .hotplex/) never triggered a build.
    assert sum("changed:" in line for line in lines.seen) == 3


def test_watch_reports_a_new_file_no_artifact_reads_when_it_appears(example_copy):
    pytest.importorskip("watchfiles")
    root = example_copy("basic")
    proc = _watch(root)
    try:
        lines, errors = _Lines(proc.stdout), _Lines(proc.stderr)
        lines.expect("watching")
        (root / "agent-configs" / "NOTES.md").write_text("Ideas.\n", encoding="utf-8")
        assert "agent-configs/NOTES.md is read by no artifact" in "".join(errors.expect("NOTES"))
        cycle = "".join(lines.expect("up to date"))
        assert "changed: agent-configs/NOTES.md" in cycle and "0 rebuilt" in cycle
        (root / "agent-configs" / "NOTES.md").unlink()  # the warning goes: said, too
        assert "changed: agent-configs/NOTES.md" in "".join(lines.expect("up to date"))
    finally:
        proc.kill()
        proc.wait()
    assert not any("take effect" in line for line in lines.seen)  # no artifact changed


def test_watch_reacts_only_to_what_can_change_an_artifact(example_copy):
    """``hotplex watch > watch.out`` inside the project: its own output, and files that can be
    no source (notes.txt, src/main.py beside a dedicated sources folder), never start a build;
    was: every line written to watch.out started the next build, endlessly."""
    pytest.importorskip("watchfiles")
    root = example_copy("basic")
    out = root / "watch.out"
    command = [str(HOTPLEX), "-C", str(root), "watch", "--debounce", "50"]
    with out.open("w", encoding="utf-8") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SIGINT_DEFAULT, *command],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
    try:
        _await_text(out, "watching")
        (root / "notes.txt").write_text("mine\n", encoding="utf-8")
        (root / "src").mkdir()
        (root / "src" / "main.py").write_text("print()\n", encoding="utf-8")
        _edit(root / "agent-configs" / "USER.md", "Prefers tabs.\n")
        _await_text(out, "changes take effect for the next session")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
    changed = [line for line in out.read_text("utf-8").splitlines() if "changed:" in line]
    assert len(changed) == 1 and "changed: agent-configs/USER.md" in changed[0], changed
    assert "notes.txt" not in changed[0] and "main.py" not in changed[0]


def _await_text(path: Path, fragment: str, timeout: float = 30.0) -> None:
    """Wait until ``path`` holds ``fragment`` (a file a process writes to; an upper bound)."""
    deadline = time.monotonic() + timeout
    while fragment not in path.read_text("utf-8"):
        assert time.monotonic() < deadline, f"no {fragment!r} in {path}: {path.read_text('utf-8')}"
        time.sleep(0.02)


def test_ctrl_c_during_a_watch_build_says_what_it_finished(example_copy):
    pytest.importorskip("watchfiles")
    root = example_copy("basic")
    # Ctrl-C at the 9th write step of the first build: as the first set's record is appended
    # (its three files written: prompt.xml, subagent.xml, launch.json).
    crash = {"HOTPLEX_CRASH_AT": "9", "HOTPLEX_CRASH_SIGNAL": "INT", "NO_COLOR": "1"}
    done = subprocess.run(
        [str(HOTPLEX), "-C", str(root), "watch"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **crash},
    )
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "  built cc/default: dist/cc/default/prompt.xml, dist/cc/default/subagent.xml,"
        " dist/cc/default/launch.json",
        "hotplex: stopped watching",
    ]
    assert "hotplex: interrupted: 1 artifact set(s) rebuilt, 5 of 6 not reached" in done.stderr


def test_watch_function_runs_a_set_number_of_cycles(example_copy):
    pytest.importorskip("watchfiles")
    from hotplex.build import Request
    from hotplex.commands.watch import watch

    root = example_copy("basic")
    cycles, ready, counted = [], threading.Event(), []
    runner = threading.Thread(
        target=lambda: counted.append(
            watch(Request(root), cycles.append, ready.set, quiet_ms=50, max_cycles=2)
        )
    )
    runner.start()
    assert ready.wait(5)
    (root / "agent-configs" / "SOUL.slack.md").unlink()
    runner.join(5)
    assert counted == [2]
    assert [c.number for c in cycles] == [1, 2]
    assert cycles[1].changes == ("agent-configs/SOUL.slack.md",)
    assert [j.id for j in cycles[1].outcome.jobs if j.rebuilt] == ["cc/slack", "ocs/slack"]


def test_watch_without_watchfiles_says_how_to_install_it(example_copy):
    code = (
        "import sys; sys.modules['watchfiles'] = None\n"
        "from hotplex.cli import main\n"
        f"sys.exit(main(['-C', {str(example_copy('basic'))!r}, 'watch']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "pip install 'hotplex[watch]'" in done.stderr and "Traceback" not in done.stderr


# --- the CI example ---------------------------------------------------------------------------

WORKFLOW = REPO / "examples" / "ci" / ".github" / "workflows" / "hotplex.yml"
_ENV_EXPR = re.compile(r"\$\{\{\s*env\.(\w+)\s*\}\}")
_FAILED_STEP = re.compile(r"steps\.([\w-]+)\.outcome == 'failure'")


def _run_workflow(repo: Path) -> tuple[bool, dict[str, str], str]:
    """Run the example workflow's steps as GitHub Actions would, on ``repo``, without network.

    Returns (job succeeded, outcome per step name, everything the steps printed). Actions are
    not run; the upload's paths must exist. The install step is skipped: hotplex is installed.
    """
    workflow = pytest.importorskip("yaml").safe_load(WORKFLOW.read_text(encoding="utf-8"))
    [job] = workflow["jobs"].values()
    env = {**os.environ, **workflow["env"], "NO_COLOR": ""}
    env["PATH"] = f"{HOTPLEX.parent}{os.pathsep}{env['PATH']}"
    outcomes: dict[str, str] = {}
    by_id: dict[str, str] = {}
    failed, log = False, ""
    for step in job["steps"]:
        name = step.get("name") or step["uses"]
        condition = step.get("if")
        if condition is not None:
            wanted = _FAILED_STEP.fullmatch(condition)
            assert wanted, f"the test runner does not understand if: {condition}"
            if by_id.get(wanted.group(1)) != "failure":
                continue
        elif failed:
            continue
        if "uses" in step:
            if step["uses"].startswith("actions/upload-artifact"):
                paths = _ENV_EXPR.sub(lambda m: workflow["env"][m.group(1)], step["with"]["path"])
                assert all((repo / p).exists() for p in paths.split()), paths
            continue
        if "pip install" in step["run"]:
            continue
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        log += done.stdout + done.stderr
        outcomes[name] = "success" if done.returncode == 0 else "failure"
        if "id" in step:
            by_id[step["id"]] = outcomes[name]
        failed = failed or (done.returncode != 0 and not step.get("continue-on-error"))
    return not failed, outcomes, log


def test_ci_workflow_builds_uploads_and_passes_when_current(example_copy, hotplex):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    ok, outcomes, log = _run_workflow(root)
    assert ok, log
    assert outcomes["Check the committed artifacts"] == "success"
    report = json.loads(_text(root, "hotplex-report.json"))
    assert report["errors"] == [] and len(report["artifacts"]) == 12
    assert "::warning" not in log and "::error" not in log


def test_ci_workflow_uploads_and_fails_on_stale_artifacts(example_copy, hotplex):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    (root / "agent-configs" / "SOUL.md").write_text("A new persona.\n", encoding="utf-8")
    ok, outcomes, log = _run_workflow(root)
    assert not ok
    assert outcomes["Check the committed artifacts"] == "failure"
    assert outcomes["Build"] == "success" and outcomes["Fail on stale artifacts"] == "failure"
    assert "stale: dist/cc/slack/prompt.xml" in log and "+A new persona." in log
    assert "::error::committed artifacts are stale" in log
    assert "A new persona." in _text(root, "dist/cc/slack/prompt.xml")  # what was uploaded


def test_ci_workflow_annotates_each_truncation(make_project, hotplex):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (GitHub's runners have it)")
    root = make_project(BIG_PROJECT, manifest=BIG_MANIFEST)
    ok, outcomes, log = _run_workflow(root)
    assert not ok and outcomes["Check the committed artifacts"] == "failure"  # never built
    assert outcomes["Report truncations"] == "success"
    assert (
        "::warning file=./agent-configs/SOUL.md::dist/cc/default/prompt.xml: soul cut 3000 → 2000"
        " chars by limits.per_file" in log
    )


def test_the_command_flushes_all_it_says_and_a_profiler_still_writes_its_report(
    hotplex, example_copy, tmp_path
):
    """The command ends without the interpreter's teardown once its streams are flushed: a long
    output piped away arrives whole, and under cProfile (which writes at the usual exit) the
    profile is still written."""
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    shown = hotplex("-C", str(root), "show", "cc")
    assert shown.status == 0
    assert shown.stdout == (root / "dist" / "cc" / "default" / "prompt.xml").read_text("utf-8")
    profile = tmp_path / "build.prof"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cProfile",
            "-o",
            str(profile),
            str(HOTPLEX),
            "-C",
            str(root),
            "build",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    assert profile.stat().st_size > 0


@pytest.mark.parametrize("closed", [">&-", "2>&-"])
def test_a_command_run_with_a_stream_closed_keeps_its_exit_status(example_copy, closed):
    """A hook may start hotplex with stdout or stderr closed: nothing to flush there, and the
    status is the command's (0 built, 2 a bad directory), never a traceback's 1."""
    root = example_copy("basic")
    for argv, status in (
        (f"-C '{root}' build", 0),
        (f"-C '{root}' check", 0),
        ("-C /no/such build", 2),
    ):
        done = subprocess.run(
            ["sh", "-c", f"exec '{HOTPLEX}' {argv} {closed}"], capture_output=True, text=True
        )
        assert done.returncode == status, (argv, closed, done.stderr)
        assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_message_stderr_cannot_take_leaves_the_exit_status_as_it_is(example_copy):
    """A full stderr lost the message by an exception, whose exit status 1 hid a usage error's
    2 (adversary14 D8): the status is the command's."""
    root = example_copy("basic")
    for argv, status in ((f"-C '{root}' build nosuch", 2), ("build -j 1_0", 2)):
        done = subprocess.run(["sh", "-c", f"exec '{HOTPLEX}' {argv} 2>/dev/full"])
        assert done.returncode == status, argv


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", ["show cc", "build --json"])
def test_output_to_a_full_disk_is_a_failure_said_in_one_line(example_copy, command):
    root = example_copy("basic")
    done = subprocess.run(
        ["sh", "-c", f"exec '{HOTPLEX}' -C '{root}' {command} > /dev/full"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "hotplex: its output could not be written: No space left on device"
    )
    assert "bug" not in done.stderr


# What a terminal would obey or reorder in a name: an escape sequence, U+0085, a bidi override.
ODD = "o\x1b[31mu\u0085t\u202e"
ODD_SHOWN = "o<U+001B>[31mu<U+0085>t<U+202E>"


def _unobeyed(text: str) -> None:
    assert not any(c in text for c in "\x1b\u0085\u202e"), text
    assert ODD_SHOWN in text, text


def test_terminal_output_shows_control_characters_in_names_escaped(example_copy, hotplex):
    """Build lines, the --json document, clean's list and an error: each names the folder,
    none hands the terminal its characters (the JSON as escapes that read back exact)."""
    root = example_copy("basic")
    manifest = root / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8").replace('out = "dist"\n', "")
    manifest.write_text(text.replace("[project]\n", f"[project]\nout = {json.dumps(ODD)}\n", 1))
    built = hotplex("-C", str(root), "build")
    assert built.status == 0, built.stderr
    _unobeyed(built.stdout)
    (root / ODD / "cc/default/prompt.xml").write_text("hand-edited\n", encoding="utf-8")
    checked = hotplex("-C", str(root), "check")
    assert checked.status == 1
    _unobeyed(checked.stdout)
    as_json = hotplex("-C", str(root), "build", "--json")
    assert not any(c in as_json.stdout for c in "\x1b\u0085\u202e")
    paths = [a["path"] for a in json.loads(as_json.stdout)["artifacts"]]
    assert paths and all(p.startswith(f"{ODD}/") for p in paths)
    cleaned = hotplex("-C", str(root), "clean")
    _unobeyed(cleaned.stdout)
    odd_sources = f"sources = {json.dumps(ODD + '-gone')}\n"
    manifest.write_text(text.replace('sources = "agent-configs"\n', odd_sources))
    failed = hotplex("-C", str(root), "build")
    assert failed.status == 2
    _unobeyed(failed.stderr)


def _interrupt(*_args) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["build", "--json"], "_project"),  # parsed: before the build began
        (["build", "--json", "--jobs", "1"], "arguments"),  # stopped while parsing the options
        (["check", "--json"], "_project"),
    ],
)
def test_ctrl_c_before_a_build_still_prints_its_json_document(
    monkeypatch, capsys, argv, where
) -> None:
    """``build --json`` stopped at its start wrote nothing to stdout, exit 130 (adversary21
    D13): a script reading it got no JSON at all."""
    from hotplex import arguments, cli

    if where == "arguments":
        monkeypatch.setattr(arguments, "parse", _interrupt)
    else:
        monkeypatch.setattr(cli, "_project", _interrupt)
    assert cli.main(argv) == 130
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["artifacts"] == []
    assert [e["message"] for e in document["errors"]] == [err.removeprefix("hotplex: ")[:-1]]
    assert err.startswith("hotplex: interrupted")
