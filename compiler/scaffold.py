"""``hotplex init``: a manifest and the five HotPlex sources that build at once, never overwriting.

Every file is created exclusively (``open(..., "x")``, OpenClaw's ``writeFileIfMissing``): a file
that already exists, even an empty one or a dangling symlink, is left exactly as it is, so running
``init`` again, or in a folder that already has some of the files, is always safe. The templates
(``scaffold_templates/``) are the HotPlex design's (seed §9) in English; their ``{{ var }}``
placeholders are rendered at build time from the ``[vars]`` the manifest template defines.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template

from .errors import HotplexError
from .model import Source, Target

SOURCES_DIR = "agent-configs"
SOURCE_FILES = ("SOUL.md", "AGENTS.md", "SKILLS.md", "USER.md", "MEMORY.md")
MANIFEST_TEMPLATE = "hotplex.toml.in"
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

# The target each worker gets in a new manifest: (target name, what its artifact is for).
WORKER_TARGETS = {
    "claude-code": ("cc", "prompt.xml for `claude --append-system-prompt-file`, and launch.json"),
    "opencode-server": ("ocs", "payload.json: a body for POST /session/{id}/message"),
    "openclaw": ("claw", "the workspace files OpenClaw reads, and the context it will build"),
}
DEFAULT_WORKERS = ("claude-code", "opencode-server")


@dataclass
class Scaffolded:
    """What ``init`` did, as paths relative to the project folder, in the order it tried them."""

    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # already there, left alone


def scaffold(
    root: Path,
    manifest: Path | None = None,
    workers: tuple[str, ...] = DEFAULT_WORKERS,
    name: str | None = None,
) -> Scaffolded:
    """Write the files of a new project under ``root`` that do not exist yet."""
    manifest = manifest or root / "hotplex.toml"
    files = {manifest: render_manifest(name or _default_name(root), workers)}  # checks workers
    sources = source_templates(workers, root / SOURCES_DIR)
    files.update((root / SOURCES_DIR / rel, text) for rel, text in sources.items())
    files[root / ".gitignore"] = GITIGNORE
    done = Scaffolded()
    for path, text in files.items():
        shown = relative(path, root)
        (done.created if write_if_missing(path, text) else done.kept).append(shown)
    return done


def render_manifest(name: str, workers: tuple[str, ...]) -> str:
    """The manifest for ``workers``; its comment lists the sources each one reads by default."""
    unknown = [w for w in workers if w not in WORKER_TARGETS]
    if unknown:
        from .errors import suggest

        hint = suggest(unknown[0], WORKER_TARGETS) or "workers: " + ", ".join(WORKER_TARGETS)
        raise HotplexError.single(f"init knows no worker '{unknown[0]}'", hint=hint)
    workers = tuple(dict.fromkeys(workers))
    import textwrap

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
    # A JSON string is a valid TOML basic string (quotes, backslashes, control chars escaped).
    return Template(_template(MANIFEST_TEMPLATE)).substitute(
        name=json.dumps(name, ensure_ascii=False), sources=SOURCES_NOTE + listed, targets=targets
    )


def _defaults(worker: str) -> tuple[Source, ...]:
    """The sources a new target of ``worker`` reads by default (its worker decides)."""
    from hotplex.targets import WORKERS

    name = WORKER_TARGETS[worker][0]
    return WORKERS[worker].default_sources(Target(name, worker))


def _target(worker: str) -> str:
    name, purpose = WORKER_TARGETS[worker]
    return f'\n[[target]]\nname = "{name}"\nworker = "{worker}"  # {purpose}\n'


def source_templates(workers: tuple[str, ...], folder: Path) -> dict[str, str]:
    """File name in the sources folder -> text, for each default source of ``workers``: the
    five HotPlex templates, and the workspace templates of OpenClaw's other files. A file no
    target of these workers reads is not scaffolded (SKILLS.md for OpenClaw alone)."""
    wanted = list(dict.fromkeys(s.file for w in workers for s in _defaults(w)))
    files = {rel: _template(rel) for rel in wanted if rel in SOURCE_FILES}
    if any(rel not in SOURCE_FILES for rel in wanted):
        theirs = _openclaw_templates(folder)
        files.update((rel, theirs[rel]) for rel in wanted if rel in theirs and rel not in files)
    return {rel: files[rel] for rel in wanted if rel in files}


def _openclaw_templates(folder: Path) -> dict[str, str]:
    """OpenClaw's workspace templates, owned by its worker; imported only when asked for.

    Its first-run BOOTSTRAP.md belongs only in a brand-new folder: one with none of the files yet.
    """
    try:
        from hotplex.targets.openclaw_templates import TEMPLATES, workspace_templates
    except ImportError:
        raise HotplexError.single(
            "this hotplex has no OpenClaw workspace templates (hotplex.targets.openclaw_templates)"
        ) from None
    brand_new = not any(os.path.lexists(folder / t.file) for t in TEMPLATES)
    return workspace_templates(brand_new=brand_new)


def write_if_missing(path: Path, text: str) -> bool:
    """Create ``path`` with ``text``; False, touching nothing, when something is already there."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
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
    return (resources.files("hotplex") / "scaffold_templates" / name).read_text(encoding="utf-8")


def _default_name(root: Path) -> str:
    return root.resolve().name or "agents"


def relative(path: Path, root: Path) -> str:
    """``path`` as shown to the user: relative to ``root`` when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
