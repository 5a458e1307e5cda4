"""Predict the ``# Project Context`` section OpenClaw builds from its workspace bootstrap files.

OpenClaw (https://github.com/openclaw/openclaw) reads a fixed set of Markdown files from an agent's
workspace, filters them by session kind, cuts them to character budgets and renders them into its
system prompt. hotplex writes those files; this module predicts, byte for byte, the section OpenClaw
will render from them and the warnings it will log, so a build can report every cut before OpenClaw
makes it silently. It is pure: no file system, no dependencies.

Two behaviours (``compat``):

``"2026.9"``
    OpenClaw as released on npm as ``openclaw@2026.9.6``. The rules mirror (re-implemented, not
    copied) ``src/agents/workspace.ts`` (``loadWorkspaceBootstrapFiles``,
    ``filterBootstrapFilesForSession``), ``src/agents/pi-embedded-helpers/bootstrap.ts``
    (``buildBootstrapContextFiles`` and its trimming helpers, ``embedded-agent-helpers/`` in the
    2026.9 tree) and ``src/agents/system-prompt.ts``
    (``prepareContextFilesForPrompt``, ``buildProjectContextSection``, the final
    ``filter(Boolean).join("\\n")``). Verified against ``shared/reference/
    openclaw-2026.9.6-vectors.json``, computed by that release's own code.
``"seed"``
    The behaviour documented in the design document ``shared/seeds/002_37568ecd09879a56.txt``
    (an earlier OpenClaw). Where that document is silent, a comment marked ``SEED-SILENT`` names
    the choice made and why.

Budgets are counted as JavaScript counts ``string.length``: in UTF-16 code units, so an emoji
outside the Basic Multilingual Plane counts 2. Internally text is held as a *unit string*: a Python
``str`` in which every astral character is replaced by its surrogate pair, so ``len``, slicing and
regular expressions behave exactly as on a JavaScript string (``openclaw_trim``, which also holds
how one file is cut to its budget). Text is converted back on the way out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from hotplex.targets.openclaw.trim import (
    AGENTS_FILE,
    clamp_to_budget,
    from_units,
    to_units,
    trim_2026_9,
    trim_end,
    trim_seed,
)

COMPATS: Final = ("2026.9", "seed")
SESSIONS: Final = ("main", "subagent", "cron", "group")

_AGENTS: Final = AGENTS_FILE
_SOUL: Final = "SOUL.md"
_TOOLS: Final = "TOOLS.md"
_IDENTITY: Final = "IDENTITY.md"
_USER: Final = "USER.md"
_HEARTBEAT: Final = "HEARTBEAT.md"
_BOOTSTRAP: Final = "BOOTSTRAP.md"
_MEMORY: Final = "MEMORY.md"
_MEMORY_ALT: Final = "memory.md"  # seed: the lower-case variant OpenClaw also probes

BOOTSTRAP_FILES: Final[dict[str, tuple[str, ...]]] = {
    "2026.9": (_AGENTS, _SOUL, _IDENTITY, _USER, _BOOTSTRAP, _MEMORY),
    "seed": (
        _AGENTS,
        _SOUL,
        _TOOLS,
        _IDENTITY,
        _USER,
        _HEARTBEAT,
        _BOOTSTRAP,
        _MEMORY,
        _MEMORY_ALT,
    ),
}

# Files whose absence is a normal state: skipped, not announced as "[MISSING]". 2026.9 counts a
# workspace without BOOTSTRAP.md as set up, and leaves BOOTSTRAP.md out of the Project Context of
# a set-up workspace (``filterCompletedWorkspaceBootstrapFile`` in ``resolveBootstrapFiles``, past
# the functions the vectors were computed with): shown with the real program by
# tests/integration/test_openclaw_live.py.
_OPTIONAL_FILES: Final[dict[str, frozenset[str]]] = {
    "2026.9": frozenset({_USER, _BOOTSTRAP, _MEMORY}),
    # The seed calls MEMORY.md optional ("可选"); its memory resolver only returns existing files.
    "seed": frozenset({_MEMORY, _MEMORY_ALT}),
}

# Which files each session kind keeps; None keeps everything.
_SESSION_KEEP: Final[dict[str, dict[str, frozenset[str] | None]]] = {
    "2026.9": {
        "main": None,
        "subagent": frozenset({_AGENTS}),
        "cron": frozenset({_AGENTS, _SOUL, _IDENTITY, _USER}),
        # Group and channel chats drop the workspace-root MEMORY.md for privacy.
        "group": frozenset(BOOTSTRAP_FILES["2026.9"]) - {_MEMORY},
    },
    # SEED-SILENT on cron and group: its filterBootstrapFilesForSession only narrows sub-agents.
    "seed": {"main": None, "subagent": frozenset({_AGENTS, _TOOLS}), "cron": None, "group": None},
}

# --- Budgets and ratios (the one place they are defined) ---------------------------------------
PER_FILE_MAX_CHARS: Final = {"2026.9": 20_000, "seed": 20_000}
# 2026.9 only; the seed has no total budget. The real pipeline always passes the configured
# total (default 60,000), so the library fallback max(maxChars, 60,000) never applies.
TOTAL_MAX_CHARS: Final = 60_000
_USER_MAX_CHARS: Final = 4_000  # USER.md stays directive-sized
_MIN_FILE_BUDGET_CHARS: Final = 64  # below this remaining budget, later files are skipped

# --- Fixed texts --------------------------------------------------------------------------------
_EXCESS_NEWLINES: Final = re.compile(r"\n{3,}")
# Old workspace templates carried this block; 2026.9 strips it when rendering.
_HEARTBEAT_BLOCK: Final = re.compile(
    r"Default heartbeat prompt:\r?\n`(?:Read HEARTBEAT\.md if it exists|Follow the heartbeat"
    r" monitor scratch context when provided\.)[^`\r\n]*HEARTBEAT_OK\.`"
)
_SECTION_HEADING: Final = "# Project Context"
_LOADED_LINE: Final = {
    "2026.9": "Loaded project context:",
    # SEED-SILENT: the seed never quotes the intro line; this is OpenClaw's text of that era.
    "seed": "The following project context files have been loaded:",
}
_GUIDANCE_2026_9: Final = (
    ("soul.md", "SOUL.md: persona/tone. Follow it unless higher-priority instructions override."),
    (
        "memory.md",
        "MEMORY.md: durable non-profile facts and decisions; use when relevant unless"
        " higher-priority instructions override.",
    ),
    (
        "user.md",
        "USER.md: durable user preferences and profile directives; follow unless higher-priority"
        " instructions override.",
    ),
)
# Quoted by the seed (its section 17.2.2, citing 9.1).
_SEED_SOUL_GUIDANCE: Final = (
    "If SOUL.md is present, embody its persona and tone. Avoid stiff, generic replies; follow its"
    " guidance unless higher-priority instructions override it."
)
_PROMPT_RANK: Final = {
    "agents.md": 10,
    "soul.md": 20,
    "identity.md": 30,
    "user.md": 40,
    "tools.md": 50,
    "bootstrap.md": 60,
    "memory.md": 70,
}


@dataclass(frozen=True)
class InjectedFile:
    """One file as OpenClaw injects it.

    ``path`` is always the absolute path (workspace + "/" + name). 2026.9 shows it in the heading;
    the seed's loader labels entries by bare name, so its headings read ``## AGENTS.md``.
    Sizes are in UTF-16 code units; ``injected_size`` counts the injected content as OpenClaw
    budgets it, before the prompt renderer's newline folding.
    """

    name: str
    path: str
    raw_size: int
    injected_size: int
    missing: bool
    cut: Cut | None

    @property
    def cut_text(self) -> str | None:
        return None if self.cut is None else self.cut.describe()


class Cut(NamedTuple):
    """Which budget cut a file, at what size, and how (the trimming style; None: clamped)."""

    budget: str  # "max_chars", "user_cap" or "total_max_chars": OpenClaw's option names
    limit: int
    style: str | None

    def describe(self) -> str:
        if self.style is None:
            return f"clamped to remaining total budget {self.limit}"
        where = {
            "max_chars": "per-file budget",
            "user_cap": f"{_USER} cap",
            "total_max_chars": "remaining total budget",
        }[self.budget]
        return f"truncated to {where} {self.limit} ({self.style})"


@dataclass(frozen=True)
class ProjectContext:
    """The predicted section, the files in it (output order), OpenClaw's warnings, and the
    files it leaves out only because the total budget ran out (often without a warning)."""

    text: str
    files: tuple[InjectedFile, ...]
    warnings: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Source:
    """A bootstrap file after loading; ``units`` is None when the file is missing."""

    name: str
    path: str
    units: str | None


@dataclass(frozen=True)
class _Injected:
    """A context file ready to render: the injected unit string and why it was cut, if it was."""

    source: _Source
    units: str
    cut: Cut | None


def build_project_context(
    files: Mapping[str, str],
    *,
    compat: str = "2026.9",
    session: str = "main",
    workspace: str = "~/.openclaw/workspace",
    max_chars: int | None = None,
    total_max_chars: int | None = None,
) -> ProjectContext:
    """Predict what OpenClaw injects for ``files`` (name -> full text; absent = not on disk).

    Names outside ``BOOTSTRAP_FILES[compat]`` are ignored, as OpenClaw never reads them.
    ``workspace`` is used verbatim in paths (no ``~`` expansion: the module is pure).
    ``max_chars`` / ``total_max_chars`` are OpenClaw's ``bootstrapMaxChars`` /
    ``bootstrapTotalMaxChars``; None means the compat's default. The seed has no total budget.
    """
    _validate(compat, session, max_chars, total_max_chars)
    per_file = max_chars if max_chars is not None else PER_FILE_MAX_CHARS[compat]
    sources = _filter_for_session(_load(files, compat, workspace), compat, session)
    warnings: list[str] = []
    skipped: tuple[str, ...] = ()  # the seed has no total budget to run out of
    if compat == "seed":
        injected = _inject_seed(sources, per_file, warnings.append)
        text = _render(injected, compat, heading=lambda s: s.name, transform=_unchanged)
    else:
        total = total_max_chars if total_max_chars is not None else TOTAL_MAX_CHARS
        injected, skipped = _inject_2026_9(sources, per_file, total, warnings.append)
        injected = sorted(injected, key=lambda entry: _prompt_rank(entry.source.path))
        text = _render(injected, compat, heading=lambda s: s.path, transform=_sanitize_2026_9)
    return ProjectContext(
        text=from_units(text),
        files=tuple(_describe(entry) for entry in injected),
        warnings=tuple(from_units(w) for w in warnings),
        skipped=skipped,
    )


def _validate(
    compat: str, session: str, max_chars: int | None, total_max_chars: int | None
) -> None:
    """Guard the arguments; the manifest layer validates first, this catches direct callers."""
    if compat not in COMPATS:
        raise ValueError(f"unknown OpenClaw compat {compat!r}; expected one of {COMPATS}")
    if session not in SESSIONS:
        raise ValueError(f"unknown OpenClaw session {session!r}; expected one of {SESSIONS}")
    for label, value in (("max_chars", max_chars), ("total_max_chars", total_max_chars)):
        if value is not None and not _is_positive_int(value):
            raise ValueError(f"{label} must be a positive integer, got {value!r}")
    if compat == "seed" and total_max_chars is not None:
        raise ValueError("compat 'seed' has no total budget; total_max_chars must be None")


def _is_positive_int(value: object) -> bool:
    """True for an int >= 1 (bool excluded: True is not a budget)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


