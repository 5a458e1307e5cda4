"""JetBrains Junie: the project's guidelines, ``.junie/guidelines.md``.

Junie's documentation (https://www.jetbrains.com/help/junie/project-settings.html, excerpt in
tests/workers/fixtures/rule_formats/junie.md): with no Guidelines path set in the project
settings, Junie reads ``.junie/guidelines.md``; the file can hold instructions in any format.

Its Agent Skills (https://www.jetbrains.com/help/air/skills.html, same fixture): shared skills
are in ``.agents/skills``, and Junie also reads its own ``.junie/skills/<skill-name>/SKILL.md``.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Junie(Placed):
    name = "junie"
    import_formats = ("hotplex.importing.editors:JUNIE",)
    delivery = "JetBrains Junie's guidelines"
    format = Format(
        tool="Junie",
        place=".junie/guidelines.md",
        pattern=".junie/**/*.md",
        artifact="guidelines.md",
        skills=".junie/skills",
        skills_also=(".agents/skills",),
    )
    init_target = ("junie", "Junie's guidelines: .junie/guidelines.md")
