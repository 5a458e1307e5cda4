"""``hotplex init``: a manifest and the five HotPlex sources that build at once, never overwriting.

Every file is created exclusively (``open(..., "x")``, OpenClaw's ``writeFileIfMissing``): a file
that already exists, even an empty one or a dangling symlink, is left exactly as it is, so running
``init`` again, or in a folder that already has some of the files, is always safe. The templates
(``scaffold_templates/``) are HotPlex's own starter files, in English; their ``{{ var }}``
placeholders are rendered at build time from the ``[vars]`` the manifest template defines.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template

import tomli_w
from hotplex import registry
from hotplex.errors import EXIT_OK, HotplexError, Problem, Span, suggest
from hotplex.manifest.model import Source, Target
from hotplex.manifest.read import MANIFEST_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

SOURCES_DIR = "agent-configs"
SOURCE_FILES = ("SOUL.md", "AGENTS.md", "SKILLS.md", "USER.md", "MEMORY.md")
MANIFEST_TEMPLATE = "hotplex.toml.in"
GITIGNORE_NAME = ".gitignore"
GITIGNORE = "# hotplex's build state: local to each checkout, never committed.\n/.hotplex/\n"

SOURCES_NOTE = """\
# Sources: without [[source]] tables each target reads its worker's default files from the
# sources folder (listed below, in output order; channel B is the <directives> a worker must
# follow, C the <context> it consults). A [[source]] with a default's name changes only the keys
# it sets (file, channel, tag, note, required, frontmatter) and makes that source every target's;
# one with a new name adds a file for every target, e.g.
#   [[source]]
#   name = "tools"
#   file = "TOOLS.md"
#   channel = "B"
#   tag = "tools"
# [project] default_sources = false drops the defaults: the [[source]] tables are then the whole
# list, in their order. Files in the sources folder that no artifact reads are warned about.
"""


@dataclass
class Scaffolded:
    """What ``init`` did, as paths relative to the project folder, in the order it tried them."""

    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # already there, left alone
    # A new target's place that holds a file of the user's: its first build stops there.
    taken: list[Problem] = field(default_factory=list)
    # For each worker asked for that the manifest, there already, has no target of: so it says.
    not_added: list[str] = field(default_factory=list)


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    """``hotplex init``: what it created and left alone, and the build to run next."""
    from hotplex.commands.invocation import command_line
    from hotplex.console import colour, warn

    folder = root / args.folder
    workers = tuple(args.worker or ()) or None
    done = scaffold(folder, manifest, workers, args.name)
    for path in done.created:
        print(f"  {colour('created', 'green')} {path}")
    for path in done.kept:
        print(f"  {colour('exists', 'dim')}  {path} (left alone)")
    for problem in done.taken:
        head, *rest = problem.render().split("\n")
        warn(head)
        sys.stderr.write("".join(f"{line}\n" for line in rest))
    for text in done.not_added:
        warn(text)
    where = [] if args.folder == "." else ["-C", args.folder]
    after = " once the place(s) above are free" if done.taken else ""
    print(
        f"hotplex: created {len(done.created)} file(s), left {len(done.kept)} alone; "
        f"next: {command_line([*where, 'build'])}{after}"
    )
    return EXIT_OK


def scaffold(
    root: Path,
    manifest: Path | None = None,
    workers: tuple[str, ...] | None = None,
    name: str | None = None,
) -> Scaffolded:
    """Write the files of a new project under ``root`` that do not exist yet; by default with
    a target of each worker that declares itself a ``scaffold_default``."""
    explicit = bool(workers)
    workers = workers or registry.scaffold_defaults()
    manifest = manifest or root / MANIFEST_NAME
    files = {manifest: render_manifest(name or _default_name(root), workers)}  # checks workers
    files.update(
        (root / SOURCES_DIR / rel, text)
        for rel, text in source_templates(workers, root / SOURCES_DIR).items()
    )
    files[root / GITIGNORE_NAME] = GITIGNORE
    done = Scaffolded()
    for path, text in files.items():
        shown = relative(path, root)
        (done.created if write_if_missing(path, text) else done.kept).append(shown)
    asked = tuple(dict.fromkeys(workers))
    if relative(manifest, root) in done.created:
        done.taken = _taken_places(root, relative(manifest, root), asked)
    elif explicit:
        done.not_added = [
            f"{relative(manifest, root)} was there already and has no target of worker '{w}':"
            f' init adds none to it (add a [[target]] with worker = "{w}")'
            for w in _without_target(manifest, asked)
        ]
    return done


def _taken_places(root: Path, display: str, workers: tuple[str, ...]) -> list[Problem]:
    """The places of the new targets where a file hotplex did not write already is (a
    repository's own ``.rules``): each as its build will refuse it, way out included."""
    from hotplex.placement import refuse_foreign

    taken = []
    for index, worker in enumerate(workers):
        declared = registry.workers()[worker]
        target = Target(declared.init_target[0], worker, options=declared.Options())
        place = declared.placed(target)
        if place is None:
            continue
        try:
            span = Span(display, key=f"target[{index}].place")
            refuse_foreign(root, place, span, None, SOURCES_DIR)
        except HotplexError as error:
            taken += error.problems
    return taken


def _without_target(manifest: Path, workers: tuple[str, ...]) -> list[str]:
    """The ``workers`` no target of the existing ``manifest`` names (init adds none to it)."""
    import tomllib

    try:
        targets = tomllib.loads(manifest.read_text(encoding="utf-8")).get("target", [])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # the build says what is wrong with it
    have = {t.get("worker") for t in targets if isinstance(t, dict)}
    return [w for w in workers if w not in have]


def render_manifest(name: str, workers: tuple[str, ...]) -> str:
    """The manifest for ``workers``; its comment lists the sources each one reads by default."""
    known = registry.workers()
    unknown = [w for w in workers if w not in known]
    if unknown:
        hint = suggest(unknown[0], known) or "workers: " + ", ".join(known)
        raise HotplexError.single(f"init knows no worker '{unknown[0]}'", hint=hint)
    workers = tuple(dict.fromkeys(workers))
    listed = "".join(
        textwrap.fill(
            ", ".join(f"{s.file} ({s.channel} <{s.tag}>)" for s in _defaults(w)),
            width=99,
            initial_indent=f"#   {w}: ",
            subsequent_indent="#     ",
        )
        + "\n"
        for w in workers
    )
    targets = "".join(_target(worker) for worker in workers)
    # The name as tomli-w writes a TOML string: a folder's name may hold DEL, which TOML needs
    # escaped and a JSON string does not escape.
    quoted = tomli_w.dumps({"name": name}).removeprefix("name = ").removesuffix("\n")
    return Template(_template(MANIFEST_TEMPLATE)).substitute(
        name=quoted, sources=SOURCES_NOTE + listed, targets=targets
    )


def _defaults(worker: str) -> tuple[Source, ...]:
    """The sources a new target of ``worker`` reads by default (its worker decides)."""
    declared = registry.workers()[worker]
    target = Target(declared.init_target[0], worker, options=declared.Options())
    return declared.default_sources(target)


def _target(worker: str) -> str:
    name, purpose = registry.workers()[worker].init_target
    return f'\n[[target]]\nname = "{name}"\nworker = "{worker}"  # {purpose}\n'


def source_templates(workers: tuple[str, ...], folder: Path) -> dict[str, str]:
    """File name in the sources folder -> text, for each default source of ``workers``: the five
    HotPlex templates, and the templates a worker brings for its other files. A file no target of
    these workers reads is not scaffolded (SKILLS.md for OpenClaw alone)."""
    wanted = list(dict.fromkeys(s.file for w in workers for s in _defaults(w)))
    theirs = {
        t.source.file: t.text for w in workers for t in registry.workers()[w].templates(folder)
    }
    texts = {rel: _template(rel) if rel in SOURCE_FILES else theirs.get(rel) for rel in wanted}
    return {rel: text for rel, text in texts.items() if text is not None}


def write_if_missing(path: Path, text: str | bytes) -> bool:
    """Create ``path`` with ``text`` (bytes: as they are); False, touching nothing, when
    something is already there."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            with open(path, "xb") as raw:
                raw.write(text)
        else:
            with open(path, "x", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
    except FileExistsError as exc:
        if exc.filename != str(path):  # a parent folder's name is taken by a file
            message = f"cannot create '{path}': '{exc.filename}' is a file"
            raise HotplexError.single(message) from None
        return False
    except OSError as exc:
        raise HotplexError.single(f"cannot create '{path}': {exc.strerror}") from None
    return True


def _template(name: str) -> str:
    folder = resources.files("hotplex.commands") / "scaffold_templates"
    return (folder / name).read_text(encoding="utf-8")


def _default_name(root: Path) -> str:
    return root.resolve().name or "agents"


def relative(path: Path, root: Path) -> str:
    """``path`` as shown to the user: relative to ``root`` when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
