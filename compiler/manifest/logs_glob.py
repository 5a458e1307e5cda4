"""The manifest's ``[memory] logs`` checked: a glob of file names in one literal folder inside
the sources folder, matching no source's file, beside a source named ``memory`` whose section
the days join."""

from __future__ import annotations

import fnmatch
import posixpath
import typing

from hotplex.manifest.model import Manifest, Source
from hotplex.manifest.vocabulary import DAY_FORMS, LOG_SOURCE, split_glob

_WILDCARDS = frozenset("*?[")


def validate_glob(
    manifest: Manifest, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    """The logs' glob names files in one folder of the sources folder, and a source to join."""
    glob = manifest.memory.logs
    folder, pattern = split_glob(glob)
    if "\\" in glob:  # a folder separator on Windows, an escape in a glob: neither is meant
        bad(
            "memory.logs",
            f"'{glob}': a backslash; hotplex paths separate folders with '/'",
            hint=f"did you mean '{glob.replace(chr(92), '/')}'?",
        )
    elif _WILDCARDS & set(folder):
        bad(
            "memory.logs",
            f"'{glob}': only the file name may hold wildcards, the folder must be literal",
            hint="keep the logs in one folder, e.g. 'memory/*.md'",
        )
    elif not pattern or not _WILDCARDS & set(pattern):
        bad("memory.logs", f"'{glob}' names no files: give a glob such as 'memory/*.md'")
    variants = manifest.variants
    matched = [
        f"'{source.name}' ({file})"
        for source in sources
        for file in (source.file, *(variants.file(source.file, p) for p in variants.platforms))
        if posixpath.normpath(split_glob(file)[0]) == posixpath.normpath(folder)
        and fnmatch.fnmatchcase(split_glob(file)[1], pattern)
    ]
    if matched:
        named = ", ".join(matched[:3]) + (f" and {len(matched) - 3} more" if matched[3:] else "")
        plural = "s" if matched[1:] else ""
        bad(
            "memory.logs",
            f"'{glob}' matches the file{plural} of source{plural} {named}: a source is not a day",
            hint=f"keep the days in a folder of their own, e.g. 'memory/*.md' (a day is named by"
            f" its date: {DAY_FORMS})",
        )
    if glob.startswith("/") or ".." in folder.split("/"):
        bad("memory.logs", f"'{glob}' must stay inside the sources folder")
    if not any(s.name == LOG_SOURCE for s in sources):
        bad(
            "memory.logs",
            f"daily logs join the '{LOG_SOURCE}' source's section, and there is no source "
            f"named '{LOG_SOURCE}'",
            hint=f"add a [[source]] named '{LOG_SOURCE}' (its file may be absent)",
        )
