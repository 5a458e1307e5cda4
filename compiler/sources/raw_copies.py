"""Where a raw copy of the rules reaches a worker's program: the instruction files it loads by
itself (``worker.OwnFiles``) beside the compiled document, unsanitized, unbudgeted, unscanned.

A program started in a target's session folder (``cwd``) reads its own files from that folder,
the folders above it and, for some, below it. ``copies`` finds, once per target, what reaches the
program beside the compiled copy: each compiled source sitting there while nothing switches the
program's loading off (or that the switch leaves on), each file a switch keeps out that the
target does not compile (it reaches the program from neither copy), each file there that
competes with the delivered document (``OwnFiles.rivals``: a copy read in its place, one it
displaces, or a second copy beside it), and the program's own files it reads that the target does
not compile. ``warnings`` (``build``, ``check``) and ``status`` (``show``, ``stats``) say what it
found, so the four never disagree.

A session folder outside the project (the way out the warnings give) is looked into too, itself
only (not the folders above it: a few stats): a file the program reads there is a raw copy, since
a session folder is where a gateway puts what the session should see. ``watched`` stamps it, so
a no-op build notices a file appearing there.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from hotplex.fs import skipped_folder
from hotplex.sources.skill_listing import SKILL_FILE

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hotplex.manifest.model import Model, Target
    from hotplex.worker import OwnFiles

WAY_OUT_CWD = 'cwd = "../session" (any folder outside the project)'
MOVE_OUT = "move them out of the session folder"
GIT = ".git"  # what makes a folder a repository's root
# Two editors read one repository: no folder of its own keeps one's placed skills from the other.
EDITORS_APART = "keep only one of the two targets in this manifest"


@dataclass(frozen=True)
class Copies:
    """What reaches a target's program beside the compiled copy, as project-relative paths."""

    program: str
    switch: str | None  # the switch launch.json sets, None while it sets none
    raw: tuple[str, ...]  # read raw too: compiled sources, and files of an outside session folder
    lost: tuple[str, ...]  # kept out by the switch, and compiled nowhere
    rivals: tuple[tuple[str, str], ...]  # competing with the document, with what happens
    uncompiled: tuple[str, ...]  # project files it reads raw that the target does not compile

    @property
    def more(self) -> bool:
        """Whether anything but the compiled copy is at stake."""
        return bool(self.raw or self.lost or self.rivals or self.uncompiled)


def copies(model: Model, target: Target) -> Copies | None:
    """What reaches ``target``'s program beside the compiled copy (None: it loads nothing by
    itself)."""
    worker = model.worker_of(target)
    own = worker.own_files
    if own is None:
        return None
    switched_off = worker.switched_off(target)
    names = own.read(switched_off)
    compiled = _compiled(model, target)
    session = model.session_dir(target)
    read = _on_disk(model, target, own, names)
    raw = (
        *(p for p in compiled if _reads(model.root, own, session, p, names)),
        *(p for p in read if _outside(p)),
    )
    rivals = tuple((p, e) for p, e in _rivals(model, target, own) if p not in raw)
    competing = {p for p, _ in rivals}
    lost: list[str] = []
    if switched_off:
        switched = tuple(n for n in own.names if n not in own.unswitched)
        lost = [p for p in _on_disk(model, target, own, switched) if not _outside(p)]
    return Copies(
        program=own.program,
        switch=own.switch if switched_off else None,
        raw=raw,
        lost=tuple(p for p in lost if p not in compiled),
        rivals=rivals,
        uncompiled=tuple(
            p for p in read if not _outside(p) and p not in compiled and p not in competing
        ),
    )


def warnings(model: Model) -> list[str]:
    """One warning per target whose program will get a raw copy, or lose a file, and one per
    file competing with the document, with the way out."""
    found = []
    for target in model.manifest.target:
        found += _warnings(model, target)
    return found


