"""``hotplex memory compact`` on a local project: which months, what to write, written whole.

A plan is made first and nothing is written until every month of it is compacted and scanned:
a day that does not decode, a finding the build would fail on, a covered day that is gone, each
stops the command with one error and no file touched. The writes then go through
``changes.Changes`` one by one (a file already holding its bytes is not rewritten), after every
destination is checked (a symlink out of the project, an archived day's name taken); should
one fail, the files already written get their old bytes back (and archived days their old
place), so a failure still leaves every file as it was.

Which days: those more than ``[memory] compact_after_days`` older than the newest day (by name,
never the clock), not yet covered by their month's file as they are now (same size and digest).
A month with such days is compacted again from all its days: those its file covered (found in
the logs folder or in ``archive/``) and the new ones, so the file depends on the days alone and a
second run with nothing new changes nothing. A text the days cannot give again (edited since
hotplex wrote it, or a worker's summary) goes whole to the month's history first. A killed run
cannot undo: each history is written before the month naming it, so the next run redoes the
month, and it removes the temp files the killed run left.

A worker's answer (``plan_answer``) is filed as one month instead, covering the days its request
held as they were (``record_request`` keeps them in the state folder; a day added or changed
since stays a day); the text it replaces goes to the month's history.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Iterable
from pathlib import Path

from hotplex.changes import Changes
from hotplex.errors import HotplexError, Span
from hotplex.fs import STATE_DIR, check_relative, confine, sha256
from hotplex.generated import attrs
from hotplex.json_writer import json_text
from hotplex.memory import builtin
from hotplex.memory.folders import Folders, file_bytes, folders, original
from hotplex.memory.scanned import scanned_days, scanned_month
from hotplex.sources import compacted
from hotplex.sources.frontmatter import decode, strip, trim
from hotplex.sources.logs import is_day, list_folder, matching
from hotplex.writes import temp_for, write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model
    from hotplex.memory.request import CompactionRequest

DIGEST_HEX = 16  # the digest start a header keeps per day
REQUEST_RECORD = f"{STATE_DIR}/memory-request.json"  # what the last request held, for its answer
# Why a month's text, which its days cannot give again, goes whole to its history when a new
# day compacts the month again: (the history's words, the command's).
KEPT = {
    "edited": (", edited by hand,", "was edited since hotplex wrote it"),
    "answer": (", a worker's summary,", "held a worker's summary"),
}


@attrs.frozen
class Write:
    """One file the command writes: its project path and its new bytes."""

    path: str
    data: bytes


@attrs.frozen
class Month:
    """One month compacted: its file, the days it covers, and the entries sent to its history."""

    month: str
    path: str
    days: tuple[str, ...]
    new_days: tuple[str, ...]
    history: int  # entries newly appended to the history
    changed: bool
    kept: str = ""  # why the text the file held went whole to the history (``KEPT``), or ""
    left: tuple[str, ...] = ()  # an answer's month: days added or changed since the request


@attrs.frozen
class Compaction:
    """What ``memory compact`` does (or did): the months, the writes, the days archived."""

    months: tuple[Month, ...]
    writes: tuple[Write, ...]
    archived: tuple[tuple[str, str], ...]  # (from, to), project paths
    newest: str | None  # the newest day, from which the age is counted
    after_days: int
    stale: tuple[str, ...] = ()  # temp files a killed run left beside months and histories

    @property
    def changed(self) -> bool:
        return bool(self.writes or self.archived or self.stale)


@attrs.frozen
class _Survey:
    """The logs as they are: the days (name -> size), the newest day of the folder and the
    archive, each month's header, the months with days to compact -> those days, and the temp
    files a killed run left beside the months and histories."""

    where: Folders
    days: dict[str, int]
    newest: str | None
    headers: dict[str, dict[str, tuple[int, str]]]
    pending: dict[str, list[str]]
    stale: tuple[str, ...]


def survey(model: Model) -> _Survey:
    where = folders(model)
    root = model.root
    for folder in (where.logs, where.compacted, where.history, where.archive):
        _confined(root, folder)  # as a build refuses it, before anything is read or written
    for folder in (where.compacted, where.history, where.archive):
        _refuse_file(root, folder)
    after = model.manifest.memory.compact_after_days
    days = dict(matching(list_folder(str(root / where.logs)) or (), where.pattern))
    archived = {n for n, _ in list_folder(str(root / where.archive)) or () if is_day(n)}
    stale = _stale_temps(root, where)
    if not days and not archived:
        return _Survey(where, days, None, {}, {}, stale)
    newest = max([*days, *archived], key=compacted.day_date)
    headers = _headers(root, where)
    pending = _pending(root, where, days, headers, newest, after)
    return _Survey(where, days, newest, headers, pending, stale)


def _stale_temps(root: Path, where: Folders) -> tuple[str, ...]:
    """The temp files ``writes.write_atomic`` made for a month or a history that are still there:
    a run killed before its rename left them, and the lock says no run owns them now."""
    found = []
    for folder in (where.compacted, where.history):
        listing = list_folder(str(root / folder)) or ()
        found += [f"{folder}/{n}" for n, _ in listing if compacted.is_month(temp_for(n) or "")]
    return tuple(sorted(found))


def plan(model: Model, archive: bool = False) -> Compaction:
    """What compacting the project's daily logs would write; nothing is written."""
    found = survey(model)
    where, days, after = found.where, found.days, model.manifest.memory.compact_after_days
    months: list[Month] = []
    writes: list[Write] = []
    covered = {n for cover in found.headers.values() for n in cover}
    later = sorted((n for n in found.days if n not in covered), reverse=True)
    for month, fresh in found.pending.items():
        cover = found.headers.get(month, {})
        done = _compact_month(model, where, month, cover, fresh, later)
        months.append(done[0])
        writes += done[1]
    covered = {n for cover in found.headers.values() for n in cover}
    covered |= {n for m in months for n in m.days}
    moves = []
    if archive:
        moves = [
            (f"{where.logs}/{n}", f"{where.archive}/{n}") for n in sorted(days) if n in covered
        ]
    return Compaction(tuple(months), tuple(writes), tuple(moves), found.newest, after, found.stale)


