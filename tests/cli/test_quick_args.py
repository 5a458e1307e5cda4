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
