"""The plain suite on every Python hotplex supports: ``nox -f .ci/noxfile.py`` (one version:
``--python 3.12``; ``.ci/run`` runs those other than 3.11, which its main pass covers).

Each session installs the clone editable into a virtual environment of its own, under ``.nox/``
at the clone's root, and runs the suite without the slow and live tests (``-m "not
integration"``; slow ones skip unless asked for): those run once, on 3.11, in ``.ci/run``. A
version this machine lacks is skipped with nox's line naming it when nox runs with
``--no-error-on-missing-interpreters`` (on CI, nox otherwise fails for it).
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent.parent
# As pyproject.toml's requires-python and classifiers say.
PYTHONS = ["3.11", "3.12", "3.13"]

nox.options.envdir = str(ROOT / ".nox")
nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests"]


def _pyenv_bins() -> list[str]:
    """The bin folder of pyenv's newest build of each version: pyenv's shims only run the
    versions `pyenv global` names, and nox looks each version up as ``python3.X`` on PATH."""
    versions = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found = []
    for version in PYTHONS:
        builds = sorted(
            versions.glob(f"{version}.*"),
            key=lambda p: [int(part) if part.isdigit() else -1 for part in p.name.split(".")],
        )
        found += [str(b / "bin") for b in builds[-1:] if (b / "bin" / f"python{version}").exists()]
    return found


os.environ["PATH"] = os.pathsep.join([*_pyenv_bins(), os.environ.get("PATH", "")])


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    session.chdir(ROOT)
    session.install("--quiet", "-e", ".[test]")
    session.run("python", "-m", "pytest", "-m", "not integration", *session.posargs)
