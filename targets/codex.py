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
document travels in a file, never as an argument (a HotPlex rule): Linux caps one argv string at
128 KiB (the default 40,000-character budget is 120,000 bytes of CJK or 160,000 of emoji
before the XML), the text would show in every process listing, and quoting it for TOML and a
shell is a second place to get it wrong. Codex resolves a relative ``CODEX_HOME`` against its
working directory, so ``launch.json`` names the folder relative to the project like the other
workers do. Codex writes its own state into ``CODEX_HOME`` (sessions, SQLite files, unpacked
skills): a gateway copies the folder to a fresh one per session, adds its provider and
credentials (``-c model_providers.…`` or more tables in the copy), and points ``CODEX_HOME``
there.

What Codex CLI 0.169.0 loads by itself (checked with the real program; see
tests/integration/test_own_instructions_live.py): AGENTS.md (AGENTS.override.md in its place) from
``$CODEX_HOME``, and from every folder between the repository root and its working folder, into a
user message, raw. ``project_doc_max_bytes = 0`` in the config.toml turns the project files off
and nothing else: the home is this folder, holding no AGENTS.md, so the switch is the default.

The TOML is written by tomli-w as a one-line basic string, every control character escaped:
tomli-w's multi-line form turns CR LF into LF, and TOML lets a parser normalise newlines in
multi-line strings, so only the escaped form is exact everywhere.
"""

from __future__ import annotations

from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.targets.home import HomeDocument
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

CONFIG_KEY = "developer_instructions"
SWITCH_KEY = "project_doc_max_bytes"  # 0: Codex reads no project AGENTS.md
OWN_FILES = OwnFiles(
    program="Codex CLI",
    names=("AGENTS.md", "AGENTS.override.md"),
    first_of=("AGENTS.override.md", "AGENTS.md"),  # in each folder, the override first
    home="$CODEX_HOME/AGENTS.md (the codex-home folder hotplex writes: none there)",
    switch=f"{SWITCH_KEY} = 0 in codex-home/config.toml",
    rivals=skill_rivals("Codex CLI", (".agents/skills", ".codex/skills")),
)
# Codex CLI 0.169.0 lists the skills of $CODEX_HOME/skills (and of the project's .agents/skills
# and .codex/skills, and ~/.agents/skills) in a developer message, "- <name>: <description>
# (file: <root>/<name>/SKILL.md)" in <skills_instructions>; the model reads a SKILL.md with its
# shell (tests/integration/test_skills_live.py). The home is hotplex's: skills go there.
SKILLS = SkillsPlace("skills/{name}", in_home=True, wrapper="skills_instructions")


def config_toml(document: str, own_files_off: bool = False) -> bytes:
    """A Codex ``config.toml`` whose ``developer_instructions`` carries ``document`` exactly,
    with the switch that keeps the project's AGENTS.md out when ``own_files_off``."""
    import tomli_w  # only when a Codex artifact is compiled

    config: dict[str, object] = {CONFIG_KEY: document}
    if own_files_off:
        config[SWITCH_KEY] = 0
    return tomli_w.dumps(config).encode("utf-8")


class Codex(HomeDocument):
    name = "codex"
    delivery = (
        "`CODEX_HOME=dist/codex/slack/codex-home codex`: `developer_instructions` in that "
        "`config.toml`, sent right after Codex's base prompt; each Agent Skill's folder in "
        "`codex-home/skills/`"
    )
    verified = Verified("Codex CLI", "0.169.0", "tests/integration/test_codex.py")
    program = "codex"
    home_variable = "CODEX_HOME"
    home_dir = "codex-home"
    home_file = "config.toml"
    home_kind = "config"
    init_target = ("codex", "prompt.xml as Codex's developer_instructions: codex-home/config.toml")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents"})
    import_formats = ("hotplex.importing.agents",)

    def home_bytes(self, job: Job, model: Model, sent: str) -> bytes:
        return config_toml(sent, self.switched_off(job.target))
