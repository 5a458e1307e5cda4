"""Files in the sources folder that no artifact reads: reported on every build and check.

A file the user wrote and no artifact reads is either a mistake (``SOUL.slak.md``, a folder for
an undeclared platform, a suffix variant left behind after switching ``layout``) or kept on
purpose; hotplex cannot tell, so it says which files and, where the name is close to a platform,
bot or source, what was probably meant. ``[project] ignore`` (globs relative to the sources
folder) silences files kept on purpose; nothing else is exempt but the folders no walk of the
user's files enters (``fs.skipped_folder``: hidden ones, ``node_modules``).

The build feeds this module the paths every planned job consulted (the build log's ``inputs``)
and a listing of the sources folder. The listing also returns the folders it walked: their
stamps go into the build's snapshot, so a no-op build notices a new file by a stat per folder.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hotplex import registry
from hotplex.errors import HotplexError, suggest
from hotplex.fs import file_kind, skipped_folder
from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Limits, Model
from hotplex.manifest.vocabulary import DAY_FORMS
from hotplex.sources.compacted import (
    ARCHIVE_FOLDER,
    COMMAND,
    COMPACTED_FOLDER,
    HISTORY_FOLDER,
    covered,
    day_date,
    folder_of,
    months_in,
    past_age,
    still_covered,
)
from hotplex.sources.frontmatter import decode, strip
from hotplex.sources.logs import (
    days_among,
    days_glob,
    in_glob,
    is_day_of,
    list_folder,
    matching,
)
from hotplex.sources.unread_why import all_worker_defaults, why

# The kinds of file a source can be: with ``sources = "."`` (the whole project, as ``import``
# writes) only these are reported unread, not a repository's code, README images or lock files.
SOURCE_SUFFIXES = (".md", ".mdc", ".markdown")


def may_be_source(model: Model, path: str) -> bool:
    """Whether a new or unread file at ``path`` can be a source of this project: anything in a
    dedicated sources folder; in a project that is its own sources folder, a Markdown file or
    one the ``[memory] logs`` glob matches; never one in a folder ``listing`` leaves out."""
    if model.sources_dir != ".":
        if not _inside(path, model.sources_dir):
            return False
        below = path[len(model.sources_dir) + 1 :]
        return not any(skipped_folder(part) for part in below.split("/")[:-1])
    if any(skipped_folder(part) for part in path.split("/")[:-1]):
        return False
    glob = days_glob(model)
    return path.lower().endswith(SOURCE_SUFFIXES) or (glob is not None and in_glob(glob, path))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(f"{folder}/")


@dataclass(frozen=True)
class Listing:
    files: tuple[str, ...]  # project-relative paths, sorted
    folders: tuple[str, ...]  # every folder walked, the sources folder first
    # The files whose folder entry is no regular file (a symlink, a FIFO): only a stat says
    # what they are.
    irregular: frozenset[str] = frozenset()


def listing(model: Model, own: set[str]) -> Listing:
    """Every file under the sources folder but hidden ones (``.git``) and vendored folders
    (``node_modules``, ``fs.skipped_folder``), the artifact folder, the
    files hotplex wrote (``own``: those of an earlier ``out`` too), the manifest and hotplex's
    state, which can sit there when the sources folder is the project; there, only files that
    ``may_be_source``."""
    skip = {model.out_dir, os.path.relpath(model.manifest_path, model.root), *own}
    # The walk enters no skipped folder: in a sources folder of its own, every file may be one.
    dedicated = model.sources_dir != "."
    files: list[str] = []
    folders: list[str] = []
    irregular: set[str] = set()
    pending = [model.sources_dir]
    while pending:
        folder = pending.pop()
        folders.append(folder)
        try:
            with os.scandir(model.root / folder) as entries:
                found = [(e.name, _kind(e)) for e in entries]
        except OSError:
            continue
        for name, kind in found:
            path = posixpath.normpath(posixpath.join(folder, name))
            if name.startswith(".") or path in skip:
                continue
            if kind == "folder":
                if not skipped_folder(name):
                    pending.append(path)
            elif dedicated or may_be_source(model, path):
                files.append(path)
                if kind != "file":
                    irregular.add(path)
    return Listing(tuple(sorted(files)), tuple(folders), frozenset(irregular))


def _kind(entry: os.DirEntry[str]) -> str:
    """A folder entry as its type says, without a stat where the folder's listing has it:
    "folder", "file" (regular) or "other" (a symlink, a FIFO)."""
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    return "file" if entry.is_file(follow_symlinks=False) else "other"


def after_build(
    model: Model, planned: list[Job], read: dict[str, dict[str, str | None]], own: set[str]
) -> tuple[list[str], tuple[str, ...]]:
    """The warnings for the files no planned job read (``own``: the artifacts hotplex wrote,
    which are no sources), and the folders walked (their stamps let the next no-op build
    notice a new file). Nothing is said when some planned job was never built (``build
    TARGET``): what it would read is unknown."""
    if any(job.id not in read for job in planned):
        return [], ()
    found = listing(model, own)
    consulted = {path for inputs in read.values() for path in inputs}
    present = {p for inputs in read.values() for p, digest in inputs.items() if digest is not None}
    files = {*found.files, *(p for p in present if not p.endswith("/")), model.manifest_display}
    allow_warnings = _unmatched_allow_files(model, files)
    warnings = report(model, found, consulted, present) + allow_warnings + _unapplied_limits(model)
    return warnings, found.folders


def _unapplied_limits(model: Model) -> list[str]:
    """``[limits]`` set in a project none of whose targets is cut by them (OpenClaw only): one
    warning naming the keys and the budgets that apply instead."""
    manifest = model.manifest
    written = [
        f"limits.{field.name}"
        for field in attrs.fields(Limits)
        if getattr(manifest.limits, field.name) != field.default
    ]
    own = {getattr(registry.get(t.worker), "own_limits", None) for t in manifest.target}
    if not written or not manifest.target or None in own:
        return []
    return [
        f"{model.manifest_display}: {', '.join(written)}: [limits] cut no target here;"
        f" {' and '.join(sorted(w for w in own if w))} apply instead"
    ]


def report(model: Model, found: Listing, read: set[str], present: set[str]) -> list[str]:
    """One warning per file that no artifact read and no ``ignore`` pattern names; one in all
    when no artifact read a file (``present``: read and there) in the sources folder, which
    is then probably not the folder meant. Hidden files count there, unlisted as they are."""
    sources_dir = model.sources_dir
    if not any(sources_dir == "." or p.startswith(f"{sources_dir}/") for p in present):
        return [
            f"no artifact reads any file of the sources folder '{sources_dir}': the artifacts hold"
            " none of your text" + ("" if found.files else " (the folder is empty)")
        ]
    patterns = {p: _glob(p) for p in model.manifest.project.ignore}
    used: set[str] = set()
    unread = []
    glob = days_glob(model)
    if glob is not None and f"{posixpath.dirname(glob)}/" in read:  # its days were listed
        read = read | days_among(glob, found.files)
    read = read | _linked(model.root, [f for f in found.files if f not in read], read)
    kept = _kept_unread(glob)
    for path in found.files:
        rel = _relative(path, sources_dir)
        prefixes = _prefixes(rel) if patterns else ()
        matching = [p for p, rx in patterns.items() if any(rx.fullmatch(r) for r in prefixes)]
        used.update(matching)
        if path in read or matching or path.startswith(kept):
            continue
        if glob is not None and is_day_of(glob, path):
            # A day the logs read, or left unread for lack of room (reported as dropped).
            if f"{posixpath.dirname(glob)}/" not in read:
                unread.append(
                    f"{path} is read by no artifact: a day, but no target keeps the 'memory'"
                    " source that days join"
                )
        elif glob is not None and in_glob(glob, path):
            unread.append(
                f"{path} matches memory.logs '{model.manifest.memory.logs}' but is not a day"
                f" (a day is named by its date: {DAY_FORMS}): not read"
            )
        else:
            unread.append(f"{path} is read by no artifact" + why(model, rel))
    if unread:
        unread.append(
            f"{len(unread)} file(s) under '{sources_dir}/' are read by no artifact; list files"
            ' kept on purpose in [project] ignore = ["drafts/**", ...] (globs in that folder)'
        )
    return (
        _declared_but_absent(model, present)
        + _absent_logs_folder(model, found)
        + _uncompacted(model)
        + _unreadable_days(model, found)
        + _unmatched(model, found, used)
        + unread
    )


def _kept_unread(glob: str | None) -> tuple[str, ...]:
    """The folders beside the days that no artifact reads on purpose (``compacted.py``): the
    months' history and the archived days. Their files are never reported unread."""
    if glob is None:
        return ()
    logs = posixpath.dirname(glob)
    return tuple(f"{folder_of(logs, kind)}/" for kind in (HISTORY_FOLDER, ARCHIVE_FOLDER))


