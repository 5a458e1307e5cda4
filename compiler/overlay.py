"""Per-user overlays: compile as if some source files held other text, for one call only.

A gateway serves many users from one set of files; each user has their own USER.md, MEMORY.md
and daily logs in the gateway's store. ``OverlayInputs`` is the build's reader (``Inputs``) seen
through those texts: an overlaid file is decoded, stripped of frontmatter and capped exactly as a
file on disk would be, so the sanitizer, the limits, the secret and hidden-text scans and the
daily-log selection treat it the same; every other file comes from the base reader and its cache.
Nothing is written, and nothing of an overlay is stored where another call could see it: the
overlaid texts live in this object alone, which the call drops.
"""

from __future__ import annotations

import collections
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import frontmatter
from .errors import HotplexError, Span, suggest
from .fs import ReadResult, check_relative
from .sources import Inputs, Loaded, _whole_characters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Model


@dataclass(frozen=True)
class OverlayFile:
    display: str  # the project path it stands in for (agent-configs/USER.md)
    label: str  # how messages name it: "overlay:USER.md", or the file the CLI read it from
    data: bytes


def prepare(
    model: Model, overlay: Mapping[str, str | bytes], labels: Mapping[str, str] | None = None
) -> dict[str, OverlayFile]:
    """Overlay keys (paths inside the sources folder) -> ``OverlayFile`` by project path."""
    files = {}
    for key, text in overlay.items():
        label = (labels or {}).get(key, f"overlay:{key}")
        span = Span(label)
        display = model.source_path(str(check_relative(key, span)))
        if isinstance(text, str):
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise HotplexError.single(f"not valid text: {exc.reason}", span) from None
        else:
            data = text
        files[display] = OverlayFile(display, label, data)
    return files


class OverlayInputs:
    """``Inputs`` with some files' text given instead of read (duck-typed: the resolver asks
    for ``load``, ``raw``, ``listing`` and ``digest``)."""

    def __init__(self, base: Inputs, files: dict[str, OverlayFile]) -> None:
        self.base = base
        self.files = files
        self.root = base.root
        self.started_ns = base.started_ns
        self.stamps = base.stamps
        self.sections = base.sections
        self._own: dict[str, Loaded] = {}
        self._folders = {posixpath.dirname(path) + "/" for path in files}

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
            cap = self.base.read_cap
            data = _whole_characters(file.data[:cap]) if len(file.data) > cap else file.data
            text = frontmatter.decode(data, file.label)
            stripped = frontmatter.strip(text, file.label) if meta else frontmatter.Stripped(text)
            self._own[display] = Loaded(
                file.label,
                stripped.body,
                stripped.meta,
                stripped.body_line,
                len(file.data),
                len(file.data) > cap,
                meta,
            )
        return self._own[display]

    def raw(self, display: str, span: Span) -> ReadResult | None:
        file = self.files.get(display)
        if file is None:
            return self.base.raw(display, span)
        return ReadResult(file.data[: self.base.read_cap], len(file.data), None)

    def listing(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        found = dict(self.base.listing(display, span))
        for path, file in self.files.items():
            if posixpath.dirname(path) + "/" == display:
                found[posixpath.basename(path)] = len(file.data)
        return tuple(sorted(found.items()))

    def digest(self, display: str) -> str | None:
        return "overlay" if display in self.files else self.base.digest(display)


def read_arguments(arguments: list[str]) -> tuple[dict[str, bytes], dict[str, str]]:
    """``--overlay FILE=PATH`` arguments -> (FILE -> PATH's bytes, FILE -> PATH for messages)."""
    texts, labels = {}, {}
    for argument in arguments:
        key, equals, path = argument.partition("=")
        if not equals or not key or not path:
            raise HotplexError.single(
                f"--overlay {argument!r}: expected FILE=PATH", hint="e.g. USER.md=users/alice.md"
            )
        try:
            with open(path, "rb") as handle:
                texts[key] = handle.read()
        except OSError as exc:
            raise HotplexError.single(
                f"--overlay {key}: cannot read {path}: {exc.strerror}"
            ) from None
        labels[key] = path
    return texts, labels


def check_used(files: dict[str, OverlayFile], consulted: list[str], model: Model) -> None:
    """An overlay no source of the project would read is a typo, not a no-op."""
    readable = {model.source_path(s.file) for s in model.sources}
    glob = model.manifest.memory.logs
    for display, file in files.items():
        if display in consulted or display in readable:
            continue
        if glob is not None:
            import fnmatch

            if fnmatch.fnmatchcase(display, model.source_path(glob)):
                continue
        names = sorted(posixpath.relpath(p, model.sources_dir) for p in readable)
        key = posixpath.relpath(display, model.sources_dir)
        raise HotplexError.single(
            f"overlay '{key}' is not a file this project reads",
            Span(file.label),
            hint=suggest(key, names) or "sources: " + ", ".join(names),
        )
