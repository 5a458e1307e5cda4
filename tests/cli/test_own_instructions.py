"""The instruction files a worker's program loads by itself: ``import`` gives each file to every
program that reads it, ``launch.json`` switches the loading off where it can, and ``build`` /
``check`` name every place where a raw copy of a compiled source will still reach a program."""

from __future__ import annotations

import json
import os
import re
import tomllib

import pytest


def imported(make_project, hotplex, files: dict[str, str]):
    root = make_project(files, manifest=None)
    assert hotplex("-C", str(root), "import").status == 0
    return root


def targets(root) -> dict[str, dict]:
    manifest = tomllib.loads((root / "hotplex.toml").read_text(encoding="utf-8"))
    return {t["worker"]: t for t in manifest["target"]}


def add_keys(root, worker: str, keys: str) -> None:
    manifest = root / "hotplex.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(f'worker = "{worker}"\n', f'worker = "{worker}"\n{keys}'))


def launch(root, target: str) -> dict:
    return json.loads((root / f"dist/{target}/default/launch.json").read_text(encoding="utf-8"))


def test_import_gives_a_lone_agents_md_to_claude_code_too(make_project, hotplex):
    """Claude Code reads AGENTS.md where no CLAUDE.md sits beside it: switching its loading off
    must not leave it with neither copy."""
    root = imported(make_project, hotplex, {"AGENTS.md": "Be kind.\n"})
    assert set(targets(root)) == {
        *("claude-code", "codex", "opencode-server", "pi", "copilot-cli", "cline"),
        *("qwen-code", "kilo", "continue-cli", "mistral-vibe", "droid"),
    }
    assert "Be kind." in hotplex("-C", str(root), "show", "cc").stdout


def test_import_keeps_agents_md_from_claude_code_beside_a_claude_md(make_project, hotplex):
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n", "CLAUDE.md": "C\n"})
    assert targets(root)["claude-code"]["keep"] == ["claude"]


def test_check_names_each_raw_copy_once_per_target_with_the_way_out(make_project, hotplex):
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n", "CLAUDE.md": "C\n"})
    add_keys(root, "claude-code", 'platforms = ["slack"]\n')
    (root / "hotplex.toml").write_text(
        (root / "hotplex.toml").read_text() + '\n[variants]\nplatforms = ["slack"]\n'
    )
    assert hotplex("-C", str(root), "build").status == 0
    done = hotplex("-C", str(root), "check", "--json")
    warnings = json.loads(done.stdout)["warnings"]
    raw = [w for w in warnings if "raw" in w]
    # once per target (cc builds two artifacts): all but Codex, whose loading is switched off
    assert sorted(w.split("'")[1] for w in raw) == [
        *("cc", "cline", "continue", "copilot-cli", "droid", "kilo", "ocs", "pi", "qwen")
    ]
    (claude,) = [w for w in raw if w.startswith("target 'cc'")]
    assert "Claude Code also reads CLAUDE.md" in claude
    assert 'own_instructions = "off"' in claude and "CLAUDE_CODE_DISABLE_CLAUDE_MDS" in claude
    assert "~/.claude/CLAUDE.md" in claude and 'cwd = "../session"' in claude
    (opencode,) = [w for w in raw if w.startswith("target 'ocs'")]
    assert "OpenCode also reads AGENTS.md" in opencode
    assert not any("'codex'" in w for w in warnings)  # Codex's loading is switched off
    shown = hotplex("-C", str(root), "show", "cc", "--platform", "slack")
    assert "a raw copy too: Claude Code reads CLAUDE.md by itself" in shown.stderr
    again = hotplex("-C", str(root), "build")  # a no-op build repeats them
    assert again.stderr.count("target 'cc': Claude Code also reads") == 1


def test_every_raw_copy_claude_code_loads_by_itself_is_named(make_project, hotplex):
    """``.claude/rules/*.md`` (at any depth) are Claude Code's own files too, not only CLAUDE.md."""
    files = {"CLAUDE.md": "C\n", ".claude/rules/a.md": "A\n", ".claude/rules/team/b.md": "B\n"}
    root = imported(make_project, hotplex, files)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if "raw" in line]
    stats = hotplex("-C", str(root), "stats").stdout
    shown = hotplex("-C", str(root), "show", "cc").stderr
    for name in files:
        assert name in warning and name in stats and name in shown, (name, stats, shown)
    assert "only the compiled copy" not in stats


