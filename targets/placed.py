"""The placed family: editors whose agent reads a rules file at a fixed place in the repository
(Cursor's ``.cursor/rules/*.mdc``, Copilot's ``.github/copilot-instructions.md``, Zed's ``.rules``,
…) and cannot be started headless with a file of hotplex's choosing.

For the base job a member writes the document, wrapped in its format's frontmatter, twice: in
the job folder (the build's record: what ``show``, ``stats`` and ``check`` compare) and at its
``place`` in the repository, which ``hotplex.placement`` guards (never over a file hotplex did not
write; the marker line names the manifest and target). A member declares its ``Format``: the
tool, where it reads (``pattern``) and the default ``place``, the frontmatter, and the tool's own
limit on the file, if it has one. Checked against each tool's documentation, not the program:
the excerpts are in ``tests/workers/fixtures/rule_formats/``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from hotplex.document import configuration
from hotplex.errors import HotplexError, Span
from hotplex.fs import declared_match
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Manifest, Model, Target
from hotplex.placement import marked
from hotplex.records import Emitted, OptionProblem, Output, Section, Skill, TargetSources
from hotplex.sources import skill_listing
from hotplex.sources import skills as skills_source
from hotplex.text.measure import measure
from hotplex.worker import SkillsPlace, Verified, Worker, skill_rivals

# The tools count a rule file's characters as JavaScript does (UTF-16 code units): an emoji is 2.
LIMIT_UNIT = "utf16"


@dataclass(frozen=True)
class Format:
    tool: str  # as users name it: "Cursor"
    place: str  # the default place; "{target}" is the target's name
    pattern: str  # where the tool reads such a file (``*`` one name, ``**`` any folders)
    artifact: str  # the copy's name in the job folder
    frontmatter: str = ""  # before the marker line: the tool needs it first in the file
    max_chars: int | None = None  # the tool's own limit on the whole file, in LIMIT_UNIT
    # The repository folder its documentation says the tool loads project Agent Skills from
    # (``.cursor/skills``), and the other folders it lists skills from, as documented: a skill
    # of the user's there, or one another target puts there, is a second copy. None: the tool
    # documents no skills folder, and a target leaves the skills out with a warning.
    skills: str | None = None
    skills_also: tuple[str, ...] = ()


@attrs.frozen
class PlacedOptions:
    place: str | None = None  # project-relative; None: the format's default
    max_chars: int | None = None  # a tighter limit on the whole file than the tool's own


class Placed(Worker):
    format: ClassVar[Format]
    Options = PlacedOptions
    document = "agent-configuration"
    headless = False  # the editor's agent reads the placed file; no gateway starts it

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "format" in vars(cls):
            cls.outputs = (Output(cls.format.artifact, "document", primary=True),)
            cls.places = cls.format.pattern
            # Checked against the tool's documentation, whose excerpt is the fixture.
            fixture = f"tests/workers/fixtures/rule_formats/{cls.name}.md"
            cls.verified = Verified(cls.format.tool, None, fixture)
            if cls.format.skills is not None:
                cls.skills = SkillsPlace(f"{cls.format.skills}/{{name}}")
                folders = (cls.format.skills, *cls.format.skills_also)
                cls.skills_listed = skill_rivals(cls.format.tool, folders)

    def placed(self, target: Target) -> str:
        place = target.options.place
        if place is None:
            place = self.format.place.format(target=target.name)
        return posixpath.normpath(place)

    def limit(self, target: Target) -> int | None:
        chosen = (target.options.max_chars, self.format.max_chars)
        return min((n for n in chosen if n is not None), default=None)

    def validate(
        self, target: Target, manifest: Manifest, sources: TargetSources
    ) -> Iterable[OptionProblem]:
        place = self.placed(target)
        if "\\" in place:
            yield OptionProblem("place", f"'{place}' holds a backslash: folders are separated by /")
        elif not declared_match(place, self.format.pattern):
            hint = f"{self.format.tool} reads {self.format.pattern}"
            yield OptionProblem(
                "place", f"{self.format.tool} does not read '{place}'", hint.replace("**/", "")
            )
        own, tool = target.options.max_chars, self.format.max_chars
        if own is not None and (own <= 0 or (tool is not None and own > tool)):
            most = f" and at most {self.format.tool}'s {tool}" if tool is not None else ""
            yield OptionProblem("max_chars", f"must be positive{most}, got {own}")

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        def wrapped(limited: Model) -> tuple[str, configuration.Document]:
            document = configuration.build(sections, limited)
            name = model.manifest_path.name
            return marked(self.format.frontmatter, document.text, name, job.target.name), document

        text, document = wrapped(model)
        limit = self.limit(job.target)
        cuts = document.truncations
        if limit is not None and measure(text, LIMIT_UNIT) > limit:
            text, document = self._fit(job, model, wrapped, limit)
            label = f"{self.name}.max_chars"
            cuts = tuple(
                attrs.evolve(c, limit=label) if c.limit == "total" else c
                for c in document.truncations
            )
        data = text.encode("utf-8")
        copy = f"{job.out_dir(model)}/{self.format.artifact}"
        return Emitted(
            files={copy: data, self.placed(job.target): data},
            primary=copy,
            truncations=cuts,
            sizes=document.sizes,
            notes=(f"{self.format.tool} reads {self.placed(job.target)}, always applied",),
        )

    def emit_with_skills(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        """``emit``, and where the tool documents a skills folder, each skill's files placed
        there as they ship (``<folder>/<name>/…``), under the guard of the rule file: its
        ``SKILL.md`` carries the marker line after its frontmatter, every file the log's digest."""
        place = self.skills
        if place is None or not skills:
            return super().emit_with_skills(job, sections, skills, model)
        emitted = self.emit(job, sections, model)
        tool = self.format.tool
        first = model.skills_placer(place.folder)
        if first != job.target.name:
            warning = (
                f"target '{first}' places the skills in {place.folder.format(name='')}, where"
                f" {tool} loads them; this target places none (one folder per repository)"
            )
            return attrs.evolve(emitted, warnings=(*emitted.warnings, warning))
        folder_of = place.folder.format(name="")
        files: dict[str, bytes] = {}
        notes = []
        for skill in skills:
            folder = place.folder.format(name=skill.name)
            for item in skill.files:
                data = item.data
                if item.path == skill_listing.SKILL_FILE:
                    data = _marked_skill(data, model.manifest_path.name, job.target.name)
                files[f"{folder}/{item.path}"] = data
                if item.kind == "script":
                    notes.append(
                        f"skill '{skill.name}': script {item.path} placed at {folder}/{item.path},"
                        " never run by hotplex (a placed file keeps the mode it has: chmod it once"
                        f" for {tool} to run it)"
                    )
        rows = tuple(
            skill_listing.row(r, place, "whole") for r in skill_listing.listed(skills, place)
        )
        warnings = skills_source.unknown_keys(skills, place.keys, tool)
        warnings += skills_source.unmatched_scripts(skills, model.manifest.skills.scripts)
        return attrs.evolve(
            emitted,
            files={**emitted.files, **files},
            placed=tuple(files),
            warnings=(*emitted.warnings, *warnings),
            notes=(*emitted.notes, f"{tool} lists the skills placed in {folder_of}", *notes),
            skills=rows,
        )

    def _fit(self, job, model, wrapped, limit: int) -> tuple[str, configuration.Document]:
        """The largest total budget whose file fits ``limit``: the sections are cut, reported,
        never the file after the fact."""
        index = model.target_index(job.target)
        span = Span(model.manifest_display, key=f"target[{index}].max_chars")
        if model.manifest.limits.overflow == "error":
            raise HotplexError.single(
                f"the file is over {self.format.tool}'s limit of {limit} characters, and"
                ' [limits] overflow = "error" forbids cutting a section to fit',
                span,
                hint='shorten the sources, or set overflow = "truncate"',
            )
        low, high = 0, model.manifest.limits.total
        best = None
        while low <= high:
            total = (low + high) // 2
            limits = attrs.evolve(model.manifest.limits, total=total)
            manifest = attrs.evolve(model.manifest, limits=limits)
            attempt = wrapped(attrs.evolve(model, manifest=manifest))
            if measure(attempt[0], LIMIT_UNIT) <= limit:
                best, low = attempt, total + 1
            else:
                high = total - 1
        if best is None:
            raise HotplexError.single(
                f"{self.format.tool}'s file cannot fit {limit} characters: its frontmatter and"
                " hotplex's marker alone take more",
                span,
            )
        return best


def _marked_skill(data: bytes, manifest: str, target: str) -> bytes:
    """A placed ``SKILL.md``: its frontmatter, then the marker line, then its body (the tool
    reads the frontmatter first; the marker's digest covers both)."""
    text = data.decode("utf-8")
    end = text.index("\n---\n", 3) + len("\n---\n")
    return marked(text[:end], text[end:], manifest, target).encode("utf-8")
