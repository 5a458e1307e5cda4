"""Resolve a job's sources: base file + platform variant, frontmatter stripped, templates rendered.

Files are read through ``inputs.Inputs``, the build's one reader.

Each file's text as rendered for a job (HTML comments stripped where the manifest asks) is
searched for credentials (``secrets.py``), hidden text (``hidden.py``) and, in the files the
injection rules read, prompt injection (``injection.py``) before any worker sees it; a finding
stops the job with the file:line:column it came from.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hotplex.errors import BuildFailed, HotplexError, Problem, Span, suggest
from hotplex.fs import (
    check_relative,
    confine,
)
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import METACOGNITION_NOTE, HtmlComments, Model, Source
from hotplex.manifest.vocabulary import LOG_SOURCE, METACOGNITION_TAG
from hotplex.records import Section, Skill, Truncation
from hotplex.scanning import hidden, secrets
from hotplex.scanning.origins import Origin
from hotplex.sources import claude as claude_sources
from hotplex.sources import comments, frontmatter, learned, manifest_texts, scanned, skills
from hotplex.sources import logs as memory_logs
from hotplex.sources.inputs import Inputs
from hotplex.sources.reader import Loaded
from hotplex.sources.sections import Product
from hotplex.templates import might_have_syntax

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.scanning import injection


@functools.lru_cache(maxsize=1)
def builtin_metacognition() -> str:
    """Read once per process: it is part of the installed package, not of the project. Read
    beside this module, as the package is installed as files (``importlib.resources`` would
    import ``tempfile``, ``shutil``, ``zipfile`` and the compression modules for it)."""
    with open(os.path.join(os.path.dirname(__file__), "metacognition.md"), encoding="utf-8") as f:
        return f.read()


@dataclass
class Resolution:
    sections: list[Section]
    consulted: list[str]  # every input path, present or absent, in first-use order
    truncations: list[Truncation]
    # Every template variable the job's files read, with its value (None: undefined, defaulted).
    variables: dict[str, str | None]
    skills: tuple[Skill, ...] = ()  # the Agent Skills of the sources folder (``skills.py``)
    # Under the section cache, each slot's product (``slots``; None: not kept, an overlaid
    # file's) and what reading the skills did: what an overlay plan (``plan.py``) is made of.
    products: tuple[Product | None, ...] | None = None
    skill_reads: Product | None = None


@dataclass
class Resolver:
    """A job's sources being read: the ``reader.Reader`` the helpers of this stage are given."""

    model: Model
    job: Job
    inputs: Inputs
    variables: dict[str, str]
    consulted: list[str] = field(default_factory=list)
    truncations: list[Truncation] = field(default_factory=list)
    findings: list[secrets.Finding | hidden.Finding | injection.Finding] = field(
        default_factory=list
    )
    read_variables: set[str] = field(default_factory=set)
    claude_seen: set[str] = field(default_factory=set)  # files Claude Code loaded this session
    # The texts read, as the job's sections were written from them (``Section.origins``).
    written: list[Origin] = field(default_factory=list)
    # The learned blocks of the files the render under way has included, set aside as its own.
    included_blocks: list[learned.SetAside] = field(default_factory=list)
    rendering: str = ""  # the text of the file being rendered: no stem may be found in it

    def file(self, display: str, span: Span, meta: bool = True) -> Loaded | None:
        if display not in self.consulted:
            self.consulted.append(display)
        loaded = self.inputs.load(display, span, meta)
        if loaded is not None and loaded.capped:
            self.truncations.append(
                Truncation(
                    display,
                    (display,),
                    "read",
                    loaded.size,
                    loaded.read,
                    "bytes",
                    "capped",
                )
            )
        return loaded

    def render(self, loaded: Loaded) -> tuple[str, tuple[str, ...]]:
        """The file's text for this job, and the files it included. A learned block
        (``learned.py``) is never rendered, and reaches the worker without its provenance."""
        aside = learned.set_aside(loaded.body, loaded.display, loaded.body_line)
        body = loaded.body if aside is None else aside.body
        if not self._templated(loaded) or not might_have_syntax(body):
            # what rendering it gives, without importing the renderer
            return (body if aside is None else learned.put_back(body, aside)), ()
        from hotplex.templates.render import (
            render,  # lark is imported only when a file has templates
        )

        self.included_blocks = [aside] if aside is not None else []
        self.rendering = body
        try:
            rendered = render(body, loaded.display, self.variables, self._include)
        except HotplexError as exc:
            raise _shift(exc, self.inputs) from None
        self.read_variables.update(rendered.variables)
        text = rendered.text
        for block in self.included_blocks:
            text = learned.put_back(text, block)
        return text, rendered.includes

    def _templated(self, loaded: Loaded) -> bool:
        if loaded.data:
            return False
        flag = loaded.meta.get("template", True)
        if not isinstance(flag, bool):
            raise HotplexError.single(
                f"frontmatter 'template' must be true or false, not {flag!r}", Span(loaded.display)
            )
        return flag and self.model.manifest.project.templates

    def _include(self, path: str, span: Span):
        from hotplex.templates.render import IncludedSource

        sources_dir = self.model.sources_dir
        rel = check_relative(path, span)
        confine(self.model.root / sources_dir, rel, span)
        display = self.model.source_path(str(rel))
        loaded = self.file(display, span)
        if loaded is None:
            raise HotplexError.single(
                f"included file '{display}' does not exist",
                span,
                hint=_near_file(self.model, display),
            )
        body = loaded.body
        if self._templated(loaded):  # its learned block is set aside as the includer's is
            stems = "".join(block.token for block in self.included_blocks)
            taken = "\n".join((self.rendering, stems, body))
            aside = learned.set_aside(body, display, loaded.body_line, taken)
            if aside is not None:
                self.included_blocks.append(aside)
                body = aside.body
        else:
            body = learned.for_worker(body, display, loaded.body_line)
        return IncludedSource(display, body, self._templated(loaded))

    def source_text(
        self, display: str, span: Span, html_comments: HtmlComments = "keep", meta: bool = True
    ) -> str | None:
        loaded = self.file(display, span, meta)
        if loaded is None:
            return None
        text, includes = self.render(loaded)
        text = frontmatter.trim(comments.strip(text) if html_comments == "strip" else text)

        files = [self.inputs.load(f, span, f != display or meta) for f in (display, *includes)]
        found = [Origin(f.body, f.display, f.body_line) for f in files if f]
        self.written += found
        reads = (display, *includes)
        self.guard(text, lambda: [*found, *_var_origins(self.model, self.job)], display, reads)
        return text

    def guard(
        self,
        text: str,
        origins: Callable[[], list[Origin]],
        display: str | None = None,
        reads: tuple[str, ...] = (),
    ) -> None:
        """Record what ``text`` would carry into the artifact that it must not
        (``scanned.findings``)."""
        self.findings += scanned.findings(self.model, self.inputs, text, origins, display, reads)

    def check_setting(self, text: str, key: str) -> None:
        """A manifest value that reaches the artifact as it is (a note)."""
        clean = self.inputs.sections.clean_settings
        if text and text not in clean:
            found = len(self.findings)
            self.guard(text, lambda: [Origin(text, self.model.manifest_display, key=key)])
            if len(self.findings) == found:
                clean.add(text)