def test_codex_config_switches_project_agents_md_off(make_project, hotplex):
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n"})
    assert hotplex("-C", str(root), "build").status == 0
    config = tomllib.loads((root / "dist/codex/default/codex-home/config.toml").read_text())
    assert config["project_doc_max_bytes"] == 0


def test_own_instructions_off_puts_the_switch_in_launch_json(make_project, hotplex):
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n", "CLAUDE.md": "C\n"})
    add_keys(root, "claude-code", 'own_instructions = "off"\n')
    add_keys(root, "opencode-server", 'own_instructions = "off"\n')
    add_keys(root, "pi", 'own_instructions = "off"\n')
    add_keys(root, "kilo", 'own_instructions = "off"\n')
    for worker in ("copilot-cli", "cline", "qwen-code", "continue-cli", "droid"):  # no switch
        add_keys(root, worker, 'cwd = "../session"\n')
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and "raw" not in done.stderr, done.stderr
    assert launch(root, "cc")["env"] == {"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"}
    assert launch(root, "ocs")["env"] == {"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}
    assert launch(root, "pi")["argv"][-1] == "--no-context-files"
    assert launch(root, "kilo")["env"]["KILO_DISABLE_PROJECT_CONFIG"] == "1"
    shown = hotplex("-C", str(root), "stats", "--json")
    copies = json.loads(shown.stdout)["artifacts"][0]["copies"]
    assert copies.startswith("only the compiled copy") and "~/.claude/CLAUDE.md" in copies


def test_a_switch_that_drops_an_uncompiled_file_says_so(make_project, hotplex):
    """Codex's switch is on by default; an AGENTS.md the target does not compile then reaches
    Codex from neither copy, and the build says so."""
    manifest = '[[target]]\nname = "cx"\nworker = "codex"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n", "AGENTS.md": "repo rules\n"}, manifest)
    done = hotplex("-C", str(root), "build")
    assert (
        "the target does not compile AGENTS.md: Codex CLI gets it from neither copy" in done.stderr
    )


def test_cwd_moves_the_session_folder_and_every_path_follows(make_project, hotplex):
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n", "CLAUDE.md": "C\n"})
    workers = ("claude-code", "opencode-server", "codex", "pi", "copilot-cli", "cline", "kilo")
    for worker in (*workers, "qwen-code", "continue-cli", "droid"):
        add_keys(root, worker, 'cwd = "../session"\n')
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and "raw" not in done.stderr, done.stderr
    cc = launch(root, "cc")
    assert cc["cwd"] == "../session"
    assert cc["argv"] == [
        "claude",
        "--append-system-prompt-file",
        "../project/dist/cc/default/prompt.xml",
    ]
    assert launch(root, "codex")["env"]["CODEX_HOME"] == "../project/dist/codex/default/codex-home"
    assert launch(root, "pi")["argv"][-1] == "../project/dist/pi/default/pi/APPEND_SYSTEM.md"
    assert launch(root, "cline")["env"]["CLINE_DIR"] == "../project/dist/cline/default/cline-home"
    assert launch(root, "ocs")["cwd"] == "../session"
    assert launch(root, "droid")["argv"][2:] == [
        "--append-system-prompt-file",
        "../project/dist/droid/default/droid/system-prompt.md",
    ]
    continue_home = launch(root, "continue")["env"]["CONTINUE_GLOBAL_DIR"]
    assert continue_home == "../project/dist/continue/default/continue-home"


@pytest.mark.parametrize("cwd", ["../../x", "../sub/../../x", "../../../x/y"])
def test_paths_from_a_session_folder_folders_up_lead_back_to_the_project(
    make_project, hotplex, cwd
):
    """The way back from ``cwd`` names every folder it climbs out of, not only the project's."""
    root = imported(make_project, hotplex, {"AGENTS.md": "A\n", "CLAUDE.md": "C\n"})
    for worker in ("claude-code", "codex"):
        add_keys(root, worker, f'cwd = "{cwd}"\n')
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    cc, codex = launch(root, "cc"), launch(root, "codex")
    session = root / cc["cwd"]
    assert os.path.normpath(session / cc["argv"][2]) == str(root / "dist/cc/default/prompt.xml")
    home = os.path.normpath(session / codex["env"]["CODEX_HOME"])
    assert home == str(root / "dist/codex/default/codex-home")


def test_a_session_folder_above_the_filesystem_root_is_refused(make_project, hotplex):
    manifest = '[[target]]\nname = "t"\nworker = "claude-code"\ncwd = "' + "../" * 64 + 'x"\n'
    done = hotplex("-C", str(make_project({"agent-configs/SOUL.md": "S\n"}, manifest)), "build")
    assert done.status == 2 and "target[0].cwd" in done.stderr, done.stderr
    assert "above the filesystem root" in done.stderr


@pytest.mark.parametrize(
    ("worker", "key", "message"),
    [
        ("claude-code", 'cwd = ""', "an empty cwd"),
        ("gemini-cli", 'own_instructions = "off"', "Gemini CLI has no switch"),
        ("openclaw", 'cwd = "elsewhere"', "'cwd' does not apply to worker 'openclaw'"),
        ("claude-code", 'cwd = "/srv/session"', "absolute path '/srv/session' is not allowed"),
    ],
)
def test_session_keys_are_checked(make_project, hotplex, worker, key, message):
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n{key}\n'
    done = hotplex("-C", str(make_project({"agent-configs/SOUL.md": "S\n"}, manifest)), "build")
    assert done.status == 2 and message in done.stderr, done.stderr


@pytest.mark.parametrize(("cwd", "warned"), [(".", True), ("..", True), ("../session", False)])
def test_gemini_md_is_found_below_the_session_folder_too(make_project, hotplex, cwd, warned):
    """Gemini CLI also searches the folders below its own: a folder above the project is no way
    out, a folder beside it is."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n'
        '[[source]]\nname = "g"\nfile = "docs/GEMINI.md"\nchannel = "B"\ntag = "g"\n\n'
        f'[[target]]\nname = "gem"\nworker = "gemini-cli"\ncwd = "{cwd}"\n'
    )
    root = make_project({"docs/GEMINI.md": "G\n"}, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0
    assert ("Gemini CLI also reads docs/GEMINI.md" in done.stderr) == warned, done.stderr


@pytest.mark.parametrize(
    ("worker", "file", "said"),
    [
        ("pi", ".pi/APPEND_SYSTEM.md", "is not read by Pi: the document hotplex passes"),
        ("pi", ".pi/SYSTEM.md", "replaces Pi's own base prompt"),
        ("cline", ".clinerules/HotPlex.TXT", "is not read by Cline: its rule 'hotplex'"),
        ("cline", ".cline/rules/hotplex.md", "is not read by Cline: its rule 'hotplex'"),
        ("copilot-cli", ".github/copilot-instructions.md", "reaches Copilot CLI too"),
    ],
)
def test_a_file_that_competes_with_the_document_is_named(make_project, hotplex, worker, file, said):
    """Whoever wrote it (no source reads it): a copy the program reads in the document's place,
    one the document displaces, or a second copy beside it. A no-op build still names it, and
    names it once it appears."""
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n"}, manifest)
    assert said not in hotplex("-C", str(root), "build").stderr
    (root / file).parent.mkdir(parents=True, exist_ok=True)
    (root / file).write_text("theirs\n", encoding="utf-8")
    for _ in range(2):  # the build that notices it, then a no-op build
        done = hotplex("-C", str(root), "build")
        (line,) = [line for line in done.stderr.splitlines() if said in line]
        assert line.startswith(f"warning: target 't': {file} ") and 'cwd = "../session"' in line
    (root / file).rename((root / file).with_name("other.md"))  # no rival by that name
    assert said not in hotplex("-C", str(root), "build").stderr


def test_a_compiled_rival_is_named_once(make_project, hotplex):
    """A ``.github/copilot-instructions.md`` that the Copilot CLI target compiles is a raw copy
    (one warning), not a second warning as a competing file."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n[[source]]\nname = "c"\n'
        'file = ".github/copilot-instructions.md"\nchannel = "B"\ntag = "c"\n\n'
        '[[target]]\nname = "t"\nworker = "copilot-cli"\n'
    )
    root = make_project({".github/copilot-instructions.md": "C\n"}, manifest)
    warnings = json.loads(hotplex("-C", str(root), "check", "--json").stdout)["warnings"]
    (warning,) = [w for w in warnings if ".github/copilot-instructions.md" in w]
    assert "Copilot CLI also reads .github/copilot-instructions.md by itself" in warning


