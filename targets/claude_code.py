"""Claude Code: ``prompt.xml`` for ``claude --append-system-prompt-file``, and the argv.

Claude Code appends the file's text verbatim to its system prompt, so the file is UTF-8 without
BOM with LF line ends, and ``launch.json`` names it relative to the project: artifacts are the
same bytes on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable

from hotplex.model import Model, Source, Target

from . import agent_configuration
from .base import Emitted, Job, Section, json_bytes

NAME = "claude-code"
OPTIONS: frozenset[str] = frozenset()
PROMPT_FILE = "prompt.xml"
LAUNCH_FILE = "launch.json"


def validate_target(target: Target) -> Iterable[tuple[str, str]]:
    return ()


def default_sources(target: Target) -> tuple[Source, ...]:
    return agent_configuration.DEFAULT_SOURCES


def emit(job: Job, sections: list[Section], model: Model) -> Emitted:
    document = agent_configuration.build(sections, model)
    folder = job.out_dir(model)
    prompt = f"{folder}/{PROMPT_FILE}"
    launch = {
        "argv": ["claude", "--append-system-prompt-file", prompt],
        "cwd": ".",
        "platform": job.platform or "",
        "target": job.target.name,
    }
    return Emitted(
        files={
            prompt: document.text.encode("utf-8"),
            f"{folder}/{LAUNCH_FILE}": json_bytes(launch),
        },
        primary=prompt,
        truncations=document.truncations,
        sizes=document.sizes,
    )