def month_days(model: Model, month: str | None) -> tuple[_Survey, str, list[tuple[str, str]], dict]:
    """The month a request is for (``month``, or the oldest with days to compact) and its days
    past the age, oldest first, while their text fits ``[memory] request_chars`` (the rest wait
    for the next round): (name, text) and their header lines, which its answer covers."""
    found = survey(model)
    if month is not None and not compacted.is_month(f"{month}.md"):
        raise HotplexError.single(
            f"--month {month!r} names no month: give it as YYYY-MM, e.g. 2026-10",
            Span("arguments", key="month"),
        )
    if month is None:
        if not found.pending:
            raise HotplexError.single(
                "nothing to compact: every day past memory.compact_after_days is compacted",
                Span(model.manifest_display, key="memory.compact_after_days"),
            )
        month = min(found.pending)
    after = model.manifest.memory.compact_after_days
    names = [n for n in compacted.past_age(found.days, found.newest or "", after) if n[:7] == month]
    if not names:
        raise HotplexError.single(
            f"no day of {month} is more than memory.compact_after_days ({after}) before the"
            f" newest day",
            Span("arguments", key="month"),
            hint="months with days to compact: " + (", ".join(sorted(found.pending)) or "none"),
        )
    names = sorted({*names, *found.headers.get(month, {})})
    texts, header_days = _month_texts(model, found.where, month, names)
    texts = within_request(model, texts)
    chosen = {f"{name}.md" for name, _ in texts}
    return found, month, texts, {n: h for n, h in header_days.items() if n in chosen}


def record_request(root: Path, request: CompactionRequest) -> None:
    """What a request held (its month, each day's header line), kept in the state folder for
    its answer: the answer covers those days, as they were, and no other."""
    covers = {name: f"{size} {digest}" for name, (size, digest) in request.covers}
    record = json_text({"month": request.month, "covers": covers}, indent=2) + "\n"
    write_atomic(root / REQUEST_RECORD, record.encode())


def _requested(root: Path, month: str | None, label: str) -> tuple[str, dict[str, tuple[int, str]]]:
    """The month and the days (name -> header line) of the last request (``record_request``)."""
    try:
        record = json.loads((root / REQUEST_RECORD).read_bytes())
        held = {n: (int(v.split()[0]), v.split()[1]) for n, v in record["covers"].items()}
        requested = record["month"]
    except FileNotFoundError:
        raise HotplexError.single(
            "no compaction request to answer: the answer covers the days its request held",
            Span(label),
            hint=f"{compacted.COMMAND} --request --target NAME, then --answer with its answer",
        ) from None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise HotplexError.single(
            f"{REQUEST_RECORD} is no request's record: make the request again",
            Span(REQUEST_RECORD),
            hint=f"{compacted.COMMAND} --request --target NAME",
        ) from None
    if month is not None and month != requested:
        raise HotplexError.single(
            f"--month {month} is not the month of the last request ({requested})",
            Span("arguments", key="month"),
            hint=f"{compacted.COMMAND} --request --target NAME --month {month}",
        )
    return requested, held


