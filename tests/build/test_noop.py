"""The no-op path stays lean: an up-to-date ``check`` (what pre-commit and ``watch`` run over and
over) answers from the build log's last two lines and a few stat calls, and loads nothing the
slow path needs."""

from __future__ import annotations

import subprocess
import sys

# What an up-to-date check must not import: the typed records and attrs (about 15 ms on a run of
# about 50 ms), typing, and any worker or the registry of workers.
NOT_ON_THE_NOOP_PATH = ("hotplex.records", "attrs", "attr", "typing", "hotplex.targets")


def test_an_up_to_date_check_imports_no_records(hotplex, example_copy):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    code = (
        "import sys\n"
        "from hotplex.cli import main\n"
        f"status = main(['-C', {str(root)!r}, 'check'])\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('attrs', 'attr', 'typing')\n"
        f"          or m.startswith({NOT_ON_THE_NOOP_PATH[0]!r})\n"
        f"          or m.startswith({NOT_ON_THE_NOOP_PATH[-1]!r})]\n"
        "print(status, sorted(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"
    assert "up to date" in done.stdout