# --- Loading and session filtering --------------------------------------------------------------


def _load(files: Mapping[str, str], compat: str, workspace: str) -> list[_Source]:
    """Read the compat's bootstrap files in load order, as OpenClaw's loader would."""
    base = workspace.rstrip("/")
    present = _dedupe_memory(files) if compat == "seed" else files
    sources = []
    for name in BOOTSTRAP_FILES[compat]:
        if name not in present and name in _OPTIONAL_FILES[compat]:
            continue
        text = present.get(name)
        units = None if text is None else to_units(text)
        sources.append(_Source(name=name, path=f"{base}/{name}", units=units))
    return sources


def _dedupe_memory(files: Mapping[str, str]) -> Mapping[str, str]:
    """Drop ``memory.md`` when it is the same file as ``MEMORY.md`` (seed).

    The seed de-duplicates the two names by ``fs.realpath``. A mapping of texts cannot show a
    symlink or a case-insensitive file system, so (SEED-SILENT) identical texts are taken as one
    file and ``MEMORY.md`` is kept; differing texts are two files and both are injected.
    """
    if _MEMORY in files and files.get(_MEMORY_ALT) == files[_MEMORY]:
        return {name: text for name, text in files.items() if name != _MEMORY_ALT}
    return files


def _filter_for_session(sources: list[_Source], compat: str, session: str) -> list[_Source]:
    """Keep only the files this session kind receives."""
    keep = _SESSION_KEEP[compat][session]
    return sources if keep is None else [s for s in sources if s.name in keep]


