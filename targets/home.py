"""The home-document family: programs that read one document from a home folder an environment
variable moves (Codex CLI's ``config.toml``, Gemini CLI's global ``GEMINI.md``).

For each job a member writes ``prompt.xml`` (the document as the program will send it), the home
file inside a home folder, and ``launch.json`` pointing the home variable at that folder; a
gateway copies the folder to a fresh one per session (the programs write their state there).
A member declares the program, the home and what the program does to the text on the way
(``Transform``), so a new program of this kind is a declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from hotplex.document import configuration
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.records import Emitted, Output, Section, SectionSize, Skill
from hotplex.targets.gateway import NO_SKILLS, SKILL_FILES, Shipped, SkillsShipper, shipped_skills
from hotplex.text.measure import measure
from hotplex.worker import LAUNCH_FILE, SkillsPlace, in_session, launch_json

PROMPT_FILE = "prompt.xml"


@dataclass(frozen=True)
class Sent:
    """The document as the program will send it, and where each of its offsets went."""

    text: str
    warnings: tuple[str, ...] = ()
    position: Callable[[int], int] | None = None  # document offset -> offset in ``text``


@dataclass(frozen=True)
class Transform:
    """What the program makes of the document on the way: ``document`` turns the whole of it
    into what is sent; ``section``, if any, is applied to each section before the limits, so
    that they hold for what is sent (``configuration.build``'s ``as_sent``)."""

    document: Callable[[str], Sent]
    section: Callable[[str], str] | None = None


VERBATIM = Transform(Sent)
# JavaScript's String.prototype.trim: WhiteSpace (with U+FEFF and every Zs) and LineTerminator.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trimmed(document: str) -> Sent:
    """``document`` as a program that trims it with JavaScript's ``trim`` sends it."""
    text = document.strip(JS_WHITESPACE)
    lead = len(document) - len(document.lstrip(JS_WHITESPACE))
    return Sent(text, position=lambda at: min(max(at - lead, 0), len(text)))


TRIMMED = Transform(js_trimmed)


class HomeDocument(SkillsShipper):
    """A program reading one document from a home folder that an environment variable moves."""

    program: ClassVar[str]  # argv[0]
    argv: ClassVar[tuple[str, ...]] = ()  # the arguments after it
    home_variable: ClassVar[str | None] = None  # "CODEX_HOME"
    # Or the argument naming the home *file*, for a program without a home variable (Aider's
    # "--config"): launch.json passes it after ``argv``.
    home_flag: ClassVar[str | None] = None
    home_dir: ClassVar[str]  # the home folder, in the job folder: "codex-home"
    home_file: ClassVar[str]  # the file in it: "config.toml", ".gemini/GEMINI.md"
    home_kind: ClassVar[str] = "memory"  # the home file's ``Output`` kind
    # The program's own wrapper tags around the document: reserved like the document's.
    also_reserved: ClassVar[frozenset[str]] = frozenset()
    transform: ClassVar[Transform] = VERBATIM
    # The variable launch.json sets to "1" when the target has the program's own instruction
    # files switched off (``OwnFiles.switch``).
    switch_env: ClassVar[str | None] = None
    # What the gateway must still give the program (its provider, a runtime): launch.json's
    # "gateway_adds".
    gateway_adds: ClassVar[str | None] = None
    # The arguments launch.json adds instead when the switch is an argument (Pi's).
    switch_argv: ClassVar[tuple[str, ...]] = ()
    # Variables launch.json always sets (Cline's session in its own process).
    launch_env: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Where the document lands when that is not the system prompt (``Emitted.notes``).
    notes: ClassVar[tuple[str, ...]] = ()
    document = "agent-configuration"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "home_file" in vars(cls) or "home_dir" in vars(cls):  # derived, never by hand
            skills = cls.skills
            cls.outputs = (
                Output(PROMPT_FILE, "document", primary=True),
                Output(f"{cls.home_dir}/{cls.home_file}", cls.home_kind),
                Output(LAUNCH_FILE, "launch"),
                # A program that loads skills from the home gets them written there; one that
                # loads them from its working folder, beside the document, placed by launch.json.
                *((Output(skills_output(cls.home_dir, skills), "skill"),) if skills else ()),
            )

    def home_bytes(self, job: Job, model: Model, sent: str) -> bytes:
        """The home file: the document as sent, unless the program wants it wrapped (Codex) or
        pointed to (Aider)."""
        return sent.encode("utf-8")

    def launch(self, job: Job, model: Model, home: str, skills: Shipped = NO_SKILLS) -> bytes:
        """``launch.json``: the home by its variable or argument, the switch, what is missing,
        the skills' files the gateway places in the session folder, and their scripts it makes
        executable (in the session folder or its copy of the home)."""
        argv, env = [self.program, *self.argv], {}
        if self.home_flag is not None:
            argv += [self.home_flag, in_session(job, model, f"{home}/{self.home_file}")]
        if self.home_variable is not None:
            env[self.home_variable] = in_session(job, model, home)
        if self.switch_env is not None and self.switched_off(job.target):
            env[self.switch_env] = "1"
        if self.switch_argv and self.switched_off(job.target):
            argv += self.switch_argv
        env.update(self.launch_env)
        return launch_json(
            job,
            model,
            argv,
            env,
            files=skills.placed,
            gateway_adds=self.gateway_adds,
            executable=sorted(skills.executable),
        )

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        document = configuration.build(
            sections, model, also_reserved=self.also_reserved, as_sent=self.transform.section
        )
        sent = self.transform.document(document.text)
        folder = job.out_dir(model)
        prompt, home = f"{folder}/{PROMPT_FILE}", f"{folder}/{self.home_dir}"
        shipped = shipped_skills(self, job, model, skills, home)
        return Emitted(
            files={
                prompt: sent.text.encode("utf-8"),
                f"{home}/{self.home_file}": self.home_bytes(job, model, sent.text),
                f"{folder}/{LAUNCH_FILE}": self.launch(job, model, home, shipped),
                **shipped.files,
            },
            primary=prompt,
            truncations=(*document.truncations, *shipped.truncations),
            warnings=(*sent.warnings, *shipped.warnings),
            sizes=_sizes_as_sent(document, sent),
            notes=(*self.notes, *shipped.notes),
            skills=shipped.rows,
        )


def skills_output(home_dir: str, place: SkillsPlace) -> str:
    """The files of every skill, as an ``outputs`` glob: in the home (``codex-home/skills/**``),
    or beside the document (``skills/**``)."""
    if not place.in_home:
        return SKILL_FILES
    return f"{home_dir}/{place.folder.split('{name}', 1)[0]}**"


def _sizes_as_sent(document: configuration.Document, sent: Sent) -> tuple[SectionSize, ...]:
    """Each section's size in what the program receives (a section left out keeps its zero)."""
    if sent.position is None:
        return document.sizes
    sizes = []
    for size in document.sizes:
        span = document.spans.get(size.name)
        if span is not None:
            start, end = (sent.position(at) for at in span)
            size = attrs.evolve(size, injected=measure(sent.text[start:end], size.unit))
        sizes.append(size)
    return tuple(sizes)
