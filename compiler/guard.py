"""``Project.check``: what a gateway learns of a user's file before it saves it.

Every file is scanned whole, as written (its frontmatter excepted, which never reaches an
artifact) up to ``limits.read``, a longer one's tail named by an ``unscanned`` finding: the
secret, hidden-text and injection rules with the manifest's allowances, and the reserved tags
the sanitizer would escape. Whether an artifact reads all of it today does not matter: a day too
old for today's budget is read once newer days go, and the guard runs once, at write time.
What the budgets would cut comes from real compiles of the jobs asked for
(``api.Project.check``), with blocked entries, so the sizes are those a session would get.
"""

from __future__ import annotations

from hotplex.document.configuration import reserved_tags
from hotplex.errors import Span
from hotplex.manifest.jobs import Job, find
from hotplex.manifest.model import Model
from hotplex.records import CheckedFile, CheckedJob, Finding, SectionSize, Truncation
from hotplex.scanning.sanitize import tag_offsets
from hotplex.sources import blocking, frontmatter
from hotplex.sources.inputs import Inputs
from hotplex.sources.overlay import OverlayFile, document_order, key_of, own_files, own_part
from hotplex.sources.resolve import overlay_paths


def jobs_of(model: Model, jobs: list[Job], target: str | None, platform: str | None) -> list[Job]:
    """``target`` at ``platform`` (None: its base artifact, else its first platform); with no
    target, each target of the project so, skipping targets that lack ``platform``."""
    names = [target] if target is not None else [t.name for t in model.manifest.target]
    chosen = []
    for name in names:
        own = [j for j in jobs if j.target.name == name]
        if platform is None and own and all(j.platform is not None for j in own):
            chosen.append(own[0])
        elif target is not None or any(j.platform == platform for j in own):
            chosen.append(find(model, jobs, name, platform))
    if not chosen and names:
        find(model, jobs, names[0], platform)  # says which platforms there are
    return chosen


def findings(
    model: Model,
    jobs: list[Job],
    files: dict[str, OverlayFile],
    action: str,
    base: Inputs,
) -> list[Finding]:
    """Every finding in ``files``, in the order given and of place, then what they make only
    together (``blocking.composed``), with each other and with the project's own texts (its
    files and days as ``base`` reads them); scan findings get ``action`` ("error" or
    "blocked"), reserved tags "escaped"."""
    names = reserved_tags([], model)
    found: list[Finding] = []
    parts: dict[str, list[blocking.Part]] = {}
    for display, file in files.items():
        meta = _reads_frontmatter(model, jobs, display)
        text = frontmatter.strip_data(file.text, file.label) if meta else None
        body, first = (text.body, text.body_line) if text else (file.text, 1)
        named = [blocking.heading(display, file.label, overlaid=True)] if file.day else []
        parts[display] = [*named, blocking.Part(body, file.label, first, overlaid=True)]
        scanned = blocking.scan(model.manifest, body, file.label, first, overlaid=True)
        if file.day:  # its name is its heading, text of the document too
            day = blocking.scan_day_name(model.manifest, display, file.label, overlaid=True)
            scanned = day + scanned
        records = [blocking.record(f, action) for f in scanned]
        records += [_tag(body, at, file.label, first) for at in tag_offsets(body, names)]
        records.sort(key=lambda f: (f.line or 0, f.column or 0))
        found += records + _unscanned(file)
    # What they make together, in each document that holds them (once per order of files).
    listing = own_files(base, (part.body for own in parts.values() for part in own))
    orders = dict.fromkeys(tuple(document_order(model, files, job, listing)) for job in jobs)
    together: dict[tuple, Finding] = {}
    for order in orders:
        for display in order:
            if display not in parts:  # the project's own text, trusted
                own = own_part(base, display)
                parts[display] = [] if own is None else [own]
        joined = [part for display in order for part in parts[display]]
        for f in blocking.composed(model.manifest, joined):
            together.setdefault(
                (f.rule, f.span.file, f.span.line, f.span.column), blocking.record(f, action)
            )
    return found + list(together.values())


def _unscanned(file: OverlayFile) -> list[Finding]:
    """A file longer than any budget reads (``limits.read``) is scanned only that far: the rest
    is said, and makes the answer not ok, never approved unseen (adversary10 D2)."""
    read, size = len(file.raw.data), file.raw.size
    if size <= read:
        return []
    return [
        Finding(
            "unscanned",
            "read-limit",
            file.label,
            None,
            None,
            f"only the first {read} of its {size} bytes were scanned (limits.read): a compile"
            " reads no further today, but the rest may hold what the scans refuse",
            "keep the file under the limit (trim its oldest text) and check it again",
            "unscanned",
        )
    ]


def _reads_frontmatter(model: Model, jobs: list[Job], display: str) -> bool:
    """Whether the source ``display`` is a file of strips frontmatter (a day always does)."""
    for job in jobs:
        for source in model.sources_of(job.target):
            if display in (model.source_path(source.file), *overlay_paths(model, source, job)):
                return source.frontmatter
    return True


def _tag(body: str, at: int, file: str, first_line: int) -> Finding:
    place = Span.at_offset(file, body, at)
    end = body.find(">", at, at + 80)
    shown = body[at : end + 1] if end >= 0 else body[at : at + 20]
    return Finding(
        "reserved-tag",
        "reserved-tag",
        file,
        place.line + first_line - 1 if place.line is not None else None,
        place.column,
        f"'{shown}' spells a tag of the document; its '<' is escaped as &lt; so it stays text",
        None,
        "escaped",
    )


def checked_files(model: Model, files: dict[str, OverlayFile]) -> list[CheckedFile]:
    return [
        CheckedFile(key_of(model, display), file.label, file.raw.size, len(file.text))
        for display, file in files.items()
    ]


def checked_job(
    job: Job, truncations: tuple[Truncation, ...], sizes: tuple[SectionSize, ...], labels: set[str]
) -> CheckedJob:
    """The cuts and sizes of the sections of ``job``'s artifact the files named ``labels`` feed:
    every cut a compile reports of them, an older day the files push out of its section too."""
    fed = [s for s in sizes if labels & set(s.files)]
    sections = {s.name for s in fed} | {t.section for t in truncations if labels & set(t.files)}
    return CheckedJob(
        job.target.name,
        job.platform,
        tuple(t for t in truncations if t.section in sections),
        tuple(fed),
    )
