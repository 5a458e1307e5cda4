"""Cursor: a project rule, ``.cursor/rules/<target>.mdc``, always applied.

Cursor's documentation (https://cursor.com/docs/context/rules, excerpt in
tests/workers/fixtures/rule_formats/cursor.md): rules live in ``.cursor/rules`` (subfolders
too) as ``.mdc`` files whose frontmatter has ``description``, ``globs`` and ``alwaysApply``;
``alwaysApply: true`` includes the rule in every chat, whatever the other two say.
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
    )
    init_target = ("cursor", "a Cursor project rule, always applied: .cursor/rules/cursor.mdc")
