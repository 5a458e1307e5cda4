"""What a service call answers: an artifact ``Served`` (with its digest, the ETag), or ``Refused``
with what went wrong and whose fault it is (``Fault``), which ``routes.py`` turns into a status;
``Abandoned`` when its caller left first."""

from __future__ import annotations

import enum
from collections.abc import Mapping

from hotplex.api import Artifact
from hotplex.errors import HotplexError
from hotplex.fs import sha256
from hotplex.generated import attrs


class Fault(enum.Enum):
    UNKNOWN = "unknown"  # no such target or platform
    BROKEN = "broken"  # the project's own files do not build
    REQUEST = "request"  # the request's own input: a bad overlay key or value
    FINDING = "finding"  # the request's text holds a finding: a secret, hidden text, injection


class Refused(Exception):
    def __init__(self, fault: Fault, error: HotplexError) -> None:
        super().__init__(error.render())
        self.fault = fault
        self.error = error


class Abandoned(Exception):
    """The caller left (its client hung up) while its call waited for its turn or ran in a
    thread: no one is left to answer."""


@attrs.frozen
class Served:
    artifact: Artifact
    digest: str  # the set's sha256 (``set_digest``): the ETag
    sums: Mapping[str, str]  # each file's sha256, by path, as the set's digest lists them
    stale: HotplexError | None = None  # why the last good artifact is served instead
    warnings: tuple[str, ...] = ()  # the project's, as `hotplex build` prints them
    # A per-user compile's base artifact, compiled beside it: each file the two hold byte for
    # byte the same (most but the primary) is hashed, and written into the answer, once for
    # every user of that base artifact, not once a call (``compile_route.answer``).
    base: Served | None = attrs.field(default=None, eq=False, repr=False)
    # Each file's entry of the answer's ``files`` once written, by path: ``base``'s, kept with
    # the artifact whose bytes they are (a new base artifact is a new ``Served``).
    entries: dict[str, bytes] = attrs.field(factory=dict, eq=False, repr=False)

    @classmethod
    def of(
        cls, artifact: Artifact, warnings: tuple[str, ...] = (), base: Served | None = None
    ) -> Served:
        """``artifact`` served, each file hashed once (for the set's digest and the answer), or
        not at all when ``base`` holds the same bytes."""
        sums = {
            path: base.sums[path] if base is not None and base.holds(path, data) else sha256(data)
            for path, data in artifact.files.items()
        }
        return cls(artifact, _listed(sums), sums, warnings=warnings, base=base)

    def holds(self, path: str, data: bytes) -> bool:
        """Whether this artifact's file at ``path`` is ``data``, byte for byte."""
        held = self.artifact.files.get(path)
        return held is data or held == data


def set_digest(files: Mapping[str, bytes]) -> str:
    """One sha256 for a set of files: that of the ``sha256sum`` listing of its files sorted by
    path (``sha256sum dist/cc/slack/* | sha256sum`` from the project folder gives the same)."""
    return _listed(_sums(files))


def _sums(files: Mapping[str, bytes]) -> dict[str, str]:
    return {path: sha256(data) for path, data in files.items()}


def _listed(sums: Mapping[str, str]) -> str:
    listing = "".join(f"{sums[path]}  {path}\n" for path in sorted(sums))
    return sha256(listing.encode("utf-8"))
