"""Aider: the document as a read-only file of a config file ``launch.json`` passes by ``--config``.

What Aider 0.86.2 does (checked with the real ``aider --message`` against a fake Chat Completions
API, see tests/integration/test_aider.py): Aider has no system-level way in. A file it is told to
``read`` reaches the model in a *user* message (``Here are some READ ONLY files, provided for
your reference.`` … the file's path, the text in a fence), answered by a canned assistant turn,
after Aider's system prompt, which stays. Aider reads the file with Python's universal newlines,
so CR LF and a lone CR arrive as LF: the build turns them into LF already, and ``prompt.xml`` is
what arrives. ``stats``, ``show`` and the documentation say that the document is at user level.

Aider has no home folder to move: ``--config FILE`` makes FILE its only config file, in place of
the ``.aider.conf.yml`` files it would read from its working folder, the repository root and the
user's home, so a project's ``read:`` list (a raw copy of the rules) does not reach it. The file
hotplex writes holds ``read:`` alone; the gateway gives the model and key on the command line or
in ``AIDER_*`` variables (a ``--read`` of its own would replace the config file's list).
"""

from __future__ import annotations

from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.targets.home import PROMPT_FILE, HomeDocument, Sent, Transform
from hotplex.worker import Verified, in_session, yaml_text

USER_LEVEL = (
    "Aider has no system-level way in: the document reaches it in a user message, as a read-only"
    " file (answered by a canned assistant turn), after Aider's own system prompt"
)


def universal_newlines(text: str) -> str:
    """``text`` as Python's universal newlines read it: CR LF and a lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class Aider(HomeDocument):
    name = "aider"
    delivery = (
        "`aider --config dist/aider/slack/aider-config/aider.conf.yml`, which reads `prompt.xml`: "
        "a **user** message (Aider has no system-level way in), after Aider's system prompt"
    )
    verified = Verified("Aider", "0.86.2", "tests/integration/test_aider.py")
    no_skills = "no code of its package names a skill or SKILL.md"
    program = "aider"
    home_flag = "--config"
    home_dir = "aider-config"
    home_file = "aider.conf.yml"
    home_kind = "config"
    transform = Transform(lambda document: Sent(universal_newlines(document)), universal_newlines)
    gateway_adds = (
        "the model and its key: --model, --openai-api-base, --openai-api-key (or AIDER_*"
        " variables); no --read, which would replace the config file's"
    )
    notes = (USER_LEVEL,)
    init_target = ("aider", "prompt.xml as a read-only file of aider-config/aider.conf.yml")
    imports_read = frozenset({"aider"})
    import_formats = ("hotplex.importing.aider",)

    def home_bytes(self, job: Job, model: Model, sent: str) -> bytes:
        """``read:`` naming ``prompt.xml`` as Aider, started in the session folder, finds it,
        written by PyYAML as Aider reads it with PyYAML: a path holding a line break or a
        control character (``[project] out`` may) arrives as it is."""
        prompt = in_session(job, model, f"{job.out_dir(model)}/{PROMPT_FILE}")
        return yaml_text({"read": [prompt]}).encode()
