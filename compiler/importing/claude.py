"""Claude Code's memory files: CLAUDE.md, .claude/CLAUDE.md and .claude/rules/*.md.

Each is a source with ``imports = "claude"``: the build follows its ``@path`` imports as Claude
Code does, so the files stay as written and every imported file is an input of the build.
CLAUDE.local.md is private (Claude Code's label: "not checked in") and stays out, as do a rule
scoped by ``paths:`` and a CLAUDE.md in a subfolder, which Claude Code loads only once it reads a
matching file or one in that folder; each is named with the way forward.
"""

from __future__ import annotations

from pathlib import Path

from hotplex.errors import HotplexError
from hotplex.importing.found import (
    Companion,
    Entry,
    Found,
    Skip,
    meta,
    present,
    read,
    slug,
    sorted_under,
    unmapped_below,
)
from hotplex.sources import claude_imports, unmapped

KIND = "Claude Code"


def find(root: Path) -> Found | None:
    found = Found(KIND, root)
    rules = root / ".claude" / "rules"
    candidates = [("claude", root / "CLAUDE.md"), ("claude-folder", root / ".claude" / "CLAUDE.md")]
    candidates += [
        ("claude-rule-" + slug(p.relative_to(rules).with_suffix("").as_posix()), p)
        for p in sorted_under(rules, ("*.md",))
    ]
    for name, path in candidates:
        if not present(path):
            continue
        if meta(path).get("paths"):
            why = "a rule scoped by paths: Claude Code loads it only when it reads a matching file"
            found.skipped.append(Skip(path, why + "; hotplex has no on-demand rules"))
            continue
        found.entries.append(Entry(name, path, audience="claude-code", imports="claude"))
    local = root / unmapped.PRIVATE_CLAUDE
    if present(local):
        found.skipped.append(Skip(local, unmapped.reason(local.name) or ""))
    found.skipped += unmapped_below(root, "CLAUDE.md")
    if not found.entries:
        return found if found.skipped else None
    found.companions = _imported(root, found.entries)
    return found


def _imported(root: Path, entries: list[Entry]) -> list[Companion]:
    """The files Claude Code would load through the entries' imports, in its order."""
    seen: set[str] = set()
    loaded: list[str] = []

    def body(rel: str) -> str | None:
        try:
            return read(root / rel).body if (root / rel).is_file() else None
        except HotplexError:
            return None

    for entry in entries:
        rel = entry.origin.relative_to(root).as_posix()
        text = body(rel)
        if text is not None:
            order = claude_imports.load_order(rel, text, root, body, seen)
            loaded += [path for path, _ in order if path != rel]
    own = {e.origin.relative_to(root).as_posix() for e in entries}
    return [Companion(root / rel, "imported by @path") for rel in loaded if rel not in own]