def _uncompacted(model: Model) -> list[str]:
    """Days past ``[memory] compact_after_days`` that no compacted month covers as they are
    now: one warning naming the command that folds them (a build never does)."""
    glob = days_glob(model)
    after = model.manifest.memory.compact_after_days
    if glob is None or after is None:
        return []
    logs, pattern = posixpath.split(glob)
    days = dict(matching(list_folder(str(model.root / logs)) or (), pattern))
    if not days:
        return []
    where = folder_of(logs, COMPACTED_FOLDER)
    headers = {}
    for name, _ in months_in(list_folder(str(model.root / where)) or ()):
        try:
            shown = f"{where}/{name}"
            text = decode((model.root / where / name).read_bytes(), shown)
            month = name.removesuffix(".md")
            headers[name] = covered(strip(text, shown).meta, month, shown, lambda t=text: t)
        except (OSError, HotplexError):  # the build reads it and says what is wrong
            continue
    done = still_covered(headers, days, after)
    newest = max(days, key=day_date)
    old = sorted(n for n in past_age(days, newest, after) if n not in done)
    if not old:
        return []
    first, last = old[0].removesuffix(".md"), old[-1].removesuffix(".md")
    return [
        f"{logs}/: {len(old)} day(s) more than memory.compact_after_days ({after}) before the"
        f" newest day {newest.removesuffix('.md')} are not compacted ({first} … {last}):"
        f" run {COMMAND}"
    ]