def _warnings(model: Model, target: Target) -> list[str]:
    own = model.worker_of(target).own_files
    got = copies(model, target)
    if got is None:
        return _listed_skills(model, target)
    name, program = target.name, got.program
    found = []
    if got.switch is not None and got.raw:
        found.append(
            f"target '{name}': {program} reads {_listed(got.raw)} by itself even with its switch"
            f" ({got.switch}), raw (not sanitized, budgeted or scanned), beside the compiled"
            f" copy: {_away(got.raw)}"
        )
    if got.lost:
        found.append(
            f"target '{name}': launch.json switches {program}'s own instruction files off"
            f" ({got.switch}), and the target does not compile {_listed(got.lost)}: {program}"
            " gets it from neither copy; add it to the target's sources, or set"
            ' own_instructions = "keep" on the target'
        )
    if got.switch is None and target.own_instructions is None and got.raw:
        found.append(
            f"target '{name}': {program} also reads {_listed(got.raw)} by itself from its"
            f" session folder '{model.session_dir(target)}', raw (not sanitized, budgeted or"
            " scanned),"
            f" beside the compiled copy: {_way_out(own, model, target, got.raw)}"
        )
    found += _skills_placed_beside(model, target, own.program, own.rivals)
    for path, effect in got.rivals:
        away = (
            "move it out of the session folder"
            if _outside(path)
            else f"move it, or set {WAY_OUT_CWD} on the target"
        )
        found.append(f"target '{name}': {path} {effect}; {away}")
    return found


def watched(model: Model) -> tuple[str, ...]:
    """The paths whose presence ``copies`` depends on: each file a program would read in the
    session folder and above it, each folder it globs there, each compiled source. A no-op build
    repeats the warnings only while their stamps hold (a CLAUDE.md added beside moves one)."""
    found = []
    for target in model.manifest.target:
        worker = model.worker_of(target)
        own = worker.own_files
        if own is None:  # an editor's skill folders, where it lists skills of the user's too
            found += [_stamped(pattern) for pattern in worker.skills_listed]
            for _, folder in _placed_folders(model, target):  # and each it places, a file added
                found += [folder, *(f"{folder}/{r}" for r in _walked(model.root / folder, False))]
            continue
        session = model.session_dir(target)
        for folder in _folders_up(session, own.above):
            for name in _named_in(own, own.names, folder, session):
                found.append(posixpath.normpath(posixpath.join(folder, _stamped(name))))
            if own.in_repository:  # not .git itself: each git command moves a folder's stamp
                found.append(posixpath.normpath(posixpath.join(folder, GIT, "HEAD")))
        for folder in _folders_up(model.session_dir(target), above=False):
            found += [posixpath.normpath(posixpath.join(folder, _stamped(r))) for r in own.rivals]
        found += [model.source_path(s.file) for s in model.sources_of(target)]
    return tuple(dict.fromkeys(found))


def status(model: Model, target: Target) -> str:
    """Which copies of the rules ``target``'s program gets, in one line."""
    worker = model.worker_of(target)
    got = copies(model, target)
    if got is None and worker.places:
        return f"the compiled copy at {worker.placed(target)}; {worker.places_beside}"
    if got is None:
        return "only the compiled copy: the program reads only the files hotplex writes"
    program = got.program
    if got.raw:
        parts = [f"a raw copy too: {program} reads {_listed(got.raw)} by itself"]
    elif got.switch is not None:
        also = worker.own_files.also_drops
        also = f", and with them {also}" if also else ""
        parts = [f"only the compiled copy: launch.json switches {program}'s own files off{also}"]
    elif not got.more:
        return f"only the compiled copy: no compiled source sits where {program} reads its own"
    else:
        parts = ["the compiled copy"]
    if got.uncompiled:
        parts.append(
            f"{program} also reads {_listed(got.uncompiled)} by itself, raw, which the target"
            " does not compile"
        )
    if got.lost:
        parts.append(
            f"the target does not compile {_listed(got.lost)}: {program} gets it from neither copy"
        )
    parts += [f"{path} {effect}" for path, effect in got.rivals]
    return "; ".join(parts)


def _compiled(model: Model, target: Target) -> list[str]:
    files = (model.source_path(s.file) for s in model.sources_of(target))
    return [p for p in dict.fromkeys(files) if (model.root / p).is_file()]


def _stamped(pattern: str) -> str:
    """What to stamp for a file pattern: the file, or for a glob the folder it globs in."""
    parts = pattern.split("/")
    plain = next((i for i, part in enumerate(parts) if any(c in part for c in "*?[")), len(parts))
    return "/".join(parts[:plain]) or "."


