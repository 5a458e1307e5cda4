"""Codex CLI: the document as Codex's ``developer_instructions``, from a ``config.toml`` it reads.

What Codex CLI 0.169.0 does (checked with the real CLI against a fake Responses API; see
tests/integration/test_codex.py): ``developer_instructions`` arrives byte for byte as the first
text of a developer message right after Codex's own base prompt, which stays. The alternatives
are worse: ``model_instructions_file`` replaces the base prompt and is trimmed, and AGENTS.md
reaches only a *user* message (project files cut at 32 KiB).

Delivery, for each job::

    <out>/<target>/<platform or default>/prompt.xml              the document, as Codex sends it
    <out>/<target>/<platform or default>/codex-home/config.toml  developer_instructions = "…"
    <out>/<target>/<platform or default>/launch.json             argv, env CODEX_HOME, cwd

Why a ``config.toml`` in a ``CODEX_HOME`` rather than ``-c developer_instructions=…``: the
document travels in a file, never as an argument (seed §11): Linux caps one argv string at
128 KiB (the default 40,000-character budget is 120,000 bytes of CJK or 160,000 of emoji
before the XML), the text would show in every process listing, and quoting it for TOML and a
shell is a second place to get it wrong. Codex resolves a relative ``CODEX_HOME`` against its
working directory, so ``launch.json`` names the folder relative to the project like the other
workers do. Codex writes its own state into ``CODEX_HOME`` (sessions, SQLite files, unpacked
skills): a gateway copies the folder to a fresh one per session, adds its provider and
credentials (``-c model_providers.…`` or more tables in the copy), and points ``CODEX_HOME``
there.

The TOML is written by tomli-w as a one-line basic string, every control character escaped:
tomli-w's multi-line form turns CR LF into LF, and TOML lets a parser normalise newlines in
multi-line strings, so only the escaped form is exact everywhere.
"""

from __future__ import annotations

from hotplex.jobs import Job
from hotplex.model import Model
from hotplex.worker import (
    LAUNCH_FILE,
    Emitted,
    Output,
    Section,
    Worker,
    launch_json,
)

from . import agent_configuration

PROMPT_FILE = "prompt.xml"
HOME_DIR = "codex-home"
CONFIG_FILE = "config.toml"
CONFIG_KEY = "developer_instructions"


def config_toml(document: str) -> bytes:
    """A Codex ``config.toml`` whose only key carries ``document`` exactly."""
    import tomli_w  # only when a Codex artifact is compiled

    return tomli_w.dumps({CONFIG_KEY: document}).encode("utf-8")


class Codex(Worker):
    name = "codex"
    outputs = (
        Output(PROMPT_FILE, "document", primary=True),
        Output(f"{HOME_DIR}/{CONFIG_FILE}", "config"),
        Output(LAUNCH_FILE, "launch"),
    )
    init_target = ("codex", "prompt.xml as Codex's developer_instructions: codex-home/config.toml")
    modules = (__name__, agent_configuration.__name__)

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        document = agent_configuration.build(sections, model)
        folder = job.out_dir(model)
        prompt = f"{folder}/{PROMPT_FILE}"
        home = f"{folder}/{HOME_DIR}"
        return Emitted(
            files={
                prompt: document.text.encode("utf-8"),
                f"{home}/{CONFIG_FILE}": config_toml(document.text),
                f"{folder}/{LAUNCH_FILE}": launch_json(job, ["codex"], {"CODEX_HOME": home}),
            },
            primary=prompt,
            truncations=document.truncations,
            sizes=document.sizes,
        )
