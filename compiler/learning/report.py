"""The records a learn call answers with, typed until an edge (CLI, HTTP) turns them into JSON.

They live with the feature rather than in ``hotplex.records``: that module is near the size the
floors issue caps modules at, and nothing below this stage makes or reads them.
"""

from __future__ import annotations

from hotplex.errors import shown
from hotplex.generated import attrs
from hotplex.records import Finding
from hotplex.sources import learned_keys
from hotplex.values import Record

# What a call did with each fact, as the report says it.
STATUSES = ("added", "superseded", "unchanged", "refused", "evicted")


@attrs.frozen(repr=False)
class Fact(Record):
    """One learned fact with its provenance: the dates are the caller's, never the clock's."""

    key: str  # as compared (``learned_keys.canonical``)
    value: str
    learned: str  # YYYY-MM-DD: when this value was first learned
    source: str | None  # who said it (a session id), if the caller said
    confirmed: str  # YYYY-MM-DD: when it was last learned again
    written: str = ""  # the key as the person or the worker spelt it ("": as ``key``)

    @property
    def spelled(self) -> str:
        """The key as it is written in the block, the history and the report."""
        return self.written or self.key

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.spelled,
            "value": self.value,
            "learned": self.learned,
            "source": self.source,
            "confirmed": self.confirmed,
        }

    @classmethod
    def from_json(cls, data: dict) -> Fact:
        written = data["key"]
        key = learned_keys.canonical(written)[0] if isinstance(written, str) else None
        if key is None:
            raise ValueError(f"no key: {written!r}")
        return cls(key, data["value"], data["learned"], data["source"], data["confirmed"], written)


@attrs.frozen(repr=False)
class Retired(Record):
    """A fact that left the profile: superseded by a new value, or evicted by the budget, on
    ``until`` (the call's date). The local history keeps them; the API hands them back."""

    fact: Fact
    why: str  # "superseded" or "evicted"
    until: str

    def to_json(self) -> dict[str, object]:
        return {**self.fact.to_json(), "why": self.why, "until": self.until}

    @classmethod
    def from_json(cls, data: dict) -> Retired:
        return cls(Fact.from_json(data), data["why"], data["until"])


@attrs.frozen(repr=False)
class Outcome(Record):
    """What one fact became: ``status`` is one of ``STATUSES``; ``previous`` the value a
    supersede replaced; ``findings`` (refused by the guard) or ``reason`` say why a refusal."""

    key: str
    value: str
    status: str
    previous: str | None = None
    findings: tuple[Finding, ...] = ()
    reason: str | None = None

    def describe(self) -> str:
        said = f"{shown(self.key)}: {shown(self.value)}"
        if self.previous is not None:
            said += f" (was: {shown(self.previous)})"
        why = [f.describe() for f in self.findings] + ([self.reason] if self.reason else [])
        return f"{self.status:<11} {said}" + "".join(f"\n              {w}" for w in why)

    def to_json(self) -> dict[str, object]:
        return {
            "key": shown(self.key),
            "value": shown(self.value),
            "status": self.status,
            "previous": None if self.previous is None else shown(self.previous),
            "findings": [f.to_json() for f in self.findings],
            "reason": self.reason,
        }


@attrs.frozen(repr=False)
class LearnReport(Record):
    """A learn call's answer: the profile's new text (the same text when nothing changed) and
    what became of each fact, in the order given, then the facts the budget evicted."""

    file: str
    date: str
    text: str
    changed: bool
    outcomes: tuple[Outcome, ...]
    retired: tuple[Retired, ...]
    facts: tuple[Fact, ...]  # the block's facts after the call, by key

    @property
    def refused(self) -> bool:
        return any(o.status == "refused" for o in self.outcomes)

    def to_json(self) -> dict[str, object]:
        return {
            "file": shown(self.file),
            "date": self.date,
            "changed": self.changed,
            "facts": [o.to_json() for o in self.outcomes],
            "retired": [r.to_json() for r in self.retired],
        }