def _shift(exc: HotplexError, inputs: Inputs) -> HotplexError:
    """Template positions count from the body; report them in the file's own lines, in the
    place and in the message ("unclosed {% if %} opened at SOUL.md:4:1") alike."""
    problems = []
    for problem in exc.problems:
        span, message = problem.span, problem.message
        loaded = inputs._loaded.get(span.file) if span is not None else None
        if (
            span is not None
            and span.line is not None
            and loaded is not None
            and loaded.body_line > 1
        ):
            offset = loaded.body_line - 1
            span = span.replace(line=span.line + offset)
            message = _shift_quoted(message, span.file, offset)
        problems.append(Problem(message, span, problem.hint))
    return HotplexError(problems, exc.exit_status)


def _near_file(model: Model, display: str) -> str | None:
    """A "did you mean" over the files beside a missing one (a misspelt include)."""
    folder = posixpath.dirname(display)
    try:
        names = [posixpath.join(folder, n) for n in os.listdir(model.root / (folder or "."))]
    except OSError:
        return None
    return suggest(display, names)


def _shift_quoted(message: str, file: str, offset: int) -> str:
    """``file:LINE:`` positions quoted in ``message``, moved down by ``offset`` lines."""
    quoted = re.compile(re.escape(file) + r":(\d+):")
    return quoted.sub(lambda m: f"{file}:{int(m[1]) + offset}:", message)


