"""OpenCode Server: ``payload.json``, a body for ``POST /session/{id}/message``.

OpenCode keeps no system prompt between messages, so a gateway sends this ``system`` with every
message, adding its ``parts``. The body validates against the request schema of opencode 1.18.33.
"""

from __future__ import annotations

from hotplex.jobs import Job
from hotplex.model import Model
from hotplex.worker import Emitted, Output, Section, Worker, json_bytes

from . import agent_configuration

PAYLOAD_FILE = "payload.json"


class OpenCodeServer(Worker):
    name = "opencode-server"
    outputs = (Output(PAYLOAD_FILE, "document", primary=True),)
    init_target = ("ocs", "payload.json: a body for POST /session/{id}/message")
    modules = (__name__, agent_configuration.__name__)

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        document = agent_configuration.build(sections, model)
        path = f"{job.out_dir(model)}/{PAYLOAD_FILE}"
        return Emitted(
            files={path: json_bytes({"parts": [], "system": document.text})},
            primary=path,
            truncations=document.truncations,
            sizes=document.sizes,
        )
