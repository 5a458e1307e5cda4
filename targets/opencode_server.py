"""OpenCode Server: ``payload.json``, a body for ``POST /session/{id}/message``, and the
sub-agents' files.

OpenCode keeps no system prompt between messages, so a gateway sends this ``system`` with every
message, adding its ``parts``. The body validates against the request schema of opencode 1.18.33.

Sub-agents do not receive that ``system`` (seed §7.2), so each name in the target's ``subagents``
also gets ``agents/<name>.md``, an OpenCode agent file (``mode: subagent``), and ``launch.json``
(written only then) maps ``.opencode/agent/<name>.md`` — relative to the project folder the
server's session runs in — to it; ``GET /agent`` lists the agent with the compiled prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from hotplex.jobs import Job
from hotplex.model import Manifest, Model, Target
from hotplex.worker import (
    LAUNCH_FILE,
    Emitted,
    OptionProblem,
    Output,
    Section,
    TargetSources,
    json_bytes,
    launch_json,
)

from . import agent_configuration, subagents

PAYLOAD_FILE = "payload.json"
MODEL = re.compile(r"[^/\s]+/\S+")  # OpenCode names a model "<provider>/<model>"
MODEL_EXAMPLE = "anthropic/claude-sonnet-4-5"
SUBAGENTS_NOTE = (
    "the system reaches the main agent only: only the sub-agents in subagents get the rules, "
    "each from its agent file"
)


def _frontmatter(name: str, description: str, agent: subagents.Agent | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"description": description, "mode": "subagent"}
    if agent is not None and agent.model is not None:
        fields["model"] = agent.model
    return fields


FORMAT = subagents.Format(
    program="OpenCode",
    built_ins={
        "general": subagents.BuiltIn(
            "General-purpose agent for researching complex questions and carrying out "
            "multi-step tasks.",
            "You are a general-purpose agent: you research complex questions, search for code "
            "and carry out multi-step tasks the main agent hands you, then report what you "
            "found and did, concisely.",
        ),
        "explore": subagents.BuiltIn(
            "Fast read-only agent for exploring codebases: finds files, searches code and "
            "answers questions about it.",
            "You are a read-only explorer: you find files, search code and read it to answer "
            "the main agent's question. You never create, change or delete a file.",
        ),
    },
    placed=".opencode/agent/{name}.md",
    frontmatter=_frontmatter,
    appended="no document",  # OpenCode appends nothing to its sub-agents only (README)
    no_append="OpenCode appends no text to sub-agents alone",
)


class OpenCodeServer(subagents.SubagentWorker):
    name = "opencode-server"
    Options = subagents.Options
    outputs = (
        Output(PAYLOAD_FILE, "document", primary=True),
        Output(LAUNCH_FILE, "launch"),
        Output(subagents.AGENT_FILES, "agent"),
    )
    init_target = ("ocs", "payload.json: a body for POST /session/{id}/message")
    modules = (__name__, agent_configuration.__name__, subagents.__name__)
    format = FORMAT

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        yield from super().validate(target, manifest, sources)
        for name, agent in target.options.agents.items():
            if agent.model is not None and not MODEL.fullmatch(agent.model):
                yield OptionProblem(
                    f"agents.{name}.model",
                    f"OpenCode names a model provider/model, not '{agent.model}'",
                    f'e.g. model = "{MODEL_EXAMPLE}" (opencode models lists them)',
                )

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        document = agent_configuration.build(sections, model)
        agents = subagents.emit(job, sections, model, FORMAT)
        folder = job.out_dir(model)
        path = f"{folder}/{PAYLOAD_FILE}"
        files = {path: json_bytes({"parts": [], "system": document.text})}
        if agents.placed:
            files[f"{folder}/{LAUNCH_FILE}"] = launch_json(job, files=agents.placed)
        return Emitted(
            files={**files, **agents.files},
            primary=path,
            truncations=(*document.truncations, *agents.truncations),
            warnings=agents.warnings,
            sizes=document.sizes,
            documents=agents.sizes,
            notes=(SUBAGENTS_NOTE, *agents.notes),
        )
