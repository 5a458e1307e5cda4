"""Claude Code: ``prompt.xml`` for ``claude --append-system-prompt-file``, ``subagent.xml`` for
``--append-subagent-system-prompt-file``, the argv, and the sub-agents' files.

Claude Code appends each file's text verbatim to a system prompt, so the files are UTF-8 without
BOM with LF line ends, and ``launch.json`` names them relative to the project: artifacts are the
same bytes on every machine.

``prompt.xml`` reaches the main agent only. Since 2.1.261, ``--append-subagent-system-prompt-file``
appends ``subagent.xml`` (the sub-agent profile's sections) to every sub-agent's prompt — the
built-ins' and custom agents' alike — after the agent's own prompt, which stays whole; the flag
is passed only to a version that has it (``compat``, default: the version the tests run).

A name in ``subagents`` also gets ``agents/<name>.md``, a Claude Code agent file, where one is
needed (a custom agent; a built-in whose ``replace`` says so, or, before 2.1.261, any built-in:
then the file replaces its prompt), and ``launch.json``'s ``files`` maps
``.claude/agents/<name>.md`` (relative to the session folder, where Claude Code looks for project
agents) to it. Files rather than ``--agents '<json>'`` or the text flags: the documents stay out
of the argv (Linux caps one argument at 128 KiB, and process listings show it).

What Claude Code 2.1.332 loads by itself (checked with the real program; see
tests/integration/test_own_instructions_live.py): from its working folder and every folder above it,
CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md and CLAUDE.local.md, and AGENTS.md where neither
CLAUDE.md nor .claude/CLAUDE.md sits beside it (since 2.1.277); from its config folder
(``~/.claude``), the user's CLAUDE.md and rules; and a managed (policy) CLAUDE.md. Each arrives in
the first user message, raw. ``CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`` turns every one of them off,
the user's and the managed ones too, and keeps the base prompt and the appended file: so it is
the target's explicit choice (``own_instructions = "off"``), never the default.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from hotplex.document import configuration
from hotplex.errors import suggest
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Manifest, Model, Target
from hotplex.records import OptionProblem, Output, Section, TargetSources
from hotplex.targets import claude_code_tools, subagents
from hotplex.targets.gateway import Beside, Gateway
from hotplex.worker import OwnFiles, SkillsPlace, Verified, in_session

SWITCH_ENV = "CLAUDE_CODE_DISABLE_CLAUDE_MDS"
SUBAGENT_FILE = "subagent.xml"
TESTED = "2.1.332"  # the Claude Code the integration tests run: a target's default ``compat``
APPENDS_SINCE = (2, 1, 261)  # the first release with --append-subagent-system-prompt-file
# As ``claude --version`` prints it: no leading zeros (``2.1.0261`` is no release).
VERSION = re.compile(r"(0|[1-9]\d{0,3})\.(0|[1-9]\d{0,3})\.(0|[1-9]\d{0,4})")
# An agent's ``model``: "inherit" or an alias 2.1.332 knows (its own list), else a model id —
# Anthropic's (claude-sonnet-4-5, claude-opus-4-1-20250805, [1m] for the long context) or Bedrock's
# (us.anthropic.claude-…); "anthropic/claude-…" is OpenCode's spelling, not Claude Code's.
MODEL_ALIASES = (
    *("inherit", "sonnet", "opus", "haiku", "fable", "best"),
    *("sonnet[1m]", "opus[1m]", "fable[1m]", "opusplan"),
)
MODEL_ID = re.compile(r"(?:(?:[a-z]{2,4}\.)?anthropic\.)?claude-[a-z0-9][a-z0-9.@:-]*(?:\[1m\])?")
OWN_FILES = OwnFiles(
    program="Claude Code",
    names=(
        "CLAUDE.md",
        ".claude/CLAUDE.md",
        ".claude/rules/**/*.md",
        "CLAUDE.local.md",
        "AGENTS.md",
    ),
    home="~/.claude/CLAUDE.md and ~/.claude/rules/*.md, and the managed CLAUDE.md",
    switch=f"env {SWITCH_ENV}=1",
    also_drops="the user's ~/.claude/CLAUDE.md and rules and the managed CLAUDE.md",
    unless_beside={"AGENTS.md": ("CLAUDE.md", ".claude/CLAUDE.md")},
    rivals={
        ".claude/skills/*/SKILL.md": (
            "is a skill Claude Code lists beside the compiled ones, raw (not checked or scanned);"
            " the gateway's copy replaces one named like a compiled skill"
        ),
    },
)

# Claude Code 2.1.332 lists each skill as "- <name>: <description> - <when_to_use>" in a message
# of role system, and keeps 1,536 characters of the text after "<name>: " (1,535 and "…"):
# measured with the real program (tests/integration/test_skills_live.py). Characters as
# JavaScript counts them (`n.length>o?n.slice(0,o-1)+"…"` in its bundle): an emoji is two.
SKILL_LISTING_CAP = 1536
# The whole listing's budget: 30,000 columns (`Bun.stringWidth`, a terminal's width) with the
# model 2.1.332 runs by default (1% of its context window at its characters per token;
# SLASH_COMMAND_TOOL_CHAR_BUDGET or settings' skillListingBudgetFraction change it). Its own
# skills (dataviz, update-config, code-review, …) keep 6,074 of them whatever the project's take
# (init and security-review, listed after the project's, are cut first). Over budget it lists
# the project's skills by name only from the first that no longer fits, in its order (most used
# first, else as listed). Measured with the real program to the column: 23,926 columns of the
# project's lines and their line breaks list whole, one more cuts the last
# (tests/integration/test_skills_live.py).
SKILL_LISTING_BUDGET = 30000
SKILL_LISTING_OWN = 6074
# Where Claude Code loads project skills, relative to its working folder, and the frontmatter
# keys its documentation adds to the specification's (tests/integration/test_skills_live.py).
SKILLS = SkillsPlace(
    ".claude/skills/{name}",
    frozenset(
        {
            *("when_to_use", "argument-hint", "disable-model-invocation", "user-invocable"),
            *("model", "effort", "context", "agent", "hooks", "paths", "shell"),
        }
    ),
    listed=("description", "when_to_use"),
    entry_cap=SKILL_LISTING_CAP,
    entry_unit="utf16",
    wrapper="system-reminder",
    listing_budget=SKILL_LISTING_BUDGET,
    listing_own=SKILL_LISTING_OWN,
    listing_unit="columns",
)


@attrs.frozen
class Agent(subagents.Agent):
    """A Claude Code sub-agent's settings: the common ones and the tools it may use."""

    tools: tuple[str, ...] | None = None  # Claude Code's tool names; None: every tool


