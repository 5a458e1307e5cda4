"""Factory Droid: the document as the file ``launch.json`` passes to
``droid exec --append-system-prompt-file``.

What Factory Droid 0.225.2 does (checked with the real ``droid exec`` against a fake Chat
Completions API, see tests/integration/test_droid.py): the system message is Droid's own base
prompt ("You are Droid, an AI software engineering agent built by Factory. …"), then ``\\n\\n``
and the file's text, trimmed (JavaScript's ``trim``: the leading and trailing whitespace, CR and
line feeds; inner ones, CR LF and blank-line runs, stay), at the very end of the message. So
``prompt.xml`` and the file are the compiled document without its final line feed, and arrive
byte for byte. Droid cuts nothing (a 300 KB file was sent whole), and a missing file stops it
before any request. ``--append-system-prompt`` (a text on the argv) and
``FACTORY_APPEND_SYSTEM_PROMPT`` exist too (not tried); the file keeps the argv short.

What it loads by itself: CLAUDE.md and AGENTS.md (else agents.md), and the same in ``.factory/``,
in its working folder and each folder above it up to the repository root (outside a repository
its own folder only; no CLAUDE.local.md, ``.claude/CLAUDE.md``, claude.md or Agents.md),
and the home's ``.factory/AGENTS.md`` (``~``, or ``FACTORY_HOME_OVERRIDE``), raw, into the
**user** turn: a ``<system-reminder>`` before the prompt, each file as ``% cat <path>`` /
``<coding_guidelines>`` / its text with trailing whitespace cut / ``</coding_guidelines>``.
No switch turns them off: ``build`` warns where a compiled AGENTS.md or CLAUDE.md sits in the
session folder (``cwd``).

The gateway keeps its provider in the home's ``.factory/settings.json`` (a BYOK custom model,
``-m custom:<model>``); the npm wrapper ``@factory/cli`` 0.225.1 cannot install its own
platform binary, so the gateway installs ``@factory/cli-<platform>`` 0.225.2, as CI does.
"""

from __future__ import annotations

from hotplex.targets.home import TRIMMED, HomeDocument
from hotplex.worker import PLACED_OVER, OwnFiles, SkillsPlace, Verified, skill_rivals

NAMES = ("CLAUDE.md", "AGENTS.md", "agents.md")  # agents.md only where no AGENTS.md is
OWN_FILES = OwnFiles(
    program="Factory Droid",
    names=(*NAMES, *(f".factory/{name}" for name in NAMES)),
    home="~/.factory/AGENTS.md (FACTORY_HOME_OVERRIDE/.factory/AGENTS.md), the gateway's",
    unless_beside={
        "agents.md": ("AGENTS.md",),
        ".factory/agents.md": (".factory/AGENTS.md",),
    },
    rivals={
        **skill_rivals("Factory Droid", (".agents/skills",)),
        **skill_rivals("Factory Droid", (".factory/skills",), PLACED_OVER),
    },
)
# Factory Droid 0.225.2 lists the skills of its working folder's .factory/skills and
# .agents/skills (and of each folder's .factory/skills above it up to the repository root, of its
# home's .factory/skills, and its own built-in ones; not .claude/skills) in a <system-reminder> of
# the user turn, each as "<name>: <description>" on a line of its own, uncut (1,020 characters
# were sent whole); its Skill tool sends a body trimmed, in <skill name=… filePath=…>
# (tests/integration/test_skills_headless.py). The home is the gateway's (its settings.json):
# the skills are placed in the session folder.
SKILLS = SkillsPlace(".factory/skills/{name}", wrapper="system-reminder")


class Droid(HomeDocument):
    name = "droid"
    delivery = (
        "`droid exec --append-system-prompt-file dist/droid/slack/droid/system-prompt.md`: at the "
        "end of the **system** message, after Droid's base prompt; each Agent Skill's folder in"
        " `.factory/skills/`"
    )
    verified = Verified("Factory Droid", "0.225.2", "tests/integration/test_droid.py")
    program = "droid"
    argv = ("exec",)
    home_flag = "--append-system-prompt-file"
    home_dir = "droid"
    home_file = "system-prompt.md"
    transform = TRIMMED
    gateway_adds = (
        "the model: a BYOK custom model in the settings.json of Droid's home (~/.factory, or"
        " FACTORY_HOME_OVERRIDE/.factory) and -m custom:<model>, then the prompt"
    )
    init_target = ("droid", "prompt.xml as droid/system-prompt.md, for droid exec")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents"})
    import_formats = ("hotplex.importing.agents",)
