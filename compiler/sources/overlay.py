"""Per-user overlays: compile as if some source files held other text, for one call only.

A gateway serves many users from one set of files; each user has their own USER.md, MEMORY.md
and daily logs in the gateway's store. ``OverlayInputs`` is the build's reader (``Inputs``) seen
through those texts: an overlaid file is decoded, stripped of frontmatter and capped exactly as a
file on disk would be, so the sanitizer, the limits, the secret and hidden-text scans and the
daily-log selection treat it the same; only it is never a template (``Loaded.data``): per-user
text is the least trusted input, so nothing in it is executed (no include of the project's other
files, no variable) and what the guard scans is what is sent. Every other file comes from the
base reader and its cache.
Nothing is written, and nothing of an overlay is stored where another call could see it: the
overlaid texts live in this object alone, which the call drops.

Every key and value is checked before the compile (``prepare``: a wrong type, a key that is not
a path of the sources folder, a value that is not text) and every key against what the compile
read after it (``check_used``): an overlay that changes nothing is a typo, not a no-op.
"""

from __future__ import annotations

import collections
import fnmatch
import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hotplex.errors import BuildFailed, HotplexError, Span, suggest
from hotplex.fs import ReadResult, checked_key, read_capped
from hotplex.manifest.vocabulary import DAY_FORMS, LOG_SOURCE, split_glob
from hotplex.records import Finding
from hotplex.scanning import injection
from hotplex.sources import blocking, frontmatter, scanned
from hotplex.sources.compacted import COMPACTED_FOLDER, is_month
from hotplex.sources.inputs import Inputs, whole_characters
from hotplex.sources.logs import days_glob, is_day, is_day_of, matching
from hotplex.sources.reader import Loaded
from hotplex.sources.resolve import overlay_paths
from hotplex.sources.skills import folder_of as skills_folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model


@dataclass(frozen=True)
class OverlayFile:
    display: str  # the project path it stands in for (agent-configs/USER.md)
    label: str  # how messages name it: "overlay:USER.md", or the file it was read from
    raw: ReadResult  # its bytes as a read of the file gives them: capped, with the full size
    text: str  # ``raw`` decoded as a source file is (UTF-8, no BOM, LF line ends)
    day: bool  # a daily log the ``[memory] logs`` glob selects


def prepare(
    model: Model,
    overlay: Mapping[str, str | bytes | os.PathLike[str]] | None,
    labels: Mapping[str, str] | None,
    cap: int,
    jobs: list[Job],
    included: Included,
) -> dict[str, OverlayFile]:
    """Overlay keys (paths inside the sources folder) -> ``OverlayFile`` by project path; every
    value decoded (a path read, at most ``cap`` bytes) now, so a wrong one fails the call. A
    value that cannot be read under a key no job reads (``included``: see ``check_used``)
    reports the key: the key is wrong first (``--overlay a=b=c`` names the unknown 'a', not the
    missing file 'b=c')."""
    overlay = _mapping(overlay, "overlay", '{"USER.md": text}')
    labels = _mapping(labels, "overlay_names", '{"USER.md": "users/42/USER.md"}')
    for key, label in labels.items():
        if key not in overlay:
            raise HotplexError.single(
                f"overlay_names names {key!r}, which the overlay does not hold",
                hint=suggest(str(key), [k for k in overlay if isinstance(k, str)]),
            )
        if not isinstance(label, str):
            raise HotplexError.single(
                f"overlay_names[{key!r}] is {_kind(label)}, not a str: the name messages give it"
            )
    files: dict[str, OverlayFile] = {}
    keys: dict[str, str] = {}  # by project path, the key as given that named it
    skills = skills_folder(model.sources_dir) + "/"
    for key, value in overlay.items():
        if not isinstance(key, str):
            raise HotplexError.single(
                f"overlay key {key!r} is {_kind(key)}, not a str",
                hint='keys are paths inside the sources folder, e.g. "USER.md"',
            )
        if isinstance(value, os.PathLike):  # the file read is the one its label names
            value = Path(os.path.normpath(value))
        default = os.fspath(value) if isinstance(value, os.PathLike) else f"overlay:{key}"
        label = labels.get(key, default)
        display = _display(model, key, Span(f"overlay:{key}"))
        if display.startswith(skills):
            raise HotplexError.single(
                "a skill's files are not overlaid: an Agent Skill is the project's, the same in"
                " every call, never one user's text",
                Span(label),
                hint="put a user's own text in an overlaid USER.md, MEMORY.md or daily log",
            )
        if display in keys:
            raise HotplexError.single(
                f"overlay keys {keys[display]!r} and {key!r} name the same file"
            )
        keys[display] = key
        try:
            raw = _read(key, value, cap)
        except HotplexError:
            label = labels.get(key, f"overlay:{key}")
            unknown = _unknown_key(model, jobs, included, display, label)
            if unknown is not None:
                raise unknown from None
            raise
        capped = raw.size > len(raw.data)
        if isinstance(value, str):  # a user's stored text: a NUL in it is the scans' finding
            text = frontmatter.as_source(
                whole_characters(raw.data).decode("utf-8") if capped else value
            )
        else:  # a file's bytes: a NUL says binary or UTF-16
            text = frontmatter.decode(whole_characters(raw.data) if capped else raw.data, label)
        files[display] = OverlayFile(display, label, raw, text, _is_day(model, display))
    return files


