"""Cline CLI: the document as a global rule, ``rules/hotplex.md`` of the folder ``CLINE_DIR`` names.

What Cline 3.0.65 does (checked with the real ``cline`` against a fake Chat Completions API, see
tests/integration/test_cline.py): its rules — AGENTS.md and ``.clinerules/`` in its working
folder, and the global ones — end the system message, after Cline's own base prompt ("You are
Cline, …"), which stays, as ``# Rules`` and one ``## <name>`` and text per rule, sorted by name.
A rule's name is its file's stem, its text the file trimmed (JavaScript's ``trim``), so the
artifact is built trimmed and ``prompt.xml`` is exactly the text under ``## hotplex``. ``-s``
would replace the whole system prompt and is never used.

Delivery: the global rules folders are ``~/Documents/Cline/Rules`` and ``~/Cline/Rules`` in the
user's home, and ``$CLINE_DIR/rules``; hotplex writes none of the first two: ``launch.json``
points ``CLINE_DIR`` at ``cline-home``, whose ``rules/hotplex.md`` is the document. ``CLINE_DIR``
also holds Cline's data folder unless ``CLINE_DATA_DIR`` names another, so the gateway keeps its
provider (``cline auth``) in its own data folder and names it there. ``launch.json`` also sets
``CLINE_SESSION_BACKEND_MODE=local``: by default Cline runs the session in a hub daemon it starts
once and shares (a fixed port), which keeps the environment of the session that started it, so a
later session's ``CLINE_DIR`` would be ignored; in local mode each session runs in its own process
and no daemon is left behind.

Which copy wins: rules are keyed by their name in any letter case, and of two the later folder
wins: the working folder's, then ``$CLINE_DIR/rules``, then ``~/Cline/Rules`` and
``~/Documents/Cline/Rules``. So a project rule named ``hotplex`` is not read (``check`` says so),
and one of that name in the gateway's home would shadow the document.

What Cline loads by itself: AGENTS.md, the ``.clinerules`` file or folder (``.md``, ``.markdown``,
``.txt``), ``.cline/rules/`` and ``.cline/*/rules.md`` of its working folder only, raw, beside the
document. No setting turns them off but ``-s`` (which drops the document too): ``build`` warns
where a compiled source sits there, and ``cwd`` is the way out.
"""

from __future__ import annotations

from hotplex.targets.home import TRIMMED, HomeDocument
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

RULE = "hotplex"  # the rule's name: the stem of its file
RULE_TEXTS = (".md", ".markdown", ".txt")  # the file extensions Cline reads as rules
RULE_FOLDERS = (".clinerules", ".cline/rules")  # in its working folder


def _any_case(name: str) -> str:
    """A glob matching ``name`` in any letter case, as Cline compares rule names and
    extensions."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in name)


# The project's rules of the document's name, which the document shadows.
SAME_NAME = tuple(f"{d}/{_any_case(RULE + ext)}" for d in RULE_FOLDERS for ext in RULE_TEXTS)
SHADOWED = (
    f"is not read by Cline: its rule '{RULE}' is the document, from cline-home/rules, which"
    " shadows a rule of the same name"
)
OWN_FILES = OwnFiles(
    program="Cline",
    names=(
        "AGENTS.md",
        ".clinerules",
        *(f"{folder}/*{_any_case(ext)}" for folder in RULE_FOLDERS for ext in RULE_TEXTS),
        ".cline/*/rules.md",
    ),
    home=(
        "~/.agents/AGENTS.md, ~/Cline/Rules and ~/Documents/Cline/Rules (the gateway's home: a rule"
        f" named '{RULE}' there shadows the document), and $CLINE_DIR/rules (the cline-home folder"
        " hotplex writes: the document)"
    ),
    above=False,
    rivals={
        **dict.fromkeys(SAME_NAME, SHADOWED),
        **skill_rivals("Cline", (".clinerules/skills", ".cline/skills", ".agents/skills")),
    },
    shadowed=SAME_NAME,
)
# Cline 3.0.65 names the skills of $CLINE_DIR/skills (and of its working folder's
# .clinerules/skills, .cline/skills and .agents/skills, and ~/.agents/skills) in its skills tool's
# description, "Available skills: <name>, <name>.", and no description: the tool sends the body
# (tests/integration/test_skills_each_program.py).
SKILLS = SkillsPlace("skills/{name}", listed=(), in_home=True)


class Cline(HomeDocument):
    name = "cline"
    delivery = (
        "`CLINE_DIR=dist/cline/slack/cline-home cline`: the global rule `hotplex`, in the "
        "**system** message's `# Rules` after Cline's base prompt; each Agent Skill's folder in "
        "`cline-home/skills/`"
    )
    verified = Verified("Cline", "3.0.65", "tests/integration/test_cline.py")
    program = "cline"
    home_variable = "CLINE_DIR"
    home_dir = "cline-home"
    home_file = f"rules/{RULE}.md"
    transform = TRIMMED
    launch_env = (("CLINE_SESSION_BACKEND_MODE", "local"),)
    gateway_adds = (
        "the provider and model: cline auth into its own data folder, named by CLINE_DATA_DIR"
        " (else Cline keeps its data in the copy of cline-home), and -P/-m"
    )
    init_target = ("cline", "prompt.xml as cline-home/rules/hotplex.md, a global Cline rule")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents", "cline"})
    import_formats = ("hotplex.importing.agents", "hotplex.importing.cline")
