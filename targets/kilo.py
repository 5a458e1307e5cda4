"""Kilo CLI: the document as the AGENTS.md of a config folder that ``launch.json`` adds.

What Kilo 7.7.7 does (an OpenCode fork; checked with the real ``kilo run`` against a fake Chat
Completions API, see tests/integration/test_kilo.py): ``$KILO_CONFIG_DIR/AGENTS.md`` is its
global instructions file, sent in the system message after Kilo's own base prompt, which stays,
as ``Instructions from: <absolute path>`` and the file's text, verbatim (no trimming, CR kept).
``KILO_CONFIG_DIR`` *adds* a config folder, so the gateway's own settings (the provider, in
``~/.config/kilo/kilo.json`` or ``KILO_CONFIG_CONTENT``) stay; of the global instruction files
the first found is read, and this one comes first: the user's ``~/.config/kilo/AGENTS.md`` and
``~/.claude/CLAUDE.md`` are then not read. Kilo writes a ``.gitignore`` into the folder: a
gateway copies it per session, as for the other homes.

What it loads by itself: the first of AGENTS.md, CLAUDE.md and CONTEXT.md found from its working
folder up to the repository root (each copy of that name on the way), and files named in a
project ``kilo.json``'s ``instructions``; ``KILO_DISABLE_PROJECT_CONFIG=1`` turns those off and
with them the project's ``kilo.json``, ``opencode.json`` and ``.kilo``/``.opencode`` folders, so
it is the target's explicit choice (``own_instructions = "off"``), as for OpenCode. Kilo Code's
legacy rules, ``.kilocode/rules/*.md``, ``.kilo/rules/*.md`` and ``.kilocoderules`` in its working
folder (and ``~/.kilocode/rules``), are read whatever the switch says: only a session folder
outside the project keeps them out.
"""

from __future__ import annotations

from hotplex.targets.home import HomeDocument
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

SWITCH_ENV = "KILO_DISABLE_PROJECT_CONFIG"
# As OpenCode reads them: by the first name found from the session folder up, wherever found.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
LEGACY_RULES = (".kilocode/rules/*.md", ".kilo/rules/*.md", ".kilocoderules")
OWN_FILES = OwnFiles(
    program="Kilo",
    names=(*INSTRUCTION_FILES, *LEGACY_RULES),
    first_of=INSTRUCTION_FILES,
    first_across=True,
    home=(
        "$KILO_CONFIG_DIR/AGENTS.md (the kilo-config folder hotplex writes: the document, read"
        " instead of ~/.config/kilo/AGENTS.md or ~/.claude/CLAUDE.md), and ~/.kilocode/rules"
    ),
    switch=f"env {SWITCH_ENV}=1",
    also_drops="the project's kilo.json, opencode.json and .kilo/.opencode folders",
    unswitched=LEGACY_RULES,
    rivals=skill_rivals(
        "Kilo", (".kilo/skills", ".kilocode/skills", ".agents/skills", ".claude/skills")
    ),
)
# Kilo 7.7.7 lists the skills of $KILO_CONFIG_DIR/skills (and of the project's .kilo/skills,
# .kilocode/skills, .agents/skills and .claude/skills, and the user's) in its system message, as
# OpenCode does: <skill><name>…</name><description>…</description><location>…</location></skill>
# in <available_skills> (tests/integration/test_skills_each_program.py).
SKILLS = SkillsPlace("skills/{name}", in_home=True, wrapper="available_skills")


class Kilo(HomeDocument):
    name = "kilo"
    delivery = (
        "`KILO_CONFIG_DIR=dist/kilo/slack/kilo-config kilo`: that folder's AGENTS.md, in the "
        "**system** message after Kilo's base prompt; each Agent Skill's folder in "
        "`kilo-config/skills/`"
    )
    verified = Verified("Kilo", "7.7.7", "tests/integration/test_kilo.py")
    program = "kilo"
    home_variable = "KILO_CONFIG_DIR"
    home_dir = "kilo-config"
    home_file = "AGENTS.md"
    switch_env = SWITCH_ENV
    gateway_adds = (
        "the provider and model: a provider in the user's ~/.config/kilo/kilo.json or"
        " KILO_CONFIG_CONTENT, and --model provider/model"
    )
    init_target = ("kilo", "prompt.xml as kilo-config/AGENTS.md, Kilo's global instructions")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents", "kilo"})
    import_formats = ("hotplex.importing.agents", "hotplex.importing.kilo")
