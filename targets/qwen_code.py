"""Qwen Code: the document as the global QWEN.md of a home that ``launch.json`` points to.

What Qwen Code 0.24.4 does (a Gemini CLI fork; checked with the real CLI against a fake Chat
Completions API, see tests/integration/test_qwen_code.py): ``$QWEN_HOME/QWEN.md`` lands in the
system message after Qwen's own base prompt, which stays, as ``--- Context from: <path relative
to the working folder> ---`` / the file's text / ``--- End of Context from: … ---``, before the
context Qwen adds itself (its output-language file and managed memory). It goes into both
requests of a turn: the main one and its memory-extraction sub-agent's. Qwen trims the file
(JavaScript's ``trim``) and inlines ``@path`` imports as Gemini CLI does, but keeps runs of blank
lines, so the transform is Gemini's without the collapse. There is no setting that appends to the
system prompt other than these context files (``QWEN_SYSTEM_MD`` replaces the base prompt).

What it loads by itself: QWEN.md and AGENTS.md (``context.fileName``) from its working folder up
to the repository root, ``.qwen/QWEN.local.md`` and ``.qwen/rules/*.md`` at that root, each
after the home's file, raw. Only a ``context.fileName`` in a ``settings.json`` would turn the
project's files off, and it renames the home's file with them, so there is no switch: ``build``
warns where a compiled QWEN.md or AGENTS.md sits in the session folder (``cwd``).

Qwen writes its state into the home (``output-language.md``, ``projects/``): a gateway copies the
folder per session, as for Gemini CLI, and runs ``qwen`` with Node 22 or later.
"""

from __future__ import annotations

from hotplex.targets.gemini_cli import at_imports
from hotplex.targets.home import HomeDocument
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

OWN_FILES = OwnFiles(
    program="Qwen Code",
    names=("QWEN.md", "AGENTS.md", ".qwen/QWEN.local.md", ".qwen/rules/*.md"),
    home="$QWEN_HOME/QWEN.md and AGENTS.md (the qwen-home folder hotplex writes: the document)",
    rivals=skill_rivals("Qwen Code", (".qwen/skills", ".agents/skills")),
)
# Qwen Code 0.24.4 lists the skills of $QWEN_HOME/skills (and of the project's .qwen/skills and
# .agents/skills, and ~/.agents/skills) in a <system-reminder> of a user message, each as
# <skill>, its <name>, <description> and <location> on lines of their own, in <available_skills>;
# the description is "<description> — <when_to_use> (user)" for the home's, as Claude Code
# joins them (tests/integration/test_skills_each_program.py).
SKILLS = SkillsPlace(
    "skills/{name}",
    frozenset({"when_to_use"}),
    listed=("description", "when_to_use"),
    joiner=" — ",
    in_home=True,
    wrapper="available_skills",
)


class QwenCode(HomeDocument):
    name = "qwen-code"
    delivery = (
        "`QWEN_HOME=dist/qwen/slack/qwen-home qwen`: the home's QWEN.md, in the **system** message "
        "after Qwen Code's base prompt; each Agent Skill's folder in `qwen-home/skills/`"
    )
    verified = Verified("Qwen Code", "0.24.4", "tests/integration/test_qwen_code.py")
    program = "qwen"
    home_variable = "QWEN_HOME"
    home_dir = "qwen-home"
    home_file = "QWEN.md"
    transform = at_imports("Qwen Code", collapse=False)
    gateway_adds = (
        "Node.js 22 or later, and the model: --auth-type openai with OPENAI_BASE_URL,"
        " OPENAI_API_KEY and OPENAI_MODEL (or a settings.json in the home's copy)"
    )
    init_target = ("qwen", "prompt.xml as qwen-home/QWEN.md, as Qwen Code sends it")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents", "qwen"})
    import_formats = ("hotplex.importing.agents", "hotplex.importing.qwen")
