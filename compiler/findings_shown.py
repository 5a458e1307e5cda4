"""How many findings an answer, an error or a report shows: the first of each file in full, the
others counted by rule, so that a user's stored memory of tens of thousands of findings makes no
14 MB answer and none is dropped without a word."""

from __future__ import annotations

from hotplex.errors import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Protocol, TypeVar

    Shown = TypeVar("Shown")

    class Finding(Protocol):
        """``records.Finding`` as counted here (records imports this module)."""

        file: str
        line: int | None
        column: int | None
        rule: str

        def to_json(self) -> dict[str, object]: ...


# Of one file's findings, an answer (or an error) shows this many in full; the others are counted
# by rule. A user's stored memory can hold tens of thousands: every one in full was a 14 MB
# answer, each with its line under a caret a 20 MB error.
SHOWN_PER_FILE = 100


def first_of_each_file(
    items: Iterable[Shown], place: Callable[[Shown], tuple[str | None, int, int, str]]
) -> tuple[list[Shown], dict[str | None, dict[str, int]]]:
    """Of ``items``, in their order, those among the first ``SHOWN_PER_FILE`` of their file by
    ``place`` (file, line, column, rule), and the others counted by file and rule (rules in
    sorted order): an error and an answer pick the same findings of a file, whatever order
    they were found in, and none is dropped without a word."""
    items = list(items)
    by_file: dict[str | None, list[int]] = {}
    for index, item in enumerate(items):
        by_file.setdefault(place(item)[0], []).append(index)
    left_out: set[int] = set()
    more: dict[str | None, dict[str, int]] = {}
    for file, indices in by_file.items():
        if len(indices) <= SHOWN_PER_FILE:
            continue
        by_place = sorted(indices, key=lambda index: (place(items[index]), index))
        left_out.update(by_place[SHOWN_PER_FILE:])
        rules = more.setdefault(file, {})
        for rule in sorted(place(items[index])[3] for index in by_place[SHOWN_PER_FILE:]):
            rules[rule] = rules.get(rule, 0) + 1
    listed = [item for index, item in enumerate(items) if index not in left_out]
    return listed, more


def shown_findings(
    findings: Iterable[Finding],
) -> tuple[list[Finding], dict[str | None, dict[str, int]]]:
    """The findings an answer shows in full, in the order found, and the others counted by file
    and rule (``first_of_each_file``)."""
    return first_of_each_file(findings, lambda f: (f.file, f.line or 0, f.column or 0, f.rule))


def more_findings(rules: dict[str, int]) -> str:
    """What says how many findings are not shown, by rule (``{rule: count}``)."""
    kinds = ", ".join(f"{count} {rule}" for rule, count in rules.items())
    return f"and {sum(rules.values())} more findings of these kinds, not shown: {kinds}"


def not_shown(file: str, rules: dict[str, int]) -> str:
    """The line that says how many findings of ``file`` are not shown, by rule."""
    return f"{shown(file)}: {more_findings(rules)}"


def findings_json(findings: Iterable[Finding]) -> dict[str, object]:
    """``{"findings": [...]}`` as an answer lists them (``shown_findings``); when a file has
    more, ``"findings_not_shown"`` counts the others, by file and rule."""
    listed, more = shown_findings(findings)
    out: dict[str, object] = {"findings": [finding.to_json() for finding in listed]}
    if more:
        out["findings_not_shown"] = [
            {"file": shown(file), "count": sum(rules.values()), "rules": rules}
            for file, rules in more.items()
        ]
    return out
