"""The names the manifest shares with the stages after it, kept here so that checking a manifest
needs nothing above it: the document's own tags, which no source may take, and the daily logs'
source, glob and file names."""

from __future__ import annotations

import posixpath

WRAPPER_TAG = "agent-configuration"
METACOGNITION_TAG = "hotplex"  # the built-in META-COGNITION section, first in <directives>
# Tags no source may take: the document's own (the channels' are the manifest's).
BUILT_IN_TAGS = frozenset({WRAPPER_TAG, METACOGNITION_TAG})

LOG_SOURCE = "memory"  # the source whose section the daily logs join
DAY_FORMS = "YYYY-MM-DD.md, or with a suffix after '-', '_' or '.' as in 2026-11-29-standup.md"


def split_glob(glob: str) -> tuple[str, str]:
    """``"memory/*.md"`` -> (``"memory"``, ``"*.md"``)."""
    folder, pattern = posixpath.split(glob)
    return posixpath.normpath(folder or "."), pattern
