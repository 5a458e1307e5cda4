"""Windsurf: a workspace rule, ``.windsurf/rules/<target>.md``, always on, within Windsurf's
limit.

Windsurf's documentation (https://docs.windsurf.com/windsurf/cascade/memories, excerpt in
tests/workers/fixtures/rule_formats/windsurf.md): workspace rules are Markdown files in
``.windsurf/rules`` whose frontmatter ``trigger`` picks the activation mode (``always_on``,
``manual``, ``model_decision``, ``glob``); a rule file is limited to 12,000 characters (6,000
in earlier versions, which cut the rest without a word). So the file is built to fit: the
sections are cut to make room, and each cut is reported (``windsurf.max_chars``).

Its Agent Skills (https://docs.windsurf.com/windsurf/cascade/skills, same fixture): a workspace
skill is ``.windsurf/skills/<skill-name>/SKILL.md``; only its name and description reach the
model until Cascade invokes it.
"""

from __future__ import annotations

from hotplex.targets.placed import Format, Placed


class Windsurf(Placed):
    name = "windsurf"
    import_formats = ("hotplex.importing.editors:WINDSURF",)
    delivery = "Windsurf's workspace rule, `trigger: always_on`, cut to its 12,000 characters"
    format = Format(
        tool="Windsurf",
        place=".windsurf/rules/{target}.md",
        pattern=".windsurf/rules/**/*.md",
        artifact="rule.md",
        frontmatter="---\ntrigger: always_on\n---\n",
        max_chars=12000,
        skills=".windsurf/skills",
    )
    init_target = ("windsurf", "a Windsurf workspace rule, always on: .windsurf/rules/windsurf.md")
