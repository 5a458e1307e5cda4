"""Gemini CLI: the document as the global GEMINI.md of a home that ``launch.json`` points to.

What Gemini CLI 0.61.0 does (checked with the real CLI against a fake Gemini API; see
tests/integration/test_gemini_cli.py): ``<home>/.gemini/GEMINI.md`` lands at the very end of
``systemInstruction``, after Gemini's own base prompt (which stays), inside a fixed wrapper::

    # Contextual Instructions (GEMINI.md)
    …
    <loaded_context>
    --- Context from: <absolute path of the file> ---
    <the file's text>
    --- End of Context from: <absolute path of the file> ---
    </loaded_context>

The alternatives are worse: ``GEMINI_SYSTEM_MD`` replaces the whole base prompt, and a project
``./GEMINI.md`` reaches only the first *user* message. ``GEMINI_CLI_HOME`` moves the home, and
Gemini uses a relative one as given (relative to its working directory), so ``launch.json``
names it relative to the project like the other workers do.

Delivery, for each job::

    <out>/<target>/<platform or default>/prompt.xml                     what Gemini sends
    <out>/<target>/<platform or default>/gemini-home/.gemini/GEMINI.md  the same bytes
    <out>/<target>/<platform or default>/launch.json                    argv, env, cwd

Gemini writes its own state into that home (``.gemini/tmp``, ``projects.json``) and reads its
``settings.json`` from there: a gateway copies the folder to a fresh one per session, adds its
``settings.json`` (auth type, telemetry off) and credentials, and points ``GEMINI_CLI_HOME``
there. It must keep Gemini's defaults for ``context.fileName`` and ``context.importFormat``.

Gemini changes a GEMINI.md on the way (``normalise``), so the artifact is built changed already
and ``prompt.xml`` is byte for byte what arrives:

- **Imports.** An ``@`` at the start or after a space, tab or line end, followed by ``.``, ``/``
  or an ASCII letter, outside backtick-delimited spans, starts a file import: ``@alice``
  becomes ``<!-- Import failed: alice … -->`` and ``@README.md`` pulls in a file next to the
  GEMINI.md. Each such ``@`` gets a WORD JOINER (U+2060, invisible, no break) before it, so
  Gemini no longer sees a separator before it and sends the text as written; ``@`` inside code
  spans, and e-mail addresses, need nothing and are left alone. Each is reported as a warning.
  The joiners go into each section before the limits (``join_imports``), so ``[limits]`` hold
  for what Gemini receives.
- **Whitespace.** Gemini trims the file (JavaScript's ``trim``) and collapses every run of three
  or more line feeds in its system prompt to two.
What Gemini CLI 0.61.0 loads by itself: GEMINI.md (``context.fileName``) from every folder
between the repository root and its working folder, and from the folders below it, into the
first user message, raw; the home's (this folder's) GEMINI.md is the document. Only a
``context.fileName`` in a ``settings.json`` would turn the project's files off, and it renames the
home's file with them; hotplex writes no ``settings.json`` (the gateway brings its own), so there
is no switch: ``build`` warns where a compiled GEMINI.md sits in the session folder (``cwd``).

- **Structure.** Gemini's wrapper tags are reserved like the document's own, so a
  ``</loaded_context>`` typed in a source cannot close Gemini's wrapper.

The section sizes (``stats``, the build log) are measured in the artifact, after these changes:
a section of blank-line runs is as small as Gemini receives it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from hotplex.targets.home import JS_WHITESPACE as _JS_TRIMMED
from hotplex.targets.home import HomeDocument, Sent, Transform
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

# The tags Gemini wraps the global GEMINI.md in (string and structured memory).
WRAPPER_TAGS = frozenset({"loaded_context", "global_context"})
WORD_JOINER = "\u2060"
OWN_FILES = OwnFiles(
    program="Gemini CLI",
    names=("GEMINI.md",),
    home="$GEMINI_CLI_HOME/.gemini/GEMINI.md (the gemini-home folder hotplex writes: the document)",
    below=True,
    rivals=skill_rivals("Gemini CLI", (".gemini/skills", ".agents/skills")),
)
# Gemini CLI 0.61.0 lists the skills of its home's .gemini/skills and .agents/skills (and of
# the project's) in systemInstruction, each as <skill><name>…</name><description>…</description>
# <location>…</location></skill> in <available_skills> (tests/integration/test_skills_live.py).
SKILLS = SkillsPlace(".gemini/skills/{name}", in_home=True, wrapper="available_skills")
_BLANK_RUN = re.compile(r"\n{3,}")
# Gemini's import processor (memoryImportProcessor): its code regions and its import starts.
_CODE_REGION = re.compile(r"(`+)[\s\S]*?\1")
_IMPORT_START = re.compile(r"(?:(?<=[ \t\n\r])|(?<![\s\S]))@(?=[./A-Za-z])")
_IMPORT_TOKEN = re.compile(r"@[^ \t\n\r]*")  # the path runs to the next blank
# An import neutralised, in a section or the document: hidden-text scans refuse U+2060 in
# sources, so every joiner before an '@' is one hotplex put there.
_JOINED_IMPORT = re.compile(WORD_JOINER + r"(@[^ \t\n\r]*)")
_SHOWN_IMPORTS = 5


def import_starts(text: str) -> list[int]:
    """Offsets of every ``@`` Gemini would take for a file import: outside code regions."""
    regions = [m.span() for m in _CODE_REGION.finditer(text)]  # in order, not overlapping
    region_starts = [start for start, _ in regions]
    found = []
    for match in _IMPORT_START.finditer(text):
        at = bisect.bisect_right(region_starts, match.start()) - 1
        if at < 0 or match.start() >= regions[at][1]:
            found.append(match.start())
    return found


@dataclass(frozen=True)
class Normalised:
    """A document as Gemini will send it, and how its text moved on the way there."""

    text: str
    imports: list[str]  # each ``@import`` neutralised, as written (for the warning)
    lead: int  # characters trimmed off the start
    length: int  # of the trimmed document
    collapsed: tuple[tuple[int, int], ...]  # the runs of line feeds in it cut to two
    joiners: tuple[int, ...]  # offsets, after the collapse, a word joiner went before

    def position(self, offset: int) -> int:
        """Where ``offset`` of the document lies in ``text`` (a word joiner goes with its @)."""
        at = min(max(offset - self.lead, 0), self.length)
        at -= sum(max(0, min(at, end) - start - 2) for start, end in self.collapsed)
        return at + bisect.bisect_left(self.joiners, at)


def join_imports(text: str) -> str:
    """``text`` with a word joiner before each ``@`` Gemini would take for a file import. Done
    to each section before the limits (a joiner counts in the budget); ``normalise`` repeats it
    on the document for an ``@`` that only the sections' joining made an import start."""
    starts = import_starts(text)
    pieces = [text[a:b] for a, b in zip([0, *starts], [*starts, len(text)], strict=True)]
    return WORD_JOINER.join(pieces)


