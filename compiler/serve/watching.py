"""The service's one watcher of the project folder, and the requests waiting on it: a waiter
is woken by a change, never by polling the disk (a mixin of ``service.Service``, whose
``artifact``, ``root``, ``manifest`` and ``out`` it uses)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import anyio
from hotplex.fs import STATE_DIR
from hotplex.serve.answers import Served

log = logging.getLogger("hotplex.serve")

# watchfiles: a burst of changes (an editor's save) is reported once this many ms after the last.
QUIET_MS = 50


class Watching:
    """``?wait=``: an artifact answered once it changes, or when the time runs out."""

    root: Path
    manifest: Path
    out: str  # the artifacts' folder, as the last manifest that loaded says

    async def changed(
        self, target: str, platform: str | None, etag: str, seconds: float
    ) -> Served | None:
        """The artifact once its digest is not ``etag``; when ``seconds`` pass (or the server
        stops) first, the artifact as it was last seen (its digest ``etag``: stale or not), or
        None when none was. Woken by the watcher, never by polling the disk."""
        served = None
        with anyio.move_on_after(seconds):
            while not self._stopping:
                woken = self._changed  # taken before the compile: a change during it wakes us
                served = await self.artifact(target, platform)
                if served.digest != etag:
                    return served
                await woken.wait()
        return served

    def stop_waiting(self) -> None:
        """Shutting down: every waiting request answers now (as on its timeout)."""
        self._stopping = True
        self._wake()

    def _wake(self) -> None:
        self._warnings = None
        self._changed.set()
        self._changed = asyncio.Event()

    async def watch(self) -> None:
        """Wake the waiters after every burst of changes in the project folder (not in the
        build state or the artifacts' folder), and in the manifest's when ``-f`` names one
        outside it; runs until cancelled."""
        import watchfiles

        ignore = _Ignore(self)
        folders = {self.root.resolve(), self.manifest.resolve().parent}
        try:
            async for _batch in watchfiles.awatch(
                *sorted(folders), watch_filter=ignore, step=QUIET_MS, debounce=1600
            ):
                self._wake()
        except (OSError, RuntimeError) as exc:  # inotify limits, a folder removed
            log.warning(
                "hotplex serve: no longer watching %s (%s); ?wait= answers only on its timeout",
                self.root,
                exc,
            )


class _Ignore:
    """Changes that cannot change an artifact: watchfiles' defaults (VCS folders, editor swap
    files), the build state and the artifacts' folder (``hotplex build`` beside the server),
    and, outside the project, anything but the manifest."""

    def __init__(self, service: Watching) -> None:
        from watchfiles import DefaultFilter

        self.default = DefaultFilter()
        self.root = service.root.resolve()
        self.manifest = service.manifest.resolve()
        self.service = service

    def __call__(self, change, path: str) -> bool:
        if not self.default(change, path):
            return False
        found = Path(path).resolve()
        try:
            rel = found.relative_to(self.root).as_posix()
        except ValueError:
            return found == self.manifest
        return not any(
            rel == folder or rel.startswith(f"{folder}/")
            for folder in (STATE_DIR, self.service.out)
        )
