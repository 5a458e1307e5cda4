"""``hotplex stats``: where each artifact's budget goes, before a worker silently loses context.

For every artifact and section: its size in the limit's unit, its share of the per-file and of the
total budget, an approximate token count and what was cut. Nothing is written; the numbers are the
ones a build would produce, because they come from the same compile.

Each section also says how many characters of its files sit inside HTML comments: invisible on a
rendered page, read by a model unless ``html_comments = "strip"``; a file mostly in comments is
named under the table.

Tokens are estimated, not counted with a real tokenizer (each model has its own): about four ASCII
characters per token and one token per other character (CJK text runs close to that). A section's
estimate is taken from its text before the limits and scaled to the size that survives them.
"""

from __future__ import annotations

import posixpath
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from hotplex.errors import EXIT_OK, HotplexError
from hotplex.generated import attrs
from hotplex.json_writer import json_text
from hotplex.manifest.jobs import select
from hotplex.records import Budgets, SectionSize, SkillRow, Truncation
from hotplex.text.measure import measure

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from hotplex.document.compile import Compiled
    from hotplex.manifest.model import Model
    from hotplex.sources.inputs import Inputs

ASCII_CHARS_PER_TOKEN = 4
# A file with more than this share of its characters in HTML comments is named under the table.
MOSTLY_COMMENTS = 0.5
TOKENS_NOTE = "≈tokens: about 4 ASCII characters or 1 other character per token"


@dataclass(frozen=True)
class Commented:
    """How much of a file (frontmatter excluded) sits inside HTML comments."""

    file: str
    in_comments: int
    chars: int


@dataclass(frozen=True)
class SectionStats:
    name: str
    files: tuple[str, ...]  # empty for the built-in META-COGNITION
    size: int  # what reaches the worker, in ``unit``
    raw: int  # before the limits
    tokens: int
    share_of_file_limit: float | None
    share_of_total: float | None
    truncations: tuple[str, ...]
    comments: tuple[Commented, ...] = ()  # per file
    packages: tuple[str, ...] = ()  # the names of the packages its files come from

    @property
    def in_comments(self) -> int:
        return sum(c.in_comments for c in self.comments)


@dataclass(frozen=True)
class ArtifactStats:
    artifact: str  # the job id, e.g. "cc/slack"; a further document adds its name (".../x.md")
    target: str
    worker: str
    platform: str | None
    path: str
    unit: str
    per_file: int | None
    total: int | None
    size: int  # all sections together: what the total budget counts
    share_of_total: float | None
    document: int  # the whole artifact file, wrapping included, in ``unit``, as its program counts
    tokens: int  # of the whole artifact
    sections: tuple[SectionStats, ...]
    truncations: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()  # the job's (on its primary): what reaches whom
    copies: str = ""  # which copies of the rules the program gets (``raw_copies.status``)
    # The most the program keeps of the whole file (``Budgets.document``), and its share.
    document_budget: int | None = None
    share_of_document_budget: float | None = None
    # The project's Agent Skills as the set carries them (on its primary).
    skills: tuple[SkillRow, ...] = ()