def normalise(document: str, collapse: bool = True) -> Normalised:
    """``document`` as Gemini will send it, given as the file it reads; ``collapse``: whether
    the program cuts runs of line feeds to two (Gemini does, Qwen Code does not)."""
    trimmed = document.strip(_JS_TRIMMED)
    collapsed = tuple(m.span() for m in _BLANK_RUN.finditer(trimmed)) if collapse else ()
    text = _BLANK_RUN.sub("\n\n", trimmed) if collapse else trimmed
    starts = import_starts(text)
    imports = [m.group() for start in starts if (m := _IMPORT_TOKEN.match(text, start))]
    lead = len(document) - len(document.lstrip(_JS_TRIMMED))
    return Normalised(join_imports(text), imports, lead, len(trimmed), collapsed, tuple(starts))


def at_imports(program: str, collapse: bool = True) -> Transform:
    """What a program with Gemini CLI's GEMINI.md processing (its ``@`` imports, its trimming)
    makes of a document: ``program`` names it in the warning about each ``@`` neutralised;
    ``collapse`` as in ``normalise``."""

    def send(document: str) -> Sent:
        sent = normalise(document, collapse)
        imports = _JOINED_IMPORT.findall(sent.text)
        warnings = (_import_warning(program, imports),) if imports else ()
        return Sent(sent.text, warnings, sent.position)

    return Transform(send, join_imports)


def _import_warning(program: str, imports: list[str]) -> str:
    shown = list(dict.fromkeys(imports))
    listed = ", ".join(f"'{i}'" for i in shown[:_SHOWN_IMPORTS])
    more = f" and {len(shown) - _SHOWN_IMPORTS} more" if len(shown) > _SHOWN_IMPORTS else ""
    return (
        f"{program} would read {len(imports)} '@' as file import(s) ({listed}{more}); each got"
        " a word joiner (U+2060) before its '@', so it arrives as written"
    )


class GeminiCli(HomeDocument):
    name = "gemini-cli"
    delivery = (
        "`GEMINI_CLI_HOME=dist/gemini/slack/gemini-home gemini`: the home's global GEMINI.md, the "
        "end of `systemInstruction` after Gemini's base prompt; each Agent Skill's folder in "
        "`gemini-home/.gemini/skills/`"
    )
    verified = Verified("Gemini CLI", "0.61.0", "tests/integration/test_gemini_cli.py")
    program = "gemini"
    home_variable = "GEMINI_CLI_HOME"
    home_dir = "gemini-home"
    home_file = ".gemini/GEMINI.md"
    also_reserved = WRAPPER_TAGS
    transform = at_imports("Gemini CLI")
    init_target = ("gemini", "prompt.xml as gemini-home/.gemini/GEMINI.md, as Gemini sends it")
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"gemini"})
    import_formats = ("hotplex.importing.gemini",)
