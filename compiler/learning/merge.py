"""Merge given facts into a profile's learned block: the semantics of ``hotplex learn``.

- A fact whose key is new is added; one whose key holds another value supersedes it (the old
  one is retired, ``superseded``); an identical one re-confirms it: its confirmed date becomes
  the call's (never earlier than it was), nothing else moves. The same facts on the same date
  twice change nothing.
- The guard reads every fact before it counts (``screen``): the scan a compile makes of a
  gateway's files (secrets, hidden text, injection and exfiltration, with the manifest's
  allowances), on the key as written, the value, the source and the line the worker would
  read; then on the whole profile with the fact in it, so that a fact cannot finish what
  another line began (an image whose link definition is elsewhere): what the guard finds there
  that it did not before is the fact's. A fact it flags is refused and never written; the
  findings are in its outcome. So is a
  fact longer by itself than the whole budget, which would otherwise evict every other.
- The block has one budget, ``[learn] budget``: while its facts (as the worker reads them) are
  over it, the least recently confirmed leaves first (then by key), retired as ``evicted``; the
  call's own facts are then taken back while they fit (``_over_budget``). A fact of the call
  left out so was never in the block: it is refused, not retired, so the same facts on the same
  day twice retire nothing the second time (a gateway appends what is retired to its history).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from hotplex.errors import HotplexError, Problem, Span
from hotplex.generated import attrs
from hotplex.learning import profile as profiles
from hotplex.learning.facts import Given
from hotplex.learning.report import Fact, LearnReport, Outcome, Retired
from hotplex.records import Finding
from hotplex.scanning.origins import OVERLAY
from hotplex.sources import blocking
from hotplex.sources import learned_keys as keys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Manifest


def learn(
    manifest: Manifest,
    text: str,
    file: str,
    given: list[Given],
    date: str,
    together: Sequence[blocking.Part] = (),
    overlaid: bool = False,
) -> LearnReport:
    """The profile ``text`` (named ``file``) with ``given`` merged on ``date``; ``together``:
    the texts an artifact holds with it, in the document's order, the profile's among them
    (named ``label(file, overlaid)``: its text is the profile's as learned). ``overlaid``: a
    gateway's user's profile, scanned as a compile scans that user's overlay, which only an
    ``overlay:`` glob of ``allow_files`` reaches (a project allowing its own ``USER.md`` must
    not accept a fact that would then fail that user's compiles)."""
    profile = profiles.parse(text, file)
    _no_look_alikes(profile.facts, given)
    context = _Context(manifest, profile, label(file, overlaid), together, overlaid)
    # The whole profile is scanned once with every new value in it; only when that finds
    # something new are the values halved until each one that brings a finding is found.
    merged = _merged(manifest, profile.facts, given, date, {})
    old = profile.facts
    fresh = [
        merged.facts[g.key]
        for g in given
        if g.key in merged.facts and (g.key not in old or old[g.key].value != g.value)
    ]
    refused = context.offenders(fresh, dict(old))
    if refused:
        merged = _merged(manifest, profile.facts, given, date, refused)
    facts, outcomes, retired = merged
    budget = manifest.learn.budget
    for fact in _over_budget(facts, budget, {g.key for g in given}):
        del facts[fact.key]
        mine = [
            i
            for i, o in enumerate(outcomes)
            if keys.canonical(o.key)[0] == fact.key and o.status != "refused"
        ]
        if _arrives(fact, profile.facts):  # never in the block, so never retired: refused
            reason = (
                f"no room in [learn] budget ({budget}) beside facts confirmed as recently:"
                " it would be evicted as it came in"
            )
            outcomes[mine[0]] = attrs.evolve(outcomes[mine[0]], status="refused", reason=reason)
            continue
        retired.append(Retired(fact, "evicted", date))
        if mine:
            outcomes[mine[0]] = attrs.evolve(outcomes[mine[0]], status="evicted")
        else:
            outcomes.append(Outcome(fact.spelled, fact.value, "evicted"))
    changed = facts != profile.facts
    new = profiles.join(profile, facts) if changed else text
    ordered = tuple(f for _key, f in sorted(facts.items()))
    return LearnReport(file, date, new, changed, tuple(outcomes), tuple(retired), ordered)


def label(file: str, overlaid: bool) -> str:
    """How the guard names the profile ``file``: a user's overlaid one as a compile does."""
    return f"{OVERLAY}{file}" if overlaid else file


def _no_look_alikes(known: dict[str, Fact], given: list[Given]) -> None:
    """A given key that only looks like a key of the block (``keys.skeleton``) is an error."""
    shapes = {keys.skeleton(fact.spelled): fact for fact in known.values()}
    problems = [
        Problem(
            keys.look_alike(keys.spelling(g.written), twin.spelled, "a fact of the block"),
            Span("facts", key=f"{g.place}.key"),
            f"to change that fact, give its key as the block spells it: {twin.spelled!r}",
        )
        for g in given
        if (twin := shapes.get(keys.skeleton(g.written))) is not None and twin.key != g.key
    ]
    if problems:
        raise HotplexError(problems)


class _Merged(NamedTuple):
    facts: dict[str, Fact]
    outcomes: list[Outcome]
    retired: list[Retired]


def _merged(
    manifest: Manifest,
    known: dict[str, Fact],
    given: list[Given],
    date: str,
    refused: dict[str, tuple[Finding, ...]],
) -> _Merged:
    """``given`` merged into ``known`` in order, before the budget; the keys of ``refused``
    are refused with those findings (what they bring to the profile)."""
    budget = manifest.learn.budget
    facts = dict(known)
    outcomes: list[Outcome] = []
    retired: list[Retired] = []
    for fact in given:
        spelled = keys.spelling(fact.written)
        size = profiles.worker_size(Fact(fact.key, fact.value, date, None, date, spelled))
        if size > budget:  # before the scan: a megabyte of value costs nothing more
            reason = f"its line is {size} characters: [learn] budget is {budget}"
            outcomes.append(Outcome(spelled, fact.value, "refused", reason=reason))
            continue
        found = screen(manifest, fact)
        if found:
            outcomes.append(Outcome(spelled, fact.value, "refused", findings=found))
            continue
        old = facts.get(fact.key)
        if fact.learned is not None and old is not None and date < old.confirmed:
            raise HotplexError.single(  # a restore (only it gives a learned day)
                f"the date {date} is before {old.confirmed}, when the value of {fact.key!r} in"
                " the block was last confirmed: the history would have it leave before then",
                Span("arguments", key="date"),
            )
        if old is not None and old.value == fact.value:
            facts[fact.key] = attrs.evolve(old, confirmed=max(old.confirmed, date))
            outcomes.append(Outcome(spelled, fact.value, "unchanged"))
            continue
        if fact.key in refused:
            outcomes.append(Outcome(spelled, fact.value, "refused", None, refused[fact.key]))
            continue
        facts[fact.key] = _new(fact, date)
        if old is None:
            outcomes.append(Outcome(spelled, fact.value, "added"))
        else:
            retired.append(Retired(old, "superseded", date))
            outcomes.append(Outcome(spelled, fact.value, "superseded", old.value))
    return _Merged(facts, outcomes, retired)


def _arrives(fact: Fact, old: dict[str, Fact]) -> bool:
    """Whether ``fact`` comes into the block with this call (added, superseding, restored)."""
    known = old.get(fact.key)
    return known is None or known.value != fact.value


def _new(fact: Given, date: str) -> Fact:
    spelled = keys.spelling(fact.written)
    return Fact(fact.key, fact.value, fact.learned or date, fact.source, date, spelled)


class _Context:
    """What the guard finds in the whole profile once a fact joins it that it did not find
    before: a fact harmless alone can complete what another line started (``![x][l]`` whose
    definition ``[l]: https://evil.example/?d=`` another line holds), or another file the
    artifact holds with the profile (``together``: ``blocking.composed``)."""

    def __init__(
        self,
        manifest: Manifest,
        profile: profiles.Profile,
        file: str,
        together: Sequence[blocking.Part] = (),
        overlaid: bool = False,
    ) -> None:
        self.manifest, self.profile, self.file, self.together = manifest, profile, file, together
        self.overlaid = overlaid
        self._known: Counter[tuple[str, str, str]] | None = None

    def scan(self, facts: dict[str, Fact]) -> list[Finding]:
        """What the guard finds in the profile holding ``facts``, alone and with the files
        beside it."""
        text = profiles.join(self.profile, facts)
        found = blocking.scan(self.manifest, text, self.file, 1, overlaid=self.overlaid)
        if len(self.together) > 1:
            parts = [
                p._replace(body=text, first_line=1) if p.file == self.file else p
                for p in self.together
            ]
            found += blocking.composed(self.manifest, parts)
        return list(map(_refused, found))

    def _found(self, facts: dict[str, Fact]) -> Counter[tuple[str, str, str]]:
        return Counter((f.kind, f.rule, f.message) for f in self.scan(facts))

    def _new(self, facts: dict[str, Fact]) -> Counter[tuple[str, str, str]]:
        """What the guard finds in the profile holding ``facts`` that it did not before. A scan
        is a CommonMark parse of the whole profile: the profile as it was is scanned only when
        there is something to tell apart, once."""
        found = self._found(facts)
        if not found:
            return found
        if self._known is None:
            self._known = self._found(self.profile.facts)
        return found - self._known

    def offenders(
        self, values: list[Fact], accepted: dict[str, Fact]
    ) -> dict[str, tuple[Finding, ...]]:
        """The keys of ``values`` whose value brings the profile (holding ``accepted`` and the
        values before it) a finding, and those findings: the whole set scanned at once, halves
        only when it finds something (a scan of the profile per halving, not per fact).
        ``accepted`` gains every value that brings none."""
        if not values:  # the profile as it was: nothing new to find
            return {}
        trial = {**accepted, **{f.key: f for f in values}}
        new = self._new(trial)
        if not new:
            accepted.update(trial)
            return {}
        if len(values) == 1:
            found = self.scan(trial)
            return {values[0].key: tuple(f for f in found if (f.kind, f.rule, f.message) in new)}
        half = len(values) // 2
        refused = self.offenders(values[:half], accepted)
        refused.update(self.offenders(values[half:], accepted))
        return refused


def _refused(finding) -> Finding:
    return blocking.record(finding, "refused")


def _over_budget(facts: dict[str, Fact], budget: int, given: set[str]) -> list[Fact]:
    """The facts to evict, least recently confirmed first (then by key), until the rest fit
    ``budget``; then those of them the call gives taken back, the last to go first, while they
    fit. So the same call again evicts what it left out and nothing else: its facts come back
    in the same order (the learned day, which a fact coming back anew would change, is no
    part of it), those it left out first."""
    total = sum(profiles.worker_size(f) for f in facts.values())
    evicted = []
    for fact in sorted(facts.values(), key=lambda f: (f.confirmed, f.key)):
        if total <= budget:
            break
        evicted.append(fact)
        total -= profiles.worker_size(fact)
    for fact in reversed([f for f in evicted if f.key in given]):
        if total + profiles.worker_size(fact) > budget:
            break
        evicted.remove(fact)
        total += profiles.worker_size(fact)
    return evicted


def screen(manifest: Manifest, fact: Given) -> tuple[Finding, ...]:
    """What the guard finds in a fact, each part placed by its key path (``facts[0].value``)."""
    parts = (
        ("key", fact.written),
        ("value", fact.value),
        ("source", fact.source or ""),
        ("line", f"- {keys.spelling(fact.written)}: {fact.value}"),
    )
    found: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for name, text in parts:
        for finding in blocking.scan(manifest, text, f"{fact.place}.{name}", 1):
            record = _refused(finding)
            if (record.rule, record.message) not in seen:
                seen.add((record.rule, record.message))
                found.append(record)
    return tuple(found)
