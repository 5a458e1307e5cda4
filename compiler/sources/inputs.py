"""The build's one reader of source files (``Inputs``): each file is read and hashed at most
once per build, a file whose stamp matches the last build is not hashed again, and every path a
job consults (present or absent) is recorded, because an absent variant is a dependency too.

Reading is capped (``read_cap``): no file is read further than any budget could keep of it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hotplex.errors import HotplexError, Problem, Span
from hotplex.fs import (
    ReadResult,
    Stamp,
    check_relative,
    confine,
    read_capped,
    settled,
    sha256,
    skipped_folder,
    stamp,
)
from hotplex.manifest.model import Model
from hotplex.manifest.read import LOCK_NAME
from hotplex.sources import frontmatter
from hotplex.sources import logs as memory_logs
from hotplex.sources.reader import Loaded
from hotplex.sources.sections import SectionCache
from hotplex.sources.skills import ENTRIES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Manifest, Target
    from hotplex.sources.packages import Pinned
    from hotplex.worker import Worker

# Reading stops this far past what the per-file limit can use: 4 bytes per character at most,
# times a margin for frontmatter and template branches that render to nothing.
READ_MARGIN = 4
READ_FLOOR = 1 << 20
# And never past this, whatever the budgets (a total of 1e17 is no reason to read 200 MB): no
# model's context holds more, and what is not read is reported.
READ_CEILING = 64 << 20


def list_entries(path: Path) -> tuple[tuple[str, int], ...] | None:
    """Every regular file (name, size) and subfolder (name + '/', 0) of a folder, by name; any
    other entry (a symlink, a pipe) as (name, -1), for the reader to refuse: a skill's files are
    its own. None when the folder does not exist. Hidden entries (``.git``, ``.DS_Store``) and
    vendored folders are left out, as every walk of the user's files leaves them out."""
    try:
        with os.scandir(path) as it:
            found = [(e.name, _entry_size(e)) for e in it if not skipped_folder(e.name)]
    except (FileNotFoundError, NotADirectoryError):
        return None
    return tuple(sorted((name + "/", 0) if size is None else (name, size) for name, size in found))


def _entry_size(entry: os.DirEntry) -> int | None:
    """None for a subfolder, a regular file's size, -1 for anything else."""
    if entry.is_dir(follow_symlinks=False):
        return None
    return entry.stat().st_size if entry.is_file(follow_symlinks=False) else -1


