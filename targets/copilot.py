"""GitHub Copilot in editors: the repository's custom instructions,
``.github/copilot-instructions.md``.

GitHub's documentation (https://docs.github.com/en/copilot/how-tos/configure-custom-instructions,
excerpt in tests/workers/fixtures/rule_formats/copilot.md): repository-wide instructions are
that one file, plain Markdown, applied to every request in the repository's context (Copilot
Chat, coding agent, code review; Copilot CLI reads it too).

Its Agent Skills (https://code.visualstudio.com/docs/agents/reference/agent-skills-reference and
https://docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-skills, same
fixture): project skills are folders with a ``SKILL.md`` in ``.github/skills``, ``.claude/skills``
or ``.agents/skills``; agent mode in VS Code loads them.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Copilot(Placed):
    name = "copilot"
    import_formats = ("hotplex.importing.copilot",)
    delivery = "GitHub Copilot's repository instructions, every request in the repository"
    format = Format(
        tool="GitHub Copilot",
        place=".github/copilot-instructions.md",
        pattern=".github/copilot-instructions.md",
        artifact="copilot-instructions.md",
        skills=".github/skills",
        skills_also=(".claude/skills", ".agents/skills"),
    )
    init_target = ("copilot", "Copilot's repository instructions: .github/copilot-instructions.md")
