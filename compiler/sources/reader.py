"""The reader a job's sources are resolved through, as the helpers of this stage see it (Claude
Code's imports, the daily logs, the section cache, the manifest's own texts): a
protocol in a leaf module, so they depend on it and not on ``resolve.py``, which calls them.
``resolve.Resolver`` is the one implementation."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hotplex.errors import Span
    from hotplex.fs import ReadResult
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import HtmlComments, Model
    from hotplex.records import Truncation
    from hotplex.scanning import hidden, injection, secrets
    from hotplex.scanning.origins import Origin


class Loaded(NamedTuple):
    display: str
    body: str
    meta: dict[str, object]
    body_line: int
    size: int  # full size of the file on disk, in bytes
    capped: bool
    meta_read: bool = True  # frontmatter was looked for
    tail: bool = False  # the file's end was read (a day past the cap), from mid-line
    read: int = 0  # bytes read of it (of whole characters), before line ends are normalised
    # Per-user text given for one call (an overlay): data, never a template, whatever its
    # frontmatter says, so nothing in it is executed and what the guard scans is what is sent.
    data: bool = False


class SourceFiles(Protocol):
    """The one reader of files (a build's or a library ``Project``'s), as the helpers use it."""

    def digest(self, display: str) -> str | None:
        """The content digest of a file (a folder's listing: ``folder/``), None when absent."""

    def raw(self, display: str, span: Span) -> ReadResult | None:
        """The file's bytes as read (None: absent)."""

    def listing(self, display: str, span: Span) -> tuple[tuple[str, int], ...]:
        """A folder's files and their sizes."""

    def tail_line(self, display: str, span: Span) -> int:
        """The line a file read from its end starts at."""

    def overlaid(self, paths: Iterable[str]) -> bool:
        """Whether any of ``paths`` is replaced by this call's overlay."""


class Reader(Protocol):
    """One job's sources being read. What it has read so far is public, and a helper may add to
    it: ``consulted`` (every path, present or absent, in first-use order), ``truncations``,
    ``findings`` (secrets, hidden text, injection; raised together at the end),
    ``read_variables``, ``claude_seen`` (the files Claude Code has loaded this session) and
    ``written`` (the texts read, placed: ``Section.origins``)."""

    model: Model
    job: Job
    inputs: SourceFiles
    variables: dict[str, str]
    consulted: list[str]
    truncations: list[Truncation]
    findings: list[secrets.Finding | hidden.Finding | injection.Finding]
    read_variables: set[str]
    claude_seen: set[str]
    written: list[Origin]

    def file(self, display: str, span: Span, meta: bool = True) -> Loaded | None:
        """A source file as loaded (None: absent), recorded as consulted."""

    def render(self, loaded: Loaded) -> tuple[str, tuple[str, ...]]:
        """The file's text for this job, and the files it included."""

    def source_text(
        self, display: str, span: Span, html_comments: HtmlComments = "keep", meta: bool = True
    ) -> str | None:
        """A file's text as its section holds it: rendered, comments stripped as asked, scanned."""

    def guard(
        self, text: str, origins: Callable[[], list[Origin]], display: str | None = None
    ) -> None:
        """Record the secrets, hidden text and (in a file the injection rules read, ``display``)
        prompt injection ``text`` would carry; ``origins()`` places them, asked only then."""

    def check_setting(self, text: str, key: str) -> None:
        """The same for a manifest value that reaches the artifact as it is (a note)."""