def variant_path(model: Model, source: Source, platform: str) -> str:
    return model.source_path(model.manifest.variants.file(source.file, platform))


def overlay_paths(model: Model, source: Source, job: Job) -> list[str]:
    """The files layered over a source's base file for ``job``, least specific first.

    A bot overlay (``<sources>/<platform>/<bot>/<file>``) applies only with a platform, as in
    HotPlex, whose bot folders sit inside the platform folders.
    """
    if not job.platform:
        return []
    paths = [variant_path(model, source, job.platform)]
    if job.target.bot:
        head, name = posixpath.split(source.file)
        paths.append(model.source_path(head, job.platform, job.target.bot, name))
    return paths


def variables(model: Model, job: Job) -> dict[str, str]:
    builtins = {
        "platform": job.platform or "",
        "worker": job.target.worker,
        "target": job.target.name,
    }
    return {**model.manifest.vars, **job.target.vars, **builtins}


def _var_origins(model: Model, job: Job) -> list[Origin]:
    """Where each variable's value is written in the manifest, for placing a secret in it."""
    display = model.manifest_display
    index = model.target_index(job.target)
    origins = [
        Origin(value, display, key=f"target[{index}].vars.{name}")
        for name, value in job.target.vars.items()
    ]
    origins += [
        Origin(value, display, key=f"vars.{name}")
        for name, value in model.manifest.vars.items()
        if name not in job.target.vars
    ]
    return origins


def resolve(model: Model, job: Job, inputs: Inputs) -> Resolution:
    resolver = Resolver(model, job, inputs, variables(model, job))
    cache = inputs.sections
    if any(s.imports for s in model.sources):  # Claude Code loads a file once per session
        cache = None
    sections: list[Section] = []
    products: list[Product | None] = []
    for key, compute in slots(resolver):
        section, product = cache.section(resolver, key, compute) if cache else (compute(), None)
        products.append(product)
        if section is not None:
            sections.append(section)
    consulted, cuts = len(resolver.consulted), len(resolver.truncations)
    read = set(resolver.read_variables)
    found_skills, refused = read_skills(resolver)
    if cache is None or job.target.name not in cache.clean_targets:
        manifest_texts.check(resolver)  # the same texts for every job of a target
        if cache is not None and not resolver.findings:
            cache.clean_targets.add(job.target.name)
    skill_reads = Product(
        None,
        tuple(resolver.consulted[consulted:]),
        tuple(resolver.truncations[cuts:]),
        frozenset(resolver.read_variables - read),
        (),
        (),
    )
    resolution = close(resolver, sections, found_skills, refused)
    if cache is not None:
        resolution.products, resolution.skill_reads = tuple(products), skill_reads
    return resolution


def slots(resolver: Resolver) -> list[tuple[tuple, Callable[[], Section | None]]]:
    """Each section of the resolver's job in document order: its key in the section cache
    (``sections.py``) and how it is resolved."""
    steps = slot_steps(resolver.model, resolver.job)
    return [(key, functools.partial(step, resolver)) for key, step in steps]


def slot_steps(model: Model, job: Job) -> list[tuple[tuple, Callable[[Resolver], Section | None]]]:
    """``slots`` before a resolver: each section's key and how a resolver of ``job`` resolves it
    (an overlay plan keeps its gaps' steps, ``document/plan.py``)."""
    found: list[tuple[tuple, Callable[[Resolver], Section | None]]] = []
    meta = model.manifest.metacognition
    if meta.enabled:
        step = functools.partial(_metacognition, file=meta.file, note=meta.note)
        found.append((("metacognition", meta.file, meta.note), step))
    for source in model.sources_of(job.target):
        found.append((_key(model, job, source), functools.partial(_section, source=source)))
    return found


