"""What a build or check is asked to do: a leaf module, so the engine and the package that runs
it both import it without importing each other."""

from __future__ import annotations

from hotplex.values import value

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any


@value
class Request:
    FIELDS = ("root", "manifest", "targets", "check", "diff", "processes", "on_progress", "frozen")
    root: Path
    manifest: Path | None
    targets: tuple[str, ...]  # each named once, in the order first named
    check: bool
    diff: bool
    # Worker processes compiling dirty jobs (``-j``); 1 compiles in this process.
    processes: int
    # Called after each batch of jobs as (done, total): the CLI draws its progress line; a
    # library caller gets no output unless it asks.
    on_progress: Callable[[int, int], None] | None
    # hotplex.lock must agree with [[package]] and the cache with the lock (exit 1 if not),
    # every cached package file re-hashed: CI's ``--frozen``.
    frozen: bool

    def __init__(
        self,
        root: Path,
        manifest: Path | None = None,
        targets: tuple[str, ...] = (),
        check: bool = False,
        diff: bool = False,
        processes: int = 1,
        on_progress: Callable[[int, int], None] | None = None,
        frozen: bool = False,
    ) -> None:
        self.__dict__.update(
            frozen=frozen,
            root=root,
            manifest=manifest,
            targets=tuple(dict.fromkeys(targets)),  # `build cc cc` asks for cc's sets once
            check=check,
            diff=diff,
            processes=processes,
            on_progress=on_progress,
        )


@value
class Summary:
    """What a build says when it did not decide every job against its record (the no-op and
    the touched paths), and what the CLI prints of any build: the sets it lists (rebuilt, or
    with a cut or a warning to repeat; in plan order), how many are up to date, the orphans it
    deleted, the warnings, and (a no-op build, which lists no set) the lines the sets with a
    cut or a warning repeat, each after its set's id and as shown (``snapshot.told``)."""

    FIELDS = ("jobs", "current", "orphans", "warnings", "told")
    jobs: list[Any]  # JobReports
    current: int
    orphans: list[str]
    warnings: list[str]
    told: list[str]

    def __init__(
        self,
        jobs: list[Any],
        current: int,
        orphans: list[str],
        warnings: list[str],
        told: list[str] | None = None,
    ) -> None:
        self.__dict__.update(
            jobs=jobs, current=current, orphans=orphans, warnings=warnings, told=told or []
        )

    @classmethod
    def of(cls, jobs: list[Any], orphans: list[str], warnings: list[str]) -> Summary:
        """A build's outcome as the CLI prints it, from the reports of every job."""
        listed = [j for j in jobs if j.rebuilt or j.truncations or j.warnings]
        return cls(listed, sum(not j.rebuilt for j in jobs), orphans, warnings)
