"""Kiro: a steering file, ``.kiro/steering/<target>.md``, included in every interaction.

Kiro's documentation (https://kiro.dev/docs/steering/, excerpt in
tests/workers/fixtures/rule_formats/kiro.md): workspace steering files are Markdown in
``.kiro/steering/``; frontmatter ``inclusion: always`` (the default) loads one into every
interaction, ``fileMatch`` and ``manual`` only on demand.

Its Agent Skills (https://kiro.dev/docs/skills, same fixture): workspace skills reside in
``.kiro/skills/``; a workspace skill wins over a global one (``~/.kiro/skills/``) of its name.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Kiro(Placed):
    name = "kiro"
    import_formats = ("hotplex.importing.editors:KIRO",)
    delivery = "Kiro's steering file, `inclusion: always`"
    format = Format(
        tool="Kiro",
        place=".kiro/steering/{target}.md",
        pattern=".kiro/steering/*.md",
        artifact="steering.md",
        frontmatter="---\ninclusion: always\n---\n",
        skills=".kiro/skills",
    )
    init_target = ("kiro", "a Kiro steering file, always included: .kiro/steering/kiro.md")
