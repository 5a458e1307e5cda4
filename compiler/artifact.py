"""``Artifact``: one compiled artifact set in memory, as the library API (``api.py``) answers a
compile."""

from __future__ import annotations

from hotplex.errors import HotplexError, suggest
from hotplex.generated import attrs

TYPE_CHECKING = False  # not typing's: `import hotplex` stays cheap
if TYPE_CHECKING:
    from hotplex.records import Finding, SectionSize, SkillRow, Truncation


@attrs.frozen
class Artifact:
    """One compiled artifact set, in memory. ``truncations`` and ``sizes`` are typed records
    (``cut.limit``, ``size.injected``); ``Truncation.to_json()`` gives a cut as the ``--json``
    report writes it."""

    target: str
    worker: str
    platform: str | None
    path: str  # where `hotplex build` writes the primary file, relative to the project
    text: str  # the primary file's text: prompt.xml, payload.json or context.md
    files: dict[str, bytes]
    truncations: tuple[Truncation, ...]
    warnings: tuple[str, ...]
    sizes: tuple[SectionSize, ...]
    # The job's folder (``dist/hermes/default``), holding ``launch.json`` where the primary file
    # lies deeper (``hermes-home/SOUL.md``).
    folder: str
    notes: tuple[str, ...] = ()  # what reaches whom (``stats`` prints them; Aider: user level)
    # What ``on_finding = "block"`` blocked in the overlay: ``Finding`` records, action "blocked".
    findings: tuple[Finding, ...] = ()
    # The further documents among ``files``, each its path (a sub-agent's, a memory slot).
    documents: tuple[str, ...] = ()
    # The project's Agent Skills as the set carries them, one row each (``records.SkillRow``).
    skills: tuple[SkillRow, ...] = ()

    def file(self, name: str) -> bytes:
        """Another file by its name (``names``): ``agents/reviewer.md``, ``launch.json``, a
        placed ``.rules``."""
        by_name = self.names()
        found = by_name.get(name)
        if found is None:
            raise HotplexError.single(
                f"target '{self.target}' writes no file '{name}'",
                hint=suggest(name, list(by_name)) or "files: " + ", ".join(by_name),
            )
        return self.files[found]

    def names(self) -> dict[str, str]:
        """Each file's name for ``file`` and its project path: a name in the primary file's
        folder, else in the job's folder, else the project path (a placed ``.rules``)."""
        bases = (self.path.rpartition("/")[0] + "/", self.folder + "/")
        named = {}
        for path in self.files:
            base = next((b for b in bases if path.startswith(b)), "")
            named[path.removeprefix(base)] = path
        return named
