"""GitHub Copilot: .github/copilot-instructions.md and .github/instructions/*.instructions.md,
for the targets named by ``--for`` and those of the programs that read them (Copilot CLI); an
``applyTo`` scope is written into the section's note."""

from __future__ import annotations

from pathlib import Path

from hotplex.importing.found import Entry, Found, present, scoped, slug, sorted_under

KIND = "GitHub Copilot"


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    main = root / ".github" / "copilot-instructions.md"
    if present(main):
        found.entries.append(Entry("copilot", main, audience="copilot"))
    folder = root / ".github" / "instructions"
    for path in sorted_under(folder, ("*.instructions.md",)):
        stem = path.relative_to(folder).as_posix().removesuffix(".instructions.md")
        found.entries.append(
            scoped(path, "copilot-" + slug(stem.replace("/", "-")), "applyTo", "copilot")
        )
    return found if found.entries else None
