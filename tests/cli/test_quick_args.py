"""``quick_args`` parses the command lines it takes exactly as argparse does, and leaves every
other one to argparse."""

from __future__ import annotations

import pytest
from hotplex import arguments, quick_args

TAKEN = [
    ["build"],
    ["check"],
    ["-C", "proj", "build"],
    ["build", "-C", "proj"],
    ["-C", "a", "build", "-C", "b"],
    ["-f", "other.toml", "check", "--json"],
    ["build", "cc", "ocs", "--explain"],
    ["build", "--json", "--explain", "cc"],
    ["check", "--diff", "cc", "-f", "m.toml"],
    ["-C", "proj", "-f", "m.toml", "check", "build"],  # a target that is a command's name
]
LEFT = [
    [],
    ["--help"],
    ["build", "--help"],
    ["--version"],
    ["stats"],
    ["build", "-j2"],
    ["build", "-j", "2"],
    ["build", "--diff"],
    ["check", "--explain"],
    ["check", "--overlay", "MEMORY.md=x.md"],
    ["-Cproj", "build"],
    ["-C"],
    ["-C", "--json", "build"],
    ["build", "--"],
    ["biuld"],
]


@pytest.mark.parametrize("argv", TAKEN, ids=" ".join)
def test_a_command_line_it_takes_gives_argparse_s_namespace(argv):
    expected = vars(arguments.parse(argv))
    assert vars(quick_args.parse(argv)) == expected


@pytest.mark.parametrize("argv", LEFT, ids=" ".join)
def test_any_other_is_left_to_argparse(argv):
    assert quick_args.parse(argv) is None


def test_version_alone_is_argparse_s_answer_without_argparse(capsys):
    """``hotplex --version`` (what a tool's probe runs) is answered before argparse is made."""
    from hotplex import cli

    with pytest.raises(SystemExit) as parsed:
        arguments.parse(["--version"])
    expected = capsys.readouterr()
    assert parsed.value.code == 0 and expected.out.startswith("hotplex ")
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr() == expected


def test_version_on_a_full_disk_says_so_and_fails():
    """The short path's answer meets the edge's handling: a full disk is a failure with a word."""
    import subprocess

    with open("/dev/full", "w") as full:
        done = subprocess.run(["hotplex", "--version"], stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert b"its output could not be written" in done.stderr


@pytest.mark.parametrize("argv", [["--", "--version"], ["--", "build"], ["biuld"]], ids=" ".join)
def test_a_word_that_names_no_command_is_told_the_commands(argv, capsys):
    """``hotplex -- --version`` listed no command to choose from (adversary12 D10)."""
    with pytest.raises(SystemExit):
        arguments.parse(argv)
    told = capsys.readouterr().err
    assert "argument COMMAND: " in told
    assert all(f"'{name}'" in told for name in arguments.COMMANDS)


@pytest.mark.parametrize(
    ("argv", "told"),
    [
        (["--bogus"], "hotplex: error: unrecognized option '--bogus' before COMMAND"),
        (["--versoin"], "'--versoin' before COMMAND (did you mean '--version'?)"),
        (["--json", "build"], "'--json' before COMMAND (a command's own options follow it)"),
        (["--", "x"], "a command must come before '--'"),
        (["-C", "p", "buld"], "invalid choice: 'buld' (did you mean 'build'?)"),
        (["build", "-j", "abc"], "hotplex build: error: argument -j: must be a whole number"),
        (["serve", "--port", "x"], "argument --port: must be a whole number, got 'x'"),
        (["build", "-j", "\uff12"], "argument -j: must be a whole number, got '\uff12'"),
        (["serve", "--port", "8_765"], "argument --port: must be a whole number, got '8_765'"),
        (["-C", "p", "build", "--jsn"], "hotplex build: error: unrecognized arguments: --jsn (did"),
        (["memory", "compac"], "invalid choice: 'compac' (did you mean 'compact'?)"),
        (["graph", "--format", "jsn"], "invalid choice: 'jsn' (did you mean 'json'?) (choose"),
        (["graph", "--format", "xyz"], "--format: invalid choice: 'xyz' (choose from 'dot', 'json"),
    ],
    ids=" ".join,
)
def test_a_mistake_is_named_as_typed_with_the_word_meant(argv, told, capsys):
    """argparse said "COMMAND is required" for an unknown option before the command, "invalid
    choice: '--'", a function's name for a bad number, and the top's usage for a command's
    unknown option (adversary13 D5)."""
    with pytest.raises(SystemExit) as parsed:
        arguments.parse(argv)
    assert parsed.value.code == 2
    err = capsys.readouterr().err
    assert told in err
    assert "_positive" not in err and "required: COMMAND" not in err


@pytest.mark.parametrize("argv", [["--help"], ["build", "--help"]], ids=" ".join)
def test_help_on_a_full_disk_says_so_and_fails(argv):
    """argparse drops a failed write of its help: it exited 0 with the help lost (adversary13 D5)."""
    import subprocess

    with open("/dev/full", "w") as full:
        done = subprocess.run(["hotplex", *argv], stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert b"its output could not be written" in done.stderr
