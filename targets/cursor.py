"""Cursor: a project rule, ``.cursor/rules/<target>.mdc``, always applied.

Cursor's documentation (https://cursor.com/docs/context/rules, excerpt in
tests/workers/fixtures/rule_formats/cursor.md): rules live in ``.cursor/rules`` (subfolders
too) as ``.mdc`` files whose frontmatter has ``description``, ``globs`` and ``alwaysApply``;
``alwaysApply: true`` includes the rule in every chat, whatever the other two say.

Its Agent Skills (https://cursor.com/docs/context/skills, same fixture): project skills are
folders with a ``SKILL.md`` in ``.cursor/skills/`` (and ``.agents/skills/``), found at startup,
walked recursively; for compatibility it also loads ``.claude/skills/`` and ``.codex/skills/``.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Cursor(Placed):
    name = "cursor"
    import_formats = ("hotplex.importing.cursor",)
    delivery = "Cursor's project rule, `alwaysApply: true`: in every chat"
    format = Format(
        tool="Cursor",
        place=".cursor/rules/{target}.mdc",
        pattern=".cursor/rules/**/*.mdc",
        artifact="rule.mdc",
        frontmatter=(
            "---\ndescription: Project rules compiled by hotplex\nglobs:\nalwaysApply: true\n---\n"
        ),
        skills=".cursor/skills",
        skills_also=(".agents/skills", ".claude/skills", ".codex/skills"),
    )
    init_target = ("cursor", "a Cursor project rule, always applied: .cursor/rules/cursor.mdc")
