"""``hotplex watch``: build, then rebuild after every burst of changes, until stopped.

A failed build never ends the watch: the artifacts of the last good build stay in place (builds
are atomic) and the next change is tried again; the first success after a failure is marked
``fixed``. New artifacts reach a worker at its next session start, as with any build.

Change detection is ``watchfiles`` (an optional dependency: ``pip install 'hotplex[watch]'``). The
whole project folder is watched, so a variant file that does not exist yet is seen when created,
but only a change that can change an artifact or the unread report starts a build: the manifest,
hotplex.lock (when it declares packages), a file the last build read or looked for (the build
log's inputs, absent variants included), and a file that ``may_be_source`` (anything in a
dedicated sources folder; with ``sources = "."``, Markdown and the logs glob's files). The build
state folder, the artifact folder and the files the watch's own output is redirected to never
do, or every build would trigger the next.
A burst of changes (an editor's save-as-rename, a ``git checkout``) is collected until ``quiet_ms``
pass without another, and then built once.
"""

from __future__ import annotations

import os
import posixpath
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hotplex.errors import EXIT_OK, HotplexError
from hotplex.fs import STATE_DIR
from hotplex.manifest.read import DEFAULT_OUT, MANIFEST_NAME

if TYPE_CHECKING:
    import argparse

    from hotplex.build import Request
    from hotplex.manifest.model import Model
    from hotplex.records import Outcome

QUIET_MS = 100
# Changes that never stop (a process rewriting a file in a loop) are built at least this often.
MAX_WAIT_MS = 1600


@dataclass(frozen=True)
class Cycle:
    """One build of the watch loop and why it ran."""

    number: int  # 1 is the build at start
    changes: tuple[str, ...]  # project-relative paths that triggered it; () for the first
    outcome: Outcome | None  # None when the build failed
    error: Exception | None  # a HotplexError, or an unexpected exception (a bug in hotplex)
    fixed: bool  # it succeeded and the build before it had failed
    seconds: float  # how long the build took


class _Ready:
    """A stop event for watchfiles that also says once when the watcher is live.

    watchfiles polls ``is_set`` only while its watcher runs, so the first call is the moment from
    which no change can be missed: the right time to tell the user "watching".
    """

    def __init__(self, on_ready: Callable[[], None], stop: Any = None) -> None:
        self.on_ready: Callable[[], None] | None = on_ready
        self.stop = stop

    def is_set(self) -> bool:
        if self.on_ready is not None:
            self.on_ready, announce = None, self.on_ready
            announce()
        return bool(self.stop is not None and self.stop.is_set())


def watch(
    request: Request,
    on_cycle: Callable[[Cycle], None],
    on_ready: Callable[[], None] = lambda: None,
    *,
    quiet_ms: int = QUIET_MS,
    stop: Any = None,
    max_cycles: int | None = None,
) -> int:
    """Build, then rebuild on changes until ``stop.is_set()``, ``max_cycles`` builds, or Ctrl-C.

    Returns the number of builds. ``on_cycle`` receives each; ``on_ready`` is called once, when
    changes start being seen. Raises ImportError when watchfiles is not installed.
    """
    import watchfiles

    root = request.root
    last = _build(request, 1, (), failing=False)
    on_cycle(last)
    ignore = _Ignore(root, request.manifest)
    if max_cycles is not None and last.number >= max_cycles:
        return last.number
    for batch in watchfiles.watch(
        *_watched(root, request.manifest),
        watch_filter=ignore,
        debounce=max(MAX_WAIT_MS, quiet_ms),
        step=quiet_ms,
        stop_event=_Ready(on_ready, stop),
    ):
        changes = _changed(batch, root)
        if not changes:
            continue
        last = _build(request, last.number + 1, changes, failing=last.error is not None)
        on_cycle(last)
        ignore.refresh()
        if max_cycles is not None and last.number >= max_cycles:
            break
    return last.number


def _build(request: Request, number: int, changes: tuple[str, ...], failing: bool) -> Cycle:
    from hotplex.build import run

    started = time.perf_counter()
    try:
        outcome = run(request)
    except Exception as exc:  # keep watching: the next change may fix it
        return Cycle(number, changes, None, exc, False, time.perf_counter() - started)
    return Cycle(number, changes, outcome, None, failing, time.perf_counter() - started)


class _Ignore:
    """watchfiles' default filter (VCS folders, caches, editor swap files), then only the
    changes that can change an artifact (see the module's docstring)."""

    def __init__(self, root: Path, manifest: Path | None) -> None:
        from watchfiles import DefaultFilter

        self.root = root
        self.manifest = manifest or root / MANIFEST_NAME
        self.manifest_rel = _relative(str(self.manifest), root)
        self.default = DefaultFilter()
        self.out = DEFAULT_OUT
        self.model: Model | None = None  # None until a manifest loads: every change counts
        self.inputs: set[str] = set()
        self.own = _own_output_files()
        self.refresh()

    def refresh(self) -> None:
        """Follow the manifest and the last build's inputs; keep the last model while the
        manifest is broken."""
        from hotplex.build import log as state_log
        from hotplex.manifest import load as loading

        try:
            self.model = loading.load(self.root, self.manifest, cached=True)
        except HotplexError:
            return
        self.out = self.model.out_dir
        self.inputs = {p for r in state_log.load(self.root).jobs.values() for p in r.inputs}

    def __call__(self, change: Any, path: str) -> bool:
        if not self.default(change, path):
            return False
        rel = _relative(path, self.root)
        if (
            any(_inside(rel, folder) for folder in (STATE_DIR, self.out))
            or _file_id(path) in self.own
        ):
            return False
        return self.model is None or self._relevant(rel)

    def _relevant(self, rel: str) -> bool:
        from hotplex.manifest.read import LOCK_NAME
        from hotplex.sources.unused import may_be_source

        assert self.model is not None
        folder = posixpath.dirname(rel)
        return (
            rel == self.manifest_rel
            or (rel == LOCK_NAME and bool(self.model.manifest.package))  # `hotplex update`
            or rel in self.inputs
            or f"{folder}/" in self.inputs  # a folder the build listed (the logs glob's)
            or may_be_source(self.model, rel)
        )