def _mapping(value: object, name: str, example: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HotplexError.single(
            f"{name} must be a mapping (a dict), not {_kind(value)}", hint=f"e.g. {name}={example}"
        )
    return value


def _kind(value: object) -> str:
    return "None" if value is None else f"a value of type {type(value).__name__}"


def _display(model: Model, key: str, span: Span) -> str:
    """The project path an overlay key names: a '/'-separated path as the project's files are
    named (``fs.checked_key``)."""
    # The source path is normalised: "./USER.md" is "USER.md", as a path object spells it.
    return model.source_path(checked_key(key, span, "overlay key"))


def key_of(model: Model, display: str) -> str:
    return posixpath.relpath(display, model.sources_dir)


def _read(key: str, value: object, cap: int) -> ReadResult:
    """A value's bytes as a read of a file with them would give them (``cap`` bytes at most)."""
    span = Span(f"overlay:{key}")
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise HotplexError.single(f"not valid text: {exc.reason}", span) from None
    elif isinstance(value, bytes):
        data = value
    elif isinstance(value, os.PathLike):
        path = os.fspath(value)
        found = read_capped(Path(path), cap, span, path)  # a device or a FIFO is refused
        if found is None:
            raise HotplexError.single(f"cannot read '{path}': no such file", span)
        return found
    else:
        # A bytearray or memoryview is refused too: it may change while the call reads it, and
        # a memoryview of non-byte items is not text; bytes(value) says what is meant.
        buffer = isinstance(value, (bytearray, memoryview))
        raise HotplexError.single(
            f"the overlay of '{key}' is {_kind(value)}: give its text (str or UTF-8 bytes)"
            " or a pathlib.Path to read it from",
            span,
            hint="pass bytes(value)" if buffer else None,
        )
    return ReadResult(data[:cap], len(data), None)


def _is_day(model: Model, display: str) -> bool:
    """Whether ``display`` is a daily log: in the logs glob's folder itself (not a subfolder),
    matching its file pattern, and named by its date."""
    glob_path = days_glob(model)
    return glob_path is not None and is_day_of(glob_path, display)


class OverlayInputs:
    """``Inputs`` with some files' text given instead of read (duck-typed: the resolver asks
    for ``load``, ``raw``, ``listing``, ``entries`` and ``digest``)."""

    def __init__(
        self,
        base: Inputs,
        files: dict[str, OverlayFile],
        model: Model,
        job: Job,
        block: bool = False,
        order: tuple[str, ...] | None = None,
    ) -> None:
        """``block``: an entry holding a finding is replaced (``on_finding = "block"``,
        ``blocking.py``); else a finding fails the compile. ``order``: ``document_order``, as
        a call with the same keys found it (the overlay plan keeps it); None: found here."""
        self.base, self.files, self.order, self.model, self.job = base, files, order, model, job
        self.block = model.manifest if block else None
        # By overlaid file, the findings whose entries were blocked (the last load's).
        self.blocked: dict[str, list[Finding]] = {}
        self.root, self.started_ns = base.root, base.started_ns
        self.packages = base.packages  # an overlaid file is named by its label: never one of them
        self.stamps, self.sections = base.stamps, base.sections
        self._own: dict[str, Loaded] = {}
        self._together: dict[str, str] | None = None
        self._stripped: dict[str, frontmatter.Stripped] = {}  # by file ``_bodies`` reads
        # Under block, the days left out for their names (headings), and those findings.
        self._named: dict[str, list[blocking.Found]] = {}
        self._folders = {posixpath.dirname(p) + "/" for p, file in files.items() if file.day}
        self.overlay_labels = frozenset(file.label for file in files.values())  # ``Inputs``

    def blocked_read(self) -> tuple[Finding, ...]:
        """The findings blocked in what this compile read, as ``error`` fails only there (a day
        too old for the budget is never read); a day left out for its name is reported."""
        read = [d for d in self.blocked if d in self._own or d in self._named]
        return tuple(f for d in read for f in self.blocked[d])

    def overlaid(self, paths: Iterable[str]) -> bool:
        """Whether this call's texts touch any of ``paths`` (a file, or a glob's folder)."""
        return any(p in self.files or p in self._folders for p in paths)

    @property
    def _loaded(self) -> Mapping[str, Loaded | None]:
        by_label = {loaded.display: loaded for loaded in self._own.values()}
        return collections.ChainMap(by_label, self.base._loaded)

    def load(self, display: str, span: Span, meta: bool = True) -> Loaded | None:
        file = self.files.get(display)
        if file is None:
            return self.base.load(display, span, meta)
        own = self._own.get(display)
        if own is None or own.meta_read != meta:
            together = self._bodies() if meta else {}
            # Stripped once a call: ``_bodies`` did it for every file the job's document holds.
            stripped = self._stripped.get(display) if meta else frontmatter.Stripped(file.text)
            if stripped is None:
                stripped = frontmatter.strip_data(file.text, file.label)
            body = stripped.body
            if display in together:
                body = together[display]
            elif self.block is not None:  # a file no source of the job names: read alone
                body, found = blocking.contain(self.block, body, file.label, stripped.body_line)
                self.blocked[display] = [blocking.record(f, "blocked") for f in found]
            capped = file.raw.size > len(file.raw.data)
            self._own[display] = Loaded(
                file.label,
                body,
                stripped.meta,
                stripped.body_line,
                file.raw.size,
                capped,
                meta,
                read=len(whole_characters(file.raw.data) if capped else file.raw.data),
                data=True,
            )
        return self._own[display]

    def _bodies(self) -> dict[str, str]:
        """Every overlaid file's body (frontmatter stripped) as the compile reads it. The files
        are one user's, read together: an artifact holds them in one document, where one file's
        text can complete another's (``blocking.composed``). So they are scanned together, in
        the document's order, once per call: under ``block`` an entry holding a finding, alone
        or with the others, is replaced; else what they make together fails the compile (what
        a file holds alone is the resolver's to report, with every other finding)."""
        if self._together is None:
            files = self.files
            if self.block is not None:  # a day whose name holds a finding alone is not read
                for d, file in files.items():
                    named = (
                        blocking.scan_day_name(self.block, d, file.label, True) if file.day else []
                    )
                    if named:
                        self._named[d] = named
                        self.blocked[d] = [blocking.record(f, "blocked") for f in named]
            self.order = self.order or tuple(document_order(self.model, files, self.job))
            order = [d for d in self.order if d not in self._named]
            stripped = self._stripped
            for d in order:
                stripped[d] = frontmatter.strip_data(files[d].text, files[d].label)
            parts, owners = _document_parts(self, order)
            manifest = self.model.manifest
            if self.block is not None:
                contained = blocking.contain_together(manifest, parts)
                self._together = {}
                for display, part, (body, found) in zip(owners, parts, contained, strict=True):
                    if part.trusted:
                        continue
                    if part.named and found:  # a heading is no entry: the day is left out whole
                        self._named[display] = found
                    elif not part.named:
                        self._together[display] = body
                        found = self._named.get(display, []) + found
                    self.blocked[display] = [blocking.record(f, "blocked") for f in found]
            else:
                together = blocking.composed(manifest, parts)
                # What a part holds alone the resolver reports; asked only of a join's finding.
                if together and not any(part.scanned(manifest) for part in parts):
                    found = {f.problem(): f.rule for f in together}
                    raise BuildFailed(scanned.capped(found))
                self._together = {d: stripped[d].body for d in order}
        return self._together

    def raw(self, display: str, span: Span) -> ReadResult | None:
        file = self.files.get(display)
        if file is None:
            return self.base.raw(display, span)
        return file.raw

    def listing(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        """The folder's days with the overlaid ones; under ``block``, a day whose name (its
        heading) holds a finding is left out whole, its findings blocked: a name is no entry."""
        found = dict(self.base.listing(display, span))
        days = [p for p, f in self.files.items() if f.day and posixpath.dirname(p) + "/" == display]
        if self.block is not None:
            self._bodies()  # the days left out for their names, alone or with the other files
        for path in days:
            if path in self._named:
                found.pop(posixpath.basename(path), None)
            else:
                found[posixpath.basename(path)] = self.files[path].raw.size
        return tuple(sorted(found.items()))

    def entries(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        """A skill's folder: never overlaid (an overlay is a user's text, no skill)."""
        return self.base.entries(display, span)

    def digest(self, display: str) -> str | None:
        return "overlay" if display in self.files else self.base.digest(display)


# Every file some job's compile of the base files reads (what the manifest names, and what
# their includes and Claude ``@path`` imports read), asked only when a key is none of the files
# the manifest names: the caller computes it once per model and reader (``Project``).
Included = Callable[[], Collection[str]]


def check_used(
    files: dict[str, OverlayFile],
    consulted: list[str],
    model: Model,
    jobs: list[Job],
    included: Included,
) -> None:
    """An overlay no source of the project reads is a typo, not a no-op. A key is used when this
    compile read it, when it is a daily log, or when any job of the project reads it (a variant of
    another platform, a source another target keeps, a file another job's sources include):
    a gateway may pass each user's whole set of files to every compile."""
    read = set(consulted)
    for display, file in files.items():
        if not file.day and display not in read:
            unknown = _unknown_key(model, jobs, included, display, file.label)
            if unknown is not None:
                raise unknown


def _unknown_key(
    model: Model, jobs: list[Job], included: Included, display: str, label: str
) -> HotplexError | None:
    """The error for an overlay of ``display`` when no job of the project reads that file (a
    day or a file a compile consulted is known to the caller); what the jobs' includes read is
    asked last, only for a key that is no file the manifest names."""
    if _is_day(model, display):
        return None
    base = {model.source_path(s.file) for s in model.sources}
    readable = base | {
        path
        for job in jobs
        for source in model.sources
        for path in overlay_paths(model, source, job)
    }
    if display in readable:
        return None
    # A folder listed (a skill's, the daily logs') or a skill's file is no key: not offered.
    skills = skills_folder(model.sources_dir) + "/"
    readable.update(
        p for p in included() if posixpath.normpath(p) == p and not p.startswith(skills)
    )
    if display in readable:
        return None
    key = key_of(model, display)
    hint = _unread_hint(model, key) or suggest(key, sorted(key_of(model, p) for p in readable))
    return HotplexError.single(
        f"overlay '{key}' is not a file this project reads",
        Span(label),
        hint=hint or "sources: " + ", ".join(sorted(key_of(model, p) for p in base)),
    )


def _unread_hint(model: Model, key: str) -> str | None:
    """Why a key in or below the daily logs' folder is not a day."""
    folder, name = posixpath.split(key)
    glob = model.manifest.memory.logs
    if glob is None:
        day = is_day(name)
        return 'this project reads no daily logs ([memory] logs = "memory/*.md")' if day else None
    logs, pattern = split_glob(glob)
    logs = posixpath.normpath(logs)
    if logs == ".":
        return None
    if folder == logs:
        if not fnmatch.fnmatchcase(name, pattern):
            return f"daily logs are the files of '{logs}/' that match '{pattern}'"
        return f"a daily log is named by its date: {DAY_FORMS}"
    if folder.startswith(logs + "/"):
        return f"daily logs are read from '{logs}/' itself, not from its subfolders"
    return None


def _document_parts(
    inputs: OverlayInputs, order: list[str]
) -> tuple[list[blocking.Part], list[str]]:
    """The parts of the job's document ``_bodies`` reads together, in its order: the overlaid
    files of ``order`` (a day's heading before it), with the project's own files and days
    between them, trusted (``own_files``); and by part, the file it is of."""
    files, stripped = inputs.files, inputs._stripped
    parts: list[blocking.Part] = []
    owners: list[str] = []
    listing = own_files(inputs.base, (stripped[d].body for d in order))
    for d in document_order(inputs.model, files, inputs.job, listing):
        if d not in files:
            own = own_part(inputs.base, d)
            if own is not None:
                parts.append(own)
                owners.append(d)
            continue
        if d not in order:
            continue
        if files[d].day:
            parts.append(blocking.heading(d, files[d].label, overlaid=True))
            owners.append(d)
        label, first = files[d].label, stripped[d].body_line
        parts.append(blocking.Part(stripped[d].body, label, first, overlaid=True))
        owners.append(d)
    return parts, owners


Listing = Callable[[str], Iterable[tuple[str, int]]]  # a folder's (name, size): Inputs.listing


def own_files(base: Inputs, bodies: Iterable[str]) -> Listing | None:
    """``document_order``'s ``listing`` of the project's folders; None when no user's text
    defines a label (``blocking.composed`` would read none of the project's)."""
    if not any(injection.definition_labels(body) for body in bodies):
        return None
    return lambda folder: base.listing(folder, Span(folder))


def own_part(base: Inputs, display: str) -> blocking.Part | None:
    """The project's own file ``display`` as a part of the join, trusted; a file the shared
    reader does not hold already (a day too old for any base document) is read apart from it."""
    loaded = base.held_or_read(display, Span(display))
    return None if loaded is None else blocking.project_part(loaded.body, display)


def document_order(
    model: Model, files: Mapping[str, OverlayFile], job: Job, listing: Listing | None = None
) -> list[str]:
    """The overlaid files ``job`` reads, in the order its document holds their texts: its
    sources in the manifest's order, each with the files layered over its base for the job
    (``overlay_paths``; the most specific alone under variants ``mode = "replace"``), and after
    the daily logs' source its compacted months, then its days, each newest first as
    ``logs.py`` reads them. A variant of another platform is no text of this document.
    ``listing``: a project folder's file names; with it, the project's own files, days and
    months too, each in its place (a label's first definition wins: adversary16 D13, 17 D5)."""
    logs = model.manifest.memory.logs
    where, pattern = split_glob(logs) if logs is not None else (".", "")
    folder = model.source_path(where)
    compacted = f"{folder}/{COMPACTED_FOLDER}"
    months = {d for d in files if logs is not None and posixpath.dirname(d) == compacted}
    days = {d for d, file in files.items() if file.day}
    if listing is not None and logs is not None:
        days.update(f"{folder}/{name}" for name, _ in matching(listing(f"{folder}/"), pattern))
        months.update(f"{compacted}/{n}" for n, _ in listing(f"{compacted}/") if is_month(n))
    order: list[str] = []
    for source in model.sources_of(job.target):
        base = model.source_path(source.file)
        layered = [p for p in (base, *overlay_paths(model, source, job)) if p in files]
        order += layered[-1:] if model.manifest.variants.mode == "replace" else layered
        if listing is not None and not layered:
            order.append(base)
        if source.name == LOG_SOURCE and logs is not None:
            order += [*sorted(months, reverse=True), *sorted(days, reverse=True)]
    return order
