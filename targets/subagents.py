"""Sub-agent definitions: the rules reach the agents that actually run the tools.

What Claude Code 2.1.x does (checked with the real CLI against a fake Messages API; see
tests/integration/test_subagents_live.py): the text of ``--append-system-prompt-file`` reaches
no sub-agent — not ``general-purpose``, ``Explore``, ``Plan`` nor a custom one. A sub-agent's
system prompt is its own agent prompt plus a fixed suffix. A project file
``.claude/agents/<name>.md`` (YAML frontmatter with ``name`` and ``description``; the body,
trimmed, is the prompt) defines an agent, and one named like a built-in replaces the built-in's
prompt. OpenCode reads ``.opencode/agent/<name>.md`` (frontmatter ``description``,
``mode: subagent``) the same way. Claude Code 2.1.261 and later also append one document to every
sub-agent's own prompt (``--append-subagent-system-prompt-file``): where a worker has its program
do that (``Gateway.appends``), the sections that document holds reach every sub-agent
already, and a built-in keeps its prompt unless its ``replace`` says otherwise.

So each name in a target's ``subagents`` that needs one (a custom agent; a built-in replaced)
becomes one agent file in the worker's format, written beside the main artifact as
``agents/<name>.md``::

    ---
    <frontmatter, written by PyYAML and read back before it is accepted>
    ---

    <role: what this agent is, hotplex's text or the manifest's ``role``>

    <agent-configuration> of the kept sections </agent-configuration>

The document is built like the main one (sanitized, limited, reported), from the sections the
agent keeps (``subagent_keep`` by default: the sub-agent profile's rules, skills, tools), less
those the appended document holds. The built-in
META-COGNITION is left out: it speaks to the main agent about chat platforms and the gateway;
the role takes its place. ``launch.json`` maps each file to the place the program reads it from,
relative to the session folder (``files``); the gateway copies them there.

Claude Code skips an agent file without a word when it starts with a BOM, when its YAML does not
parse or when it has no description, so every file is checked for exactly that before it is
emitted, and a description must be one non-empty line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from hotplex.document import configuration as agent_configuration
from hotplex.errors import HotplexError, Span, suggest
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import DEFAULT_SUBAGENT_KEEP, Manifest, Model, Target
from hotplex.records import OptionProblem, Section, SectionSize, TargetSources, Truncation
from hotplex.scanning import sanitize
from hotplex.text.measure import measure
from hotplex.worker import yaml_text

AGENTS_DIR = "agents"
AGENT_FILES = f"{AGENTS_DIR}/*.md"  # the worker's ``outputs`` entry
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
NAME_RULE = "must start with a letter or a digit, then letters, digits, '-' or '_' (64 at most)"
# Names Windows keeps for devices in every folder, in any case: no agents/CON.md can be made.
WINDOWS_DEVICES = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{n}" for n in range(1, 10)),
        *(f"lpt{n}" for n in range(1, 10)),
    }
)
METACOGNITION = "metacognition"  # the built-in section's name: never in a sub-agent's document


@attrs.frozen
class Agent:
    """``[target.agents.<name>]``: one sub-agent's settings (None: hotplex's default). A worker
    whose program takes more (Claude Code's ``tools``) subclasses it."""

    description: str | None = None  # the main agent picks a sub-agent by it
    role: str | None = None  # the text before the document: who this agent is
    model: str | None = None  # in the program's own spelling; None: the main agent's
    keep: tuple[str, ...] | None = None  # the sections it gets; None: the target's subagent_keep
    # A built-in's own prompt is replaced by its agent file only when this says so; None: where
    # the program offers no other way to reach it, replaced with a warning that says so.
    replace: bool | None = None


@attrs.frozen
class Options:
    """The target keys of a worker with sub-agents (its ``Options``, or the base of them)."""

    subagents: tuple[str, ...] = ()
    agents: dict[str, Agent] = attrs.field(factory=dict)
    subagent_keep: tuple[str, ...] | None = None  # what sub-agents get; None: rules, skills, tools


class BuiltIn(NamedTuple):
    """A sub-agent the program ships: the description and role hotplex gives it instead."""

    description: str
    role: str


# The general-purpose and the read-only explore agent both programs ship, as hotplex gives them.
GENERAL_ROLE = (
    "You are a general-purpose agent: you research complex questions, search for code "
    "and carry out multi-step tasks the main agent hands you, then report what you "
    "found and did, concisely."
)
EXPLORE = BuiltIn(
    "Fast read-only agent for exploring codebases: finds files, searches code and "
    "answers questions about it.",
    "You are a read-only explorer: you find files, search code and read it to answer "
    "the main agent's question. You never create, change or delete a file.",
)


class Format(NamedTuple):
    """How one worker's program reads agent files."""

    program: str  # for messages: "Claude Code"
    built_ins: Mapping[str, BuiltIn]
    placed: str  # where the program reads ``{name}.md``, relative to the session folder
    # name, description, the agent's options -> the frontmatter, in the order it is written
    # (``model``, which every program has, is added after)
    frontmatter: Callable[[str, str, Any], dict[str, Any]]
    appended: str  # for messages: what the program appends to every sub-agent, where it can
    no_append: str  # for messages: why an agent file is the only way to reach a built-in


class Agents(NamedTuple):
    """The agent files of one job and what building them did."""

    files: dict[str, bytes]  # project-relative path -> bytes
    placed: dict[str, str]  # where the program reads it (session-relative) -> project path
    truncations: tuple[Truncation, ...]
    warnings: tuple[str, ...]
    sizes: tuple[tuple[str, tuple[SectionSize, ...]], ...]  # per file, its document's sections
    notes: tuple[str, ...]  # what a user should know of who gets what (``stats`` shows them)

    @classmethod
    def none(cls) -> Agents:
        """A job of a program without sub-agents: no file, nothing done."""
        return cls({}, {}, (), (), (), ())


# --- validation ---------------------------------------------------------------------------------


def check(
    target: Target, manifest: Manifest, sources: TargetSources, form: Format, appends: bool
) -> Iterable[OptionProblem]:
    """Names that make files, descriptions Claude Code will not skip, kept sections that the
    target has, and no setting that would be dropped (a built-in's, where it keeps its prompt)."""
    options = target.options
    seen: dict[str, str] = {}  # lower case: as written first (agents/<name>.md, case-blind)
    for index, name in enumerate(options.subagents):
        key = f"subagents[{index}]"
        if not NAME.fullmatch(name):
            yield OptionProblem(key, f"'{name}' {NAME_RULE}")
        elif name.lower() in WINDOWS_DEVICES:
            yield OptionProblem(
                key,
                f"'{name}' names a device on Windows, where agents/{name}.md cannot be made",
                "choose another name",
            )
        elif seen.get(name.lower()) == name:
            yield OptionProblem(key, f"sub-agent '{name}' is listed twice")
        elif name.lower() in seen:
            yield OptionProblem(
                key,
                f"sub-agent '{name}' is '{seen[name.lower()]}' in another case: both would be "
                f"agents/{name}.md on a case-blind file system (macOS, Windows)",
                "keep one of them",
            )
        elif name not in form.built_ins and _description(options.agents.get(name)) is None:
            near = suggest(name, form.built_ins)
            yield OptionProblem(
                key,
                f"'{name}' is no built-in {form.program} sub-agent, so it needs a description",
                near or f'add [target.agents.{name}] description = "…" to define it',
            )
        seen.setdefault(name.lower(), name)
    yield from _check_keep(options.subagent_keep, manifest, sources, "subagent_keep")
    if options.subagent_keep is not None and not options.subagents and not appends:
        yield OptionProblem(
            "subagent_keep",
            "subagent_keep reaches no sub-agent: the target lists none in subagents, and"
            f" {form.program} appends no document to every sub-agent here",
            "list the sub-agents in subagents, or remove subagent_keep",
        )
    for name, agent in options.agents.items():
        where = f"agents.{name}"
        if name not in options.subagents:
            hint = suggest(name, options.subagents) or f"add '{name}' to subagents"
            yield OptionProblem(where, f"'{name}' is not in subagents", hint)
        if agent.description is not None:
            yield from check_description(agent.description, f"{where}.description")
        if agent.role is not None:
            yield from _check_role(agent.role, manifest, f"{where}.role")
        yield from _check_keep(agent.keep, manifest, sources, f"{where}.keep")
        yield from _check_replace(name, agent, form, appends, where)


def _check_replace(
    name: str, agent: Agent, form: Format, appends: bool, where: str
) -> Iterable[OptionProblem]:
    if name not in form.built_ins:
        if agent.replace is not None:
            yield OptionProblem(
                f"{where}.replace",
                f"'{name}' is no built-in {form.program} sub-agent: there is no prompt to replace",
            )
        return
    if not appends or agent.replace:
        return
    # Where the built-in keeps its prompt it gets no file, so no setting of a file would apply.
    for key in attrs.fields_dict(type(agent)):
        if key != "replace" and getattr(agent, key) is not None:
            yield OptionProblem(
                f"{where}.{key}",
                f"'{name}' keeps {form.program}'s own prompt, so it has no agent file "
                f"to carry {key}",
                f"replace = true in [target.agents.{name}] writes one, replacing its prompt",
            )


def _description(agent: Any) -> str | None:
    return None if agent is None else agent.description


def check_description(text: str, key: str) -> Iterable[OptionProblem]:
    if not text.strip():
        yield OptionProblem(key, "a description must not be empty (Claude Code skips the agent)")
    elif text.splitlines() != [text]:
        yield OptionProblem(key, "a description is one line: the main agent picks agents by it")


def _check_role(role: str, manifest: Manifest, key: str) -> Iterable[OptionProblem]:
    """The role is written whole before the agent's sections, which the limits cut: a role
    larger than one file may be would be the one text no limit holds."""
    limits = manifest.limits
    room, limit = min((limits.per_file, "per_file"), (limits.total, "total"))
    size = measure(role, limits.unit)
    if size > room:
        yield OptionProblem(
            key,
            f"the role is {size} {limits.unit}, more than limits.{limit} ({room}) allows a file",
            "shorten it: the agent's rules come from the sections it keeps",
        )


def _check_keep(
    keep: tuple[str, ...] | None, manifest: Manifest, sources: TargetSources, key: str
) -> Iterable[OptionProblem]:
    kept = [s.name for s in sources.reads]  # what the target reads, its own keep applied
    names = [s.name for s in sources.project]
    for index, name in enumerate(keep or ()):
        if name in (keep or ())[:index]:
            yield OptionProblem(f"{key}[{index}]", f"'{name}' is listed twice")
        elif name not in names:
            yield OptionProblem(key, f"no source is named '{name}'", suggest(name, names))
        elif name not in kept:
            yield OptionProblem(
                key,
                f"the target itself does not keep '{name}'",
                "a sub-agent keeps a part of its target's sections: "
                f"add '{name}' to the target's keep",
            )


# --- emitting -----------------------------------------------------------------------------------


def default_keep(options: Options) -> tuple[str, ...]:
    """The sections sub-agents get unless an agent says otherwise: the target's
    ``subagent_keep``, else the sub-agent profile's."""
    return options.subagent_keep if options.subagent_keep is not None else DEFAULT_SUBAGENT_KEEP


def kept(sections: list[Section], keep: Iterable[str]) -> list[Section]:
    """The sections of ``keep``, in document order; never META-COGNITION."""
    names = set(keep)
    return [s for s in sections if s.name in names and s.name != METACOGNITION]


def cuts_in(document: str, found: Iterable[Truncation]) -> tuple[Truncation, ...]:
    """``found``, the cuts made to fit ``document``, each naming it: the same source may be cut
    once in each document of a set, and a report must say which."""
    return tuple(attrs.evolve(cut, document=document) for cut in found)


def emit(
    job: Job,
    sections: list[Section],
    model: Model,
    form: Format,
    appended: tuple[str, ...] | None = None,
) -> Agents:
    """Each sub-agent of ``job``'s target that needs a file, as a file. ``appended``: the
    sections every sub-agent already gets through a document its program appends to each one
    (None: the program appends nothing, so an agent file is the only way in)."""
    folder = f"{job.out_dir(model)}/{AGENTS_DIR}"
    reserved = agent_configuration.reserved_tags(sections, model)
    options = job.target.options
    files, placed, cuts, warnings, sizes, notes = {}, {}, [], [], [], []
    for name in options.subagents:
        agent = options.agents.get(name)
        if name in form.built_ins:
            replaced = _replaced(name, agent, form, appended is not None)
            warnings += replaced.warnings
            if not replaced.file:
                continue
            notes.append(f"agents/{name}.md replaces {form.program}'s own '{name}' prompt")
        chosen = agent.keep if agent is not None and agent.keep is not None else None
        keep = chosen if chosen is not None else (() if appended else default_keep(options))
        if appended is not None:
            twice = [k for k in keep if k in appended]
            keep = tuple(k for k in keep if k not in appended)
            if twice and chosen:
                warnings.append(
                    f"sub-agent '{name}': {', '.join(twice)} already reach every sub-agent "
                    f"through {form.appended}, so its file does not repeat them"
                )
        document = agent_configuration.build(kept(sections, keep), model)
        path = f"{folder}/{name}.md"
        description, role = _describe(name, agent, form)
        body = sanitize.sanitize(role, reserved) + "\n" + (document.text and "\n" + document.text)
        fields = form.frontmatter(name, description, agent)
        if agent is not None and agent.model is not None:
            fields["model"] = agent.model  # every program's, and last
        files[path] = _agent_file(fields, body, job, model)
        placed[form.placed.format(name=name)] = path
        cuts += cuts_in(path, document.truncations)
        sizes.append((path, document.sizes))
        if not document.text and appended is None:
            warnings.append(
                f"sub-agent '{name}' keeps no section with text "
                f"({', '.join(keep) or 'keep = []'}): its file holds only its role"
            )
    return Agents(files, placed, tuple(cuts), tuple(warnings), tuple(sizes), tuple(notes))


class _Replaced(NamedTuple):
    file: bool  # whether the built-in gets an agent file (which replaces its own prompt)
    warnings: tuple[str, ...] = ()


def _replaced(name: str, agent: Agent | None, form: Format, appends: bool) -> _Replaced:
    """Whether a listed built-in gets a file of its own: only where its ``replace`` says so,
    or, without a word from it, where nothing else reaches it (with a warning)."""
    choice = agent.replace if agent is not None else None
    if choice is not None:
        if not choice and not appends:
            return _Replaced(
                False,
                (
                    f"sub-agent '{name}' keeps {form.program}'s own prompt "
                    "(replace = false), so it gets none of the rules",
                ),
            )
        return _Replaced(choice)
    if appends:
        return _Replaced(
            False,
            (
                f"sub-agent '{name}' keeps {form.program}'s own prompt and gets {form.appended} "
                "like every sub-agent, so listing it changes nothing "
                f"(replace = true in [target.agents.{name}] replaces its prompt)",
            ),
        )
    return _Replaced(
        True,
        (
            f"agents/{name}.md replaces {form.program}'s own '{name}' prompt: {form.no_append}; "
            f"replace = true in [target.agents.{name}] says that is meant",
        ),
    )


def _describe(name: str, agent: Any, form: Format) -> tuple[str, str]:
    built_in = form.built_ins.get(name)
    description = _description(agent) or (built_in and built_in.description)
    assert description, f"validation lets no sub-agent without a description through: {name}"
    role = (agent.role if agent else None) or (
        built_in.role if built_in else f"You are the {name} sub-agent. {description}"
    )
    return description, role


def _agent_file(frontmatter: dict[str, Any], body: str, job: Job, model: Model) -> bytes:
    try:
        head = render_frontmatter(frontmatter)
    except ValueError as exc:
        index = model.target_index(job.target)
        raise HotplexError.single(
            f"its program would skip this agent file: {exc}",
            Span(model.manifest_display, key=f"target[{index}].subagents"),
        ) from None
    return f"{head}\n{body}".encode()


def render_frontmatter(fields: dict[str, Any]) -> str:
    """``fields`` as a frontmatter block (``---`` lines included), or ValueError saying why a
    program would skip the file: it must read back as written, with a one-line description and
    no line that ends the block early."""
    try:
        emitted = yaml_text(fields)
    except ValueError as exc:
        raise ValueError(f"its frontmatter: {exc}") from None
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("it has no description")
    if emitted.startswith("\ufeff") or any(line.strip() == "---" for line in emitted.split("\n")):
        raise ValueError("its frontmatter holds a BOM or a '---' line")
    return f"---\n{emitted}---\n"
