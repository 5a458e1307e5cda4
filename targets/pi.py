"""Pi: the document as the file ``launch.json`` passes to ``pi --append-system-prompt``.

What Pi 0.73.1 does (checked with the real ``pi -p`` against a fake Chat Completions API, see
tests/integration/test_pi.py): the system message is Pi's own base prompt ("You are an expert
coding assistant operating inside pi, …"), then ``\\n\\n`` and the append text, verbatim (CR LF,
outer blank lines and all), then the ``# Project Context`` of the AGENTS.md files it loads, the
skills, the date and the working folder. ``--append-system-prompt`` takes a text or a file's
path (a path that names no file is appended as text, so the gateway must copy the file).

Why the argument rather than an ``APPEND_SYSTEM.md`` Pi finds itself: Pi reads the *first* of
``<cwd>/.pi/APPEND_SYSTEM.md`` and ``<agent folder>/APPEND_SYSTEM.md``, so a project file would
win over the agent folder's, and the agent folder (``PI_CODING_AGENT_DIR``) is where the gateway
keeps its provider (``models.json``, ``auth.json``): moving it would lose them. The argument wins
over both files and leaves the agent folder alone; it is a path, never the text, on the argv.
``SYSTEM.md`` (project or agent folder) would *replace* the base prompt and is never used.

What Pi loads by itself: the first of AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD in the agent
folder and in every folder from its working folder up to ``/``, into the system message, raw.
``--no-context-files`` turns them off, the agent folder's (the gateway's) with them, so it is the
target's explicit choice (``own_instructions = "off"``). A project ``.pi/APPEND_SYSTEM.md`` is
not read beside the document, and a ``.pi/SYSTEM.md`` replaces the base prompt: ``check`` names
either when it sits in the session folder.
"""

from __future__ import annotations

from hotplex.targets.home import HomeDocument
from hotplex.worker import PLACED_OVER, OwnFiles, SkillsPlace, Verified, skill_rivals

SWITCH = "--no-context-files"
CONTEXT_FILES = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")  # the first in each folder
OWN_FILES = OwnFiles(
    program="Pi",
    names=CONTEXT_FILES,
    home="the agent folder's AGENTS.md or CLAUDE.md (~/.pi/agent or PI_CODING_AGENT_DIR)",
    switch=f"the argument {SWITCH}",
    also_drops="the AGENTS.md or CLAUDE.md of the gateway's agent folder",
    first_of=CONTEXT_FILES,
    rivals={
        ".pi/APPEND_SYSTEM.md": (
            "is not read by Pi: the document hotplex passes by --append-system-prompt takes its"
            " place"
        ),
        ".pi/SYSTEM.md": "replaces Pi's own base prompt (the document is still appended to it)",
        **skill_rivals("Pi", (".agents/skills",)),
        **skill_rivals("Pi", (".pi/skills",), PLACED_OVER),
    },
)
# Pi 0.73.1 lists the skills of its working folder's .pi/skills and .agents/skills (and of the
# agent folder's skills and ~/.agents/skills) at the end of its system message, each as
# <skill><name>…</name><description>…</description><location>…</location></skill> in
# <available_skills>; the model reads a SKILL.md with its read tool
# (tests/integration/test_skills_each_program.py). The agent folder is the gateway's (its
# models.json): the skills are placed in the session folder.
SKILLS = SkillsPlace(".pi/skills/{name}", wrapper="available_skills")


class Pi(HomeDocument):
    name = "pi"
    delivery = (
        "`pi --append-system-prompt dist/pi/slack/pi/APPEND_SYSTEM.md`: in the **system** message "
        "right after Pi's base prompt; each Agent Skill's folder in `.pi/skills/`"
    )
    verified = Verified("Pi", "0.73.1", "tests/integration/test_pi.py")
    program = "pi"
    home_flag = "--append-system-prompt"
    home_dir = "pi"
    home_file = "APPEND_SYSTEM.md"
    switch_argv = (SWITCH,)
    gateway_adds = (
        "the provider and model: models.json (and auth.json) in its agent folder, ~/.pi/agent or"
        " PI_CODING_AGENT_DIR, and --provider/--model"
    )
    init_target = ("pi", "prompt.xml as pi/APPEND_SYSTEM.md, for pi --append-system-prompt")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents"})
    import_formats = ("hotplex.importing.agents",)
