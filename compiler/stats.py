"""``hotplex stats``: where each artifact's budget goes, before a worker silently loses context.

For every artifact and section: its size in the limit's unit, its share of the per-file and of the
total budget, an approximate token count and what was cut. Nothing is written; the numbers are the
ones a build would produce, because they come from the same compile.

Tokens are estimated, not counted with a real tokenizer (each model has its own): about four ASCII
characters per token and one token per other character (CJK text runs close to that). A section's
estimate is taken from its text before the limits and scaled to the size that survives them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import HotplexError, suggest
from .limits import measure

ASCII_CHARS_PER_TOKEN = 4
TOKENS_NOTE = "≈tokens: about 4 ASCII characters or 1 other character per token"


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


@dataclass(frozen=True)
class ArtifactStats:
    artifact: str  # the job id, e.g. "cc/slack"
    target: str
    worker: str
    platform: str | None
    path: str
    unit: str
    per_file: int | None
    total: int | None
    size: int  # all sections together: what the total budget counts
    share_of_total: float | None
    document: int  # the whole artifact file, wrapping included, in ``unit``
    tokens: int  # of the whole artifact
    sections: tuple[SectionStats, ...]
    truncations: tuple[dict[str, Any], ...]


def approx_tokens(text: str) -> int:
    ascii_count = len(text.encode("ascii", "ignore"))
    return -(-ascii_count // ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_count)


def collect(root: Path, manifest: Path | None, targets: tuple[str, ...]) -> list[ArtifactStats]:
    """Compile every selected artifact in memory and measure it."""
    from .api import Project
    from .sources import Inputs, read_cap

    project = Project.load(root, manifest)
    _check_targets(project.targets(), targets)
    inputs = Inputs(project.root, read_cap(project.model))
    return [
        _artifact_stats(project, job, inputs)
        for job in project.jobs()
        if not targets or job.target.name in targets
    ]


def _check_targets(known: list[str], wanted: tuple[str, ...]) -> None:
    for name in wanted:
        if name not in known:
            hint = suggest(name, known) or "targets: " + ", ".join(known)
            raise HotplexError.single(f"no target named '{name}'", hint=hint)


def _artifact_stats(project: Any, job: Any, inputs: Any) -> ArtifactStats:
    from .sources import resolve

    artifact = project.compile(job.target.name, job.platform)
    per_file, total = _budgets(job, project.model)
    texts = {s.name: s.text for s in resolve(project.model, job, inputs).sections}
    unit = artifact.sizes[0][4] if artifact.sizes else project.model.manifest.limits.unit
    cuts = artifact.truncations
    sections = tuple(
        _section_stats(size, texts.get(size[0], artifact.text), cuts, per_file, total)
        for size in artifact.sizes
    )
    used = sum(s.size for s in sections)
    return ArtifactStats(
        artifact=job.id,
        target=job.target.name,
        worker=job.target.worker,
        platform=job.platform,
        path=artifact.path,
        unit=unit,
        per_file=per_file,
        total=total,
        size=used,
        share_of_total=_share(used, total),
        document=measure(artifact.text, unit),
        tokens=approx_tokens(artifact.text),
        sections=sections,
        truncations=artifact.truncations,
    )


def _budgets(job: Any, model: Any) -> tuple[int | None, int | None]:
    """(per file, total) budgets: the manifest's limits unless the worker declares its own."""
    from hotplex.targets import WORKERS

    own = getattr(WORKERS[job.target.worker], "budgets", None)
    if own is not None:
        return own(job.target, model)
    return model.manifest.limits.per_file, model.manifest.limits.total


def _section_stats(
    size: tuple[str, tuple[str, ...], int, int, str],
    text: str,
    truncations: tuple[dict[str, Any], ...],
    per_file: int | None,
    total: int | None,
) -> SectionStats:
    name, files, raw, injected, unit = size
    measured = measure(text, unit)
    tokens = round(approx_tokens(text) * injected / measured) if measured else 0
    cuts = tuple(
        _describe_cut(cut)
        for cut in truncations
        if cut["section"] == name or set(cut["files"]) & set(files)
    )
    return SectionStats(
        name,
        tuple(files),
        injected,
        raw,
        tokens,
        _share(injected, per_file),
        _share(injected, total),
        cuts,
    )


def _describe_cut(cut: dict[str, Any]) -> str:
    dropped = " (dropped)" if cut["after"] == 0 else ""
    return f"{cut['limit']}: {cut['before']}→{cut['after']}{dropped}"


def _share(size: int, budget: int | None) -> float | None:
    return round(size / budget, 4) if budget else None


# --- rendering --------------------------------------------------------------------------------

_HEADER = (
    "artifact", "section", "size", "unit", "%file", "%total", "≈tokens", "truncated", "files"
)
_RIGHT = {2, 4, 5, 6}  # numeric columns


def render_table(artifacts: list[ArtifactStats]) -> str:
    rows = [_HEADER]
    for art in artifacts:
        rows.extend(_section_row(art, s) for s in art.sections)
        cuts = f"{len(art.truncations)} cut(s)" if art.truncations else ""
        rows.append(
            (art.artifact, "(sections)", str(art.size), art.unit, "", _percent(art.share_of_total),
             str(sum(s.tokens for s in art.sections)), cuts, "")
        )
        rows.append(
            (art.artifact, "(document)", str(art.document), art.unit, "", "", str(art.tokens), "",
             art.path)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines = [
        "  ".join(
            cell.rjust(width) if i in _RIGHT else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    return "\n".join([*lines, "", *_legend(artifacts)])


def _section_row(art: ArtifactStats, section: SectionStats) -> tuple[str, ...]:
    return (
        art.artifact,
        section.name,
        str(section.size),
        art.unit,
        _percent(section.share_of_file_limit),
        _percent(section.share_of_total),
        str(section.tokens),
        "; ".join(section.truncations),
        ", ".join(section.files) or "(built in)",
    )


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def _legend(artifacts: list[ArtifactStats]) -> list[str]:
    budgets: dict[tuple[int | None, int | None, str], list[str]] = {}
    for art in artifacts:
        workers = budgets.setdefault((art.per_file, art.total, art.unit), [])
        if art.worker not in workers:
            workers.append(art.worker)
    lines = [
        f"limits for {', '.join(workers)}: per file {per_file or '-'}, total {total or '-'} {unit}"
        for (per_file, total, unit), workers in budgets.items()
    ]
    return [*lines, TOKENS_NOTE]


def render_json(artifacts: list[ArtifactStats]) -> str:
    return json.dumps({"artifacts": [asdict(a) for a in artifacts]}, indent=2, ensure_ascii=False)