def plan_answer(model: Model, answer: str, label: str, month: str | None = None) -> Compaction:
    """The answer to ``--request`` guarded and filed as the month's file, covering the days
    the last request held whose bytes are still those it held; a day added or changed since
    stays a day (the build warns of it). The text the answer replaces goes to the history."""
    from hotplex.memory.answer import guarded

    body = guarded(model, answer, label)
    found = survey(model)
    where = found.where
    month, held = _requested(model.root, month, label)
    header_days = {}
    for name, line in held.items():
        now = original(model.root, where, name)
        if now is not None and header_line(now[0]) == line:
            header_days[name] = line
    left = sorted({*found.pending.get(month, ()), *held}.intersection(found.days) - {*header_days})
    if not header_days:
        raise HotplexError.single(
            f"every day the request for {month} held has changed since: the answer covers none",
            Span(label),
            hint=f"{compacted.COMMAND} --request --target NAME --month {month}, then --answer",
        )
    path = f"{where.compacted}/{month}.md"
    text = compacted.month_file(month, "answer", header_days, body)
    covered = {n for cover in found.headers.values() for n in cover} | set(header_days)
    scanned_month(model, where, path, text, sorted(set(found.days) - covered, reverse=True))
    before = file_bytes(model.root / path)
    writes = []
    if before != text.encode():
        if before is not None:  # the history first: a run killed before the month is redone
            old = trim(strip(decode(before, path), path).body)
            history = f"{where.history}/{month}.md"
            kept = file_bytes(model.root / history) or b""
            added = earlier_text(month, " before an answer replaced it", old)
            if added not in kept.decode("utf-8", "replace"):  # a killed run's, else
                writes.append(Write(history, appended(kept, [added])))
        writes.append(Write(path, text.encode()))
    fresh = tuple(n for n in header_days if n in found.pending.get(month, ()))
    changed = before != text.encode()
    done = Month(month, path, tuple(sorted(header_days)), fresh, 0, changed, left=tuple(left))
    after = model.manifest.memory.compact_after_days
    return Compaction((done,), tuple(writes), (), found.newest, after, found.stale)


def earlier_text(month: str, why: str, old: str) -> str:
    """A month's earlier text, for its history, when a new text replaces it (``why``)."""
    return f"## {month}: the text its file held{why}\n\n{old}\n"


def _headers(root: Path, where: Folders) -> dict[str, dict[str, tuple[int, str]]]:
    """Each compacted month (``2026-10``) -> the days its header covers."""
    found = {}
    for name, _ in compacted.months_in(list_folder(str(root / where.compacted)) or ()):
        path = f"{where.compacted}/{name}"
        text = decode((root / path).read_bytes(), path)
        month = name.removesuffix(".md")
        found[month] = compacted.covered(strip(text, path).meta, month, path, lambda t=text: t)
    return found


def _pending(
    root: Path,
    where: Folders,
    days: dict[str, int],
    headers: dict[str, dict[str, tuple[int, str]]],
    newest: str,
    after: int,
) -> dict[str, list[str]]:
    """The months with days past the age not covered as they are now -> those days."""
    pending: dict[str, list[str]] = {}
    for name in sorted(compacted.past_age(days, newest, after)):
        month = name[:7]
        known = headers.get(month, {}).get(name)
        if known is not None and known[0] == days[name]:
            # Hashed only, never folded (``original`` confines what it reads): a stat's worth.
            digest = sha256((root / where.logs / name).read_bytes())[:DIGEST_HEX]
            if digest == known[1]:
                continue
        pending.setdefault(month, []).append(name)
    return pending


def _compact_month(
    model: Model,
    where: Folders,
    month: str,
    cover: dict[str, tuple[int, str]],
    fresh: list[str],
    later: list[str],
) -> tuple[Month, list[Write]]:
    """One month compacted again from all its days, and its file's and history's writes;
    ``later``: the days no month covers (newest first), which a document reads after it."""
    root = model.root
    path = f"{where.compacted}/{month}.md"
    history_path = f"{where.history}/{month}.md"
    texts, header_days = _month_texts(model, where, month, sorted({*cover, *fresh}))
    history_name = posixpath.relpath(history_path, where.logs)
    text, folded = builtin_file(model, month, texts, header_days, history_name)
    days = [name for name in later if name not in header_days]
    scanned_month(model, where, path, text, days)
    old_history = file_bytes(root / history_path) or b""
    old = old_history.decode("utf-8", "replace")
    new = [(day, entry) for day, entry in folded.history if entry not in old]
    added = [history_text(month, new)] if new else []
    before = file_bytes(root / path)
    changed = before != text.encode()
    kept = _why_kept(before, path) if changed else ""
    if kept:
        earlier = strip(decode(before or b"", path), path).body
        words = f"{KEPT[kept][0]} before it was compacted again"
        added += [t for t in [earlier_text(month, words, trim(earlier))] if t not in old]
    writes = []
    if added:  # before the month, whose note names it: a run killed between them is redone
        writes.append(Write(history_path, appended(old_history, added)))
    if changed:
        writes.append(Write(path, text.encode()))
    done = Month(month, path, tuple(sorted(header_days)), tuple(fresh), len(new), changed, kept)
    return done, writes


