"""``POST /v1/memory/compact`` and ``/v1/memory/compact/request``: days in, a month's file (or
the request for one) out. Nothing is read from the project but its manifest, nothing written:
the gateway keeps its users' days, months and histories in its own store.

The days come as a mapping of file name (``2026-10-01.md``, a day's name as the logs glob reads
it) to text. Without an answer every month among them is compacted by the built-in compactor;
with one, the days must be one month's and the answer is guarded and filed as its text. A
request holds one month's days too.
"""

from __future__ import annotations

from collections.abc import Mapping

from hotplex.errors import HotplexError, Span
from hotplex.generated import attrs
from hotplex.manifest.vocabulary import split_glob
from hotplex.memory import local
from hotplex.memory.scanned import scanned_days
from hotplex.sources import compacted
from hotplex.sources.logs import is_day, matching
from hotplex.values import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.jobs import Job
    from hotplex.manifest.model import Model
    from hotplex.memory.request import CompactionRequest

MOST_DAYS = 1000  # one request's days: a few years of logs
DAY_GLOB = "*.md"  # the days' names a project without [memory] logs is sent


@attrs.frozen(repr=False)
class MonthText(Record):
    """A compacted month: the file's whole text (header and body), the days it covers and what
    to append to the month's history ("" for nothing)."""

    month: str
    text: str
    days: tuple[str, ...]
    history: str

    def to_json(self) -> dict[str, object]:
        return {
            "month": self.month,
            "path": f"{compacted.COMPACTED_FOLDER}/{self.month}.md",
            "text": self.text,
            "days": list(self.days),
            "history": self.history,
        }


def checked_days(model: Model, days: object) -> dict[str, bytes]:
    """The request's days, each name a day's file name the project's logs glob reads (the
    manifest's pattern, ``*.md`` without one), none twice up to letter case (one file where
    the days are kept on a disk that ignores it), each text a string."""
    span = Span("request body", key="days")
    logs = model.manifest.memory.logs
    glob = logs or DAY_GLOB
    if not isinstance(days, Mapping) or not days:
        raise HotplexError.single(
            "'days' must be a non-empty object of day file names to their text",
            span,
            hint='{"days": {"2026-10-01.md": "- met acme"}}',
        )
    if len(days) > MOST_DAYS:
        raise HotplexError.single(f"{len(days)} days: at most {MOST_DAYS} in one request", span)
    found: dict[str, bytes] = {}
    folded: dict[str, str] = {}
    for name, text in sorted(days.items()):
        at = Span("request body", key=f"days.{name}")
        if not isinstance(name, str) or "/" in name or "\\" in name or not is_day(name):
            raise HotplexError.single(
                f"{name!r} is no day's file name: a day is named by its date, as 2026-10-01.md",
                at,
            )
        if not matching([(name, 0)], split_glob(glob)[1]):
            raise HotplexError.single(
                f"{name!r} is no day's file name under the logs glob {glob}: the project"
                " would never read it as a day",
                at,
                hint=f"name it as the glob does, as {name[:10]}.md",
            )
        twin = folded.setdefault(name.casefold(), name)
        if twin != name:
            raise HotplexError.single(
                f"{twin!r} and {name!r} name one day's file twice (letter case aside): send it"
                " once",
                at,
            )
        if not isinstance(text, str):
            raise HotplexError.single(f"the text of {name} must be a string", at)
        found[name] = text.encode("utf-8", "surrogatepass")
    return found


def _texts(model: Model, days: dict[str, bytes]) -> tuple[list, dict]:
    texts = scanned_days(model, [(n, d, f"days/{n}") for n, d in days.items()])
    return texts, {n: local.header_line(d) for n, d in days.items()}


def _one_month(days: dict[str, bytes]) -> str:
    months = sorted({name[:7] for name in days})
    if len(months) > 1:
        raise HotplexError.single(
            f"an answer or a request is for one month; these days are of {', '.join(months)}",
            Span("request body", key="days"),
            hint="send one month's days",
        )
    return months[0]


def compact(model: Model, days: object, answer: str | None = None) -> tuple[MonthText, ...]:
    """Each month of ``days`` compacted (or, with ``answer``, the one month filed from it)."""
    given = checked_days(model, days)
    if answer is not None:
        from hotplex.memory.answer import guarded

        month = _one_month(given)
        _texts(model, given)  # the days are scanned as a build would, as for the built-in
        body = guarded(model, answer, "answer")
        headers = {n: local.header_line(d) for n, d in given.items()}
        text = compacted.month_file(month, "answer", headers, body)
        return (MonthText(month, text, tuple(given), ""),)
    done = []
    for month in sorted({name[:7] for name in given}):
        own = {n: d for n, d in given.items() if n[:7] == month}
        texts, headers = _texts(model, own)
        history = f"{compacted.HISTORY_FOLDER}/{month}.md"
        text, folded = local.builtin_file(model, month, texts, headers, history)
        kept = local.history_text(month, folded.history) if folded.history else ""
        done.append(MonthText(month, text, tuple(own), kept))
    return tuple(done)


def request(model: Model, job: Job, days: object) -> CompactionRequest:
    """The compaction request for one month's ``days``, in ``job``'s worker's own form."""
    from hotplex.memory.request import compile_request

    given = checked_days(model, days)
    month = _one_month(given)
    texts, headers = _texts(model, given)
    return compile_request(model, job, month, local.within_request(model, texts), headers)
