"""Mistral Vibe: the document as the user-level AGENTS.md of the home ``VIBE_HOME`` names.

What Mistral Vibe 3.0.2 does (checked with the real ``vibe -p`` against a fake Chat Completions
API, see tests/integration/test_mistral_vibe.py): ``$VIBE_HOME/AGENTS.md`` lands in the system
message after Vibe's own base prompt ("You help users get complex tasks done. …"), which stays,
as ``## User instructions``, ``Contents of <absolute home>/AGENTS.md (user-level
instructions):``, a blank line and the file's text, then a blank line and Vibe's ``IMPORTANT:
this context may or may not be relevant …``. Vibe reads the file with universal newlines (CR LF
and a lone CR become LF) and strips it (Python's ``str.strip``): the artifact is built so, and
``prompt.xml`` is exactly what arrives.

Delivery: ``launch.json`` points ``VIBE_HOME`` at ``vibe-home``. The home also holds Vibe's
``config.toml`` (providers and models), ``.env``, trusted folders and logs, so a gateway copies
the folder per session and adds its ``config.toml`` there.

What it loads by itself: the project's AGENTS.md files, from the project root down to its working
folder, but in ``-p`` mode only for a folder it trusts: without ``--trust`` it reads none (and
says so on stderr). hotplex never passes ``--trust``, so Vibe reads only the file hotplex writes.
"""

from __future__ import annotations

from hotplex.targets.aider import universal_newlines
from hotplex.targets.home import HomeDocument, Sent, Transform
from hotplex.worker import SkillsPlace, Verified

# Mistral Vibe 3.0.2 lists the skills of $VIBE_HOME/skills (and of ~/.agents/skills, and its own
# built-in ones; a project's .vibe/skills and .agents/skills only with --trust, which hotplex never
# passes) in the system message, each as <skill> with its <name>, <description> and <path> on
# lines of their own, in <available-skills>; its skill tool sends a body stripped, in
# <skill_content> (tests/integration/test_skills_headless.py).
SKILLS = SkillsPlace("skills/{name}", in_home=True, wrapper="available-skills")


def stripped(document: str) -> Sent:
    """``document`` as Vibe sends its user-level AGENTS.md: universal newlines, stripped."""
    text = universal_newlines(document)
    sent = text.strip()
    lead = len(text) - len(text.lstrip())
    return Sent(sent, position=lambda at: min(max(at - lead, 0), len(sent)))


class MistralVibe(HomeDocument):
    name = "mistral-vibe"
    delivery = (
        "`VIBE_HOME=dist/vibe/slack/vibe-home vibe`: the home's AGENTS.md, under `## User "
        "instructions` in the **system** message after Vibe's base prompt; each Agent Skill's"
        " folder in `vibe-home/skills/`"
    )
    verified = Verified("Mistral Vibe", "3.0.2", "tests/integration/test_mistral_vibe.py")
    program = "vibe"
    home_variable = "VIBE_HOME"
    home_dir = "vibe-home"
    home_file = "AGENTS.md"
    transform = Transform(stripped, universal_newlines)
    gateway_adds = (
        "Python 3.12 or later, and the provider and model: a config.toml (providers, models,"
        " active_model) in the copy of vibe-home, its key in the variable it names; no --trust,"
        " which adds the project's AGENTS.md files raw"
    )
    init_target = ("vibe", "prompt.xml as vibe-home/AGENTS.md, Vibe's user-level instructions")
    imports_read = frozenset({"agents"})
    skills = SKILLS
    import_formats = ("hotplex.importing.agents",)
