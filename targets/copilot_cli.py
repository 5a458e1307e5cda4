"""GitHub Copilot CLI: the document as an instructions file of a folder that ``launch.json`` adds
by ``COPILOT_CUSTOM_INSTRUCTIONS_DIRS``.

What Copilot CLI 1.0.102 does (checked with the real ``copilot -p`` against a fake Chat
Completions API, see tests/integration/test_copilot_cli.py): each folder named in
``COPILOT_CUSTOM_INSTRUCTIONS_DIRS`` (comma-separated, relative ones from its working folder) adds
its ``.github/instructions/*.instructions.md`` to the system message, after Copilot's own base
prompt ("You are the GitHub Copilot CLI, …") and its ``<tools>``, which stay, and after the
``<custom_instruction>`` blocks of the other instruction files: the file's text verbatim (no
trimming, CR kept), with no wrapper and no ``@file`` imports, so ``prompt.xml`` is the file.

The alternatives are worse: ``copilot-instructions.md`` in ``COPILOT_HOME`` (or ``.github/``)
lands wrapped in ``<custom_instruction>`` with every ``@file`` line followed by that file's text,
and moving ``COPILOT_HOME`` to a folder hotplex writes would lose the gateway's settings there;
the variable only adds a folder. An AGENTS.md in such a folder is only listed for the model to
read, and ``--no-custom-instructions`` drops the document with every other file.

What Copilot CLI loads by itself: AGENTS.md, CLAUDE.md, GEMINI.md, ``.github/copilot-
instructions.md``, ``.github/instructions/**/*.instructions.md`` and ``.claude/rules/**/*.md`` from
its working folder and each folder above it up to the repository root, and from the user's
``COPILOT_HOME``, raw, beside the document. No setting turns them off and keeps the document:
``build`` warns where a compiled source sits there, and where a ``.github/copilot-instructions.md``
would reach it beside the document (a ``copilot`` target's placed copy too); ``cwd`` is the way
out.
"""

from __future__ import annotations

from hotplex.errors import HotplexError, Span
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.targets.gateway import NO_SKILLS, Shipped
from hotplex.targets.home import HomeDocument
from hotplex.worker import (
    PLACED_OVER,
    OwnFiles,
    SkillsPlace,
    Verified,
    in_session,
    skill_rivals,
)

HOME_VARIABLE = "COPILOT_CUSTOM_INSTRUCTIONS_DIRS"

OWN_FILES = OwnFiles(
    program="Copilot CLI",
    names=(
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        ".github/copilot-instructions.md",
        ".github/instructions/**/*.instructions.md",
        ".claude/rules/**/*.md",
    ),
    home=(
        "copilot-instructions.md and instructions/**/*.instructions.md of the gateway's"
        " COPILOT_HOME (~/.copilot)"
    ),
    rivals={
        ".github/copilot-instructions.md": (
            "reaches Copilot CLI too, beside the document: a second copy if it holds the same"
            " rules (a copilot target's file does)"
        ),
        **skill_rivals("Copilot CLI", (".agents/skills", ".claude/skills")),
        **skill_rivals("Copilot CLI", (".github/skills",), PLACED_OVER),
    },
)
# Copilot CLI 1.0.102 lists the skills of its working folder's .github/skills, .agents/skills and
# .claude/skills (and of ~/.copilot/skills and ~/.agents/skills; not of an added instructions
# folder) in its system message, each as <skill>, <name>, <description> and
# <location>project</location> in <available_skills>; its skill tool sends the body
# (tests/integration/test_skills_each_program.py).
SKILLS = SkillsPlace(".github/skills/{name}", wrapper="available_skills")


class CopilotCli(HomeDocument):
    name = "copilot-cli"
    delivery = (
        "`COPILOT_CUSTOM_INSTRUCTIONS_DIRS=dist/copilot-cli/slack/copilot-instructions copilot`: "
        "in the **system** message after Copilot's base prompt and tools; each Agent Skill's "
        "folder in `.github/skills/`"
    )
    verified = Verified("Copilot CLI", "1.0.102", "tests/integration/test_copilot_cli.py")
    program = "copilot"
    home_variable = HOME_VARIABLE
    home_dir = "copilot-instructions"
    home_file = ".github/instructions/hotplex.instructions.md"
    gateway_adds = (
        "the model: COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_TYPE and"
        " COPILOT_MODEL (or a GitHub login); its own instruction folders joined to"
        " COPILOT_CUSTOM_INSTRUCTIONS_DIRS with commas"
    )
    init_target = (
        "copilot-cli",
        "prompt.xml as copilot-instructions/.github/instructions/hotplex.instructions.md",
    )
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents", "copilot"})
    import_formats = ("hotplex.importing.agents",)

    def launch(self, job: Job, model: Model, home: str, skills: Shipped = NO_SKILLS) -> bytes:
        """Refuses a folder whose path holds a comma: Copilot splits the variable at commas."""
        folder = in_session(job, model, home)
        if "," in folder:
            index = model.target_index(job.target)
            out = "," in model.manifest.project.out
            raise HotplexError.single(
                f"Copilot CLI would split the folder '{folder}' at its comma: {HOME_VARIABLE} is"
                " a comma-separated list",
                Span(model.manifest_display, key="project.out" if out else f"target[{index}].cwd"),
                hint="an out folder, a cwd and (from a cwd outside) project folder names without"
                " a comma",
            )
        return super().launch(job, model, home, skills)