def _absent_logs_folder(model: Model, found: Listing) -> list[str]:
    """``[memory] logs`` in a folder that does not exist (a misspelt ``memroy/*.md``): without a
    word the artifacts would just have no days."""
    glob = days_glob(model)
    if glob is None:
        return []
    folder = posixpath.dirname(glob)
    if os.path.isdir(model.root / folder):
        return []
    logs = model.manifest.memory.logs
    pattern = posixpath.basename(glob)
    folders = [f"{_relative(f, model.sources_dir)}/{pattern}" for f in found.folders[1:]]
    hint = suggest(logs, folders) or "the agent writes a file a day there; create the folder"
    return [
        f"{model.manifest_display}: memory.logs: the folder of '{logs}' ({folder}/) does not"
        f" exist — {hint}"
    ]


def _unreadable_days(model: Model, found: Listing) -> list[str]:
    """Entries of the logs folder named like a day that are no regular file (a FIFO, a folder, a
    symlink to nothing): never read, so without a word an older day would pass for the newest.
    A regular file's entry says so: only the others are stat'ed (1,000 days, no stat)."""
    glob = days_glob(model)
    if glob is None:
        return []
    warnings = []
    for path in sorted({*found.irregular, *found.folders}):
        if not is_day_of(glob, path):
            continue
        try:
            mode = os.stat(model.root / path).st_mode
        except FileNotFoundError:
            what = "a symlink to nothing"
        except OSError as exc:
            what = f"unreadable ({exc.strerror})"
        else:
            if stat.S_ISREG(mode):
                continue
            what = file_kind(mode)
        warnings.append(
            f"{path}: named like a day of memory.logs '{model.manifest.memory.logs}' but is"
            f" {what}, not a regular file: not read"
        )
    return warnings