def read_skills(resolver: Resolver) -> tuple[tuple[Skill, ...], list[Problem]]:
    """The project's Agent Skills as the job ships or lists them, and what refuses them."""
    job = resolver.job
    ships = job.worker.skills is not None or job.target.skills_listing
    verified = job.worker.verified
    program = verified.program if verified is not None else job.worker.name
    try:
        return skills.read(resolver, ships, job.worker.skills, program), []
    except HotplexError as error:  # said with what the scans found, in one run
        return (), list(error.problems)


def close(
    resolver: Resolver,
    sections: list[Section],
    found_skills: tuple[Skill, ...],
    refused: list[Problem],
) -> Resolution:
    """The resolution, or every finding and refusal of the job at once."""
    if resolver.findings or refused:
        # A variable's value reaches a job through many files: one problem per place and text.
        found = scanned.problems(resolver.inputs, resolver.findings)
        raise HotplexError([*refused, *found]) if refused else BuildFailed(found)
    read = {name: resolver.variables.get(name) for name in sorted(resolver.read_variables)}
    return Resolution(sections, resolver.consulted, resolver.truncations, read, found_skills)


def _key(model: Model, job: Job, source: Source) -> tuple:
    """What decides a source's section for ``job`` besides the files and variables it reads
    (``sections.py``): the source, the platform and bot that decide the files layered over its
    base (``overlay_paths``), and for the memory section with daily logs the budget that bounds
    the days read and how the worker takes them."""
    extra = None
    if source.name == LOG_SOURCE and model.manifest.memory.logs is not None:
        worker = job.worker
        extra = (worker.daily_logs, worker.budgets(job.target, model.manifest))
    bot = job.target.bot if job.platform else None
    return (source, job.platform, bot, extra)


def _section(resolver: Resolver, source: Source) -> Section | None:
    start = len(resolver.written)
    section = _source_section(resolver, source)
    if resolver.model.manifest.memory.logs is not None and source.name == LOG_SOURCE:
        section = memory_logs.attach(resolver, source, section)
    if section is None:
        return None
    return section.evolved(origins=tuple(resolver.written[start:]))


def _metacognition(resolver: Resolver, file: str | None, note: str) -> Section:
    if file is None:
        return Section(
            "metacognition",
            METACOGNITION_TAG,
            "B",
            note or METACOGNITION_NOTE,
            frontmatter.trim(builtin_metacognition()),
            (),
        )
    span = Span(resolver.model.manifest_display, key="metacognition.file")
    comments = resolver.model.manifest.project.html_comments
    text = resolver.source_text(file, span, comments)
    if text is None:
        raise HotplexError.single(f"metacognition file '{file}' does not exist", span)
    return Section("metacognition", METACOGNITION_TAG, "B", note, text, (file,))


def _source_section(resolver: Resolver, source: Source) -> Section | None:
    model = resolver.model
    base = model.source_path(source.file)
    span = Span(model.manifest_display, key=model.source_key(source, "file"))
    comments = source.html_comments or model.manifest.project.html_comments
    meta = source.frontmatter
    read_base = claude_sources.text if source.imports == "claude" else Resolver.source_text
    texts: list[tuple[str, str | None]] = [(base, read_base(resolver, base, span, comments, meta))]
    for variant in overlay_paths(model, source, resolver.job):
        texts.append((variant, resolver.source_text(variant, span, comments, meta)))
    if source.required and texts[0][1] is None:
        raise HotplexError.single(
            f"required source '{source.name}' is missing: {base} does not exist", span
        )
    present = [(path, text) for path, text in texts if text is not None]
    if model.manifest.variants.mode == "replace":
        present = present[-1:]  # the most specific file wins
    if not present:
        return None
    body = "\n\n".join(text for _, text in present if text)
    files = tuple(p for p, _ in present)
    if source.imports == "claude":
        # A user's overlaid file is data: its own @path lines are not followed.
        overlaid = resolver.inputs.overlaid
        importing = (
            "\n\n".join(text for path, text in present if text and not overlaid([path]))
            if overlaid(files)
            else None
        )
        body, files = claude_sources.entries(resolver, base, body, files, span, importing)
    return Section(source.name, source.tag, source.channel, source.note, body, files)