# --- 2026.9 budgeting ---------------------------------------------------------------------------


def _inject_2026_9(
    sources: list[_Source], max_chars: int, total_max_chars: int, warn: Callable[[str], None]
) -> tuple[list[_Injected], tuple[str, ...]]:
    """Spend the total budget file by file, as buildBootstrapContextFiles does; also the files
    with text that the spent budget left out."""
    remaining = total_max_chars
    injected: list[_Injected] = []
    for index, source in enumerate(sources):
        if remaining <= 0:
            return injected, _with_text(sources[index:])
        if source.units is None:
            entry = _missing_2026_9(source, remaining)
        elif remaining < _MIN_FILE_BUDGET_CHARS:
            warn(
                f"remaining bootstrap budget is {remaining} chars (<{_MIN_FILE_BUDGET_CHARS});"
                " skipping additional bootstrap files"
            )
            return injected, _with_text(sources[index:])
        else:
            entry = _present_2026_9(source, source.units, max_chars, remaining, warn)
        if entry is not None:
            remaining = max(0, remaining - len(entry.units))
            injected.append(entry)
    return injected, ()


def _with_text(sources: list[_Source]) -> tuple[str, ...]:
    """The names of the files that would inject something: present and not blank."""
    return tuple(s.name for s in sources if s.units is not None and trim_end(s.units))


