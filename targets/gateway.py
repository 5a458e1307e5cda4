"""The gateway family: programs a gateway (HotPlex) drives per message or session, sent the agent
configuration as one document (Claude Code, OpenCode Server).

For each job a member writes its document, what it adds beside it (``Beside``: Claude Code's
sub-agent document) and ``launch.json`` when there is anything to launch with. A member declares
the document's file and bytes, the environment switch that turns its program's own instruction
files off, and its argv. Sub-agents are a capability a member declares, not the family's: one
whose program has them declares their file ``format`` (``subagents.Format``) and ``Options``
with ``subagents`` (``subagents.Options``); its targets may then list sub-agents, each checked
and given an agent file (``subagents.emit``). One without declares neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, NamedTuple

from hotplex.document import configuration
from hotplex.fs import sha256
from hotplex.json_writer import json_string
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Manifest, Model, Target
from hotplex.records import (
    Emitted,
    OptionProblem,
    Output,
    Section,
    SectionSize,
    Skill,
    SkillRow,
    TargetSources,
    Truncation,
)
from hotplex.sources import skill_listing
from hotplex.sources import skills as skills_source
from hotplex.targets import subagents
from hotplex.values import value
from hotplex.worker import LAUNCH_FILE, Worker, in_session, json_bytes, launch_json

SKILLS_DIR = "skills"
SKILL_FILES = f"{SKILLS_DIR}/**"  # the ``outputs`` entry of a member whose program loads skills


@value
class Beside:
    """What a member emits beside its document, and what that did."""

    FIELDS = ("files", "argv", "truncations", "documents", "notes", "appended")
    files: dict[str, bytes]
    argv: tuple[str, ...]  # after the document's own arguments
    truncations: tuple[Truncation, ...]
    documents: tuple[tuple[str, tuple[SectionSize, ...]], ...]
    notes: tuple[str, ...]
    # The sections every sub-agent already gets from a document its program appends to each
    # (``subagents.emit``'s ``appended``); None: nothing is appended.
    appended: tuple[str, ...] | None

    def __init__(
        self,
        files: dict[str, bytes] | None = None,
        argv: tuple[str, ...] = (),
        truncations: tuple[Truncation, ...] = (),
        documents: tuple[tuple[str, tuple[SectionSize, ...]], ...] = (),
        notes: tuple[str, ...] = (),
        appended: tuple[str, ...] | None = None,
    ) -> None:
        self.__dict__.update(
            files={} if files is None else files,
            argv=argv,
            truncations=truncations,
            documents=documents,
            notes=notes,
            appended=appended,
        )


class SkillsShipper(Worker):
    """A worker of a family whose members' programs may load Agent Skills: ``emit_shipping``
    writes its files with the skills its ``skills`` place takes (none for ``emit``); a member
    without a place leaves them out with the base class's warning."""

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        return self.emit_shipping(job, sections, (), model)

    def emit_with_skills(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        if skills and self.skills is None:
            return super().emit_with_skills(job, sections, skills, model)
        return self.emit_shipping(job, sections, skills, model)

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        raise NotImplementedError


class Gateway(SkillsShipper):
    """A program sent the agent configuration as one document."""

    document_file: ClassVar[str]  # "prompt.xml", "payload.json"
    # Its sub-agents' file format, when its program has sub-agents (then ``Options`` must be a
    # ``subagents.Options``); None: no sub-agents, no agent files.
    format: ClassVar[subagents.Format | None] = None
    beside_outputs: ClassVar[tuple[Output, ...]] = ()  # declared after the document
    # The environment variable that, set to "1", turns the program's own files off.
    switch_env: ClassVar[str | None] = None
    scaffold_default = True
    document = "agent-configuration"
    # A member whose program loads Agent Skills declares where (``worker.SkillsPlace``); its
    # skills ship beside the document as ``skills/<name>/…``, which ``launch.json`` places there.

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "document_file" in vars(cls) or "beside_outputs" in vars(cls):  # never by hand
            cls.outputs = (
                Output(cls.document_file, "document", primary=True),
                *cls.beside_outputs,
                Output(LAUNCH_FILE, "launch"),
                *((Output(subagents.AGENT_FILES, "agent"),) if cls.format is not None else ()),
                *((Output(SKILL_FILES, "skill"),) if cls.skills is not None else ()),
            )

    def appends(self, target: Target) -> bool:
        """Whether the program appends a document to every sub-agent for this target."""
        return False

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        if self.format is None:
            return ()
        return subagents.check(target, manifest, sources, self.format, self.appends(target))

    def document_bytes(self, data: bytes) -> bytes:
        """The document file's bytes, given the document's UTF-8 bytes: a function of ``data``
        alone, made once for every job given the same document (``configuration.file_bytes``)."""
        return data

    def document_frame(self) -> configuration.Framed | None:
        """``document_bytes`` as a frame around the document's pieces where it is one (a JSON
        field's, ``json_frame``), so a section kept from one call to the next is escaped once;
        None: ``document_bytes`` of the whole."""
        return None

    def beside(self, job: Job, sections: list[Section], model: Model) -> Beside:
        return Beside()

    def argv(self, job: Job, model: Model, document: str, beside: Beside) -> list[str] | None:
        """How the program is started with ``document`` (a project-relative path); None: the
        gateway sends the document itself."""
        return None

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        document = configuration.build(sections, model)
        beside = self.beside(job, sections, model)
        agents = (
            subagents.emit(job, sections, model, self.format, beside.appended)
            if self.format is not None
            else subagents.Agents.none()
        )
        folder = job.out_dir(model)
        path = f"{folder}/{self.document_file}"
        data = configuration.file_bytes(document, self.document_frame() or self.document_bytes)
        files = {path: data, **beside.files}
        argv = self.argv(job, model, path, beside)
        env = {self.switch_env: "1"} if self.switch_env and self.switched_off(job.target) else None
        shipped = shipped_skills(self, job, model, skills)
        placed = {**agents.placed, **shipped.placed}
        if argv or env or placed or model.session_dir(job.target) != ".":
            executable = sorted(shipped.executable)
            launch = launch_json(job, model, argv, env, files=placed, executable=executable)
            files[f"{folder}/{LAUNCH_FILE}"] = launch
        return Emitted(
            files={**files, **agents.files, **shipped.files},
            primary=path,
            truncations=(
                *document.truncations,
                *beside.truncations,
                *agents.truncations,
                *shipped.truncations,
            ),
            warnings=(*agents.warnings, *shipped.warnings),
            sizes=document.sizes,
            documents=(*beside.documents, *agents.sizes),
            notes=(*beside.notes, *agents.notes, *shipped.notes),
            skills=shipped.rows,
            primary_text=self.document_text(document, data),
        )

    def document_text(self, document: configuration.Document, data: bytes) -> str:
        """The answer's text, the document file ``data`` (``document_bytes`` of ``document``)
        decoded, without decoding it where it can: the default file is the document's UTF-8
        itself (its text is the document's str); a JSON field's, the text its escaping
        decoded (``json_field_text``)."""
        if type(self).document_bytes is Gateway.document_bytes:
            return document.text
        if self.document_frame() is not None:
            return configuration.file_text(data)
        return json_field_text(data)


class Shipped(NamedTuple):
    """A job's Agent Skills as its program loads them."""

    files: dict[str, bytes]  # project-relative path -> bytes
    placed: dict[str, str]  # where the program reads it (session-relative) -> project path
    executable: tuple[str, ...]  # the placed scripts the manifest allows: mode 0755
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    truncations: tuple[Truncation, ...]  # the entries the program's listing cuts
    rows: tuple[SkillRow, ...]  # each skill as shipped and listed, for ``show`` and ``stats``


NO_SKILLS = Shipped({}, {}, (), (), (), (), ())


def shipped_skills(
    worker: Worker,
    job: Job,
    model: Model,
    skills: tuple[Skill, ...],
    home: str | None = None,
    launched: bool = True,
) -> Shipped:
    """Each skill's files beside the document, ``skills/<name>/…``, and where ``launch.json``
    has the gateway place them: the folder the program loads skills from; or, for a program
    that loads them from the home ``launch.json`` sets (``SkillsPlace.in_home``), written in
    that ``home`` (project-relative) and placed nowhere, its scripts named for ``executable``
    as the program's working folder reaches them. Without a ``launch.json`` (not
    ``launched``: OpenClaw's workspace), a warning asks for each script's mode instead."""
    place = worker.skills
    if place is None or not skills:
        return NO_SKILLS
    program = worker.verified.program if worker.verified else worker.name
    folder = job.out_dir(model)
    files, placed, executable, notes, cuts, unmoded = {}, {}, [], [], [], []
    writtens = {
        s.name: f"{home}/{place.folder.format(name=s.name)}"
        if place.in_home
        else f"{folder}/{SKILLS_DIR}/{s.name}"
        for s in skills
    }
    rows = skill_listing.listed(skills, place)
    capped = [r for r in rows if place.entry_cap is not None and r.entry > place.entry_cap]
    left_out = skill_listing.listing_cuts(rows, place)
    cuts += [_cut(worker, writtens[r.skill.name], r, whole=False) for r in capped]
    cuts += [_cut(worker, writtens[r.skill.name], r, whole=True) for r in left_out]
    shown = tuple(
        skill_listing.row(
            r, place, "name only" if r in left_out else "head" if r in capped else "whole"
        )
        for r in rows
    )
    for skill in skills:
        where = place.folder.format(name=skill.name)
        written = writtens[skill.name]
        for item in skill.files:
            path = f"{written}/{item.path}"
            files[path] = item.data
            if not place.in_home:
                placed[f"{where}/{item.path}"] = path
            if item.kind == "script" and not launched:
                unmoded.append(
                    f"skill '{skill.name}': script {item.path} ships, never run by hotplex; no"
                    f" launch.json makes it executable: give {path} mode 0755 where you deploy it"
                )
            elif item.kind == "script":
                executable.append(
                    in_session(job, model, path) if place.in_home else f"{where}/{item.path}"
                )
                notes.append(
                    f"skill '{skill.name}': script {item.path} ships (mode 0755), "
                    "never run by hotplex"
                )
            elif item.kind == "binary":
                notes.append(
                    f"skill '{skill.name}': {item.path} is binary, copied as it is "
                    f"(sha256 {sha256(item.data)}), searched for secrets only"
                )
    warnings = skills_source.unknown_keys(skills, place.keys, program)
    if left_out:
        room = (place.listing_budget or 0) - place.listing_own
        warnings.append(
            f"{program} lists skills in {place.listing_budget} {place.listing_unit}, {room} of"
            f" them left for this project's; it lists these by name only, their descriptions"
            f" left out: {', '.join(r.skill.name for r in left_out)} (shorten descriptions, or"
            " move skills to another target)"
        )
    warnings += skills_source.unmatched_scripts(skills, model.manifest.skills.scripts)
    warnings += unmoded
    return Shipped(
        files, placed, tuple(executable), tuple(warnings), tuple(notes), tuple(cuts), shown
    )


def _cut(worker: Worker, written: str, row: skill_listing.Listed, whole: bool) -> Truncation:
    """A skill's listing cut by the program: its entry to the entry cap, or (``whole``) its line
    to its name alone, the listing over its budget; ``written``: where the skill's folder is
    written."""
    place = worker.skills
    assert place is not None
    program = worker.verified.program if worker.verified else worker.name
    name = row.skill.name
    if whole:
        limit = "skill_listing_total"
        sizes = (row.line, row.name_line, place.listing_unit, f"{program} lists its name only")
    else:
        limit = "skill_listing"
        sizes = (row.entry, place.entry_cap or 0, place.entry_unit, f"{program} lists the head")
    return Truncation(
        f"skill {name}",
        (f"{row.skill.folder}/{skills_source.SKILL_FILE}",),
        f"{worker.name}.{limit}",
        *sizes,
        f"{written}/{skills_source.SKILL_FILE}",
    )


_HOLE = b'"hotplex-document"'  # stands for the text while the envelope is dumped


def json_field(envelope: dict[str, object], field: str, data: bytes) -> bytes:
    """``json_bytes({**envelope, field: text})`` for the document ``text`` whose UTF-8 is
    ``data``, byte for byte: the members that send their document as a JSON field write it this
    one way. The small envelope goes through ``json_bytes``; the text is escaped in its bytes
    (``json_writer.json_string_bytes``), never walked by the pure-Python encoder of an indented
    dump."""
    around = _around(envelope, field)
    escaped, text = json_string(data)
    whole = b"".join((around[0], escaped, around[1]))  # one copy of the text
    _LAST_FIELD[:] = [(whole, around, text)]
    return whole


def json_frame(envelope: dict[str, object], field: str) -> configuration.Framed:
    """``json_field`` of ``envelope`` and ``field`` as a frame (``configuration.Framed``): the
    same bytes, a kept section's escape made once."""
    head, tail = _around(envelope, field)
    return configuration.Framed(head, json_string, tail)


def _around(envelope: dict[str, object], field: str) -> tuple[bytes, bytes]:
    """The envelope's JSON before and after the text of ``field``, with the string's quotes."""
    key = repr((field, envelope))  # strings, lists and maps of them: their repr tells them apart
    around = _AROUND.get(key)
    if around is None:
        if len(_AROUND) >= AROUND_KEPT:  # bounded: a member has one envelope, or a few
            _AROUND.clear()
        head, _, tail = json_bytes({**envelope, field: _HOLE[1:-1].decode()}).partition(_HOLE)
        around = _AROUND[key] = (head + b'"', b'"' + tail)
    return around


def json_field_text(data: bytes) -> str:
    """``data.decode()`` for ``data`` a ``json_field`` answer: the last one's text is the
    decode its escaping made (a per-user compile's answer holds the file and its text), taken
    once, so no user's text is kept past the call; any other is decoded."""
    try:  # one step: another thread's call may take the one kept between a look and a pop
        kept = _LAST_FIELD.pop()
    except IndexError:
        kept = None
    if kept is None or kept[0] is not data:
        return data.decode("utf-8")
    head, tail = kept[1]
    return "".join((head.decode("utf-8"), kept[2], tail.decode("utf-8")))


# Each envelope's JSON before and after the document, with the string's quotes: the same for
# every call of a member, and an indented dump is the pure-Python encoder's, a tenth of a
# per-user compile.
AROUND_KEPT = 64
_AROUND: dict[str, tuple[bytes, bytes]] = {}
# The last ``json_field`` answer, its envelope's bytes and its escaped text (``json_field_text``).
_LAST_FIELD: list[tuple[bytes, tuple[bytes, bytes], str]] = []