@pytest.mark.parametrize(("cwd", "warned"), [(".", True), ("sub", False)])
def test_cline_reads_only_its_own_folder(make_project, hotplex, cwd, warned):
    """Cline reads AGENTS.md in its working folder, not in the folders above it."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n'
        '[[source]]\nname = "rules"\nfile = "AGENTS.md"\nchannel = "B"\ntag = "rules"\n\n'
        f'[[target]]\nname = "t"\nworker = "cline"\ncwd = "{cwd}"\n'
    )
    root = make_project({"AGENTS.md": "A\n", "sub/notes.txt": "n\n"}, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    assert ("Cline also reads AGENTS.md" in done.stderr) == warned, done.stderr


def test_a_compiled_rule_the_document_shadows_is_no_raw_copy(make_project, hotplex):
    """Cline does not read a project rule named like the document's at all: compiled, it
    reaches Cline in the document only, and the build says the raw file is not read."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n[[source]]\nname = "r"\n'
        'file = ".clinerules/hotplex.md"\nchannel = "B"\ntag = "r"\n\n'
        '[[target]]\nname = "t"\nworker = "cline"\n'
    )
    root = make_project({".clinerules/hotplex.md": "R\n"}, manifest)
    warnings = json.loads(hotplex("-C", str(root), "check", "--json").stdout)["warnings"]
    (warning,) = [w for w in warnings if ".clinerules/hotplex.md" in w]
    assert "is not read by Cline" in warning


