"""Every module of the package is at most 500 lines and every class at most 150, or the
developers' guide names it with its reason: the list and the measure agree, both ways."""

from __future__ import annotations

import ast
import re

from hotplex_testing import DEVELOPERS_GUIDE, REPO

MODULE_LINES = 500
CLASS_LINES = 150
FOLDERS = {"hotplex": "compiler", "hotplex.targets": "targets"}
LISTED = re.compile(r"^- `([\w.]+)`: \S", re.M)


def _measured() -> dict[str, int]:
    """Each module over its limit (dotted, without the package's name) and each class over
    its limit (module.Class), with its lines."""
    over: dict[str, int] = {}
    for package, folder in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            module = ".".join((*package.split(".")[1:], *parts)).removesuffix(".__init__")
            source = path.read_text(encoding="utf-8")
            if (lines := source.count("\n")) > MODULE_LINES:
                over[module] = lines
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.ClassDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > CLASS_LINES:
                        over[f"{module}.{node.name}"] = lines
    return over


def _listed() -> set[str]:
    text = DEVELOPERS_GUIDE.read_text(encoding="utf-8")
    section = text.split("### Sizes", 1)[1].split("\n#", 1)[0]
    return set(LISTED.findall(section))


def test_every_module_and_class_over_its_size_is_listed_with_a_reason() -> None:
    over = _measured()
    assert set(over) <= _listed(), {name: over[name] for name in set(over) - _listed()}


def test_every_listed_module_and_class_is_still_over_its_size() -> None:
    assert _listed() <= set(_measured()), _listed() - set(_measured())