def _linked(root: Path, unread: list[str], read: set[str]) -> set[str]:
    """The files of ``unread`` that are read under another name, through a symlink: the file a
    read link points to (CLAUDE.md -> agents/AGENTS.md), a link to a read file, or a link to
    a folder a file was read through (listed as a file: the listing does not follow links)."""
    if not unread:
        return set()
    top = os.path.realpath(root)

    def real(path: str) -> str:
        return os.path.relpath(os.path.realpath(os.path.join(top, path)), top)

    targets = read | {real(path) for path in read}
    through = {"/".join(p.split("/")[:n]) for p in read for n in range(1, p.count("/") + 1)}
    return {p for p in unread if p in targets or p in through or real(p) in targets}


def _relative(path: str, sources_dir: str) -> str:
    return path if sources_dir == "." else path[len(sources_dir) + 1 :]


def _unmatched(model: Model, found: Listing, used: set[str]) -> list[str]:
    """An ``ignore`` pattern that matches nothing is probably misspelt: it silences nothing."""
    unused = [p for p in model.manifest.project.ignore if p not in used]
    if not unused:
        return []
    sources_dir = model.sources_dir
    names = {r for f in found.files for r in _prefixes(_relative(f, sources_dir))}
    choices = sorted(names | {f"{n}/**" for n in names})
    return [
        f"[project] ignore[{index}] '{pattern}' matches no file in '{sources_dir}/'"
        + (f" — {hint}" if (hint := suggest(pattern, choices)) else "")
        for index, pattern in enumerate(model.manifest.project.ignore)
        if pattern not in used
    ]


def _unmatched_allow_files(model: Model, files: set[str]) -> list[str]:
    """A ``[secrets]``, ``[unicode]`` or ``[injection]`` ``allow_files`` pattern that matches no
    file (of the sources folder, or read from elsewhere, or the manifest, whose ``vars`` are
    scanned; an ``overlay:`` one names users' files, which are no project's) allows nothing:
    most often a path written from the sources folder, not from the project."""
    from hotplex.scanning.origins import (
        OVERLAY,
        Allowance,  # the scans' own matching, so the two never disagree
        overlay_slip,
    )

    def matches(pattern: str) -> bool:
        allowance = Allowance(files=(pattern,))
        return any(allowance.allows_file(f) for f in files)

    sources_dir = model.sources_dir
    prefix = "" if sources_dir == "." else f"{sources_dir}/"
    warnings = []
    for table, index, pattern in _allow_files(model):
        meant = overlay_slip(pattern)
        if matches(pattern) or (meant is None and pattern.startswith(OVERLAY)):
            continue  # a user's file, no project's: ``overlay_slips`` for a slip of the prefix
        if meant is not None:
            warnings.append(_slip(table, index, pattern, meant))
            continue
        example = min((f for f in files if f.startswith(prefix)), default=None)
        relative_to = f", such as '{example}'" if example else ""
        # A folder, or its files of one extension (``agent-configs/*.md``): what a glob means.
        folders = {f"{posixpath.dirname(f)}/**" for f in files if "/" in f}
        folders |= {f"{posixpath.dirname(f)}/*{posixpath.splitext(f)[1]}" for f in files}
        meant = next(
            (p for p in (posixpath.join(sources_dir, pattern), pattern.lower()) if matches(p)),
            None,
        )
        hint = f"did you mean '{meant}'?" if meant else suggest(pattern, sorted(files | folders))
        warnings.append(
            f"[{table}] allow_files[{index}] '{pattern}' matches no file in the project, so it"
            f" allows nothing (patterns match paths from the project folder{relative_to})"
            + (f" — {hint}" if hint else "")
        )
    return warnings