def approx_tokens(text: str) -> int:
    ascii_count = len(text.encode("ascii", "ignore"))
    return -(-ascii_count // ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_count)


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    rows, packages = collect(root, manifest, tuple(args.targets))
    print(render_json(rows, packages) if args.json else render_table(rows, packages))
    return EXIT_OK


@dataclass(frozen=True)
class PackageUse:
    """How many of a package's files (every one the lock pins) the selected artifacts read."""

    name: str
    commit: str
    files: int
    used: int


def collect(
    root: Path, manifest: Path | None, targets: tuple[str, ...]
) -> tuple[list[ArtifactStats], list[PackageUse]]:
    """Compile every selected artifact in memory, once, and measure it; and each package's
    files read by them (unread ones are not listed one by one, as unread local files are)."""
    from hotplex.api import Project
    from hotplex.document.compile import compile_job
    from hotplex.sources.inputs import Inputs

    project = Project.load(root, manifest)
    model = project.model
    inputs = Inputs.of(model)[0]
    found = []
    for job in select(model, project.jobs(), targets):
        compiled = compile_job(model, job, inputs)
        emitted = compiled.emitted
        for path, sizes in ((emitted.primary, emitted.sizes), *emitted.documents):
            found.append(_artifact_stats(compiled, path, sizes, model, inputs))
    pinned = inputs.packages
    if pinned is None:
        return found, []
    uses = []
    for package in model.manifest.package:
        files = [d for d in pinned.files if pinned.package_of(d) == package.name]
        used = sum(1 for d in files if inputs.digests.get(d) is not None)
        uses.append(
            PackageUse(package.name, pinned.commits.get(package.name, ""), len(files), used)
        )
    return found, uses


def _artifact_stats(
    compiled: Compiled, path: str, sizes: tuple[SectionSize, ...], model: Model, inputs: Inputs
) -> ArtifactStats:
    """One document of a job (its primary, or a further one such as a sub-agent's file)."""
    from hotplex.sources import raw_copies

    job, emitted = compiled.job, compiled.emitted
    name = path[len(posixpath.dirname(emitted.primary)) + 1 :]
    budgets = (
        job.worker.budgets(job.target, model.manifest)
        if path == emitted.primary
        else job.worker.document_budgets(job.target, model.manifest, name)
    )
    text = emitted.files[path].decode("utf-8")
    texts = {s.name: s.text for s in compiled.sections}
    # A further document's cuts name it; the rest are the primary's, but for the read caps,
    # made before any document and so shared by all.
    cuts = tuple(
        c
        for c in emitted.truncations
        if c.document == (None if path == emitted.primary else path)
        or (c.document is None and c.limit == "read")
    )
    sections = tuple(
        _section_stats(size, texts.get(size.name, text), cuts, budgets) for size in sizes
    )
    pinned = inputs.packages
    sections = tuple(
        replace(
            s,
            comments=_comments(s.files, inputs),
            packages=pinned.packages_of(s.files) if pinned is not None else (),
        )
        for s in sections
    )
    used = sum(s.size for s in sections)
    document = job.worker.document_size(name, text, budgets.unit)
    return ArtifactStats(
        artifact=job.id if path == emitted.primary else f"{job.id}/{name}",
        target=job.target.name,
        worker=job.target.worker,
        platform=job.platform,
        path=path,
        unit=budgets.unit,
        per_file=budgets.per_file,
        total=budgets.total,
        size=used,
        share_of_total=_share(used, budgets.total),
        document=document,
        tokens=approx_tokens(text),
        sections=sections,
        copies=raw_copies.status(model, job.target),
        truncations=tuple(t.to_json() for t in cuts),
        notes=emitted.notes if path == emitted.primary else (),
        document_budget=budgets.document,
        share_of_document_budget=_share(document, budgets.document),
        skills=emitted.skills if path == emitted.primary else (),
    )


def _comments(files: tuple[str, ...], inputs: Inputs) -> tuple[Commented, ...]:
    from hotplex.errors import Span
    from hotplex.sources import comments, frontmatter

    counted = []
    for file in files:
        try:
            loaded = inputs.load(file, Span(file))
            text = None if loaded is None else loaded.body
        except HotplexError:  # frontmatter a reader with rules of its own took as text (CLAUDE.md)
            raw = inputs.raw(file, Span(file))
            text = None if raw is None else frontmatter.decode(raw.data, file)
        if text is not None:
            counted.append(Commented(file, comments.hidden_chars(text), len(text)))
    return tuple(counted)


def _section_stats(
    size: SectionSize, text: str, truncations: tuple[Truncation, ...], budgets: Budgets
) -> SectionStats:
    measured = measure(text, size.unit)
    tokens = round(approx_tokens(text) * size.injected / measured) if measured else 0
    mine = [c for c in truncations if c.section == size.name or set(c.files) & set(size.files)]
    own = _own_files(size.name, size.files)
    # Days of a daily log left out: for room (the newest named, the rest counted) or as repeats
    # of newer days (counted apart: they hold nothing the document lacks).
    left_out = [c for c in mine if c.after == 0 and c.files and c.files[0] not in own]
    days = [c for c in left_out if c.style != "repeat"]
    repeats = [c for c in left_out if c.style == "repeat"]
    cuts = tuple(_describe_cut(cut, own) for cut in mine if cut not in left_out or cut in days[:1])
    if len(days) > 1:
        older = len(days) - 1
        cuts += (f"{older} older day{'s' if older > 1 else ''} dropped",)
    if len(repeats) == 1:
        cuts += (f"{posixpath.basename(repeats[0].files[0])} left out as a repeat",)
    elif repeats:
        cuts += (f"{len(repeats)} days left out as repeats",)
    return SectionStats(
        size.name,
        tuple(size.files),
        size.injected,
        size.raw,
        tokens,
        _share(size.injected, budgets.per_file),
        _share(size.injected, budgets.total),
        cuts,
    )


def _own_files(section: str, files: tuple[str, ...]) -> tuple[str, ...]:
    """A section's own files: the memory section's size names the days it read too (they are
    in its text)."""
    from hotplex.manifest.vocabulary import LOG_SOURCE
    from hotplex.sources.logs import is_day

    return tuple(f for f in files if section != LOG_SOURCE or not is_day(f))


def _describe_cut(cut: Truncation, files: tuple[str, ...]) -> str:
    dropped = " (dropped)" if cut.after == 0 else ""
    # A day of a daily log is a file of its own within the memory section: name it.
    day = f"{posixpath.basename(cut.files[0])} " if cut.files and cut.files[0] not in files else ""
    return f"{day}{cut.limit}: {cut.before}→{cut.after}{dropped}"


def _share(size: int, budget: int | None) -> float | None:
    return round(size / budget, 4) if budget else None


# --- rendering --------------------------------------------------------------------------------

_HEADER = (
    "artifact",
    "section",
    "size",
    "unit",
    "%file",
    "%total",
    "≈tokens",
    "truncated",
    "comments",
    "files",
)
_RIGHT = {2, 4, 5, 6}  # numeric columns


def render_table(artifacts: list[ArtifactStats], packages: Sequence[PackageUse] = ()) -> str:
    rows = [_HEADER]
    commits = {p.name: p.commit for p in packages}
    for art in artifacts:
        rows.extend(_section_row(art, s, commits) for s in art.sections)
        cuts = f"{len(art.truncations)} cut(s)" if art.truncations else ""
        rows.append(
            (
                art.artifact,
                "(sections)",
                str(art.size),
                art.unit,
                "",
                _percent(art.share_of_total),
                str(sum(s.tokens for s in art.sections)),
                cuts,
                "",
                "",
            )
        )
        rows.append(
            (
                art.artifact,
                "(document)",
                str(art.document),
                art.unit,
                _percent(art.share_of_document_budget) if art.document_budget else "",
                "",
                str(art.tokens),
                "",
                "",
                art.path,
            )
        )
    lines = _aligned(rows, _RIGHT)
    skills = _skills_table(artifacts)
    used = [
        f"package {_package(p.name, p.commit)}: {p.used} of {p.files} files read" for p in packages
    ]
    return "\n".join([*lines, "", *skills, *used, *_legend(artifacts)])


_SKILL_HEADER = ("artifact", "skill", "entry", "cap", "unit", "listed", "files", "bytes", "scripts")


def _skills_table(artifacts: list[ArtifactStats]) -> list[str]:
    """Each artifact's Agent Skills, a row each (and a blank line after), or nothing."""
    rows = [_SKILL_HEADER]
    for art in artifacts:
        rows += [
            (
                art.artifact,
                s.name,
                "-" if s.listed == "left out" else str(s.entry),
                "-" if s.cap is None else str(s.cap),
                s.unit,
                s.listed,
                str(s.files),
                str(s.bytes),
                ", ".join(s.scripts) or "-",
            )
            for s in art.skills
        ]
    if len(rows) == 1:
        return []
    return [*_aligned(rows, {2, 3, 6, 7}), ""]


def _aligned(rows: list[tuple[str, ...]], right: set[int]) -> list[str]:
    """The rows as columns, each as wide as its widest cell; ``right``: numeric columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _section_row(
    art: ArtifactStats, section: SectionStats, commits: dict[str, str]
) -> tuple[str, ...]:
    return (
        art.artifact,
        section.name,
        str(section.size),
        art.unit,
        _percent(section.share_of_file_limit),
        _percent(section.share_of_total),
        str(section.tokens),
        "; ".join(section.truncations),
        _commented(section),
        _files_cell(section, commits),
    )


def _files_cell(section: SectionStats, commits: dict[str, str]) -> str:
    """The section's own files, and how many days of its logs it read (not each by name); the
    package they come from, and its commit."""
    own = _own_files(section.name, section.files)
    days = len(section.files) - len(own)
    shown = [*own, f"{days} day{'s' if days > 1 else ''} of logs"] if days else own
    origin = [_package(name, commits.get(name, "")) for name in section.packages]
    return " ".join([", ".join(shown), *(f"(package {p})" for p in origin)]) or "(built in)"


def _package(name: str, commit: str) -> str:
    return name + (f" at {commit[:12]}" if commit else "")


def _commented(section: SectionStats) -> str:
    """Characters in HTML comments, with their share of the section's files: "812 (64%)"."""
    if not section.in_comments:
        return ""
    share = section.in_comments / sum(c.chars for c in section.comments)
    return f"{section.in_comments} ({100 * share:.0f}%)"


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def _legend(artifacts: list[ArtifactStats]) -> list[str]:
    budgets: dict[tuple[int | None, int | None, int | None, str], list[str]] = {}
    for art in artifacts:
        key = (art.per_file, art.total, art.document_budget, art.unit)
        # A file its program caps as a whole (each of Hermes's slots) is named with its cap.
        named = f"{art.worker} {_document_name(art)}" if art.document_budget else art.worker
        workers = budgets.setdefault(key, [])
        if named not in workers:
            workers.append(named)
    lines = [
        f"limits for {', '.join(workers)}: per file {per_file or '-'}, total {total or '-'}"
        + (f", the whole file {whole}" if whole else "")
        + f" {unit}"
        for (per_file, total, whole, unit), workers in budgets.items()
    ]
    notes = [f"{art.artifact}: {note}" for art in artifacts for note in art.notes]
    copies = {f"{art.target}: {art.copies}": None for art in artifacts if art.copies}
    return [*lines, *notes, *copies, *_mostly_comments(artifacts), TOKENS_NOTE]


def _document_name(art: ArtifactStats) -> str:
    """A document's name from its primary's folder (``SOUL.md``, ``memories/USER.md``)."""
    further = art.artifact.split("/", 2)[2:]  # "h/default/memories/USER.md": after the job id
    return further[0] if further else posixpath.basename(art.path)


def _mostly_comments(artifacts: list[ArtifactStats]) -> list[str]:
    counted = {c.file: c for a in artifacts for s in a.sections for c in s.comments}
    return [
        f"{c.file}: {100 * c.in_comments / c.chars:.0f}% of its characters are in HTML comments, "
        "which a rendered page does not show"
        for c in counted.values()
        if c.chars and c.in_comments / c.chars > MOSTLY_COMMENTS
    ]


def render_json(artifacts: list[ArtifactStats], packages: Sequence[PackageUse] = ()) -> str:
    report: dict[str, object] = {
        "artifacts": [
            {**asdict(a), "skills": [attrs.asdict(r) for r in a.skills]} for a in artifacts
        ]
    }
    if packages:
        report["packages"] = [asdict(p) for p in packages]
    return json_text(report, indent=2)
