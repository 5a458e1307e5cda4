"""``hotplex stats``: where each artifact's budget goes, before a worker silently loses context."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

# Rough tokens: about four ASCII characters per token, about one token per CJK or other character.
ASCII_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Row:
    artifact: str
    section: str
    files: str
    raw: int
    injected: int
    unit: str
    budget: int
    tokens: int
    cut: str


def approx_tokens(text_size_ascii: int, text_size_other: int) -> int:
    return -(-text_size_ascii // ASCII_CHARS_PER_TOKEN) + text_size_other


def collect(root: Path, manifest: Path | None, targets: tuple[str, ...]) -> list[Row]:
    from .api import Project

    project = Project.load(root, manifest)
    limits = project.model.manifest.limits
    rows = []
    for job in project.jobs():
        if targets and job.target.name not in targets:
            continue
        artifact = project.compile(job.target.name, job.platform)
        cuts: dict[str, list[str]] = {}
        for cut in artifact.truncations:
            cuts.setdefault(str(cut.get("section")), []).append(
                f"{cut['limit']}: {cut['before']}→{cut['after']}"
            )
        text = artifact.text
        for section, files, raw, injected, unit in artifact.sizes:
            budget = limits.per_file if job.target.worker != "openclaw" else raw or 1
            rows.append(
                Row(job.id, section, ", ".join(files) or "(built in)", raw, injected, unit,
                    budget, 0, "; ".join(cuts.get(section, [])))
            )
        ascii_count = sum(1 for ch in text if ord(ch) < 128)
        rows.append(
            Row(job.id, "(artifact)", artifact.path, len(text), len(text), "chars", limits.total,
                approx_tokens(ascii_count, len(text) - ascii_count), "")
        )
    return rows


def render_table(rows: list[Row]) -> str:
    header = ("artifact", "section", "size", "unit", "of limit", "≈tokens", "cut", "files")
    table = [header]
    for row in rows:
        share = f"{100 * row.injected / row.budget:.0f}%" if row.budget else "-"
        table.append(
            (row.artifact, row.section, f"{row.injected}/{row.raw}" if row.raw != row.injected else str(row.raw),
             row.unit, share, str(row.tokens) if row.tokens else "", row.cut, row.files)
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table)


def render_json(rows: list[Row]) -> str:
    return json.dumps([asdict(r) for r in rows], indent=2, ensure_ascii=False)
