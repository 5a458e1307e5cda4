"""Agent Skills a repository keeps where its programs load them (``.claude/skills/<name>/``,
``.agents/skills/<name>/``, ``.cursor/skills/<name>/``… every folder ``folders`` names): each is
adopted into the sources folder's ``skills/<name>/``, copied whole (SKILL.md and its resources),
where the build checks, scans and ships it to every program that loads skills.

A skill the build would refuse is left out here, named with why: no SKILL.md, a name that is not
the folder's or breaks the specification's rules, a symlink or special file in it (a skill ships
its own files, whole). Two folders of one name (letter case and Unicode composition aside) are
one skill when they hold the same files, else an error naming both: hotplex cannot tell which
one the user means. Hidden files and ``node_modules/`` are no part of a skill, as in the build.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from hotplex.errors import HotplexError, Problem, Span
from hotplex.fs import file_kind, folded, kind_of, skipped_folder
from hotplex.importing.found import Found, Skip, read
from hotplex.placement import read_is_hotplex_file
from hotplex.sources.skill_listing import SKILL_FILE
from hotplex.sources.skill_names import misnamed, one_name_apart

KIND = "Agent Skills"
# How a one-copy ``rivals`` glob names a folder of skills: its skills, or also deeper ones.
LISTED = re.compile(r"(.+)/\*{1,2}/SKILL\.md")


def folders() -> tuple[str, ...]:
    """Where the programs hotplex serves load a project's skills, relative to the folder they
    run in, each read: the one list the one-copy rules hold (each worker's ``SkillsPlace`` in
    the session folder, the skill folders its ``OwnFiles.rivals`` or ``skills_listed`` name),
    in registry order (Claude Code's first)."""
    from hotplex import registry

    found = []
    for worker in registry.workers().values():
        place = worker.skills
        if place is not None and not place.in_home:
            found.append(posixpath.dirname(place.folder))
        own = worker.own_files.rivals if worker.own_files is not None else {}
        listed = (LISTED.fullmatch(p) for p in (*own, *worker.skills_listed))
        found += [m.group(1) for m in listed if m is not None]
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class Folder:
    """A skill folder found: its name, where it is, and its files (relative, '/'-separated)."""

    name: str
    origin: Path
    files: tuple[str, ...]
    # The folders of its name (letter case and Unicode composition aside) that hold other files:
    # which one the user means, hotplex cannot tell (``refuse_clashes``).
    rivals: tuple[Path, ...] = ()


def find(root: Path, where_from: tuple[str, ...] | None = None) -> Found | None:
    """The skills under ``root`` of every folder a program lists (``folders()``), or of
    ``where_from`` (a program's own list: OpenClaw's workspace ``skills``), and the folders
    there left out, with why."""
    found = Found(KIND, root)
    seen: dict[str, Folder] = {}
    rivals: dict[str, list[Path]] = {}
    for where in folders() if where_from is None else where_from:
        folder = root / where
        if folder.is_symlink():
            found.skipped.append(Skip(folder, "a symlink: skills are copied from their own folder"))
            continue
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir(), key=lambda p: p.name):
            if skipped_folder(path.name):
                continue
            if not path.is_dir():
                found.skipped.append(Skip(path, "not a skill folder: a skill is a folder"))
                continue
            if read_is_hotplex_file(path / SKILL_FILE):  # an editor target's: its own output
                found.skipped.append(Skip(path, "written by hotplex build (a placed skill)"))
                continue
            why, files = _refused(path)
            if why is not None:
                found.skipped.append(Skip(path, why))
                continue
            skill = Folder(path.name, path, files)
            first = seen.setdefault(folded(path.name), skill)
            if first is skill:
                continue
            if _same(first, skill):
                found.skipped.append(Skip(path, f"the same skill as {first.origin} (imported)"))
            else:
                rivals.setdefault(folded(path.name), []).append(path)
    found.skills = [replace(s, rivals=tuple(rivals.get(k, ()))) for k, s in seen.items()]
    return found if found.skills or found.skipped else None


def refuse_clashes(skills: list[Folder], adopted: Callable[[Folder], bool]) -> list[str]:
    """An error naming each skill found in two folders with other files, unless it was
    ``adopted`` before (its ``skills/<name>/`` there: import leaves that as it is, so which
    copy is meant no longer matters, and a note says they differ)."""
    clashes = [
        Problem(
            f"two skills named '{s.name}' with other files: {s.origin} and {other}; one name is"
            " one skill",
            Span(str(other)),
        )
        for s in skills
        if not adopted(s)
        for other in s.rivals
    ]
    if clashes:
        hint = "rename one (its folder and its name:), or import the other by naming it"
        raise HotplexError([*clashes[:-1], clashes[-1].replace(hint=hint)])
    return [
        f"skill '{s.name}': {s.origin} and {', '.join(map(str, s.rivals))} differ; it was"
        " adopted before, and import leaves its copy in the sources as it is"
        for s in skills
        if s.rivals
    ]


def _refused(folder: Path) -> tuple[str | None, tuple[str, ...]]:
    """Why the build would refuse the skill in ``folder`` (None: it would not), and its files."""
    from hotplex.sources.skills import aliases, check_meta

    if folder.is_symlink():
        return "a symlink: a skill ships its own files, copied whole", ()
    skill_md = folder / SKILL_FILE
    if not skill_md.is_file():
        return f"no {SKILL_FILE}: no skill", ()
    try:
        text = read(skill_md)
    except HotplexError as error:
        return f"{SKILL_FILE}: {error.problems[0].message}", ()
    if text.broken:
        return f"{SKILL_FILE}: its frontmatter does not read as YAML", ()
    body_line = text.header.count("\n") + 1
    problems = aliases(text.header, body_line, str(skill_md))
    problems += check_meta(text.meta, folder.name, str(skill_md), text.header)
    refused = next(iter(problems), None)
    if refused is not None:  # as the build would say it, after the file
        message = refused.message.removeprefix(f"{SKILL_FILE} ")
        return f"{SKILL_FILE}: {message}", ()
    files = []
    for dirpath, subfolders, names in os.walk(folder):
        subfolders[:] = sorted(s for s in subfolders if not skipped_folder(s))
        for entry in [*subfolders, *sorted(n for n in names if not n.startswith("."))]:
            path = Path(dirpath) / entry
            mode = kind_of(path)
            if path.is_symlink() or mode is None or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                what = "a symlink" if path.is_symlink() else file_kind(mode or 0)
                rel = path.relative_to(folder).as_posix()
                return f"{rel} is {what}: a skill ships its own files, whole", ()
            if stat.S_ISREG(mode):
                files.append(path.relative_to(folder).as_posix())
    named = [misnamed(part, f) for f in files for part in f.split("/")]
    named += one_name_apart(str(folder), files)
    wrong = next((p for p in named if p is not None), None)
    if wrong is not None:  # a name the build refuses: the gateway could not place it
        return f"{wrong.span.file}: {wrong.message}".removeprefix(f"{folder}/"), ()
    return None, tuple(sorted(files))


def _same(one: Folder, other: Folder) -> bool:
    """Whether two skill folders hold the same files, byte for byte."""
    return one.files == other.files and all(
        (one.origin / f).read_bytes() == (other.origin / f).read_bytes() for f in one.files
    )


def is_script(folder: Path, file: str) -> bool:
    """A script as the build tells one: under ``scripts/``, or starting with ``#!``."""
    from hotplex.sources.skills import SCRIPTS_FOLDER

    if file.startswith(SCRIPTS_FOLDER + "/"):
        return True
    with open(folder / file, "rb") as handle:
        return handle.read(2) == b"#!"