def _missing_2026_9(source: _Source, remaining: int) -> _Injected:
    """The "[MISSING]" marker, clamped to what is left of the total budget.

    OpenClaw stops when the clamp leaves nothing; with at least one unit left and a marker that
    starts with "[", it always keeps something, so that stop needs no code here.
    """
    marker = _missing_text(source.path)
    clamped = clamp_to_budget(marker, remaining)
    cut = None if clamped == marker else Cut("total_max_chars", remaining, None)
    return _Injected(source, clamped, cut)


def _present_2026_9(
    source: _Source, units: str, max_chars: int, remaining: int, warn: Callable[[str], None]
) -> _Injected | None:
    """Trim one existing file to its budget; None when nothing is left to inject.

    OpenClaw also clamps the trimmed text to the remaining total, but the file budget is already
    capped at that remainder and trimming never exceeds its budget, so the clamp cannot bite here.
    """
    file_budget = min(max_chars, _USER_MAX_CHARS) if source.name == _USER else max_chars
    limit = max(1, min(file_budget, remaining))
    trimmed = trim_2026_9(units, source.name, limit)
    if not trimmed.units:
        return None  # empty or whitespace-only: OpenClaw injects nothing, silently
    if trimmed.style is None:
        return _Injected(source, trimmed.units, None)
    warn(
        f"workspace bootstrap file {source.name} is {len(trim_end(units))} chars"
        f" (limit {limit}); truncating in injected context"
    )
    if limit < file_budget:
        budget = "total_max_chars"
    elif file_budget < max_chars:
        budget = "user_cap"
    else:
        budget = "max_chars"
    return _Injected(source, trimmed.units, Cut(budget, limit, trimmed.style))


