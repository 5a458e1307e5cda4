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

import tomli_w

from .errors import HotplexError

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

# The target each worker gets in a new manifest: (target name, what its artifact is for).
WORKER_TARGETS = {
    "claude-code": ("cc", "prompt.xml for `claude --append-system-prompt-file`, and launch.json"),
    "opencode-server": ("ocs", "payload.json: a body for POST /session/{id}/message"),
    "openclaw": ("claw", "the workspace files OpenClaw reads, and the context it will build"),
    "codex": ("codex", "prompt.xml as Codex's developer_instructions: codex-home/config.toml"),
    "gemini-cli": ("gemini", "prompt.xml as gemini-home/.gemini/GEMINI.md, as Gemini sends it"),
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
    sources = source_templates(workers, root / SOURCES_DIR)
    files = {manifest: render_manifest(name or _default_name(root), workers, tuple(sources))}
    files.update((root / SOURCES_DIR / rel, text) for rel, text in sources.items())
    files[root / ".gitignore"] = GITIGNORE
    done = Scaffolded()
    for path, text in files.items():
        shown = relative(path, root)
        (done.created if write_if_missing(path, text) else done.kept).append(shown)
    return done


def render_manifest(name: str, workers: tuple[str, ...], files: tuple[str, ...]) -> str:
    """The manifest for ``workers``, its sources being ``files`` (names in the sources folder)."""
    unknown = [w for w in workers if w not in WORKER_TARGETS]
    if unknown:
        raise HotplexError.single(
            f"init knows no worker '{unknown[0]}'", hint="workers: " + ", ".join(WORKER_TARGETS)
        )
    sources = _declared_sources(files)
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


def _declared_sources(files: tuple[str, ...]) -> list[dict[str, str]] | None:
    """[[source]] tables, needed only when files beyond the five built-in sources are scaffolded.

    Those come from OpenClaw, whose workspace holds more files (IDENTITY.md, TOOLS.md, ...); each
    of its templates says how to declare it.
    """
    extra = [f for f in files if f not in SOURCE_FILES]
    if not extra:
        return None
    from hotplex.targets.openclaw_templates import TEMPLATES

    from .model import Manifest

    builtin = [(s.name, s.file, s.channel, s.tag, s.note) for s in Manifest().source]
    theirs = [(t.source, t.file, t.channel, t.tag, t.note) for t in TEMPLATES if t.file in extra]
    keys = ("name", "file", "channel", "tag", "note")
    return [dict(zip(keys, source, strict=True)) for source in (*builtin, *theirs)]


def _target(worker: str, sources: list[dict[str, str]] | None) -> str:
    """A [[target]] table; with OpenClaw's files declared, each worker keeps the files it reads."""
    name, purpose = WORKER_TARGETS[worker]
    table = f'\n[[target]]\nname = "{name}"\nworker = "{worker}"  # {purpose}\n'
    if sources is None:
        return table
    reads = _openclaw_reads() if worker == "openclaw" else SOURCE_FILES
    keep = [s["name"] for s in sources if s["file"] in reads]
    return table + f"keep = {json.dumps(keep)}\n"


def _openclaw_reads() -> tuple[str, ...]:
    """The files OpenClaw injects by default; it would only warn about the others."""
    from hotplex.targets.openclaw import DEFAULT_COMPAT
    from hotplex.targets.openclaw_context import BOOTSTRAP_FILES

    return BOOTSTRAP_FILES[DEFAULT_COMPAT]


def source_templates(workers: tuple[str, ...], folder: Path) -> dict[str, str]:
    """File name in the sources folder -> text: the five sources, plus OpenClaw's own files."""
    files = {rel: _template(rel) for rel in SOURCE_FILES}
    if "openclaw" in workers:
        for rel, text in _openclaw_templates(folder).items():
            files.setdefault(rel, text)
    return files


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
