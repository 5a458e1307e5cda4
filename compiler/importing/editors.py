"""The rule files of editors whose agents read them in place: Zed's ``.rules``, Junie's
``.junie/guidelines.md``, Windsurf's ``.windsurfrules`` and ``.windsurf/rules/*.md``, Kiro's
``.kiro/steering/*.md``; for the targets named by ``--for``.

A rule its editor always loads is a source; one scoped to files (Windsurf ``trigger: glob``,
Kiro ``inclusion: fileMatch``) or left to the model (``model_decision``, ``auto``) is included
always, its scope written into the note, as Cursor's are; a manual one (used only when
mentioned) is left out, and said so. A file hotplex placed itself is never one (``detect``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hotplex.importing.found import Entry, Found, Skip, meta, present, scoped, slug, sorted_under

_MANUAL = "a manual {kind} rule (used only when mentioned); hotplex has no on-demand rules"


@dataclass(frozen=True)
class Editor:
    """One editor's files, as the format interface wants them (``KIND``, ``find``)."""

    KIND: str
    prefix: str  # of the source names
    files: tuple[str, ...] = ()  # read whole, always
    folder: str | None = None  # a folder of rule files, each with frontmatter
    mode_key: str = ""  # the frontmatter key naming when a rule applies
    always: tuple[str | None, ...] = ()  # its values (None: the key absent) for "always"
    manual: tuple[str, ...] = ()  # its values for "only when mentioned"
    scope_key: str = ""  # the key holding a scoped rule's globs

    def find(self, root: Path) -> Found | None:
        found = Found(self.KIND, root)
        for name in self.files:
            if present(root / name):
                found.entries.append(
                    Entry(
                        f"{self.prefix}-{slug(Path(name).stem.lstrip('.'))}",
                        root / name,
                        audience="for",
                    )
                )
        folder = root / self.folder if self.folder else None
        for path in sorted_under(folder, ("*.md",)) if folder else ():
            stem = path.relative_to(folder).as_posix().removesuffix(".md").replace("/", "-")
            name = f"{self.prefix}-{slug(stem)}"
            mode = meta(path).get(self.mode_key)
            if mode in self.always:
                found.entries.append(Entry(name, path, audience="for"))
            elif mode in self.manual:
                found.skipped.append(Skip(path, _MANUAL.format(kind=self.KIND)))
            else:
                found.entries.append(scoped(path, name, self.scope_key, "for"))
        return found if found.entries or found.skipped else None


ZED = Editor("Zed", "zed", files=(".rules",))
JUNIE = Editor("Junie", "junie", files=(".junie/guidelines.md",))
WINDSURF = Editor(
    "Windsurf",
    "windsurf",
    files=(".windsurfrules",),
    folder=".windsurf/rules",
    mode_key="trigger",
    always=("always_on", None),
    manual=("manual",),
    scope_key="globs",
)
KIRO = Editor(
    "Kiro",
    "kiro",
    folder=".kiro/steering",
    mode_key="inclusion",
    always=("always", None),
    manual=("manual",),
    scope_key="fileMatchPattern",
)
