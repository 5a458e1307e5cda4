"""Claude Code: ``prompt.xml`` for ``claude --append-system-prompt-file``, and the argv.

Claude Code appends the file's text verbatim to its system prompt, so the file is UTF-8 without
BOM with LF line ends, and ``launch.json`` names it relative to the project: artifacts are the
same bytes on every machine.
"""

from __future__ import annotations

from hotplex.jobs import Job
from hotplex.model import Model
from hotplex.worker import Emitted, Output, Section, Worker, json_bytes

from . import agent_configuration

PROMPT_FILE = "prompt.xml"
LAUNCH_FILE = "launch.json"


class ClaudeCode(Worker):
    name = "claude-code"
    outputs = (Output(PROMPT_FILE, "document", primary=True), Output(LAUNCH_FILE, "launch"))
    init_target = ("cc", "prompt.xml for `claude --append-system-prompt-file`, and launch.json")
    modules = (__name__, agent_configuration.__name__)

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
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
