"""The reports line that closes a finished build, indexed so that a build can use a few of its
reports without parsing the others.

One JSON object (keys in sorted order, as every log line)::

    {"at":[0,812,...],"readers":[[[path,...],[0,1,...]],...],"records":[[offset,length],...],
     "reports":[{...},{...},...]}

``reports`` holds the report part of every planned job's record, in plan order; ``at`` where
each one starts, counted from the first character after ``"reports":[``; ``readers`` the jobs
(by index) that read each list of inputs (sorted, as the log's records hold them); ``records``
where each job's latest record line is in the log, in bytes (the touched path compacts the log
with them, reading no record). A build that finds only some inputs moved looks up the jobs that
read them here and parses those reports alone (each ``raw_decode``\\ d at its offset, which must
end where the next one starts). It closes with a delta closing of their reports and records
(``closing.delta_closing``), which the reports it holds take precedence over here; or with this
line again, theirs replaced and the others copied as they were: the bytes are those a build of
every job would write. Anything unexpected is None, and the caller decides slowly.
"""

from __future__ import annotations

import json

from hotplex.build.log import INDEXED as PREFIX
from hotplex.build.record_json import record_to_json
from hotplex.json_writer import json_text

TYPE_CHECKING = False  # not typing's
if TYPE_CHECKING:
    from typing import Any

    from hotplex.build.closing import Closing
    from hotplex.records import JobRecord

_REPORTS = ',"reports":['
_DECODER = json.JSONDecoder()


def encode(records: list[JobRecord], at: list[tuple[int, int]]) -> str:
    """The line (its newline included) for ``records``, the planned jobs in plan order, whose
    record lines are ``at`` in the log."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, record in enumerate(records):
        groups.setdefault(tuple(sorted(record.inputs)), []).append(index)
    readers = [[list(paths), indices] for paths, indices in groups.items()]
    return _line(readers, at, [report_text(r) for r in records])


def report_text(record: JobRecord) -> str:
    """A job's report as the line holds it."""
    return _text(record_to_json(record, report_only=True))


def _text(value: Any) -> str:
    return json_text(value, sort_keys=True, separators=(",", ":"))


def _line(readers: list[Any], records: list[Any], reports: list[str]) -> str:
    at, offset = [], 0
    for text in reports:
        at.append(offset)
        offset += len(text) + 1
    index = f'{_text(at)},"readers":{_text(readers)},"records":{_text(records)}'
    return f"{PREFIX}{index}{_REPORTS}{','.join(reports)}]}}\n"


class Indexed:
    """A reports line as read, with the reports and record places of a delta closing after it:
    its index parsed, each report parsed when asked for."""

    def __init__(self, text: str, delta: dict[str, Any] | None = None) -> None:
        """Raises ValueError (a JSONDecodeError too) when ``text`` is not such a line."""
        if not text.startswith(PREFIX):
            raise ValueError("not an indexed reports line")
        at, end = _DECODER.raw_decode(text, len(PREFIX))
        if not text.startswith(',"readers":', end):
            raise ValueError("no readers")
        readers, end = _DECODER.raw_decode(text, end + len(',"readers":'))
        if not text.startswith(',"records":', end):
            raise ValueError("no records")
        records, end = _DECODER.raw_decode(text, end + len(',"records":'))
        if not text.startswith(_REPORTS, end) or not text.endswith("]}"):
            raise ValueError("no reports")
        if not isinstance(at, list) or not all(isinstance(a, int) for a in at):
            raise ValueError("bad offsets")
        self.text = text
        self.at: list[int] = at
        self.readers: list[tuple[list[str], list[int]]] = [(list(p), list(i)) for p, i in readers]
        self.records = [_place(r) for r in records]  # where each job's record line is
        self._body = end + len(_REPORTS)
        self._end = len(text) - 2  # the closing "]}"
        self.changed: dict[int, dict[str, Any]] = {}  # the delta closing's reports
        for key, report in (delta or {}).get("reports", {}).items():
            if not isinstance(report, dict):
                raise ValueError("bad report in the delta closing")
            self.changed[self._index(key)] = report
        for key, place in (delta or {}).get("records", {}).items():
            self.records[self._index(key)] = _place(place)
        if len(self.records) != len(at):
            raise ValueError("bad record places")

    def __len__(self) -> int:
        return len(self.at)

    def _index(self, key: str) -> int:
        index = int(key)
        if not 0 <= index < len(self.at):
            raise ValueError(f"no job {key}")
        return index

    def _span(self, index: int) -> tuple[int, int]:
        start = self._body + self.at[index]
        end = self._body + self.at[index + 1] - 1 if index + 1 < len(self.at) else self._end
        return start, end

    def report(self, index: int) -> dict[str, Any]:
        """The report of the job at ``index``, checked to fill its place exactly."""
        if index in self.changed:
            return self.changed[index]
        start, end = self._span(index)
        value, stop = _DECODER.raw_decode(self.text, start)
        if stop != end or not isinstance(value, dict) or self.text[end] not in ",]":
            raise ValueError(f"report {index} is not where the index says")
        return value

    def replaced(self, records: dict[int, JobRecord], at: list[tuple[int, int]]) -> str:
        """The line with the reports of ``records`` (index -> its new record) replaced, each
        record line ``at`` its place; the readers stay (the caller has checked that each job
        read the same inputs)."""
        reports = []
        for index in range(len(self.at)):
            if index in records:
                reports.append(report_text(records[index]))
            elif index in self.changed:
                reports.append(_text(self.changed[index]))
            else:
                start, end = self._span(index)
                reports.append(self.text[start:end])
        readers = [[paths, indices] for paths, indices in self.readers]
        return _line(readers, at, reports)


def _place(value: Any) -> tuple[int, int]:
    """Where a record line is in the log: its offset and length, in bytes."""
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise ValueError("bad record place")
    return value[0], value[1]


def indexed(closing: Closing) -> Indexed | None:
    """The closing's reports line with its index (and its delta closing's), or None when it is
    not one."""
    line = closing.reports_line()
    try:
        return None if line is None else Indexed(line.decode("utf-8"), closing.delta)
    except (ValueError, TypeError, IndexError, AttributeError):  # and a UnicodeDecodeError
        return None
