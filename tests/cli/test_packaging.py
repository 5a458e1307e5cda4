"""Every package folder of the tree is installed: `pip install .` copies only the packages
pyproject.toml lists, so a new folder left out of the list works in an editable install and
fails with ModuleNotFoundError in every other."""

from __future__ import annotations

import tomllib

from hotplex_testing import REPO


def test_every_package_folder_is_in_pyprojects_list():
    setup = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    listed = set(setup["setuptools"]["packages"])
    folders = setup["setuptools"]["package-dir"]
    found = set()
    for package, folder in folders.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            parts = init.parent.relative_to(root).parts
            if "__pycache__" not in parts:
                found.add(".".join([package, *parts]))
    assert found - listed == set(), "pyproject.toml's packages miss these"
