"""What ``Project.learn`` and ``hotplex learn`` share: the caller's input checked, the profile
read when the caller gives no text, the merge. Nothing here writes: the CLI writes the result
(``commands/learn.py``), the library and the server hand it back."""

from __future__ import annotations

from pathlib import Path

from hotplex.errors import HotplexError, Span
from hotplex.learning import facts as given_facts
from hotplex.learning import merge
from hotplex.learning.report import LearnReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model

PROFILE = "USER.md"


def profile_path(model: Model, file: str) -> tuple[Path, str]:
    """The file of the sources folder ``file`` names, and how messages name it."""
    from hotplex.fs import checked_relative

    rel = checked_relative(file, Span("arguments", key="file"))
    display = model.source_path(rel)
    return model.root / display, display


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
    if text is None:
        path, display = profile_path(model, file)
        text = read_profile(path, display)
    else:
        display = file
    return merge.learn(model.manifest, text, display, given, day)
