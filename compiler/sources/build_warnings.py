"""What the sources stage says once a build has compiled its jobs: the files no artifact reads
(``unused``) and the raw copies of the rules a program gets beside its document
(``raw_copies``), with the paths whose stamps let the next no-op build repeat them while they
hold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hotplex.sources import raw_copies, unused

if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model


def after_build(
    model: Model, planned: list[Job], read: dict[str, dict[str, str | None]], own: set[str]
) -> tuple[list[str], tuple[str, ...]]:
    """The warnings, and the paths the next no-op build watches for them (``own``: the
    artifacts hotplex wrote, which are no sources; ``read``: what each job read)."""
    unread, folders = unused.after_build(model, planned, read, own)
    return [*unread, *raw_copies.warnings(model)], (*folders, *raw_copies.watched(model))