def copies_of(root, hotplex, target: str) -> str:
    done = hotplex("-C", str(root), "stats", "--json")
    return next(a["copies"] for a in json.loads(done.stdout)["artifacts"] if a["target"] == target)


def test_every_report_names_the_copy_a_placed_file_adds(make_project, hotplex):
    """A ``copilot`` target's ``.github/copilot-instructions.md`` reaches Copilot CLI beside the
    document: ``stats`` (before the build that places it too), ``build`` and ``show`` say so."""
    manifest = (
        '[[target]]\nname = "cli"\nworker = "copilot-cli"\n\n'
        '[[target]]\nname = "ide"\nworker = "copilot"\n'
    )
    root = make_project({"agent-configs/SOUL.md": "S\n"}, manifest)
    said = ".github/copilot-instructions.md reaches Copilot CLI too"
    assert said in copies_of(root, hotplex, "cli")
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and f"warning: target 'cli': {said}" in done.stderr, done.stderr
    assert said in copies_of(root, hotplex, "cli")
    assert "only the compiled copy" not in copies_of(root, hotplex, "cli")
    assert said in hotplex("-C", str(root), "show", "cli").stderr


@pytest.mark.parametrize(
    ("worker", "file", "said"),
    [
        ("pi", ".pi/APPEND_SYSTEM.md", "../session/.pi/APPEND_SYSTEM.md is not read by Pi"),
        ("cline", ".clinerules/hotplex.md", "../session/.clinerules/hotplex.md is not read by"),
        ("copilot-cli", ".github/copilot-instructions.md", "Copilot CLI also reads ../session/"),
        ("qwen-code", "AGENTS.md", "Qwen Code also reads ../session/AGENTS.md by itself"),
        ("kilo", ".kilocode/rules/k.md", "Kilo also reads ../session/.kilocode/rules/k.md"),
        ("droid", "CLAUDE.md", "Factory Droid also reads ../session/CLAUDE.md by itself"),
    ],
)
def test_a_session_folder_outside_the_project_is_looked_into(
    make_project, hotplex, tmp_path, worker, file, said
):
    """The way out the warnings give is a session folder outside the project: a file the
    program finds there is named too, by a no-op build as soon as it appears there."""
    manifest = f'[[target]]\nname = "t"\nworker = "{worker}"\ncwd = "../session"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n"}, manifest)
    first = hotplex("-C", str(root), "build")
    assert first.status == 0 and "session" not in first.stderr, first.stderr
    (tmp_path / "session" / file).parent.mkdir(parents=True)
    (tmp_path / "session" / file).write_text("theirs\n", encoding="utf-8")
    for command in ("build", "check", "build"):  # nothing to rebuild: the snapshot notices it
        done = hotplex("-C", str(root), command)
        (line,) = [line for line in done.stderr.splitlines() if said in line]
        assert line.startswith("warning: target 't': ") and "out of the session folder" in line
        assert 'cwd = "../session"' not in line  # the folder is outside already
    assert f"../session/{file}" in copies_of(root, hotplex, "t")
    assert f"../session/{file}" in hotplex("-C", str(root), "show", "t").stderr
    (tmp_path / "session" / file).unlink()
    assert said not in hotplex("-C", str(root), "build").stderr


