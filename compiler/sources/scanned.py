"""What a source's text would carry into an artifact that it must not: secrets, hidden text and,
where the injection rules read it, prompt injection; each finding placed where it was written.

A package file is not the user's own: injection is read in it whatever ``[injection] scope``
says, and its findings are allowed by its package's ``allow`` alone, as when it was locked; the
project's allow lists do not reach it."""

from __future__ import annotations

from collections.abc import Callable

from hotplex.manifest.model import Model
from hotplex.scanning import hidden, secrets
from hotplex.scanning.origins import Origin
from hotplex.sources.inputs import Inputs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Package
    from hotplex.sources.packages import Pinned


def findings(
    model: Model,
    inputs: Inputs,
    text: str,
    origins: Callable[[], list[Origin]],
    display: str | None = None,
    reads: tuple[str, ...] = (),
) -> list:
    """The findings of ``text``: secrets, hidden text and, when the injection rules read
    ``display`` (an overlaid file, or any with ``[injection] scope = "all"``) or a package file
    is among the files it ``reads``, prompt injection. ``origins`` (asked only when there is a
    finding, which is rare) says where each was written."""
    manifest = model.manifest
    pinned = inputs.packages
    packaged = pinned is not None and any(pinned.package_of(f) for f in reads)
    injected = packaged or (
        display is not None and (manifest.injection.scope == "all" or inputs.overlaid((display,)))
    )
    if injected:  # its rules are imported only by a build they read a file of
        from hotplex.scanning import injection
    if not (secrets.matches(text) or hidden.scan(text) or (injected and injection.scan(text))):
        return []
    places = origins()
    settings, rules = manifest.secrets, manifest.injection
    users = inputs.overlay_labels
    scans = [  # each rule set: the project's allowance, and how a package's is made
        (
            secrets,
            secrets.allowance(settings.allow, settings.allow_files).for_overlays(users),
            lambda allow: secrets.allowance(allow, ()),
        ),
        (
            hidden,
            hidden.allowance(manifest.unicode.allow, manifest.unicode.allow_files).for_overlays(
                users
            ),
            lambda allow: hidden.allowance(allow, ()),
        ),
    ]
    if injected:
        allowed = injection.allowance(rules.allow, rules.allow_files, rules.allow_hosts)
        scans.append(
            (
                injection,
                allowed.for_overlays(users),
                lambda allow: injection.allowance(allow, (), ()),
            )
        )
    kept: list = []
    for scanner, allowed, for_package in scans:
        found = scanner.find(text, places, allowed)
        if packaged:
            assert pinned is not None
            found = _package_findings(model, pinned, scanner.find, for_package, text, places, found)
        kept += found
    return kept


def _package_findings(
    model: Model,
    pinned: Pinned,
    find: Callable,
    for_package: Callable,
    text: str,
    places: list[Origin],
    found: list,
) -> list:
    """``found`` with each package file's findings made again under its package's own
    ``allow``."""
    kept = [f for f in found if pinned.package_of(f.span.file) is None]
    for package in model.manifest.package:
        if any(pinned.package_of(p.file) == package.name for p in places):
            kept += [
                f
                for f in find(text, places, for_package(package.allow))
                if pinned.package_of(f.span.file) == package.name
            ]
    return kept


def problems(inputs: Inputs, found: list) -> list:
    """The problems of ``found``, one per place and text (``capped``); a package file's hint
    names its package's ``allow``, the only list that reaches it, not the project's."""
    from hotplex.errors import Problem

    pinned = inputs.packages
    shown = {}
    for finding in found:
        problem = finding.problem()
        name = pinned.package_of(problem.span.file) if pinned and problem.span else None
        if name is not None:
            problem = Problem(problem.message, problem.span, package_hint(finding.rule))
        shown.setdefault(problem, finding.rule)
    return capped(shown)


def package_hint(rule: str) -> str:
    return (
        f'if it is meant, let it through for this package alone: allow = ["{rule}"] in its'
        " [[package]]"
    )


# The byte-order marks of UTF-16 and UTF-32: a file opening with one is text, whatever its name.
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def scan_package(model: Model, package: Package, files: dict[str, bytes]) -> None:
    """Every text file of a package (``hotplex lock``, ``update``, ``fetch``), scanned as the
    project's own files are with ``[injection] scope = "all"``: package files are not the
    user's own. A finding refuses the package unless its ``allow`` lets it through."""
    from hotplex.errors import EXIT_FAILED, HotplexError, Problem
    from hotplex.scanning import injection
    from hotplex.sources import frontmatter

    allow = package.allow
    allowed = (
        (secrets, secrets.allowance(allow, ())),
        (hidden, hidden.allowance(allow, ())),
        (injection, injection.allowance(allow, (), ())),
    )
    problems: list[Problem] = []
    for rel, data in sorted(files.items()):
        display = model.source_path(package.name, rel)
        try:
            text = frontmatter.decode(data, display)  # as a build reads it: no BOM, LF ends
        except HotplexError as exc:
            if rel.lower().endswith(".md") or data.startswith(_WIDE_BOMS):
                # text no build can read (UTF-16, Latin-1): said now, not at the first build
                # that reads it, and never locked unscanned
                found = exc.problems[0]
                problems.append(
                    Problem(
                        f"package '{package.name}' refused: {found.message}",
                        found.span,
                        "save it as UTF-8 in the package",
                    )
                )
            continue  # not text (an image of a skill): digested, copied, never read as text
        origins = [Origin(text, display)]
        for scanner, allowance in allowed:
            for finding in scanner.find(text, origins, allowance):
                found = finding.problem()
                problems.append(
                    Problem(
                        f"package '{package.name}' refused: {found.message}",
                        found.span,
                        package_hint(finding.rule),
                    )
                )
    if problems:
        raise HotplexError(problems, exit_status=EXIT_FAILED)


def capped(found: dict) -> list:
    """The problems ``found`` (each with its finding's rule), each file's in place: of a file
    with more than ``findings_shown.SHOWN_PER_FILE``, the first so many in place in full, then one
    problem saying how many more, by rule: none is dropped without a word."""
    from hotplex.errors import Problem, Span
    from hotplex.findings_shown import SHOWN_PER_FILE, first_of_each_file, more_findings

    def place(problem: Problem) -> tuple[str | None, int, int, str]:
        span = problem.span
        if span is None:
            return None, 0, 0, found[problem]
        return span.file, span.line or 0, span.column or 0, found[problem]

    shown, more = first_of_each_file(found, place)
    files = {file: index for index, file in enumerate(dict.fromkeys(place(p)[0] for p in shown))}
    # each file's in place, as ``check`` lists them, not each scan's (secrets first) in turn
    shown.sort(key=lambda problem: (files[place(problem)[0]], place(problem)[1:3]))
    for file, rules in more.items():
        shown.append(
            Problem(
                more_findings(rules),
                None if file is None else Span(file),
                f"the first {SHOWN_PER_FILE} in place are shown in full; remove them and run"
                " again to see the next",
            )
        )
    return shown
