"""Where a manifest's paths may lead: inside the project, never escaping it with '..', with
names a file system takes, one file per name in any letter case; and where a placed file
(``Worker.placed``) may land among the user's files."""

from __future__ import annotations

import fnmatch
import posixpath
import typing

from hotplex import registry
from hotplex.fs import NAME_MAX, STATE_DIR
from hotplex.fs import folded as folded_name
from hotplex.manifest.model import Manifest, Source
from hotplex.manifest.source_rule import folded


def claim(taken: dict[str, str], name: str, owner: str) -> str | None:
    """Who claimed ``name`` (a file or folder name) before ``owner``, in any letter case or
    Unicode normalisation, or None and ``owner`` claims it: two names differing only in those
    are one file on a case-insensitive file system (macOS, Windows; macOS also composes ``é``)."""
    key = folded_name(name)
    if key in taken:
        return taken[key]
    taken[key] = owner
    return None


def check_path_key(
    value: str, key: str, bad: typing.Callable[..., None], within: str = "project"
) -> None:
    """A relative path inside the project (``within``: or inside a package's repository)."""
    posix = value.replace("\\", "/")
    start = "the manifest" if within == "project" else f"the {within}'s top"
    if "\0" in value:
        bad(key, f"path {value!r} contains a NUL character")
    elif posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        bad(key, f"absolute path '{value}' is not allowed", f"name folders relative to {start}")
    elif escapes(posix):
        bad(key, f"path '{value}' escapes the {within} with '..'")
    elif (longest := _longest_name(posix)) > NAME_MAX:
        bad(
            key,
            f"path '{value}' has a name of {longest} bytes: no file system takes one over"
            f" {NAME_MAX}",
        )


def _longest_name(posix: str) -> int:
    """The bytes of the longest file or folder name on the path (UTF-8, as written on disk)."""
    return max(len(name.encode("utf-8", "surrogateescape")) for name in posix.split("/"))


def escapes(posix: str) -> bool:
    """Whether a relative path leads out of the project once normalised (``dist/../out2`` does
    not)."""
    normal = posixpath.normpath(posix)
    return normal == ".." or normal.startswith("../")


def check_source_file(sources: str, file: str, key: str, bad: typing.Callable[..., None]) -> None:
    """A source file may sit outside the sources folder (``../CLAUDE.md``, a file used where it
    is), but never outside the project; the read still confines symlinks to the project."""
    joined = posixpath.join(sources.replace("\\", "/"), file.replace("\\", "/"))
    if ".." in file.replace("\\", "/").split("/") and "\0" not in file and not file.startswith("/"):
        if escapes(joined):
            bad(key, f"path '{file}' escapes the project with '..'")
        return
    check_path_key(file, key, bad)


def same_or_inside(inner: str, outer: str) -> bool:
    inner_parts = [p for p in posixpath.normpath(inner.replace("\\", "/")).split("/") if p != "."]
    outer_parts = [p for p in posixpath.normpath(outer.replace("\\", "/")).split("/") if p != "."]
    return inner_parts[: len(outer_parts)] == outer_parts


def validate_places(
    manifest: Manifest, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    """A placed file (``Worker.placed``) lands among the user's files: never on a file the
    build reads (the next ``import`` or build would read hotplex's output back), never in
    ``out`` or the build state, never where another target places, and for one job only."""
    project = manifest.project
    folder = posixpath.normpath(project.sources.replace("\\", "/"))
    read = {
        folded(posixpath.join(folder, name)): source.name
        for source in sources
        for name in (
            source.file,
            *(manifest.variants.file(source.file, p) for p in manifest.variants.platforms),
        )
    }
    logs = manifest.memory.logs
    taken: dict[str, str] = {}
    for index, target in enumerate(manifest.target):
        worker = registry.get(target.worker)
        place = worker.placed(target) if worker is not None else None
        if place is None:
            continue
        key = f"target[{index}]"
        check_path_key(place, f"{key}.place", bad)
        if posixpath.normpath(place) in (".", "") or escapes(place):
            continue
        inside = next((f for f in (project.out, STATE_DIR) if same_or_inside(place, f)), None)
        if inside is not None:
            bad(
                f"{key}.place",
                f"'{place}' is inside '{inside}': a placed file goes where the editor reads it,"
                " beside the user's files",
            )
        elif folded(place) in read:
            bad(
                f"{key}.place",
                f"'{place}' is the file of source '{read[folded(place)]}': hotplex would"
                " read its own output back",
                "to let hotplex write it, move the source to another file (`hotplex import --copy`"
                " copies it into agent-configs/) and delete this one; or set place elsewhere",
            )
        elif logs is not None and fnmatch.fnmatchcase(
            place, posixpath.normpath(posixpath.join(folder, logs))
        ):
            bad(f"{key}.place", f"'{place}' matches [memory] logs: hotplex would read it back")
        elif folder != "." and same_or_inside(place, folder):
            bad(
                f"{key}.place",
                f"'{place}' is inside the sources folder '{project.sources}', where every file"
                " is a source",
            )
        elif (other := claim(taken, place, target.name)) is not None:
            bad(f"{key}.place", f"'{place}' is placed by target '{other}' too")
        if target.platforms:
            bad(
                f"{key}.platforms",
                f"worker '{target.worker}' writes one file per repository, '{place}':"
                " only the base artifact is placed",
                "remove platforms (its platforms are not built)",
            )
        if not target.base:
            bad(
                f"{key}.base",
                f"worker '{target.worker}' places the base artifact: base = false builds nothing",
            )
        if target.bot is not None:
            bad(
                f"{key}.bot",
                f"worker '{target.worker}' writes one file per repository, '{place}': a bot"
                " overlay (<platform>/<bot>/) is read by no artifact of it",
                "remove bot; a bot's text reaches a target that builds its platform",
            )