def _why_kept(before: bytes | None, path: str) -> str:
    """Why the text a month's file holds cannot be left to its days (a ``KEPT`` key), or "":
    the built-in compactor wrote it and its digest (``body``) is still the text's."""
    if before is None:
        return ""
    old = strip(decode(before, path), path)
    if not trim(old.body):
        return ""
    if old.meta.get("body") != compacted.body_digest(old.body):
        return "edited"
    return "" if old.meta.get("compactor") == "builtin" else "answer"


def appended(history: bytes, parts: list[str]) -> bytes:
    """A history with ``parts`` (each a heading and its text) after what it holds, a blank
    line between each."""
    texts = [history.decode("utf-8", "replace").removesuffix("\n")] if history else []
    return ("\n\n".join([*texts, *(p.removesuffix("\n") for p in parts)]) + "\n").encode()


def builtin_file(
    model: Model,
    month: str,
    texts: list[tuple[str, str]],
    header_days: dict[str, tuple[int, str]],
    history_name: str,
) -> tuple[str, builtin.Folded]:
    """A month's file by the built-in compactor (its header and body), and what it folded."""
    folded = builtin.compact(month, texts, model.manifest.memory.digest_chars, history_name)
    return compacted.month_file(month, "builtin", header_days, folded.body), folded


def header_line(data: bytes) -> tuple[int, str]:
    """What a month's header keeps of a day: its size and the start of its digest."""
    return len(data), sha256(data)[:DIGEST_HEX]


def within_request(model: Model, texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The days (oldest first) a request carries: while their text fits ``[memory]
    request_chars``, and at least one (the request's worker form cuts a day alone over it)."""
    budget, used, kept = model.manifest.memory.request_chars, 0, 0
    while kept < len(texts) and used + len(texts[kept][1]) <= budget:
        used += len(texts[kept][1])
        kept += 1
    return texts[: max(kept, 1)]


def _month_texts(
    model: Model, where: Folders, month: str, names: list[str]
) -> tuple[list[tuple[str, str]], dict[str, tuple[int, str]]]:
    """The days ``names`` of ``month`` (oldest first) as (name without ``.md``, text), each
    scanned as a build would, and their header lines; a day found nowhere is an error."""
    path = f"{where.compacted}/{month}.md"
    days: list[tuple[str, bytes, str]] = []
    header_days: dict[str, tuple[int, str]] = {}
    for name in names:
        found = original(model.root, where, name)
        if found is None:
            raise HotplexError.single(
                f"the compacted month covers {name}, which is in neither {where.logs}/ nor"
                f" {where.archive}/: compacting {month} again would lose its entries",
                Span(path),
                hint=f"restore {name}, or remove {path} to compact {month} from the days left",
            )
        data, shown = found
        header_days[name] = header_line(data)
        days.append((name, data, shown))
    return scanned_days(model, days), header_days


def history_text(month: str, entries: Iterable[tuple[str, str]]) -> str:
    """What a month's history gets appended: the entries, each under the day first written
    on, after a heading naming the month."""
    parts = [f"## {month}: entries its digest had no room for, whole"]
    for day, entry in entries:
        parts += [f"#### {day}", entry]
    return "\n\n".join(parts) + "\n"


def _confined(root: Path, path: str) -> Path:
    """``root/path``, refused as the build refuses it when a symlink takes it out of the project."""
    span = Span(path)
    return confine(root, check_relative(path, span), span)


def _refuse_file(root: Path, folder: str) -> None:
    """A companion folder that is a file (or anything but a folder) stops the run before a
    folder is made: its months, histories or days would have nowhere to go."""
    path = root / folder
    if os.path.lexists(path) and not path.is_dir():
        raise HotplexError.single(
            f"{folder} is a file, not a folder",
            Span(folder),
            hint=f"move it away: {compacted.COMMAND} keeps its files in the folder {folder}/",
        )


def _refuse_taken(root: Path, source: str, target: str) -> None:
    if os.path.lexists(root / target):
        raise HotplexError.single(
            f"cannot archive {source}: {target} exists",
            Span(target),
            hint="compare the two files and keep one",
        )


def apply(root: Path, done: Compaction) -> None:
    """Write the plan: every destination checked first, then each file atomically, then the
    archive moves; on a failure, undo what was done and raise it (``changes.Changes``)."""
    for write in done.writes:
        _confined(root, write.path)
    for source, target in done.archived:
        _confined(root, target)
        _refuse_taken(root, source, target)
    for stale in done.stale:
        (root / stale).unlink(missing_ok=True)
    with Changes("memory compact", root) as changes:
        for write in done.writes:
            changes.write(root / write.path, write.data)
        for source, target in done.archived:
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            _refuse_taken(root, source, target)  # appeared since the check
            changes.rename(root / source, root / target)
