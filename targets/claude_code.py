"""Claude Code: ``prompt.xml`` for ``claude --append-system-prompt-file``, the argv, and the
sub-agents' files.

Claude Code appends the file's text verbatim to its system prompt, so the file is UTF-8 without
BOM with LF line ends, and ``launch.json`` names it relative to the project: artifacts are the
same bytes on every machine.

The appended text reaches no sub-agent (``subagents.py``), so each name in the target's
``subagents`` also gets ``agents/<name>.md``, a Claude Code agent file, and ``launch.json``'s
``files`` maps ``.claude/agents/<name>.md`` (relative to the session folder, where Claude Code
looks for project agents) to it. Files rather than ``--agents '<json>'``: the documents stay out
of the argv (Linux caps one argument at 128 KiB, and process listings show it), as the main
document does.

What Claude Code 2.1.332 loads by itself (checked with the real program; see
tests/integration/test_own_instructions_live.py): from its working folder and every folder above it,
CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md and CLAUDE.local.md, and AGENTS.md where neither
CLAUDE.md nor .claude/CLAUDE.md sits beside it (since 2.1.277); from its config folder
(``~/.claude``), the user's CLAUDE.md and rules; and a managed (policy) CLAUDE.md. Each arrives in
the first user message, raw. ``CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`` turns every one of them off,
the user's and the managed ones too, and keeps the base prompt and the appended file: so it is
the target's explicit choice (``own_instructions = "off"``), never the default.
"""

from __future__ import annotations

from typing import Any

import attrs
from hotplex.jobs import Job
from hotplex.model import Model
from hotplex.worker import (
    LAUNCH_FILE,
    Emitted,
    Output,
    OwnFiles,
    Section,
    in_session,
    launch_json,
)

from . import agent_configuration, subagents

PROMPT_FILE = "prompt.xml"
OWN_FILES = OwnFiles(
    program="Claude Code",
    names=(
        "CLAUDE.md",
        ".claude/CLAUDE.md",
        ".claude/rules/**/*.md",
        "CLAUDE.local.md",
        "AGENTS.md",
    ),
    home="~/.claude/CLAUDE.md and ~/.claude/rules/*.md, and the managed CLAUDE.md",
    switch="env CLAUDE_CODE_DISABLE_CLAUDE_MDS=1",
    also_drops="the user's ~/.claude/CLAUDE.md and rules and the managed CLAUDE.md",
    unless_beside={"AGENTS.md": ("CLAUDE.md", ".claude/CLAUDE.md")},
)


@attrs.frozen
class Agent(subagents.Agent):
    """A Claude Code sub-agent's settings: the common ones and the tools it may use."""

    tools: tuple[str, ...] | None = None  # Claude Code's tool names; None: every tool


@attrs.frozen
class Options(subagents.Options):
    """The target keys of a ``claude-code`` target."""

    agents: dict[str, Agent] = attrs.field(factory=dict)


def _frontmatter(name: str, description: str, agent: Agent | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": name, "description": description}
    if agent is not None and agent.tools is not None:
        fields["tools"] = ", ".join(agent.tools)
    if agent is not None and agent.model is not None:
        fields["model"] = agent.model
    return fields


FORMAT = subagents.Format(
    program="Claude Code",
    built_ins={
        "general-purpose": subagents.BuiltIn(
            "General-purpose agent for researching complex questions, searching for code and "
            "carrying out multi-step tasks.",
            "You are a general-purpose agent: you research complex questions, search for code "
            "and carry out multi-step tasks the main agent hands you, then report what you "
            "found and did, concisely.",
        ),
        "Explore": subagents.BuiltIn(
            "Fast read-only agent for exploring codebases: finds files, searches code and "
            "answers questions about it.",
            "You are a read-only explorer: you find files, search code and read it to answer "
            "the main agent's question. You never create, change or delete a file.",
        ),
        "Plan": subagents.BuiltIn(
            "Planner: explores the codebase and designs an implementation plan, changing nothing.",
            "You are a planner: you explore the codebase and design a step-by-step "
            "implementation plan for the main agent. You never create, change or delete a file.",
        ),
    },
    placed=".claude/agents/{name}.md",
    frontmatter=_frontmatter,
)


class ClaudeCode(subagents.SubagentWorker):
    name = "claude-code"
    Options = Options
    outputs = (
        Output(PROMPT_FILE, "document", primary=True),
        Output(LAUNCH_FILE, "launch"),
        Output(subagents.AGENT_FILES, "agent"),
    )
    init_target = ("cc", "prompt.xml for `claude --append-system-prompt-file`, and launch.json")
    modules = (__name__, agent_configuration.__name__, subagents.__name__)
    format = FORMAT
    own_files = OWN_FILES

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        document = agent_configuration.build(sections, model)
        agents = subagents.emit(job, sections, model, FORMAT, document.truncations)
        folder = job.out_dir(model)
        prompt = f"{folder}/{PROMPT_FILE}"
        argv = ["claude", "--append-system-prompt-file", in_session(job, model, prompt)]
        env = {"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"} if self.switched_off(job.target) else None
        return Emitted(
            files={
                prompt: document.text.encode("utf-8"),
                f"{folder}/{LAUNCH_FILE}": launch_json(job, argv, env, files=agents.placed),
                **agents.files,
            },
            primary=prompt,
            truncations=(*document.truncations, *agents.truncations),
            warnings=agents.warnings,
            sizes=document.sizes,
            documents=agents.sizes,
        )