def _rivals(model: Model, target: Target, own: OwnFiles) -> list[tuple[str, str]]:
    """The files in the session folder that compete with the document, each with what
    happens: those on disk (not a skill another target placed there: the warning on the skills
    placed beside names those), and those a target of the manifest places there."""
    from hotplex.worker import PLACED_OVER

    found = []
    compiled = {f"{n}/{SKILL_FILE}" for n in _skill_names(model)}
    for folder in _folders_up(model.session_dir(target), above=False):
        base = model.root / folder
        for pattern, effect in own.rivals.items():
            paths = sorted(p for p in base.glob(pattern) if p.is_file()) if base.is_dir() else []
            for path in paths:
                rel = _in_project(folder, base, path)
                if _placed_skill(model, rel):
                    continue
                # the gateway's copy replaces a skill of the user's only where it is named like
                # a compiled one (``.factory/skills/<name>/SKILL.md``)
                named = _under(path.relative_to(base).as_posix(), _stamped(pattern))
                replaced = effect if named in compiled else effect.removesuffix(PLACED_OVER)
                found.append((rel, replaced))
            # a placed file counts before the build that writes it
            for place in (posixpath.normpath(p) for p in model.placed):
                rel = _under(place, folder)
                if rel is not None and fnmatchcase(rel, pattern):
                    found.append((place, effect))
    return list(dict.fromkeys(found))


def _skill_names(model: Model) -> list[str]:
    """The names of the project's skills, as the folders in the sources' skills folder."""
    from hotplex.sources.skills import SKILLS_FOLDER

    folder = model.root / model.source_path(SKILLS_FOLDER)
    return sorted(p.parent.name for p in folder.glob(f"*/{SKILL_FILE}")) if folder.is_dir() else []


def _placed_skill(model: Model, path: str) -> bool:
    """Whether ``path`` is a ``SKILL.md`` hotplex placed, as written, for the target of this
    manifest placing the skills in its folder (``Model.skills_placer``)."""
    from hotplex.placement import origin, read_regular

    data = read_regular(model.root / path) if posixpath.basename(path) == SKILL_FILE else None
    named = origin(data) if data is not None else None
    if named is None or named[0] != model.manifest_path.name or not named[2]:
        return False
    folder = posixpath.dirname(posixpath.dirname(path))
    return model.skills_placer(f"{folder}/{{name}}") == named[1]


def _skills_placed_beside(
    model: Model, target: Target, program: str, rivals: Mapping[str, str]
) -> list[str]:
    """A warning per folder another target places skills in (an editor's skills folder), or has
    its gateway place them in (``launch.json``'s ``files``), in ``target``'s session folder, where
    ``target``'s ``program`` lists skills too (``rivals``): it gets each skill twice. And where
    ``target`` places the skills in a folder a gateway copies them into too, one per gateway."""
    session = model.session_dir(target)
    mine = model.worker_of(target).skills
    names = _skill_names(model)
    places = mine is not None and model.skills_placer(mine.folder) == target.name
    by_folder: dict[str, list[tuple[str, str]]] = {}
    same: list[str] = []
    for other in model.manifest.target:
        worker = model.worker_of(other)
        place = worker.skills
        if other.name == target.name or not names or place is None or place.in_home:
            continue
        if model.session_dir(other) != session:
            continue
        if mine is not None and not mine.in_home and place.folder == mine.folder:
            if places and worker.headless:
                same.append(other.name)  # the folder this target places, a gateway's copies there
            continue  # the folder its own gateway, or the one target placing it, puts them in
        listed = f"{place.folder.format(name='*')}/{SKILL_FILE}"
        if any(fnmatchcase(listed, pattern) for pattern in rivals):
            where = posixpath.normpath(posixpath.join(session, place.folder.format(name="")))
            how = "has its gateway place" if worker.headless else "places"
            way = _apart(target, other, model)
            by_folder.setdefault(where, []).append((f"'{other.name}' {how}", way))
    found = [
        f"target '{target.name}': {program} also lists the skills that target {others[0][0]} in"
        f" {where}/ ({', '.join(names)}), a second copy of each; {others[0][1]}"
        for where, others in by_folder.items()
    ]
    found += [
        f"target '{target.name}': target '{other}' has its gateway place the same skills in"
        f" {mine.folder.format(name='')} as this target places there: its copies replace the"
        " placed ones, which the next build refuses to overwrite; set cwd on one of the two to"
        " a folder of its own"
        for other in same
    ]
    return found


