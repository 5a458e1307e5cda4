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
    expected = vars(arguments.parser(argv).parse_args(argv))
    assert vars(quick_args.parse(argv)) == expected


@pytest.mark.parametrize("argv", LEFT, ids=" ".join)
def test_any_other_is_left_to_argparse(argv):
    assert quick_args.parse(argv) is None


def test_version_alone_is_argparse_s_answer_without_argparse(capsys):
    """``hotplex --version`` (what a tool's probe runs) is answered before argparse is made."""
    from hotplex import cli

    with pytest.raises(SystemExit) as parsed:
        arguments.parser(["--version"]).parse_args(["--version"])
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
        arguments.parser(argv).parse_args(argv)
    told = capsys.readouterr().err
    assert "invalid choice" in told
    assert all(f"'{name}'" in told for name in arguments.COMMANDS)