def _allow_files(model: Model) -> list[tuple[str, int, str]]:
    """Every ``allow_files`` glob: its table, its index there, the glob."""
    return [
        (table, index, pattern)
        for table in ("secrets", "unicode", "injection")
        for index, pattern in enumerate(getattr(model.manifest, table).allow_files)
    ]


def _slip(table: str, index: int, pattern: str, meant: str) -> str:
    return (
        f"[{table}] allow_files[{index}] '{pattern}' names no user's file (one is named by"
        f" 'overlay:' and its label) and no file in the project, so it allows nothing — did you"
        f" mean '{meant}'?"
    )


def overlay_slips(model: Model) -> list[str]:
    """The warnings of ``check --overlay`` (``Project.check``), which lists no project file:
    each ``allow_files`` glob that misspells the ``overlay:`` prefix (``origins.overlay_slip``),
    unless a '/' took the colon's place before a folder the project has."""
    from hotplex.scanning.origins import overlay_slip

    warnings = []
    for table, index, pattern in _allow_files(model):
        meant = overlay_slip(pattern)
        folder = pattern.split("/", 1)[0] if "/" in pattern.split(":", 1)[0] else None
        if meant is not None and not (folder and os.path.lexists(model.root / folder)):
            warnings.append(_slip(table, index, pattern, meant))
    return warnings


def _declared_but_absent(model: Model, present: set[str]) -> list[str]:
    """A ``[[source]]`` whose ``file`` names a file that is not there (a misspelt ``file``, a
    default's moved to a file never made): without ``required = true`` its section would just be
    absent. A default's absent file is normal. A package's file (``present``: read and there) is
    not on disk where the build names it."""
    default_files = {s.file for s in all_worker_defaults(model)}
    added = {
        d.name
        for d in model.manifest.source
        if d.file is not None and not d.required and posixpath.normpath(d.file) not in default_files
    }
    warnings = []
    for source in model.sources:
        path = model.source_path(source.file)
        # On disk as the build reads it ("\\" a separator too), not in the listing: that leaves
        # out hidden folders (.github/, .claude/).
        on_disk = path.replace("\\", "/")
        there = path in present or os.path.isfile(model.root / on_disk)
        if source.name in added and not there:
            folder, name = posixpath.split(on_disk)
            hint = suggest(name, _file_names(model.root / folder))
            warnings.append(
                f"source '{source.name}': {path} does not exist, so no artifact has it"
                + (f" — {hint}" if hint else " (required = true makes this an error)")
            )
    return warnings


def _file_names(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if e.is_file()]
    except OSError:
        return []


def ignored(model: Model, path: str) -> bool:
    """Whether an ``ignore`` pattern names ``path`` (a file or folder of the sources folder), or
    a folder holding it: what the user keeps there on purpose, which no artifact takes in."""
    prefixes = _prefixes(_relative(path, model.sources_dir))
    return any(_glob(p).fullmatch(r) for p in model.manifest.project.ignore for r in prefixes)


def _prefixes(rel: str) -> list[str]:
    """``a/b/c.md`` and its folders ``a/b``, ``a``: a pattern naming a folder covers its files."""
    parts = rel.split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


@lru_cache(maxsize=64)
def _glob(pattern: str) -> re.Pattern[str]:
    """A glob over '/'-separated paths: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out = []
    for token in re.split(r"(\*\*/?|\*|\?)", pattern.strip().strip("/")):
        if token.startswith("**"):
            out.append("(?:.*/)?" if token.endswith("/") else ".*")
        elif token == "*":
            out.append("[^/]*")
        elif token == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(token))
    return re.compile("".join(out))