def _apart(target: Target, other: Target, model: Model) -> str:
    """How two targets whose skills meet in one folder keep apart: a ``cwd`` of its own for a
    headless one (an editor has none), else one target only."""
    headless = [t for t in (target, other) if model.worker_of(t).headless]
    if not headless:
        return EDITORS_APART
    if len(headless) == 2:
        return "set cwd on one of the two to a folder of its own"
    return f"set cwd on target '{headless[0].name}' to a folder of its own"


def _listed_skills(model: Model, target: Target) -> list[str]:
    """For a target whose tool reads no ``own_files`` but lists skills from the repository
    (``Worker.skills_listed``: an editor's), a warning per skill of the user's own in a folder
    it lists, and per folder another target puts skills in there: each is a second copy beside
    the skills the target places (``SKILL.md`` files carrying hotplex's marker are not the
    user's: another target's, named by the second warning)."""
    from hotplex.placement import read_is_hotplex_file

    worker = model.worker_of(target)
    program = worker.verified.program if worker.verified else worker.name
    found = []
    for pattern, effect in worker.skills_listed.items():
        for path in sorted(model.root.glob(pattern)):
            rel = path.relative_to(model.root).as_posix()
            if path.is_file() and not read_is_hotplex_file(path):
                found.append(f"target '{target.name}': {rel} {effect}; move it into the sources")
    found += _skills_placed_beside(model, target, program, worker.skills_listed)
    for skill, rel in _added_to_placed(model, target):
        found.append(
            f"target '{target.name}': {rel} is not hotplex's: a file of your own in the folder"
            f" hotplex places skill '{skill}' in, which {program} takes as part of the skill,"
            f" raw (not checked or scanned); move it into the sources' skills/{skill}/"
        )
    return found


def _placed_folders(model: Model, target: Target) -> list[tuple[str, str]]:
    """Each skill's name and the repository folder ``target`` places it in, where it is the
    target that places them (``Model.skills_placer``)."""
    place = model.worker_of(target).skills
    if place is None or model.skills_placer(place.folder) != target.name:
        return []
    return [(name, place.folder.format(name=name)) for name in _skill_names(model)]


def _added_to_placed(model: Model, target: Target) -> list[tuple[str, str]]:
    """The files in a folder ``target`` places a skill in that the skill in the sources does
    not hold, with the skill's name: the user's, never written or deleted by hotplex."""
    from hotplex.sources.skills import SKILLS_FOLDER

    source = model.root / model.source_path(SKILLS_FOLDER)
    return [
        (name, f"{folder}/{rel}")
        for name, folder in _placed_folders(model, target)
        for rel in _walked(model.root / folder, True)
        if not (source / name / rel).is_file()
    ]


def _walked(base: Path, files: bool) -> list[str]:
    """The files (or the folders) below the folder ``base`` a walk of a skill reads (a hidden
    one, ``.DS_Store``, is none of it), relative to it; symlinked folders not followed."""
    found = []
    for folder, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if not skipped_folder(d)]
        found += [Path(folder, n) for n in (names if files else dirs) if not skipped_folder(n)]
    return sorted(p.relative_to(base).as_posix() for p in found)


def _in_project(folder: str, base: Path, path: Path) -> str:
    """``path``, found under ``base`` (the project's ``folder``), relative to the project."""
    return posixpath.normpath(posixpath.join(folder, path.relative_to(base).as_posix()))


def _on_disk(model: Model, target: Target, own: OwnFiles, names: tuple[str, ...]) -> list[str]:
    """The files of ``names`` the program would read from the session folder and the folders
    above it, as the project names them."""
    found = []
    session = model.session_dir(target)
    for folder in _climbed(model.root, own, session):
        base = model.root / folder
        if not base.is_dir():
            continue
        for pattern in _named_in(own, names, folder, session):
            for path in sorted(base.glob(pattern.replace("*.md", "**/*.md"))):
                rel = _in_project(folder, base, path)
                if path.is_file() and _reads(model.root, own, session, rel, names):
                    found.append(rel)
    return list(dict.fromkeys(found))


