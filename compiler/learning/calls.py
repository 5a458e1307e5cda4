"""What ``Project.learn`` and ``hotplex learn`` share: the caller's input checked, the profile
read when the caller gives no text, the merge. Nothing here writes: the CLI writes the result
(``commands/learn.py``), the library and the server hand it back."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from hotplex.errors import HotplexError, Span
from hotplex.learning import facts as given_facts
from hotplex.learning import merge
from hotplex.learning.report import LearnReport
from hotplex.sources import blocking

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model

PROFILE = "USER.md"


def profile_path(model: Model, file: str) -> tuple[Path, str]:
    """The file of the sources folder ``file`` names, and how messages name it; a symlink there
    leaving the project is refused, as the build refuses it (``fs.confine``)."""
    from hotplex.fs import checked_relative, confine

    rel = checked_relative(file, Span("arguments", key="file"))
    display = model.source_path(rel)
    return confine(model.root, PurePosixPath(display), Span(display)), display


def checked_name(file: str, span: Span) -> str:
    """``file`` checked as a profile's name where no disk tells more (the server labels the
    text a gateway sends with it): relative, inside the sources folder, no NUL, and Markdown
    (so never the manifest), as ``local_profile`` checks ``--file``."""
    from hotplex.fs import checked_key
    from hotplex.sources.unused import SOURCE_SUFFIXES

    rel = checked_key(file, span, "file")
    if not rel.lower().endswith(SOURCE_SUFFIXES):
        raise HotplexError.single(
            "no place for learned facts: not Markdown (" + ", ".join(SOURCE_SUFFIXES) + ")", span
        )
    return rel


def local_profile(model: Model, given: str | None) -> tuple[Path, str]:
    """The file ``hotplex learn`` merges into, and how messages name it: the sources folder's
    USER.md, or ``--file`` (a path as the shell gives it), which must be a Markdown file where
    a source of the project can be, the file it links to too (``_not_learnable``)."""
    if given is None:
        path, display = profile_path(model, PROFILE)
    else:
        from hotplex.fs import checked_key

        if "\\" in given:  # no source is named so; over HTTP, ``checked_name`` says the same
            checked_key(given, Span(given), "--file")
        path, display = Path(os.path.abspath(given)), given
    rel, real = _in_project(model, path, display)
    for name, linked in ((rel, False), (real, True)):
        why = _not_learnable(model, name)
        if why is not None:
            said = f"a symlink to '{name}', which is {why}" if linked else why
            raise HotplexError.single(
                f"no place for learned facts: {said}",
                Span(display),
                f"--file names USER.md, a platform variant (USER.slack.md) or another Markdown"
                f" file of the sources folder '{model.sources_dir}'",
            )
    return path, display


def written_path(model: Model, path: Path, display: str) -> Path:
    """The file a write of ``path`` replaces: the one a symlink inside the project names (the
    link is kept, as a build reads through it); a link leaving the project is refused, as the
    build refuses it."""
    return model.root / _in_project(model, path, display)[1]


def written_history(model: Model, profile: Path, display: str) -> Path:
    """The file a write of ``profile``'s history replaces (``written_path``), where a link
    there may only lead to another history: a manifest, a source, an artifact or the build's
    state named by a link would take the appended JSON lines."""
    from hotplex.fs import STATE_DIR
    from hotplex.learning.history import path_of

    real = _in_project(model, path_of(profile), display)[1]
    why = None
    if not real.endswith(".jsonl"):
        why = "not a history (JSON Lines, a name ending '.jsonl')"
    elif _under(real, STATE_DIR):
        why = f"in {STATE_DIR}/, the build's own state"
    elif _under(real, model.out_dir):
        why = f"in the out folder '{model.out_dir}'"
    if why is not None:
        raise HotplexError.single(
            f"no place for the history: a symlink to '{real}', which is {why}",
            Span(display),
            "point the link at a '.jsonl' file of its own, or remove it",
        )
    return model.root / real


def _under(rel: str, folder: str) -> bool:
    """Whether the project's file ``rel`` is ``folder`` or in it (never so for ``.``)."""
    return folder != "." and (rel == folder or rel.startswith(f"{folder}/"))


def _in_project(model: Model, path: Path, display: str) -> tuple[str, str]:
    """``path`` relative to the project, as named and with its symlinks resolved
    (``fs.confine``); an error when either is outside it."""
    from hotplex.fs import confine

    root = os.path.abspath(model.root)
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        raise HotplexError.single("no place for learned facts: outside the project", Span(display))
    real = os.path.realpath(confine(Path(root), PurePosixPath(rel), Span(display)))
    return rel, os.path.relpath(real, os.path.realpath(root)).replace(os.sep, "/")


