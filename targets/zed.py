"""Zed: the project's ``.rules``, which Zed's agent includes in every interaction.

Zed's documentation (https://zed.dev/docs/ai/rules, excerpt in
tests/workers/fixtures/rule_formats/zed.md): a ``.rules`` file at the top of the worktree is
included in all Agent Panel interactions; of ``.rules``, ``.cursorrules``, ``.windsurfrules``,
``.clinerules``, ``.github/copilot-instructions.md``, ``AGENT.md``, ``AGENTS.md``, ``CLAUDE.md``
and ``GEMINI.md`` only the first found is used, so a placed ``.rules`` is the one Zed reads.

Its Agent Skills (https://zed.dev/docs/ai/skills, same fixture): a project-local skill is
``.agents/skills/<skill-name>/SKILL.md`` in the project; the agent sees a catalog of every
skill's name and description and loads one on demand.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Zed(Placed):
    name = "zed"
    import_formats = ("hotplex.importing.editors:ZED",)
    delivery = "Zed's project rules, first of the files Zed's agent reads"
    format = Format(
        tool="Zed", place=".rules", pattern=".rules", artifact="rules.md", skills=".agents/skills"
    )
    init_target = ("zed", "Zed's project rules: .rules")
    places_beside = "Zed reads no other: of its rule files it uses the first it finds, .rules"
