"""``hotplex init``: a manifest and the five HotPlex sources that build at once, never overwriting.

Every file is created exclusively (``open(..., "x")``, OpenClaw's ``writeFileIfMissing``): a file
that already exists, even an empty one or a dangling symlink, is left exactly as it is, so running
``init`` again, or in a folder that already has some of the files, is always safe. The templates
(``scaffold_templates/``) are the HotPlex design's (seed §9) in English; their ``{{ var }}``
placeholders are rendered at build time from the ``[vars]`` the manifest template defines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template

import tomli_w
from hotplex.targets import WORKERS

from .errors import HotplexError
from .manifest import MANIFEST_NAME
from .worker import SourceTemplate

SOURCES_DIR = "agent-configs"
SOURCE_FILES = ("SOUL.md", "AGENTS.md", "SKILLS.md", "USER.md", "MEMORY.md")
MANIFEST_TEMPLATE = "hotplex.toml.in"
GITIGNORE = "# hotplex's build state: local to each checkout, never committed.\n/.hotplex/\n"

BUILTIN_SOURCES_NOTE = """\
# The five sources are built in, in this order: SOUL.md, AGENTS.md, SKILLS.md (channel B, the
# <directives> the worker must follow) and USER.md, MEMORY.md (channel C, <context> to consult).
# Declare [[source]] tables to change their order, tags or notes, or to add files.
"""
DECLARED_SOURCES_NOTE = """\
# The sources, in output order: channel B is the <directives> a worker must follow, channel C the
# <context> it consults. OpenClaw's workspace has more files than HotPlex's five, so all are
# declared here, and each target keeps the ones its worker reads.
"""

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
    manifest = manifest or root / MANIFEST_NAME
    _check_workers(workers)
    extra = _worker_templates(workers, root / SOURCES_DIR)
    files = {manifest: render_manifest(name or _default_name(root), workers, extra)}
    files.update((root / SOURCES_DIR / rel, _template(rel)) for rel in SOURCE_FILES)
    files.update((root / SOURCES_DIR / t.source.file, t.text) for t in extra)
    files[root / ".gitignore"] = GITIGNORE
    done = Scaffolded()
    for path, text in files.items():
        shown = relative(path, root)
        (done.created if write_if_missing(path, text) else done.kept).append(shown)
    return done


def _check_workers(workers: tuple[str, ...]) -> None:
    unknown = [w for w in workers if w not in WORKERS]
    if unknown:
        raise HotplexError.single(
            f"init knows no worker '{unknown[0]}'", hint="workers: " + ", ".join(WORKERS)
        )


def render_manifest(
    name: str, workers: tuple[str, ...], extra: tuple[SourceTemplate, ...] = ()
) -> str:
    """The manifest for ``workers``; ``extra`` are the workers' own source files beyond the five."""
    _check_workers(workers)
    sources = _declared_sources(extra)
    targets = "".join(_target(worker, sources) for worker in dict.fromkeys(workers))
    declared = (
        BUILTIN_SOURCES_NOTE
        if sources is None
        else DECLARED_SOURCES_NOTE + "\n" + tomli_w.dumps({"source": sources})
    )
    # A JSON string is a valid TOML basic string (quotes, backslashes, control chars escaped).
    return Template(_template(MANIFEST_TEMPLATE)).substitute(
        name=json.dumps(name, ensure_ascii=False), sources=declared, targets=targets
    )


def _declared_sources(extra: tuple[SourceTemplate, ...]) -> list[dict[str, str]] | None:
    """[[source]] tables, needed only when a worker scaffolds files beyond the five built-in
    sources (OpenClaw's workspace holds IDENTITY.md, TOOLS.md, ...)."""
    if not extra:
        return None
    from .model import Manifest

    declared = [*Manifest().source, *(t.source for t in extra)]
    return [
        {"name": s.name, "file": s.file, "channel": s.channel, "tag": s.tag, "note": s.note}
        for s in declared
    ]


def _target(worker: str, sources: list[dict[str, str]] | None) -> str:
    """A [[target]] table; with extra files declared, each worker keeps the files it reads."""
    name, purpose = WORKERS[worker].init_target
    table = f'\n[[target]]\nname = "{name}"\nworker = "{worker}"  # {purpose}\n'
    if sources is None:
        return table
    from .model import Target

    reads = WORKERS[worker].reads(Target(name, worker, options=WORKERS[worker].Options()))
    reads = reads if reads is not None else SOURCE_FILES
    keep = [s["name"] for s in sources if s["file"] in reads]
    return table + f"keep = {json.dumps(keep)}\n"


def _worker_templates(workers: tuple[str, ...], folder: Path) -> tuple[SourceTemplate, ...]:
    """Each worker's own source files beyond the five, first worker first, each file once."""
    seen = set(SOURCE_FILES)
    found = []
    for worker in dict.fromkeys(workers):
        for template in WORKERS[worker].templates(folder):
            if template.source.file not in seen:
                seen.add(template.source.file)
                found.append(template)
    return tuple(found)


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
