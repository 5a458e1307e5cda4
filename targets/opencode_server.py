"""OpenCode Server: ``payload.json``, a body for ``POST /session/{id}/message``.

OpenCode keeps no system prompt between messages, so a gateway sends this ``system`` with every
message, adding its ``parts``. The body validates against the request schema of opencode 1.18.33.
"""

from __future__ import annotations

from collections.abc import Iterable

from hotplex.model import Model, Source, Target

from . import agent_configuration
from .base import Emitted, Job, Section, json_bytes

NAME = "opencode-server"
OPTIONS: frozenset[str] = frozenset()
PAYLOAD_FILE = "payload.json"


def validate_target(target: Target) -> Iterable[tuple[str, str]]:
    return ()


def default_sources(target: Target) -> tuple[Source, ...]:
    return agent_configuration.DEFAULT_SOURCES


def emit(job: Job, sections: list[Section], model: Model) -> Emitted:
    document = agent_configuration.build(sections, model)
    path = f"{job.out_dir(model)}/{PAYLOAD_FILE}"
    return Emitted(
        files={path: json_bytes({"parts": [], "system": document.text})},
        primary=path,
        truncations=document.truncations,
        sizes=document.sizes,
    )