def _own_output_files() -> set[tuple[int, int]]:
    """The regular files this process's stdout and stderr go to (``hotplex watch > watch.out``
    inside the project): writing them must not start a build."""
    found = set()
    for fd in (1, 2):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.add((info.st_dev, info.st_ino))
    return found


def _file_id(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _changed(batch: set[tuple[Any, str]], root: Path) -> tuple[str, ...]:
    """The paths a user changed: not a temp file that came and went within the batch."""
    from watchfiles import Change

    came = {path for change, path in batch if change == Change.added}
    went = {path for change, path in batch if change == Change.deleted}
    transient = {p for p in came & went if not os.path.lexists(p)}
    return tuple(sorted({_relative(p, root) for _c, p in batch if p not in transient}))


def _inside(rel: str, folder: str) -> bool:
    folder = posixpath.normpath(folder.replace("\\", "/"))
    return folder != "." and (rel == folder or rel.startswith(folder + "/"))


def _watched(root: Path, manifest: Path | None) -> list[Path]:
    """The project folder, and the manifest's folder when ``-f`` names one outside it."""
    if manifest is None or not _relative(str(manifest), root).startswith("../"):
        return [root]
    return [root, manifest.resolve().parent]


def _relative(path: str, root: Path) -> str:
    return Path(os.path.relpath(os.path.realpath(path), os.path.realpath(root))).as_posix()


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    """``hotplex watch``: each cycle's report as it happens, and what Ctrl-C left."""
    from hotplex.commands.build import say_interrupted
    from hotplex.commands.invocation import build_request
    from hotplex.console import clear_progress

    sys.stdout.reconfigure(line_buffering=True)  # each cycle's report as it happens, even piped
    request = build_request(args, root, manifest)
    try:
        watch(
            request,
            _CyclePrinter(args.explain),
            lambda: print(f"hotplex: watching {root} for changes (Ctrl-C stops)"),
            quiet_ms=args.debounce,
        )
    except ModuleNotFoundError as exc:
        if exc.name != "watchfiles":
            raise
        raise _watchfiles_missing() from None
    except KeyboardInterrupt as exc:
        from hotplex.records import Interrupted

        clear_progress()
        if isinstance(exc, Interrupted):  # in the middle of a build
            say_interrupted(args, exc, json=False)  # watch has no --json
        print("hotplex: stopped watching")
    return EXIT_OK


def _watchfiles_missing() -> HotplexError:
    return HotplexError.single(
        "hotplex watch needs the watchfiles package, which is not installed",
        hint="pip install 'hotplex[watch]'  (or: pip install watchfiles)",
    )


class _CyclePrinter:
    """Each watch cycle: errors and fixes always, a success when it built or deleted something
    or when its warnings are not the last ones shown (a new file no artifact reads changes no
    artifact, and is still news)."""

    def __init__(self, explain: bool) -> None:
        self.explain = explain
        self.warnings: list[str] | None = None  # the last shown

    def __call__(self, cycle: Cycle) -> None:
        from hotplex.console import clear_progress, colour

        changed = "initial build" if cycle.number == 1 else "changed: " + _listed(cycle.changes)
        if cycle.error is not None:
            clear_progress()
            print(f"hotplex: {changed}")
            sys.stderr.write(_describe_error(cycle.error) + "\n")
            failed = colour("build failed", "red")
            print(f"hotplex: {failed}; the last good artifacts stay in place. Watching for a fix.")
            return
        outcome = cycle.outcome
        built = outcome.orphans or any(j.rebuilt for j in outcome.jobs)
        if not (built or cycle.fixed or outcome.warnings != self.warnings):
            return
        self.warnings = outcome.warnings
        print(f"hotplex: {changed}")
        from hotplex.build import Summary
        from hotplex.commands.build import print_build

        summary = Summary.of(outcome.jobs, outcome.orphans, outcome.warnings)
        print_build(summary, self.explain, cycle.seconds)
        if cycle.fixed:
            print(f"hotplex: {colour('fixed', 'green')}; changes take effect for the next session")
        elif cycle.number > 1 and built:
            print("hotplex: changes take effect for the next session")


def _listed(paths: tuple[str, ...], most: int = 5) -> str:
    return ", ".join(paths[:most]) + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _describe_error(error: Exception) -> str:
    if isinstance(error, HotplexError):
        return error.render()
    return f"hotplex: internal error: {type(error).__name__}: {error} (a bug in hotplex)"
