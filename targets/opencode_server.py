"""OpenCode Server: ``payload.json``, a body for ``POST /session/{id}/message``, and the
sub-agents' files.

OpenCode keeps no system prompt between messages, so a gateway sends this ``system`` with every
message, adding its ``parts``. The body validates against the request schema of opencode 1.18.33.

Sub-agents do not receive that ``system`` in OpenCode, so each name in the target's ``subagents``
also gets ``agents/<name>.md``, an OpenCode agent file (``mode: subagent``), and ``launch.json``
maps ``.opencode/agent/<name>.md`` — relative to the project folder the server's session runs
in — to it; ``GET /agent`` lists the agent with the compiled prompt. ``launch.json`` is written
for that, for the switch below, and for a ``cwd`` of the target's.

What OpenCode 1.18.33 loads by itself (from its code; AGENTS.md and the switch checked with
``opencode serve`` in tests/integration/test_own_instructions_live.py): the first of AGENTS.md,
CLAUDE.md and CONTEXT.md found in its working folder or a folder above it (up to the worktree
root), every copy of that name on the way, into the system prompt beside this ``system``, raw;
and the user's ``~/.config/opencode/AGENTS.md`` (else ``~/.claude/CLAUDE.md``).
``OPENCODE_DISABLE_PROJECT_CONFIG=1`` turns the project's files off, and with them the
project's ``opencode.json`` and ``.opencode/`` folders, where the sub-agents' files go: so it is
the target's explicit choice (``own_instructions = "off"``), for a target without sub-agents.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs
from hotplex.document import configuration
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Manifest, Model, Target
from hotplex.records import Emitted, OptionProblem, Section, Skill, TargetSources
from hotplex.targets import subagents
from hotplex.targets.gateway import Beside, Gateway, json_field, json_frame
from hotplex.worker import PLACED_OVER, OwnFiles, SkillsPlace, Verified, skill_rivals

MODEL = re.compile(r"[^/\s]+/\S+")  # OpenCode names a model "<provider>/<model>"
MODEL_EXAMPLE = "anthropic/claude-sonnet-4-5"
SUBAGENTS_NOTE = (
    "the system reaches the main agent only: only the sub-agents in subagents get the rules, "
    "each from its agent file"
)
SWITCH_ENV = "OPENCODE_DISABLE_PROJECT_CONFIG"
# Read by the first name found from the session folder up, wherever found: CLAUDE.md only
# when no folder there holds an AGENTS.md.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
OWN_FILES = OwnFiles(
    program="OpenCode",
    names=INSTRUCTION_FILES,
    first_of=INSTRUCTION_FILES,
    first_across=True,
    home="~/.config/opencode/AGENTS.md, else ~/.claude/CLAUDE.md",
    switch=f"env {SWITCH_ENV}=1",
    also_drops="the project's opencode.json and .opencode/ folders",
    rivals={
        **skill_rivals("OpenCode", (".opencode/skill",)),
        **skill_rivals("OpenCode", (".opencode/skills",), PLACED_OVER),
        **skill_rivals(
            "OpenCode", (".agents/skills", ".claude/skills"), f", even with {SWITCH_ENV}=1"
        ),
    },
)
# OpenCode 1.18.33 lists the skills of the session folder's .opencode/skills and .opencode/skill
# (off with OPENCODE_DISABLE_PROJECT_CONFIG), .agents/skills and .claude/skills (the last off
# with OPENCODE_DISABLE_CLAUDE_CODE), and the user's, in its system prompt as
# <skill><name>…</name><description>…</description><location>…</location></skill> in
# <available_skills>; its skill tool sends the body (tests/integration/test_skills_each_program.py).
SKILLS = SkillsPlace(".opencode/skills/{name}", wrapper="available_skills")


def _frontmatter(name: str, description: str, agent: subagents.Agent | None) -> dict[str, Any]:
    return {"description": description, "mode": "subagent"}


FORMAT = subagents.Format(
    program="OpenCode",
    built_ins={
        "general": subagents.BuiltIn(
            "General-purpose agent for researching complex questions and carrying out "
            "multi-step tasks.",
            subagents.GENERAL_ROLE,
        ),
        "explore": subagents.EXPLORE,
    },
    placed=".opencode/agent/{name}.md",
    frontmatter=_frontmatter,
    appended="no document",  # OpenCode appends nothing to its sub-agents only (sub-agents guide)
    no_append="OpenCode appends no text to sub-agents alone",
)


class OpenCodeServer(Gateway):
    name = "opencode-server"
    delivery = (
        "the body of `POST /session/{id}/message`, `system` set, `parts` filled per message; each "
        "sub-agent's file in `.opencode/agent/`; each Agent Skill's folder in `.opencode/skills/`"
    )
    verified = Verified("OpenCode", "1.18.33", "tests/integration/test_opencode_server.py")
    Options = subagents.Options
    document_file = "payload.json"
    init_target = ("ocs", "payload.json: a body for POST /session/{id}/message")
    format = FORMAT
    imports_read = frozenset({"agents"})
    import_formats = ("hotplex.importing.agents",)
    own_files = OWN_FILES
    switch_env = SWITCH_ENV
    skills = SKILLS

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        yield from super().validate(target, manifest, sources)
        if target.options.subagents and self.switched_off(target):
            yield OptionProblem(
                "own_instructions",
                f'"off" ({SWITCH_ENV}) keeps OpenCode from reading .opencode/, where the'
                " sub-agents' files go",
                hint="drop subagents, or set cwd to a folder outside the project instead",
            )
        for name, agent in target.options.agents.items():
            if agent.model is not None and not MODEL.fullmatch(agent.model):
                yield OptionProblem(
                    f"agents.{name}.model",
                    f"OpenCode names a model provider/model, not '{agent.model}'",
                    f'e.g. model = "{MODEL_EXAMPLE}" (opencode models lists them)',
                )

    def emit_with_skills(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        emitted = super().emit_with_skills(job, sections, skills, model)
        if not skills or not self.switched_off(job.target):
            return emitted
        names = ", ".join(s.name for s in skills)
        warning = (
            f'own_instructions = "off" ({SWITCH_ENV}) keeps OpenCode from reading .opencode/,'
            f" where the skills go: it lists none of {names}; set cwd to a folder outside the"
            " project instead"
        )
        return attrs.evolve(emitted, warnings=(*emitted.warnings, warning))

    def document_bytes(self, data: bytes) -> bytes:
        """The body of POST /session/{id}/message: the document as its ``system``."""
        return json_field({"parts": []}, "system", data)

    def document_frame(self) -> configuration.Framed:
        return json_frame({"parts": []}, "system")

    def beside(self, job: Job, sections: list[Section], model: Model) -> Beside:
        return Beside(notes=(SUBAGENTS_NOTE,))