@dataclass
class Inputs:
    """Reads, decodes and fingerprints files under ``root`` for one build."""

    root: Path
    read_cap: int
    # The daily logs' glob (``memory_logs.days_glob``): a day is read from its end, where its
    # newest entries are, so a day larger than the read cap keeps those.
    logs: str | None = None
    known: dict[str, tuple[Stamp, str]] = field(default_factory=dict)  # from the last build
    digests: dict[str, str | None] = field(default_factory=dict)
    stamps: dict[str, Stamp | None] = field(default_factory=dict)
    _raw: dict[str, ReadResult | None] = field(default_factory=dict)
    _loaded: dict[str, Loaded | None] = field(default_factory=dict)
    _listings: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    # The sections resolved so far (``sections.py``), shared by every job of the build; a
    # ``Project`` hands its cache on from one reader to the next.
    sections: SectionCache = field(default_factory=SectionCache)
    started_ns: int = field(default_factory=time.time_ns)  # reads happen after this
    # How many times this reader went to the disk (a file read, a folder listed): a compile
    # that left it unchanged read nothing its stamps, checked before, do not vouch for.
    reads: int = 0
    # The package files hotplex.lock pins (``packages.py``): read from the cache, never from
    # the sources folder.
    packages: Pinned | None = None
    # The labels of the files a user's text stands in for in this call (``overlay.py``): only
    # an ``overlay:`` glob of ``allow_files`` reaches them (``Allowance.allows_file``).
    overlay_labels: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        model: Model,
        known: dict[str, tuple[Stamp, str]] | None = None,
        frozen: bool = False,
        local: dict[str, tuple[Stamp, str]] | None = None,
    ) -> tuple[Inputs, list[str]]:
        """The reader of ``model``'s sources, its packages as hotplex.lock pins them, and the
        warnings a stale lock gives (``packages.pinned``; ``frozen`` makes them errors).
        ``known`` and ``local``: the stamps and digests of the last build, of the inputs and of
        the local packages' files."""
        found, warnings = None, []
        # The module is read only for a project with packages, or a lock to say is stale.
        if model.manifest.package or os.path.lexists(model.root / LOCK_NAME):
            from hotplex.sources.packages import pinned

            found, warnings = pinned(model, frozen, read_cap(model), local)
        logs = memory_logs.days_glob(model)
        return cls(model.root, read_cap(model), logs, known=known or {}, packages=found), warnings

    def adopt(self, previous: Inputs) -> None:
        """Take over what ``previous`` read of each file whose stamp has not moved since (and
        was settled when read: a same-tick rewrite could otherwise hide behind it)."""
        for display, old in previous.stamps.items():
            if (
                old is not None
                and settled(old, previous.started_ns)
                and stamp(self._stamped(display)) == old
            ):
                self.stamps[display] = old
                self.digests[display] = previous.digests[display]
                for mine, theirs in (
                    (self._raw, previous._raw),
                    (self._loaded, previous._loaded),
                    (self._listings, previous._listings),
                ):
                    if display in theirs:
                        mine[display] = theirs[display]

    def digest(self, display: str) -> str | None:
        """Content hash of a file (None when absent), re-hashing only when its stamp moved."""
        if display in self.digests:
            return self.digests[display]
        current = stamp(self._stamped(display))
        known = self.known.get(display)
        if current is not None and known is not None and known[0] == current:
            self.stamps[display] = current
            self.digests[display] = known[1]
            return known[1]
        if display.endswith(ENTRIES):
            self.entries(display, Span(display))
        elif display.endswith("/"):
            self.listing(display, Span(display))
        else:
            self.raw(display, Span(display))
        return self.digests[display]

    def listing(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        """A folder's days as (name, size), for the logs' glob input (``folder/``); its digest
        covers every day's name and size (a file that is no day, notes.md, is no input: it
        rebuilds nothing), its stamp moves when a file is added or removed."""
        if display not in self._listings:
            from hotplex.sources.logs import list_folder

            path = confine(self.root, check_relative(display.rstrip("/"), span), span)
            found = list_folder(path)
            self.reads += 1
            if found is not None and self.logs is not None:
                found = memory_logs.days_in(self.logs, display.rstrip("/"), found)
            self._listed(display, path, found)
        return self._listings[display]

    def entries(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        """A folder's entries as (name, size), a subfolder's name ending in '/' (size 0), for a
        tree of files read as one input (``folder/.``: an Agent Skill's); its stamp moves when an
        entry is added or removed, its digest covers every name and size."""
        if display not in self._listings:
            folder = display[: -len(ENTRIES)]
            path = confine(self.root, check_relative(folder, span), span)
            found = list_entries(path)
            self.reads += 1
            self._listed(display, path, found)
        return self._listings[display]

    def _listed(self, display: str, path: Path, found: tuple | None) -> None:
        """Record a folder listed as an input: stamped by the folder, digested by its entries."""
        self._listings[display] = found or ()
        self.stamps[display] = stamp(path) if found is not None else None
        self.digests[display] = sha256(repr(found).encode()) if found is not None else None

    def overlaid(self, paths: Iterable[str]) -> bool:
        """Whether any of ``paths`` holds other text in this call (never: see overlay.py)."""
        return False

    def _stamped(self, display: str) -> Path:
        """The file whose stamp vouches for ``display`` (a folder's, for ``folder/``)."""
        if self.packages is not None and self.packages.package_of(display) is not None:
            return self._path(display, Span(display))
        return self.root / display

    def _path(self, display: str, span: Span) -> Path:
        """Where ``display`` is read from: the cache for a package file (a file the package
        lacks, ``os.devnull``'s folder: absent), else the project."""
        if self.packages is not None and self.packages.package_of(display) is not None:
            return self.packages.locate(display, span) or Path(os.devnull, "absent")
        return confine(self.root, check_relative(display, span), span)

    def raw(self, display: str, span: Span) -> ReadResult | None:
        """The file's bytes as read (capped), once per build; a package file's checked against
        hotplex.lock."""
        if display in self._raw:
            return self._raw[display]
        path = self._path(display, span)
        raw = read_capped(path, self.read_cap, span, display, self._is_day(display))
        self.reads += 1
        if raw is not None and self.packages is not None and display in self.packages.files:
            whole = raw.data if raw.size == len(raw.data) else path.read_bytes()
            self.packages.verify(display, whole, span)
        self._raw[display] = raw
        self.stamps[display] = raw.stamp if raw else None
        self.digests[display] = f"{sha256(raw.data)}:{raw.size}" if raw else None
        return raw

    def tail_line(self, display: str, span: Span) -> int:
        """The line of a day a tail read (``Loaded.tail``) starts at, counted only when a
        finding needs placing."""
        raw = self.raw(display, span)
        assert raw is not None  # a tail was read
        path = self._path(display, span)
        self.reads += 1
        return 1 + lines_before(path, raw.size - len(raw.data))

    def _is_day(self, display: str) -> bool:
        return self.logs is not None and memory_logs.is_day_of(self.logs, display)

    def load(self, display: str, span: Span, meta: bool = True) -> Loaded | None:
        """The file decoded, its frontmatter stripped unless ``meta`` is false (a source with
        ``frontmatter = false``: a leading '---' is then the file's own text)."""
        cached = self._loaded.get(display)
        if display in self._loaded and (cached is None or cached.meta_read == meta):
            return cached
        raw = self.raw(display, span)
        day = self._is_day(display)
        loaded = decoded(display, raw, meta, day, self._upstream) if raw is not None else None
        self._loaded[display] = loaded
        return loaded

    def held_or_read(self, display: str, span: Span) -> Loaded | None:
        """The file as this reader holds it, else read for this one caller and not kept: what
        only a user's text makes a call read (the project's days the join of a user's link
        definitions reads, ``overlay.own_part``) stays out of the files whose stamps every
        later call checks (``Project._base_current``: 1,000 days joined once cost every later
        call of every user 1,000 stats)."""
        cached = self._loaded.get(display)
        if display in self._loaded and (cached is None or cached.meta_read):
            return cached
        apart = Inputs(self.root, self.read_cap, self.logs, packages=self.packages)
        return apart.load(display, span)

    def _upstream(self, display: str) -> str | None:
        """What to do about a package file that is not text, if ``display`` is one: the user
        cannot save it again, it is read from the cache as the lock pins it. Asked only of a
        file that is not text."""
        name = None if self.packages is None else self.packages.package_of(display)
        if name is None:
            return None
        pin = ", or pin a rev where it is" if self.packages.commits.get(name) else ""
        return (
            f"the file comes from {self.packages.described(name)}: have it saved as UTF-8 there"
            f" and run `hotplex update {name}`{pin}; or include it nowhere"
        )


def decoded(
    display: str,
    raw: ReadResult,
    meta: bool,
    is_day: bool,
    upstream: Callable[[str], str | None] | None = None,
) -> Loaded:
    """A file's bytes as a source's text: whole characters, its frontmatter stripped when
    ``meta``; a capped day is its tail (its end: no frontmatter, no first line). ``upstream``
    gives the hint for a file the user cannot save again (a package's) that is not text."""
    capped = raw.size > len(raw.data)
    tail = capped and is_day
    data = whole_characters(raw.data, tail) if capped else raw.data
    try:
        text = frontmatter.decode(data, display)
    except HotplexError as exc:
        hint = upstream(display) if upstream is not None else None
        if hint is None:
            raise
        problems = [Problem(p.message, p.span, hint) for p in exc.problems]
        raise HotplexError(problems, exc.exit_status) from None
    strip = meta and not tail
    stripped = frontmatter.strip(text, display) if strip else frontmatter.Stripped(text)
    body, line = stripped.body, stripped.body_line
    return Loaded(display, body, stripped.meta, line, raw.size, capped, meta, tail, len(data))


def whole_characters(data: bytes, tail: bool = False) -> bytes:
    """Drop a UTF-8 sequence that a capped read cut in half: at its end, or at its start when
    it read a file's ``tail``."""
    if tail:
        start = 0
        while start < min(len(data), 3) and data[start] & 0xC0 == 0x80:
            start += 1
        data = data[start:]
    for back in range(1, 4):
        if len(data) >= back and data[-back] & 0xC0 != 0x80:
            lead = data[-back]
            need = 2 if lead >= 0xC0 else 1
            need = 3 if lead >= 0xE0 else need
            need = 4 if lead >= 0xF0 else need
            return data if need <= back else data[:-back]
    return data


def read_cap(model: Model) -> int:
    """Bytes worth reading of any one file: the most any consumer can keep of it, with margin.

    A section never keeps more than ``min(per_file, total)``; OpenClaw targets have their own
    budgets. A 1 GB MEMORY.md is read only this far (at most ``READ_CEILING``), and the cut is
    reported.
    """
    return cap_of(model.manifest, model.worker_of)


def cap_of(manifest: Manifest, worker_of: Callable[[Target], Worker]) -> int:
    """``read_cap`` of ``manifest``, whose targets' workers ``worker_of`` gives (``hotplex
    import`` has the manifest it will write, and no model yet)."""
    limits = manifest.limits
    budgets = [min(limits.per_file, limits.total)]
    for target in manifest.target:
        own = worker_of(target).read_budget(target)
        budgets += [own] if own else []
    return min(max(max(budgets) * 4 * READ_MARGIN, READ_FLOOR), READ_CEILING)


def lines_before(path: Path, stop: int) -> int:
    """How many line breaks the first ``stop`` bytes of a file hold: the line a tail read
    starts at, counted only to place a finding in it."""
    count = 0
    with open(path, "rb") as handle:
        while stop > 0:
            chunk = handle.read(min(stop, 1 << 20))
            if not chunk:
                break
            count += chunk.count(b"\n")
            stop -= len(chunk)
    return count