@attrs.frozen
class Options(subagents.Options):
    """The target keys of a ``claude-code`` target."""

    agents: dict[str, Agent] = attrs.field(factory=dict)
    compat: str | None = None  # the Claude Code version it is built for; None: TESTED
    subagent_document: bool | None = None  # subagent.xml; None: where the version has the flag


def version(options: Options) -> tuple[int, ...] | None:
    """The Claude Code release the target is built for, or None when ``compat`` is no version."""
    return _release(options.compat or TESTED)


@functools.lru_cache(maxsize=64)
def _release(compat: str) -> tuple[int, ...] | None:
    """``compat`` read as a release: asked twice by every per-user compile, for the same few."""
    found = VERSION.fullmatch(compat)
    return None if found is None else tuple(int(part) for part in found.groups())


def appends(options: Options) -> bool:
    """Whether ``subagent.xml`` is built and passed: the version has the flag and the target has
    not turned it off."""
    built_for = version(options)
    has_flag = built_for is not None and built_for >= APPENDS_SINCE
    return has_flag and options.subagent_document is not False


def _frontmatter(name: str, description: str, agent: Agent | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": name, "description": description}
    if agent is not None and agent.tools is not None:
        # Empty: no tool (an absent ``tools`` is every tool); written as the list it is.
        fields["tools"] = ", ".join(agent.tools) if agent.tools else []
    return fields


FORMAT = subagents.Format(
    program="Claude Code",
    built_ins={
        "general-purpose": subagents.BuiltIn(
            "General-purpose agent for researching complex questions, searching for code and "
            "carrying out multi-step tasks.",
            subagents.GENERAL_ROLE,
        ),
        "Explore": subagents.EXPLORE,
        "Plan": subagents.BuiltIn(
            "Planner: explores the codebase and designs an implementation plan, changing nothing.",
            "You are a planner: you explore the codebase and design a step-by-step "
            "implementation plan for the main agent. You never create, change or delete a file.",
        ),
    },
    placed=".claude/agents/{name}.md",
    frontmatter=_frontmatter,
    appended=SUBAGENT_FILE,
    no_append="without subagent.xml nothing else reaches it",
)


class ClaudeCode(Gateway):
    name = "claude-code"
    delivery = (
        "`claude --append-system-prompt-file dist/cc/slack/prompt.xml "
        "--append-subagent-system-prompt-file dist/cc/slack/subagent.xml`; each custom sub-agent's "
        "file in `.claude/agents/`; each Agent Skill's folder in `.claude/skills/`"
    )
    verified = Verified("Claude Code", TESTED, "tests/integration/test_claude_code.py")
    Options = Options
    document_file = "prompt.xml"
    beside_outputs = (Output(SUBAGENT_FILE, "document"),)
    init_target = (
        "cc",
        "prompt.xml for `claude --append-system-prompt-file`, subagent.xml, launch.json",
    )
    format = FORMAT
    skills = SKILLS
    own_files = OWN_FILES
    switch_env = SWITCH_ENV
    imports_read = frozenset({"claude-code"})
    import_formats = ("hotplex.importing.claude",)

    def appends(self, target: Target) -> bool:
        return appends(target.options)

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        yield from super().validate(target, manifest, sources)
        options = target.options
        built_for = version(options)
        if built_for is None:
            yield OptionProblem(
                "compat",
                f"compat '{options.compat}' is no Claude Code version",
                f'the number claude --version prints, e.g. compat = "{TESTED}"',
            )
        elif options.subagent_document and built_for < APPENDS_SINCE:
            since = ".".join(map(str, APPENDS_SINCE))
            yield OptionProblem(
                "subagent_document",
                f"Claude Code {options.compat} cannot append a document to its sub-agents "
                f"(--append-subagent-system-prompt-file came with {since})",
            )
        for name, agent in options.agents.items():
            for index, tool in enumerate(agent.tools or ()):
                yield from _check_tool(tool, f"agents.{name}.tools[{index}]")
            if agent.model is not None:
                yield from _check_model(agent.model, f"agents.{name}.model")

    def argv(self, job: Job, model: Model, document: str, beside: Beside) -> list[str]:
        return [
            "claude",
            "--append-system-prompt-file",
            in_session(job, model, document),
            *beside.argv,
        ]

    def beside(self, job: Job, sections: list[Section], model: Model) -> Beside:
        """``subagent.xml``, the sub-agent profile's sections, where the version appends it."""
        options = job.target.options
        if not appends(options):
            return Beside(notes=_notes(options))
        keep = subagents.default_keep(options)
        shared = configuration.build(subagents.kept(sections, keep), model)
        path = f"{job.out_dir(model)}/{SUBAGENT_FILE}"
        cuts = subagents.cuts_in(path, shared.truncations)
        if not shared.text:
            listed = ", ".join(keep) or "subagent_keep = []"
            why = f"no {SUBAGENT_FILE}: none of {listed} has text, so the sub-agents get nothing"
            return Beside(truncations=cuts, notes=(f"{why} from hotplex",), appended=keep)
        return Beside(
            files={path: configuration.file_bytes(shared)},
            argv=("--append-subagent-system-prompt-file", in_session(job, model, path)),
            truncations=cuts,
            documents=((path, shared.sizes),),
            notes=_notes(options),
            appended=keep,
        )


def _notes(options: Options) -> tuple[str, ...]:
    """What reaches the sub-agents, said once per artifact for ``stats``."""
    built_for = options.compat or TESTED
    if appends(options):
        return (
            f"{SUBAGENT_FILE} is appended to every sub-agent's own prompt "
            f"(Claude Code {built_for}, --append-subagent-system-prompt-file)",
        )
    if options.subagent_document is False:
        why = "subagent_document = false"
    else:
        why = f"Claude Code {built_for} has no --append-subagent-system-prompt-file"
    return (f"{why}: only the sub-agents in subagents get the rules, each from its agent file",)


def _check_model(value: str, key: str) -> Iterable[OptionProblem]:
    """A model Claude Code can run an agent on (``MODEL_ALIASES``, ``MODEL_ID``)."""
    if value.lower() in MODEL_ALIASES or MODEL_ID.fullmatch(value):
        return
    unprefixed = value.rsplit("/", 1)[-1]  # OpenCode's provider/model
    near = (
        f"did you mean '{unprefixed}'?"
        if MODEL_ID.fullmatch(unprefixed)
        else suggest(value.lower(), MODEL_ALIASES)
    )
    yield OptionProblem(
        key,
        f"Claude Code has no model '{value}'",
        near or f"an alias ({', '.join(MODEL_ALIASES)}) or a model id such as claude-sonnet-4-5",
    )


def _check_tool(tool: str, key: str) -> Iterable[OptionProblem]:
    """A tool name Claude Code knows (``claude_code_tools``); an MCP tool is the user's own."""
    name = tool.split("(", 1)[0] if tool.endswith(")") else tool
    if name == "*" or name.startswith(claude_code_tools.MCP_PREFIX):
        return
    if name not in claude_code_tools.TOOLS:
        tools = sorted(claude_code_tools.TOOLS)
        yield OptionProblem(
            key,
            f"Claude Code has no tool '{tool}'",
            suggest(name, tools)
            or f"its tools: {', '.join(tools)}; an MCP tool is mcp__<server>__<tool>",
        )
