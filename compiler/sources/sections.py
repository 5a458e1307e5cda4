"""Sections as intermediate build products: resolved once, shared by every job that needs them.

A thousand jobs of one project hold a few dozen distinct sections (five sources times the base
and each platform); each job used to read, render and scan the same texts again. A resolved
section is kept under what decides it, the way a build system's action cache keeps an action's
outputs under the digest of its inputs, in two parts (ccache's "direct mode" does the same):

- its **key**, known before anything is read: the source's settings, the files the job layers
  over its base file (the platform variant, the bot overlay), and for the memory section with
  daily logs the worker's budgets and way of taking them. The model's settings (templates on or
  off, HTML comments, variants mode, the secret and Unicode allowances) are fixed for a cache's
  life: a cache belongs to one model (a build's, or one ``Project`` until its manifest moves).
- its **dependencies**, found while resolving it: every file it consulted, present or absent,
  with the content digest read, and every template variable it read, with its value.

An entry serves a job when every dependency still holds for that job: the same digests now, the
same values in the job's variables. A per-target variable (``{{ target }}``, a target's ``vars``)
that a file reads thus gives each target its entry; text that reads none is shared by all.

What a section did while it was resolved is replayed into every job that takes it: the files it
consulted (the job's inputs in the build log), its read-cap cuts (each job reports them, as
before) and the variables it read. A section whose resolution found a secret or hidden text is
never kept (every job that reads it resolves it again and fails with the same message), nor is
one any of whose files this call overlays (``OverlayInputs``: one user's text never outlives
its call), nor any in a project with ``imports = "claude"`` sources (a file Claude Code loads
once per session is left out of later sources: sections depend on the ones before them).

The cache is bounded: least recently used entries go first once the texts it holds pass
``MAX_CHARS`` characters or it holds ``MAX_ENTRIES`` entries. Hits serve the same ``Section``
object to every job, so ``document.configuration`` keeps each section's sanitized text beside
it, for exactly as long as the section lives.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from hotplex.records import Section, Truncation
    from hotplex.sources.reader import Reader

# A build of 10,000 artifact sets with per-bot text holds about 5,000 sections of a few KB; a
# gateway's Project needs the sections of its jobs. Either fits many times over.
MAX_CHARS = 64 << 20
MAX_ENTRIES = 1 << 16


class Product(NamedTuple):
    """One resolved section and what resolving it did, to replay into each job that takes it."""

    section: Section | None  # None: the source has no file for this job (an empty section)
    consulted: tuple[str, ...]
    truncations: tuple[Truncation, ...]
    variables: frozenset[str]
    # The dependencies: each consulted path's digest (None: absent) and each variable's value.
    digests: tuple[tuple[str, str | None], ...]
    values: tuple[tuple[str, str | None], ...]

    @property
    def chars(self) -> int:
        if self.section is None:
            return 1
        days = self.section.logs.days if self.section.logs is not None else ()
        return 1 + len(self.section.text) + sum(len(d.body) for d in days)


@dataclass
class SectionCache:
    """Resolved sections of one model by key, each key holding the products of its different
    dependencies; least recently used first out."""

    max_chars: int = MAX_CHARS
    max_entries: int = MAX_ENTRIES
    _entries: dict[Hashable, list[Product]] = field(default_factory=dict)
    chars: int = 0
    count: int = 0
    # Targets whose manifest texts (notes, cwd, options: ``manifest_texts``) were scanned clean.
    clean_targets: set[str] = field(default_factory=set)
    # Manifest texts scanned clean where they reach an artifact as written (``check_setting``):
    # such a text's findings are its own (no file, no injection rules), whatever key holds it,
    # so a thousand targets' identical notes and options are scanned once.
    clean_settings: set[str] = field(default_factory=set)
    computed: int = 0  # sections resolved (missed), for the tests and the benchmarks
    served: int = 0  # sections taken from the cache

    def section(
        self, resolver: Reader, key: Hashable, compute: Callable[[], Section | None]
    ) -> tuple[Section | None, Product | None]:
        """The section ``compute()`` would resolve for the resolver's job under ``key``, and its
        product (None: one that may not be kept, an overlaid file's or one with a finding)."""
        found = self._lookup(resolver, key)
        if found is not None:
            self.served += 1
            replay(resolver, found)
            return found.section, found
        self.computed += 1
        section, product = isolated(resolver, compute)
        if product is not None:
            self._store(key, product)
        return section, product

    def _lookup(self, resolver: Reader, key: Hashable) -> Product | None:
        products = self._entries.get(key)
        if not products:
            return None
        inputs = resolver.inputs
        variables = resolver.variables
        for product in products:
            if (
                all(inputs.digest(path) == digest for path, digest in product.digests)
                and all(variables.get(name) == value for name, value in product.values)
                and not inputs.overlaid(product.consulted)
            ):
                self._entries[key] = self._entries.pop(key)  # most recently used: last
                return product
        return None

    def _store(self, key: Hashable, product: Product) -> None:
        products = self._entries.pop(key, [])
        products.append(product)
        self._entries[key] = products
        self.chars += product.chars
        self.count += 1
        while (self.chars > self.max_chars or self.count > self.max_entries) and self._entries:
            oldest = next(iter(self._entries))
            for dropped in self._entries.pop(oldest):
                self.chars -= dropped.chars
                self.count -= 1


def isolated(
    resolver: Reader, compute: Callable[[], Section | None]
) -> tuple[Section | None, Product | None]:
    """Run ``compute`` with fresh lists of what it consults, cuts and reads, then fold those into
    the job's own; the section, and the product to keep (None when it may not be kept)."""
    outer = (resolver.consulted, resolver.truncations, resolver.read_variables)
    findings = len(resolver.findings)
    resolver.consulted, resolver.truncations, resolver.read_variables = [], [], set()
    try:
        section = compute()
        consulted = tuple(resolver.consulted)
        truncations = tuple(resolver.truncations)
        variables = frozenset(resolver.read_variables)
    finally:
        mine = (tuple(resolver.consulted), tuple(resolver.truncations), resolver.read_variables)
        resolver.consulted, resolver.truncations, resolver.read_variables = outer
        _fold(resolver, *mine)
    inputs = resolver.inputs
    if len(resolver.findings) != findings or inputs.overlaid(consulted):
        return section, None
    return section, Product(
        section,
        consulted,
        truncations,
        variables,
        tuple((path, inputs.digest(path)) for path in consulted),
        tuple((name, resolver.variables.get(name)) for name in sorted(variables)),
    )


def replay(resolver: Reader, product: Product) -> None:
    _fold(resolver, product.consulted, product.truncations, product.variables)


def _fold(
    resolver: Reader,
    consulted: tuple[str, ...],
    truncations: tuple[Truncation, ...],
    variables: set[str] | frozenset[str],
) -> None:
    resolver.consulted.extend(p for p in consulted if p not in resolver.consulted)
    resolver.truncations.extend(truncations)
    resolver.read_variables |= variables
