"""The command lines a pre-commit hook or an editor runs over and over, parsed without argparse.

``hotplex [-C DIR] [-f MANIFEST] build|check [TARGET…] [--json] [--explain] [-C DIR] …`` gives
the namespace argparse would (``tests/cli/test_quick_args.py`` compares the two); anything else
(another command, another option, ``--``, a value glued to its flag, help) is None, and argparse
parses it. Importing argparse and making its parser is a tenth of an up-to-date build.
"""

from __future__ import annotations

from types import SimpleNamespace

# Each command's flags (name -> attribute) and the defaults of its other arguments.
_FLAGS = {
    "build": {"--json": "json", "--explain": "explain", "--frozen": "frozen"},
    "check": {"--json": "json", "--diff": "diff", "--frozen": "frozen"},
}
_DEFAULTS = {
    "build": {"json": False, "explain": False, "frozen": False, "jobs": None},
    "check": {
        "json": False,
        "diff": False,
        "frozen": False,
        "jobs": None,
        "overlay": [],
        "platform": None,
        "on_finding": None,
    },
}
_VALUED = {"-C": "directory", "-f": "manifest"}


def parse(argv: list[str]) -> SimpleNamespace | None:
    values: dict[str, object] = {"directory": None, "manifest": None}
    command: str | None = None
    targets: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in _VALUED:
            value = next(it, None)
            if value is None or value.startswith("-"):
                return None
            values[_VALUED[arg]] = value
        elif command is None:
            if arg not in _FLAGS:
                return None
            command = arg
            values.update(_DEFAULTS[command])
        elif arg in _FLAGS[command]:
            values[_FLAGS[command][arg]] = True
        elif arg.startswith("-"):
            return None
        else:
            targets.append(arg)
    if command is None:
        return None
    return SimpleNamespace(command=command, targets=targets, **values)
