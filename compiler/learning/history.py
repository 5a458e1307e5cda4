"""The local history of a profile's learned facts: what left the block, and why.

Beside the profile, hidden (a walk of the sources folder leaves it out, so no build reads or
reports it): ``.USER.md.history.jsonl`` for ``USER.md``. One JSON object a line, a ``Retired``
record (``key``, ``value``, ``learned``, ``source``, ``confirmed``, ``why``: superseded or
evicted, ``until``: the date of the call that retired it), in the order they left. Lines are
only ever added: each call writes the old bytes and its new lines to a new file and renames it
over the old (``changes.Changes``, with the profile: both or neither), so a reader sees the history
before or after a call, whole.

``hotplex learn --restore KEY [--at DATE]`` learns a retired value again (``restorable``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hotplex.errors import HotplexError, Span, suggest
from hotplex.json_writer import json_text
from hotplex.learning.report import Retired
from hotplex.sources import learned_keys as keys


def path_of(profile: Path) -> Path:
    return profile.with_name(f".{profile.name}.history.jsonl")


def lines(retired: tuple[Retired, ...]) -> bytes:
    return "".join(json_text(r.to_json(), sort_keys=True) + "\n" for r in retired).encode("utf-8")


def appended(path: Path, retired: tuple[Retired, ...], shown_as: str) -> bytes | None:
    """The history's bytes with ``retired`` added, or None when there is nothing to add; read
    whether or not there is, so a history that cannot be written is an error before the
    profile changes."""
    old = _bytes(path, shown_as)
    if not retired:
        return None
    if old and not old.endswith(b"\n"):
        old += b"\n"  # a line cut short by hand stays a line of its own
    return old + lines(retired)


def _bytes(path: Path, shown_as: str) -> bytes:
    """The history as it is (empty when there is none yet); a directory, a FIFO or a device
    there is an error with its name, never a blocking read (``fs.read_capped``). Uncapped: the
    file is hotplex's own and only grows."""
    from hotplex.fs import read_capped

    found = read_capped(path, sys.maxsize, Span(shown_as), shown_as)
    return b"" if found is None else found.data


def read(path: Path, shown_as: str) -> list[Retired]:
    """Every retired fact of the history, oldest first; a line that is no record is an error
    with its line."""
    try:
        text = _bytes(path, shown_as).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HotplexError.single(f"cannot read the history: {exc}", Span(shown_as)) from None
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entries.append(Retired.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            where = Span(shown_as, number, 1, source_line=line)
            raise HotplexError.single("a line of the history that is no record", where) from None
    return entries


def restorable(entries: list[Retired], key: str, at: str | None, shown_as: str) -> Retired:
    """The retired fact of ``key`` to restore: the last one to leave, or with ``at`` the last
    one that was in the block on that day (learned on or before it, retired on or after it)."""
    wanted, why = keys.canonical(key)
    if wanted is None:
        raise HotplexError.single(f"{why}: {key!r}", Span("arguments", key="--restore"))
    own = [e for e in entries if e.fact.key == wanted]
    if at is not None:
        own = [e for e in own if e.fact.learned <= at <= e.until]
    if own:
        return own[-1]
    names = sorted({e.fact.key for e in entries})
    if at is not None and any(e.fact.key == wanted for e in entries):
        spans = ", ".join(f"{e.fact.learned} to {e.until}" for e in entries if e.fact.key == wanted)
        raise HotplexError.single(
            f"no value of {wanted!r} was in the block on {at}", Span(shown_as), f"it held: {spans}"
        )
    raise HotplexError.single(
        f"the history holds no fact {wanted!r}",
        Span(shown_as),
        suggest(wanted, names) or ("keys: " + ", ".join(names) if names else "it is empty"),
    )