def test_stats_names_a_file_the_program_reads_that_the_target_does_not_compile(
    make_project, hotplex
):
    """Not a second copy (no warning), but it reaches the program raw: ``copies`` says so."""
    manifest = '[[target]]\nname = "q"\nworker = "qwen-code"\n'
    root = make_project({"agent-configs/SOUL.md": "S\n", "AGENTS.md": "repo rules\n"}, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and "AGENTS.md" not in done.stderr, done.stderr
    said = "Qwen Code also reads AGENTS.md by itself, raw, which the target does not compile"
    assert copies_of(root, hotplex, "q") == f"the compiled copy; {said}"
    assert said in hotplex("-C", str(root), "show", "q").stderr


def test_qwen_and_kilo_compile_the_agents_md_they_read_and_the_build_names_the_raw_copy(
    make_project, hotplex
):
    """Both programs read the project's AGENTS.md by themselves: ``import`` gives it to their
    targets, and ``build`` and ``stats`` name the raw copy beside the compiled one. Kilo's
    switch would leave its legacy rules on, so its way out is ``cwd``."""
    files = {"AGENTS.md": "Use pytest.\n", "QWEN.md": "q\n", ".kilocode/rules/k.md": "k\n"}
    root = imported(make_project, hotplex, files)
    assert targets(root)["qwen-code"]["keep"] == ["rules", "qwen"]
    assert targets(root)["kilo"]["keep"] == ["rules", "kilo-k"]
    done = hotplex("-C", str(root), "build")
    assert "target 'qwen': Qwen Code also reads AGENTS.md, QWEN.md by itself" in done.stderr
    (kilo,) = [w for w in done.stderr.splitlines() if w.startswith("warning: target 'kilo'")]
    assert "Kilo also reads AGENTS.md, .kilocode/rules/k.md by itself" in kilo
    assert kilo.endswith("on the target (its switch leaves .kilocode/rules/k.md on)"), kilo
    assert copies_of(root, hotplex, "qwen").startswith("a raw copy too: Qwen Code reads AGENTS.md")
    assert copies_of(root, hotplex, "kilo").startswith("a raw copy too: Kilo reads AGENTS.md")


def test_a_program_that_reads_the_first_of_its_names_is_said_to_read_that_one(
    make_project, hotplex
):
    """OpenCode and Kilo read the first of AGENTS.md, CLAUDE.md and CONTEXT.md found, as Pi
    does in each folder: the two beside an AGENTS.md reach none of them."""
    files = {"AGENTS.md": "A\n", "CLAUDE.md": "C\n", "CONTEXT.md": "X\n"}
    root = imported(make_project, hotplex, files)
    assert hotplex("-C", str(root), "build").status == 0
    for target, program in (("ocs", "OpenCode"), ("kilo", "Kilo"), ("pi", "Pi")):
        said = f"a raw copy too: {program} reads AGENTS.md by itself"
        assert copies_of(root, hotplex, target) == said
        assert "CLAUDE.md" not in hotplex("-C", str(root), "show", target).stderr


@pytest.mark.parametrize(("worker", "program"), [("opencode-server", "OpenCode"), ("kilo", "Kilo")])
def test_opencode_and_kilo_take_the_first_name_found_anywhere_up(
    make_project, hotplex, worker, program
):
    """An AGENTS.md in any folder from the session folder up keeps a CLAUDE.md in another one
    from OpenCode (Pi would read both: it takes the first name in each folder)."""
    manifest = (
        '[[source]]\nname = "rules"\nfile = "../AGENTS.md"\n'
        f'[[target]]\nname = "t"\nworker = "{worker}"\ncwd = "sub"\n'
    )
    files = {"agent-configs/SOUL.md": "S\n", "AGENTS.md": "A\n", "sub/CLAUDE.md": "C\n"}
    root = make_project(files, manifest)
    assert hotplex("-C", str(root), "build").status == 0
    assert copies_of(root, hotplex, "t") == f"a raw copy too: {program} reads AGENTS.md by itself"


@pytest.mark.parametrize(
    ("worker", "compiled", "beside"),
    [
        ("opencode-server", "AGENTS.md", "CLAUDE.md"),
        ("kilo", "AGENTS.md", "CONTEXT.md"),
        ("pi", "AGENTS.md", "CLAUDE.md"),
        ("codex", "AGENTS.override.md", "AGENTS.md"),
    ],
)
def test_a_switched_off_program_loses_no_file_it_would_not_read(
    make_project, hotplex, worker, compiled, beside
):
    """With the program's loading switched off, a file it would never read beside the first of
    its names is no file it gets "from neither copy"."""
    off = "" if worker == "codex" else 'own_instructions = "off"\n'
    manifest = (
        f'[[source]]\nname = "rules"\nfile = "../{compiled}"\n'
        f'[[target]]\nname = "t"\nworker = "{worker}"\n{off}'
    )
    files = {"agent-configs/SOUL.md": "S\n", compiled: "A\n", beside: "B\n"}
    root = make_project(files, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0 and "neither copy" not in done.stderr, done.stderr
    assert copies_of(root, hotplex, "t").startswith("only the compiled copy")


@pytest.mark.parametrize(
    ("files", "git", "warned"),
    [
        ({"AGENTS.md": "A\n", "CLAUDE.md": "C\n"}, ".git/HEAD", None),
        ({".hermes.md": "H\n", "sub/AGENTS.md": "A\n"}, ".git/HEAD", ".hermes.md"),
        ({".hermes.md": "H\n", "sub/AGENTS.md": "A\n"}, None, "sub/AGENTS.md"),
        ({".hermes.md": "H\n", "sub/.git": "gitdir: x\n"}, ".git/HEAD", None),
        ({"sub/CLAUDE.md": "C\n", "AGENTS.md": "A\n"}, None, "sub/CLAUDE.md"),
    ],
    ids=["others-above", "in-git", "no-git", "git-root-below", "claude-here"],
)
def test_a_name_read_in_the_session_folder_only_or_up_to_the_git_root(
    make_project, hotplex, files, git, warned
):
    """Hermes Agent reads AGENTS.md and CLAUDE.md in its own folder only (``only_here``), and
    a .hermes.md above it only inside a git repository, up to its root (``in_repository``):
    the warning names exactly the file it reads, and a ``git init`` after the build moves it."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n'
        + "".join(
            f'[[source]]\nname = "s{i}"\nfile = "{name}"\nchannel = "B"\ntag = "s{i}"\n\n'
            for i, name in enumerate(sorted(files))
            if not name.endswith(".git")
        )
        + '[[target]]\nname = "t"\nworker = "hermes-agent"\ncwd = "sub"\n'
    )
    root = make_project(files, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    if git is not None:
        (root / git).parent.mkdir()
        (root / git).write_text("ref: refs/heads/main\n", encoding="utf-8")
        done = hotplex("-C", str(root), "build")  # nothing to rebuild: the stamp moved
    said = re.findall(r"Hermes Agent also reads (\S+) by itself", done.stderr)
    assert said == ([warned] if warned else []), done.stderr


@pytest.mark.parametrize(
    ("files", "warned"),
    [
        ({".hermes.md": " \n", "AGENTS.md": "A\n"}, "AGENTS.md"),
        ({".hermes.md": "H\n", "AGENTS.md": "A\n"}, ".hermes.md"),
        ({"AGENTS.md": "\n\n", "CLAUDE.md": "C\n"}, "CLAUDE.md"),
    ],
    ids=["blank-hermes-md", "hermes-md", "blank-agents-md"],
)
def test_a_blank_file_is_passed_over_as_hermes_passes_it(make_project, hotplex, files, warned):
    """Hermes takes a file of white space only for none and reads the next of its names: the
    raw copy it gets is that one (``blank_absent``)."""
    manifest = (
        '[project]\nsources = "."\ndefault_sources = false\n\n'
        + "".join(
            f'[[source]]\nname = "s{i}"\nfile = "{name}"\nchannel = "B"\ntag = "s{i}"\n\n'
            for i, name in enumerate(sorted(files))
        )
        + '[[target]]\nname = "t"\nworker = "hermes-agent"\n'
    )
    root = make_project(files, manifest)
    done = hotplex("-C", str(root), "build")
    assert done.status == 0, done.stderr
    assert re.findall(r"Hermes Agent also reads (\S+) by itself", done.stderr) == [warned]