def _not_learnable(model: Model, rel: str) -> str | None:
    """Why a learned block cannot go in the project's file ``rel``, or None: the block is
    Markdown, and a build reads it only in a source (not in an artifact the next build
    replaces, nor in the build's own state)."""
    from hotplex.fs import STATE_DIR
    from hotplex.sources.unused import SOURCE_SUFFIXES, may_be_source

    if _under(rel, model.out_dir):
        return f"in the out folder '{model.out_dir}': an artifact, which the next build replaces"
    if _under(rel, STATE_DIR):
        return f"in {STATE_DIR}/, the build's own state"
    if not rel.lower().endswith(SOURCE_SUFFIXES):
        return "not Markdown (" + ", ".join(SOURCE_SUFFIXES) + ")"
    if not may_be_source(model, rel):
        return (
            f"outside the sources folder '{model.sources_dir}' (or in a hidden or vendored"
            " folder of it), where no build reads it"
        )
    return None


def read_profile(path: Path, display: str) -> str:
    """The profile's text; a profile not written yet is empty. A device or a FIFO is refused
    without a read (``--file`` may name any path)."""
    from hotplex.fs import read_input

    text = read_input(path, display)
    return "" if text is None else text


def lock_of(profile: Path) -> Path:
    """The lock file a writer of ``profile`` and its history holds: beside it, hidden."""
    return profile.with_name(f".{profile.name}.lock")


def learn(
    model: Model,
    facts: object,
    date: object,
    text: str | None = None,
    file: str = PROFILE,
    source: object = None,
    restored: given_facts.Given | None = None,
) -> LearnReport:
    """``facts`` (a JSON list, or a mapping of key to value) merged on ``date`` into ``text``,
    or into the file ``file`` of the sources folder as it is on disk."""
    day = given_facts.checked_date(date, Span("arguments", key="date"))
    origin = given_facts.checked_source(source, Span("arguments", key="source"))
    given = given_facts.read(facts, origin)
    if restored is not None:
        twice = next((g for g in given if g.key == restored.key), None)
        if twice is not None:
            raise HotplexError.single(
                f"the key {restored.key!r} is given twice (also as --restore): which value is"
                " meant?",
                Span("facts", key=f"{twice.place}.key"),
            )
        given.append(restored)
    mine = text is None  # the project's own file; else a gateway's user's, scanned as an overlay
    if text is None:
        path, display = profile_path(model, file)
        text = read_profile(path, display)
    else:
        display = file
    together = _together(model, display, text, overlaid=not mine)
    report = merge.learn(model.manifest, text, display, given, day, together, overlaid=not mine)
    if report.changed:
        _within_what_a_build_reads(model, report.text, display)
    return report


def _together(model: Model, display: str, text: str, overlaid: bool) -> list[blocking.Part]:
    """The profile ``display`` (its text ``text``: the file's, or a gateway's user's,
    ``overlaid``, named as a compile names that user's overlay) among the source files on disk
    an artifact holds beside it, in the manifest's order, each body as a build reads it: a
    learned fact must not complete what one of them starts (``blocking.composed``). A profile no
    source names comes first. The daily logs are not read: what a day and a fact make together
    is found where they meet, in the guard of the compile and of ``hotplex check``."""
    from hotplex.fs import read_input
    from hotplex.sources import frontmatter

    profile = blocking.Part(text, merge.label(display, overlaid), 1, overlaid=overlaid)
    names = {display, model.source_path(display)}
    parts = []
    for source in model.sources:
        shown = model.source_path(source.file)
        if shown in names:
            parts.append(profile)
            continue
        try:
            found = read_input(model.root / shown, shown)
        except HotplexError:  # unreadable: the build says so, and it holds nothing
            found = None
        if found is not None:
            stripped = frontmatter.strip_data(found, shown)
            parts.append(blocking.Part(stripped.body, shown, stripped.body_line))
    return parts if profile in parts else [profile, *parts]


def _within_what_a_build_reads(model: Model, text: str, display: str) -> None:
    """A profile a build would read cut (``inputs.read_cap``) would lose the end of its
    learned block, and every build would then fail on it: learn refuses to write it."""
    from hotplex.sources.inputs import read_cap

    size, cap = len(text.encode("utf-8")), read_cap(model)
    if size > cap:
        raise HotplexError.single(
            f"the profile would be {size:,} bytes, past the {cap:,} a build reads of a file:"
            " its learned block would be cut, and every build would fail on it",
            Span(display),
            "make room outside the block, or raise the budgets [limits] per_file and total",
        )
