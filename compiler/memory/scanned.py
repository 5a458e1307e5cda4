"""What compaction checks before it writes anything: the days it folds and the month it would
file are scanned as a build scans them, alone and together, so a month the build would refuse is
never filed."""

from __future__ import annotations

from hotplex.errors import EXIT_FAILED, HotplexError
from hotplex.memory.folders import Folders, original
from hotplex.sources import blocking, compacted
from hotplex.sources.frontmatter import decode, strip, trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model


def scanned_days(model: Model, days: list[tuple[str, bytes, str]]) -> list[tuple[str, str]]:
    """Days (name, bytes, path; oldest first) as the compactor folds them: (name without
    ``.md``, text) decoded, frontmatter stripped, trimmed; scanned as a build scans them, each
    alone and then together, as the month holds them (``blocking.composed``: two clean days can
    make an image of one's definition and the other's ``![x][l]``). A finding stops the
    compaction: a month the build would refuse is never filed."""
    parts = []
    for name, data, shown in days:
        body = strip(decode(data, shown), shown)
        parts.append(blocking.Part(body.body, shown, body.body_line))
        refuse(blocking.scan_day_name(model.manifest, name, shown))  # its heading, and the month's
        refuse(blocking.scan(model.manifest, body.body, shown, body.body_line))
    refuse(blocking.composed(model.manifest, parts), " (with the other days of its month)")
    names = [name.removesuffix(".md") for name, _, _ in days]
    return [(name, trim(part.body)) for name, part in zip(names, parts, strict=True)]


def scanned_month(model: Model, where: Folders, path: str, text: str, later: list[str]) -> None:
    """Refuse a month's file (``text``, at ``path``) that the build would refuse: its text is
    not its days' (an entry cut at ``digest_chars`` may leave a ``<style>`` open that the next
    entry's ``url()`` then fills), and a document reads it before the days ``later`` (newest
    first), which it may now precede: scanned alone and with them, as a build joins them (what
    the days make among themselves is not the month's to answer for)."""
    month = strip(text, path)
    parts = [blocking.Part(month.body, path, month.body_line)]
    alone = blocking.scan(model.manifest, month.body, path, month.body_line)
    refuse(alone, " (in the month's text compact would write)")
    for name in later:
        found = original(model.root, where, name)
        if found is not None:
            body = strip(decode(found[0], found[1]), found[1])
            parts += [blocking.heading(found[1], found[1])]
            parts += [blocking.Part(body.body, found[1], body.body_line)]
    # What the days make together without the month is theirs, and there before it.
    theirs = {(f.rule, f.span) for f in blocking.composed(model.manifest, parts[1:])}
    made = [f for f in blocking.composed(model.manifest, parts) if (f.rule, f.span) not in theirs]
    refuse(made, " (with the days a document reads after it)")


def refuse(found: list, together: str = "") -> None:
    """A day whose text the build would refuse, alone or ``together`` with the days of its
    month, is not folded into a month it would then fail on (an old day's secret, never
    scanned while the budget left it out): one error naming it."""
    if found:
        problem = found[0].problem()
        shown = found[0].span.file
        raise HotplexError.single(
            f"not compacted: {problem.message}{together}",
            found[0].span,
            hint=problem.hint or f"fix {shown}, then run {compacted.COMMAND} again",
            exit_status=EXIT_FAILED,
        )
