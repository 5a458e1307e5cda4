"""How many findings an answer, an error or a report shows: the first of each file in full, the
others counted by rule, so that a user's stored memory of tens of thousands of findings makes no
14 MB answer and none is dropped without a word."""

from __future__ import annotations

from hotplex.errors import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Protocol

    class Finding(Protocol):
        """``records.Finding`` as counted here (records imports this module)."""

        file: str
        rule: str

        def to_json(self) -> dict[str, object]: ...


# Of one file's findings, an answer (or an error) shows this many in full; the others are counted
# by rule. A user's stored memory can hold tens of thousands: every one in full was a 14 MB
# answer, each with its line under a caret a 20 MB error.
SHOWN_PER_FILE = 100


def shown_findings(
    findings: Iterable[Finding],
) -> tuple[list[Finding], dict[str, dict[str, int]]]:
    """The first ``SHOWN_PER_FILE`` of ``findings`` of each file, and the others counted by file
    and rule (rules in sorted order), so that none is dropped without a word."""
    listed: list[Finding] = []
    counted: dict[str, int] = {}
    more: dict[str, dict[str, int]] = {}
    for finding in findings:
        counted[finding.file] = counted.get(finding.file, 0) + 1
        if counted[finding.file] <= SHOWN_PER_FILE:
            listed.append(finding)
        else:
            rules = more.setdefault(finding.file, {})
            rules[finding.rule] = rules.get(finding.rule, 0) + 1
    return listed, {file: dict(sorted(rules.items())) for file, rules in more.items()}


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
