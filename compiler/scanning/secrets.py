"""Find likely credentials in what an artifact will contain, and say which source line holds them.

Agent files are written by people and by agents (MEMORY.md), and artifacts are copied into
prompts, logs and repositories, so a key pasted into a source must stop the build (a HotPlex rule:
never leak API keys, tokens or passwords). The scan runs on each source file *as rendered* for a
job, so a secret in a comment or an untaken ``{% if %}`` branch is not reported while one arriving
through a variable is; each match is then traced back to the text it was copied from (the file,
an included file, a ``[vars]`` value, a manifest note) to name its file:line:column or key path.

Every rule names a shape (``secret_rules.py``, a leaf every message's redaction uses);
``[secrets] allow`` in the manifest turns a rule off by name or allows a finding whose text
contains a given string, and ``allow_files`` allows every finding in the files its globs match.
Messages never repeat a secret whole: it and its source line are redacted before they reach a
terminal or a CI log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from hotplex.errors import Problem, Span
from hotplex.scanning.origins import (
    Allowance,
    Origin,
    Places,
    locate,
    misspelt_rule,
    rule_allowance,
)
from hotplex.text.secret_rules import RULE_NAMES, Match, redact, scan


class Finding(NamedTuple):
    rule: str
    description: str
    secret: str
    text: str
    span: Span
    assembled: bool = False  # formed by template rendering: in no source text as a whole

    @property
    def size(self) -> int:
        """How many characters of the scanned text the finding covers."""
        return len(self.secret)

    def problem(self) -> Problem:
        how = ", assembled by template expressions" if self.assembled else ""
        return Problem(
            f"possible secret, {self.description} (rule {self.rule}{how}): "
            f"{redact(self.secret)}; it must not reach an artifact",
            self.span,
            "remove it (and revoke it if it was real); if it is not a secret, allow it: "
            f'[secrets] allow = ["{self.rule}"] or a part of its text',
        )


def allowance(allow: Iterable[str], allow_files: Iterable[str]) -> Allowance:
    """``[secrets]``: an entry naming a rule turns it off; another allows findings holding it."""
    return rule_allowance(RULE_NAMES, allow, allow_files)


def _allowed(allowance: Allowance, finding: Finding) -> bool:
    return (
        allowance.allows_name(finding.rule)
        or allowance.allows_text(finding.text)
        or allowance.allows_file(finding.span.file)
    )


def find(text: str, origins: Sequence[Origin], allowance: Allowance) -> list[Finding]:
    """The findings of ``text`` not allowed, each placed in the first origin holding its secret.

    A secret in no origin was assembled by rendering; it is placed at the first origin's file.
    """
    findings = []
    places = Places()
    for match in scan(text):
        finding = _place(text, match, origins, places)
        if not _allowed(allowance, finding):
            findings.append(finding)
    return findings


def _place(text: str, match: Match, origins: Sequence[Origin], places: Places) -> Finding:
    rule = match.rule
    found = locate(text, match.start, [(match.secret, 0)], origins, places)
    span, assembled = places.span(found, origins), found is None
    return Finding(
        rule.name,
        rule.description,
        match.secret,
        match.text,
        _redacted(span, match.secret),
        assembled,
    )


def _redacted(span: Span, secret: str) -> Span:
    """The place and the line shown under the message without the secret: a file's name (a
    day's heading) or a key path (an agent's name) may hold it too. The line is kept around the
    secret (``Span.around``): each of a long line's secrets redacted in the whole line cost the
    square of the line."""
    shown = redact(secret)

    def clean(text: str | None) -> str | None:
        return None if text is None else text.replace(secret, shown)

    span = span.around(len(secret))
    return span.replace(
        file=span.file.replace(secret, shown),
        key=clean(span.key),
        source_line=clean(span.source_line),
    )


def unknown_rule_hint(entry: str) -> str | None:
    """For an allow entry that looks like a misspelt rule name: "did you mean …", else None."""
    return misspelt_rule(entry, RULE_NAMES)