def _reads(root: Path, own: OwnFiles, session: str, path: str, names: tuple[str, ...]) -> bool:
    """Whether the program, started in ``session``, reads the file ``path`` (relative to the
    project) itself, by one of ``names``."""
    if own.blank_absent and not _holds_text(root / path):
        return False
    climbed = _climbed(root, own, session)
    for folder in climbed:
        rel = _under(path, folder)
        if rel is not None and folder == session and any(fnmatchcase(rel, s) for s in own.shadowed):
            return False
        if rel is not None and any(_named(rel, n) for n in _named_in(own, names, folder, session)):
            where = climbed if own.first_across else [folder]
            return not any(
                (root / f / b).is_file() and (not own.blank_absent or _holds_text(root / f / b))
                for f in where
                for b in _named_in(own, own.unless(rel), f, session)
            )
    above_project = all(part == ".." for part in session.split("/"))  # the project is below
    below = above_project or _under(path, session) is not None
    return own.below and below and posixpath.basename(path) in names


def _holds_text(path: Path) -> bool:
    """Whether ``path`` is a UTF-8 file holding more than white space."""
    try:
        return bool(path.read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return False


def _named_in(own: OwnFiles, names: tuple[str, ...], folder: str, session: str) -> tuple[str, ...]:
    """Those of ``names`` the program reads in ``folder``: all in the session folder, above it
    all but the ones it reads only there (``only_here``)."""
    return names if folder == session else tuple(n for n in names if n not in own.only_here)


def _climbed(root: Path, own: OwnFiles, session: str) -> list[str]:
    """The folders the program reads its own files in, from the session folder up; with
    ``in_repository``, no higher than the first holding ``.git``, and only the session folder
    when none does, in the project or above it."""
    folders = _folders_up(session, own.above)
    if not own.in_repository or _outside(session):
        return folders
    for i, folder in enumerate(folders):
        if (root / folder / GIT).exists():
            return folders[: i + 1]
    beyond = any((up / GIT).exists() for up in root.resolve().parents)
    return folders if beyond else folders[:1]


def _named(path: str, name: str) -> bool:
    """Whether ``path`` is one of the program's own files ``name``; its ``**/`` matches no
    folder too (``.claude/rules/**/*.md`` names ``.claude/rules/a.md``), as in the program."""
    return fnmatchcase(path, name) or fnmatchcase(path, name.replace("**/", ""))


def _folders_up(session: str, above: bool = True) -> list[str]:
    """The session folder and (``above``) the folders above it that lie in the project; of a
    session folder outside the project, only itself."""
    if _outside(session):
        return [session]
    folders = [session]
    while above and folders[-1] != ".":
        folders.append(posixpath.dirname(folders[-1]) or ".")
    return folders


def _under(path: str, folder: str) -> str | None:
    if folder == ".":
        return path
    return path[len(folder) + 1 :] if path.startswith(folder + "/") else None


def _outside(path: str) -> bool:
    """Whether a normalised project-relative path lies outside the project."""
    return path == ".." or path.startswith("../")


def _listed(paths: tuple[str, ...]) -> str:
    return ", ".join(paths)


def _away(paths: tuple[str, ...]) -> str:
    """How to keep ``paths`` from the program without a switch: a session folder outside the
    project, unless they are in it already."""
    return MOVE_OUT if all(map(_outside, paths)) else f"set {WAY_OUT_CWD} on the target"


def _way_out(own: OwnFiles, model: Model, target: Target, raw: tuple[str, ...]) -> str:
    session = model.session_dir(target)
    kept = tuple(p for p in raw if _reads(model.root, own, session, p, own.unswitched))
    if own.switch is None or kept == raw:
        return f"{own.program} has no switch for them; {_away(raw)}"
    if kept:
        return f"{_away(raw)} (its switch leaves {_listed(kept)} on)"
    also = f", which also drops {own.also_drops}" if own.also_drops else ""
    away = MOVE_OUT if all(map(_outside, raw)) else WAY_OUT_CWD
    return (
        f'set own_instructions = "off" on the target (launch.json then sets {own.switch}{also}),'
        f" or {away}"
    )