# --- Seed budgeting -----------------------------------------------------------------------------


def _inject_seed(
    sources: list[_Source], max_chars: int, warn: Callable[[str], None]
) -> list[_Injected]:
    """Trim each file on its own (the seed has no total budget), in load order."""
    injected = []
    for source in sources:
        if source.units is None:
            injected.append(_Injected(source, _missing_text(source.path), None))
            continue
        trimmed = trim_seed(source.units, source.name, max_chars)
        # SEED-SILENT on empty files: an empty text adds nothing but a bare heading; we drop it,
        # as every later OpenClaw does.
        if not trimmed.units:
            continue
        cut = None
        if trimmed.style is not None:
            warn(
                f"workspace bootstrap file {source.name} is {len(trim_end(source.units))} chars"
                f" (limit {max_chars}); truncating in injected context"
            )
            cut = Cut("max_chars", max_chars, trimmed.style)
        injected.append(_Injected(source, trimmed.units, cut))
    return injected


# --- Rendering ----------------------------------------------------------------------------------


def _render(
    injected: Sequence[_Injected],
    compat: str,
    *,
    heading: Callable[[_Source], str],
    transform: Callable[[str], str],
) -> str:
    """Lay out the section; like OpenClaw, drop every empty line between the parts."""
    if not injected:
        return ""
    basenames = {_basename(entry.source.path) for entry in injected}
    lines = [_SECTION_HEADING, _LOADED_LINE[compat], *_guidance(compat, basenames)]
    for entry in injected:
        lines += [f"## {heading(entry.source)}", transform(entry.units)]
    return "\n".join(line for line in lines if line)


def _guidance(compat: str, basenames: set[str]) -> list[str]:
    """The per-file reading instructions OpenClaw adds when those files are in the section."""
    if compat == "seed":
        return [_SEED_SOUL_GUIDANCE] if "soul.md" in basenames else []
    return [line for basename, line in _GUIDANCE_2026_9 if basename in basenames]


def _sanitize_2026_9(units: str) -> str:
    """Strip the legacy heartbeat block and fold runs of 3+ newlines to 2, as 2026.9 renders."""
    return _EXCESS_NEWLINES.sub("\n\n", _HEARTBEAT_BLOCK.sub("", units))


def _unchanged(units: str) -> str:
    """The seed renders content as injected (SEED-SILENT: no normalisation is described)."""
    return units


def _prompt_rank(path: str) -> int:
    """OpenClaw's prompt order for a context file; every 2026.9 bootstrap file has a rank."""
    return _PROMPT_RANK[_basename(path)]


def _basename(path: str) -> str:
    """Lower-case file name of a path, as OpenClaw compares them."""
    return path.replace("\\", "/").rsplit("/", 1)[-1].lower()


def _describe(entry: _Injected) -> InjectedFile:
    """Public view of one injected file."""
    source = entry.source
    return InjectedFile(
        name=source.name,
        path=source.path,
        raw_size=0 if source.units is None else len(source.units),
        injected_size=len(entry.units),
        missing=source.units is None,
        cut=entry.cut,
    )


def _missing_text(path: str) -> str:
    """OpenClaw's stand-in for a bootstrap file that does not exist."""
    return f"[MISSING] Expected at: {path}"
