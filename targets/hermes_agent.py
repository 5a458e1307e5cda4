"""Hermes Agent: hotplex's channels in Hermes's own slots of a home folder ``HERMES_HOME`` moves.

What Hermes Agent 0.19.0 does (checked with the real ``hermes chat -Q -q`` against a fake Chat
Completions API, see tests/integration/test_hermes_agent.py): everything lands in one system
message, in this order: ``$HERMES_HOME/SOUL.md`` at its very start (it replaces Hermes's
identity line, the rest of Hermes's base prompt stays), the base prompt, ``# Project Context``
with one project file of the working folder (``.hermes.md``, else ``AGENTS.md``, else
``CLAUDE.md``), then ``memories/MEMORY.md`` and ``memories/USER.md``, each under a banner of
``═`` lines of its own. Each file is sent with CR LF as LF and trimmed; MEMORY.md is split on
lines ``§`` into entries, each trimmed.

The slots, decided by what reaches the model:

- ``hermes-home/SOUL.md``: the directives (META-COGNITION, the persona, the rules, the skills)
  and any context section but USER and MEMORY, as the ``<agent-configuration>`` document. It is
  the one file at the start of the system message with no hedge around it, and the only one
  Hermes reads from its home: the project file comes from the session folder, the user's
  working tree, whose own ``.hermes.md``, ``AGENTS.md`` or ``CLAUDE.md`` hotplex must not
  overwrite. So the rules go here, with the persona. With no directive at all (META-COGNITION
  off, no persona) it is empty, and Hermes keeps its own identity line, as without the file.
- ``hermes-home/memories/USER.md``: the user section's text, as Hermes's banner
  ``USER PROFILE (who the user is)`` wraps it.
- ``hermes-home/memories/MEMORY.md``: MEMORY.md and the daily logs that fit, each one entry
  (the curated text, then each day under its heading), separated by lines ``§``.

Budgets: Hermes cuts a context file past ``max(20000, context length × 0.24)`` characters (its
head and tail, with a marker), and the context length is the model's, known at run time:
SOUL.md is cut by hotplex to 20,000, or to that formula with the target's ``context_length``.
Hermes does not cut the memories at load, but labels them against 2,200 and 1,375 characters
and its memory tool refuses writes past them: those are the two slots' budgets. Every cut is
reported, named by its budget (``hermes.context_file_max_chars``, ``hermes.memory_char_limit``,
``hermes.user_char_limit``).

Reserved forms: a line ``§`` would split an entry in two, a line of ``═`` would forge a banner;
in every slot the first such character of the line is written as a character reference
(``&sect;``, ``&#9552;``), as a reserved tag's ``<`` is.

Hermes's injection scan, predicted (``hermes_scan``: its rules as data, probed from the real
program): Hermes sends ``[BLOCKED: …]`` in place of a context file or a memory entry its scan
matches, so a SOUL.md or a memory entry it would block is a build error naming the rule, at its
place in the built file. hotplex's own META-COGNITION and section notes pass it.

``launch.json`` sets ``HERMES_HOME`` to the built home: a gateway copies the folder per session,
since Hermes's memory tool writes into ``memories/`` (and Hermes keeps its sessions there); the
gateway adds its provider in the copy's ``config.yaml`` and the message after ``-q``. What the
memory tool wrote in a session is the gateway's to hand to ``hotplex learn``, which merges the
facts into the sources' USER.md, whence the next build's USER.md slot.

What it loads by itself: one project file, the first of ``.hermes.md`` (and ``HERMES.md``) from
the working folder up to the git repository's root (outside a repository, the working folder's
only), then ``AGENTS.md`` (``agents.md``), ``CLAUDE.md`` (``claude.md``) and ``.cursorrules`` of the
working folder alone, never above it; a file of white space only it passes over (the live
test holds each). ``--ignore-rules``
turns it off in ``hermes chat``, but also SOUL.md and the memories, every slot hotplex writes (the
live test shows none arrives): it is no switch for hotplex, so ``own_instructions = "off"`` is
refused, and a session folder outside the project (``cwd``) is the way to keep the file away.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hotplex.document import configuration, limits
from hotplex.errors import HotplexError, Problem, Span
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Limits, Manifest, Model, Target
from hotplex.manifest.vocabulary import LOG_SOURCE
from hotplex.records import (
    Budgets,
    Emitted,
    OptionProblem,
    Output,
    Section,
    SectionSize,
    Skill,
    TargetSources,
    Truncation,
)
from hotplex.scanning import sanitize
from hotplex.scanning.origins import Origin, written_at
from hotplex.sources import logs as memory_logs
from hotplex.targets import hermes_scan
from hotplex.targets.gateway import SkillsShipper, shipped_skills
from hotplex.targets.home import skills_output
from hotplex.text.measure import measure
from hotplex.worker import LAUNCH_FILE, OwnFiles, SkillsPlace, Verified, in_session, launch_json

HOME_DIR = "hermes-home"
SOUL_FILE = "SOUL.md"
MEMORY_FILE = "memories/MEMORY.md"
USER_FILE = "memories/USER.md"
USER_SOURCE = "user"
UNIT = "chars"  # Python's len: what Hermes counts
CONTEXT_FILE_MAX_CHARS = 20_000  # with the model's context length unknown
CONTEXT_FILE_CEILING = 500_000  # whatever the model: past it Hermes drops a file's middle
SCANNED_CHARS = 65_536  # of a context file, Hermes's injection scan reads this much
MEMORY_CHAR_LIMIT = 2_200
USER_CHAR_LIMIT = 1_375
ENTRY_SEPARATOR = "\n§\n"
# A line Hermes would take for its own structure: an entry split, a banner's rule. A line ends
# at any break ``str.splitlines`` knows (a model reads U+2028 as one too); blanks are any other
# white space: Hermes strips a file, U+3000 and U+2003 with it.
_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_BLANK = f"[^\\S{_BREAKS}]"
_RESERVED_LINE = re.compile(
    f"(?:^|(?<=[{_BREAKS}]))({_BLANK}*)([§═])(?=(?:[§═]|{_BLANK})*(?:[{_BREAKS}]|\\Z))"
)
_REFERENCES = {"§": "&sect;", "═": "&#9552;"}

# The one project file Hermes reads, the first of these: .hermes.md (or HERMES.md) from the
# working folder up to the repository root, the others from the working folder only.
OWN_NAMES = (
    ".hermes.md",
    "HERMES.md",
    "AGENTS.md",
    "agents.md",
    "CLAUDE.md",
    "claude.md",
    ".cursorrules",  # with .cursor/rules/*.mdc (``rivals``: a cursor target places one there)
)
OWN_FILES = OwnFiles(
    program="Hermes Agent",
    names=OWN_NAMES,
    first_of=OWN_NAMES,
    first_across=True,
    only_here=OWN_NAMES[2:],
    in_repository=True,
    blank_absent=True,
    home="$HERMES_HOME/SOUL.md and memories/ (the hermes-home folder hotplex writes)",
    rivals={
        ".cursor/rules/*.mdc": (
            "reaches Hermes Agent too, raw, as its project file, where the session folder holds"
            " none of .hermes.md, AGENTS.md, CLAUDE.md, .cursorrules (nor a .hermes.md above it):"
            " a second copy if it holds the same rules (a cursor target's file does)"
        ),
    },
)


# Hermes Agent 0.19.0 lists the skills of $HERMES_HOME/skills (and of the gateway's
# ``skills.external_dirs``; no folder of the project) in the system message, in
# <available_skills>, a skill at skills/<name>/ under a category line "  <name>:" of its own, as
# "    - <name>: <description>", the description stripped and cut past 60 characters to its first
# 57 and "..."; its skill_view tool sends the whole SKILL.md in a JSON "content",
# ${HERMES_SKILL_DIR} and ${HERMES_SESSION_ID} replaced (tests/integration/test_skills_headless.py).
SKILLS = SkillsPlace(
    "skills/{name}",
    frozenset({"platforms"}),
    entry_cap=60,
    in_home=True,
    wrapper="available_skills",
)


@attrs.frozen
class Options:
    """The target keys of a ``hermes-agent`` target."""

    context_length: int | None = None  # the model's context, in tokens, when known


def reserved_forms(text: str) -> str:
    """``text`` with every line Hermes would read as an entry split or a banner defused."""
    return _RESERVED_LINE.sub(lambda m: m[1] + _REFERENCES[m[2]], text)


def context_cap(target: Target) -> int:
    """The characters Hermes keeps of a context file: 20,000 unless the model is named, and
    never more than 500,000, past which Hermes keeps a file's head and tail and drops its middle
    (a 2M-token model's 0.24 share is 503,316)."""
    length = target.options.context_length
    if length is None:
        return CONTEXT_FILE_MAX_CHARS
    return min(CONTEXT_FILE_CEILING, max(CONTEXT_FILE_MAX_CHARS, int(length * 4 * 0.06)))


class HermesAgent(SkillsShipper):
    name = "hermes-agent"
    delivery = (
        "`HERMES_HOME=dist/hermes/slack/hermes-home hermes chat`: the directives in its SOUL.md,"
        " at the very start of the **system** message, USER and MEMORY in its memories, under"
        " Hermes's own banners after its base prompt; each Agent Skill's folder in"
        " `hermes-home/skills/`"
    )
    verified = Verified("Hermes Agent", "0.19.0", "tests/integration/test_hermes_agent.py")
    Options = Options
    outputs = (
        Output(f"{HOME_DIR}/{SOUL_FILE}", "document", primary=True),
        Output(f"{HOME_DIR}/{MEMORY_FILE}", "memory"),
        Output(f"{HOME_DIR}/{USER_FILE}", "memory"),
        Output(LAUNCH_FILE, "launch"),
        Output(skills_output(HOME_DIR, SKILLS), "skill"),
    )
    skills = SKILLS
    home_dir = HOME_DIR
    init_target = ("hermes", "SOUL.md and the memories of a HERMES_HOME for Hermes Agent")
    own_files = OWN_FILES
    imports_read = frozenset({"hermes"})
    import_formats = ("hotplex.importing.hermes",)
    importer = "hotplex.targets.hermes_import"  # ``hotplex import`` of a HERMES_HOME

    def budgets(self, target: Target, manifest: Manifest) -> Budgets:
        """SOUL.md's: the context-file cap, in the characters Hermes counts."""
        cap = context_cap(target)
        return Budgets(min(manifest.limits.per_file, cap), cap, UNIT, document=cap)

    def document_budgets(self, target: Target, manifest: Manifest, name: str) -> Budgets:
        """A memory file's: the limit Hermes labels it against and its memory tool keeps."""
        limit = MEMORY_CHAR_LIMIT if name == MEMORY_FILE else USER_CHAR_LIMIT
        return Budgets(limit, limit, UNIT, document=limit)

    def section_budgets(self, target: Target, manifest: Manifest, section: str) -> Budgets:
        """USER's and MEMORY's are their slots': the days read for MEMORY are the ones its
        2,200 characters can hold, whatever ``[limits]`` say."""
        slots = {USER_SOURCE: USER_FILE, LOG_SOURCE: MEMORY_FILE}
        if section in slots:
            return self.document_budgets(target, manifest, slots[section])
        return self.budgets(target, manifest)

    def document_size(self, name: str, text: str, unit: str) -> int:
        """A slot as Hermes measures it against its budget: SOUL.md stripped, a memory file's
        entries, each stripped, joined by their separators (the file's final line break is no
        character of either)."""
        if name == SOUL_FILE:
            return measure(text.strip(), unit)
        entries = (e.strip() for e in text.split(ENTRY_SEPARATOR))
        return measure(ENTRY_SEPARATOR.join(e for e in entries if e), unit)

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        length = target.options.context_length
        if length is not None and length < 1:
            yield OptionProblem("context_length", f"must be a positive integer, got {length}")

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        folder = job.out_dir(model)
        home = f"{folder}/{HOME_DIR}"
        shipped = shipped_skills(self, job, model, skills, home)
        paths = {n: f"{home}/{n}" for n in (SOUL_FILE, MEMORY_FILE, USER_FILE)}
        user = [s for s in sections if s.name == USER_SOURCE]
        memory = [s for s in sections if s.name == LOG_SOURCE]
        soul = [s for s in sections if s not in user and s not in memory]
        reserved = configuration.reserved_tags(sections, model)
        overflow = model.manifest.limits.overflow
        soul_text, soul_cuts, soul_sizes = _soul(soul, model, context_cap(job.target))
        user_text, user_cuts, user_sizes = _memory_slot(
            user, reserved, USER_CHAR_LIMIT, "user", overflow
        )
        memory_text, memory_cuts, memory_sizes = _memory_slot(
            memory, reserved, MEMORY_CHAR_LIMIT, "memory", overflow
        )
        cuts = [
            *soul_cuts,
            *(attrs.evolve(c, document=paths[USER_FILE]) for c in user_cuts),
            *(attrs.evolve(c, document=paths[MEMORY_FILE]) for c in memory_cuts),
        ]
        argv = ["hermes", "chat", "-Q"]
        env = {"HERMES_HOME": in_session(job, model, home)}
        adds = "the provider in the home copy's config.yaml (model: provider, base_url, api_key)"
        written = [o for s in sections for o in s.origins]
        blocked = [
            *_blocked(
                paths[SOUL_FILE],
                soul_text,
                (soul_text.strip()[:SCANNED_CHARS],),
                hermes_scan.CONTEXT,
                written,
            )
        ]
        for name, text in ((MEMORY_FILE, memory_text), (USER_FILE, user_text)):
            entries = text.strip().split(ENTRY_SEPARATOR)
            blocked += _blocked(paths[name], text, entries, hermes_scan.STRICT, written)
        blocked += _category_descriptions(skills)
        if blocked:
            raise HotplexError(blocked)
        # A memory with nothing in it is no file: Hermes shows no banner without one.
        memories = {
            paths[name]: (text, sizes)
            for name, text, sizes in (
                (MEMORY_FILE, memory_text, memory_sizes),
                (USER_FILE, user_text, user_sizes),
            )
            if text
        }
        files = {paths[SOUL_FILE]: soul_text.encode("utf-8")}
        files.update((path, text.encode("utf-8")) for path, (text, _) in memories.items())
        files[f"{folder}/{LAUNCH_FILE}"] = launch_json(
            job,
            model,
            argv,
            env,
            gateway_adds=f"{adds}, and -q with the message",
            executable=sorted(shipped.executable),
        )
        return Emitted(
            files={**files, **shipped.files},
            primary=paths[SOUL_FILE],
            truncations=(*cuts, *shipped.truncations),
            warnings=shipped.warnings,
            sizes=soul_sizes,
            documents=tuple((path, sizes) for path, (_, sizes) in memories.items()),
            notes=(
                "USER and MEMORY reach Hermes as its memories, after its base prompt and the"
                " project file, each under a banner of Hermes's own",
                *shipped.notes,
            ),
            skills=shipped.rows,
        )


# The folders of a skill whose files Hermes never indexes (its ``SKILL_SUPPORT_DIRS``).
SUPPORT_FOLDERS = frozenset({"references", "templates", "assets", "scripts"})
CATEGORY_FILE = "DESCRIPTION.md"


def _category_descriptions(skills: Iterable[Skill]) -> list[Problem]:
    """A problem for each skill file Hermes would read as a category's description: a
    DESCRIPTION.md outside the support folders, whose frontmatter ``description`` Hermes lists
    as the category line above the skills, unchecked (a line break in it forges an entry)."""
    return [
        Problem(
            f"Hermes Agent reads {item.path} as the description of a category of skills and lists"
            " its frontmatter 'description' in <available_skills>, where no check of a listed"
            " text holds",
            Span(f"{skill.folder}/{item.path}"),
            hint="rename it, or move it into references/",
        )
        for skill in skills
        for item in skill.files
        if item.path.rsplit("/", 1)[-1].casefold() == CATEGORY_FILE.casefold()  # any case: a
        # gateway on a case-insensitive file system gives Hermes description.md as DESCRIPTION.md
        and ("/" not in item.path or item.path.split("/", 1)[0] not in SUPPORT_FOLDERS)
    ]


def _blocked(
    path: str, text: str, parts: Iterable[str], scope: str, written: Sequence[Origin]
) -> list[Problem]:
    """A problem for each part (the file, or each memory entry) Hermes's injection scan would
    replace by ``[BLOCKED: …]``, naming the rule, placed where it was written (the sections'
    ``origins``): the file is never written. A text rendering made is placed in the file."""
    problems, start = [], 0
    for part in parts:
        start = text.index(part, start)
        for finding in hermes_scan.scan(part, scope):
            at = start + finding.offset
            line = text.count("\n", 0, at) + 1
            column = at - (text.rfind("\n", 0, at) + 1) + 1
            whole = "the whole file" if scope == hermes_scan.CONTEXT else "the entry"
            place = Span(path, line, column, source_line=text.splitlines()[line - 1])
            problems.append(
                Problem(
                    f"Hermes Agent {hermes_scan.VERSION} would not load this: its injection"
                    f" scan finds '{finding.rule}' here and sends [BLOCKED: …] in place of {whole}",
                    written_at(place, written) or place,
                    "reword the source it comes from (the scan is blind to case and line breaks)",
                )
            )
        start += len(part)
    return problems


def _soul(
    sections: list[Section], model: Model, cap: int
) -> tuple[str, tuple[Truncation, ...], tuple[SectionSize, ...]]:
    """The directives document within the cap, the document's wrapping included. With
    ``overflow = "error"``, a cut to the cap (not to the user's own smaller ``per_file``) is an
    error naming the slot and Hermes's cap."""
    own = model.manifest.limits
    capped = own.overflow == "error" and own.per_file >= cap
    overflow = "truncate" if capped else own.overflow
    budget = Limits(min(own.per_file, cap), cap, UNIT, overflow, own.share)
    while True:
        manifest = attrs.evolve(model.manifest, limits=budget)
        document = configuration.build(
            sections, attrs.evolve(model, manifest=manifest), as_sent=reserved_forms
        )
        over = measure(document.text, UNIT) - cap
        if over <= 0 or budget.total <= over:
            break
        budget = attrs.evolve(budget, total=budget.total - over)
    cuts = tuple(
        attrs.evolve(c, limit="hermes.context_file_max_chars") if c.limit == "total" else c
        for c in document.truncations
    )
    if capped and cuts:
        raise HotplexError.single(
            f"{cuts[0].before} {UNIT} go to {HOME_DIR}/{SOUL_FILE}, over Hermes Agent's context"
            f" file cap ({cap:,} characters, hermes.context_file_max_chars) with"
            ' limits.overflow = "error"',
            Span(cuts[0].files[0]),
            hint="shorten the file; the cap is max(20000, context_length × 0.24): set the"
            " target's context_length to the model's, or limits.overflow = \"truncate\"",
        )
    return document.text, cuts, document.sizes


def _memory_slot(
    sections: list[Section], reserved: frozenset[str], chars: int, name: str, overflow: str
) -> tuple[str, list[Truncation], tuple[SectionSize, ...]]:
    """A memory file: the section's text (with MEMORY.md, the days that fit, one entry each)
    within the slot's ``chars``, the separators counted. With ``overflow = "error"`` a cut of
    the file's own text is an error naming Hermes's limit; days left out are not (they grow by
    design, as ``limits.apply`` has it)."""
    if not sections:
        return "", [], ()
    (section,) = sections
    limit = f"hermes.{name}_char_limit"
    budget = Limits(chars, chars, UNIT, "truncate")

    def clean(text: str) -> str:
        return reserved_forms(sanitize.sanitize(text, reserved))

    logs = memory_logs.mapped(section.logs, clean)
    cleaned = limits.Limited(section.name, section.files, clean(section.text), logs)
    raw = measure(_entries(cleaned.text, logs), UNIT)
    while True:
        kept, cuts = limits.apply([cleaned], budget)
        text = _entries(kept[0].text, logs) if kept else ""
        over = measure(text, UNIT) - budget.per_file
        if over <= 0 or budget.total <= over:
            break
        budget = attrs.evolve(budget, total=budget.total - over)
    named = [attrs.evolve(c, limit=limit) if c.limit in ("per_file", "total") else c for c in cuts]
    own = [c for c in named if c.files == section.files]
    if own and overflow == "error":
        raise HotplexError.single(
            f"{own[0].before} {UNIT} exceed Hermes Agent's {name} limit ({chars:,} characters,"
            ' its memory tool\'s) and limits.overflow = "error"',
            Span(section.files[0]),
            hint='shorten the file, or set limits.overflow = "truncate"',
        )
    files = section.files + tuple(d.display for d in logs.days) if logs else section.files
    size = SectionSize(section.name, files, raw, measure(text, UNIT), UNIT)
    return f"{text}\n" if text else "", named, (size,)


def _entries(text: str, logs) -> str:
    """The memory text, each of MEMORY.md and the days in it one entry, as Hermes splits it."""
    if logs is None:
        return text.strip()
    entries, rest = [], text
    curated = logs.curated
    if curated and rest.startswith(curated):
        entries.append(curated)
        rest = rest[len(curated) :].removeprefix("\n\n")
    for day in memory_logs.in_text_order(logs.days):
        whole = day.text()
        if rest.startswith(whole):
            entries.append(whole)
            rest = rest[len(whole) :].removeprefix("\n\n")
    if rest:
        entries.append(rest)
    return ENTRY_SEPARATOR.join(e.strip() for e in entries if e.strip())
