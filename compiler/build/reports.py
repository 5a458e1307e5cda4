"""The reports line that closes a finished build, indexed so that a build can use a few of its
reports without parsing the others.

One JSON object (keys in sorted order, as every log line)::

    {"at":[0,812,...],"readers":[[[path,...],[0,1,...]],...],"reports":[{...},{...},...]}

``reports`` holds the report part of every planned job's record, in plan order; ``at`` where
each one starts, counted from the first character after ``"reports":[``; ``readers`` the jobs
(by index) that read each list of inputs (sorted, as the log's records hold them). A build that
finds only some inputs moved looks up the jobs that read them here, parses those reports alone
(each ``raw_decode``\\ d at its offset, which must end where the next one starts) and writes the
line again with theirs replaced, copying the others as they were: the bytes are those a build
of every job would write. Anything unexpected is None, and the caller decides slowly.
"""

from __future__ import annotations

import json

from hotplex.build.log import INDEXED as PREFIX
from hotplex.build.log import Closing, record_to_json
from hotplex.json_writer import json_text

TYPE_CHECKING = False  # not typing's
if TYPE_CHECKING:
    from typing import Any

    from hotplex.records import JobRecord

_REPORTS = ',"reports":['
_DECODER = json.JSONDecoder()


def encode(records: list[JobRecord]) -> str:
    """The line (its newline included) for ``records``, the planned jobs in plan order."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, record in enumerate(records):
        groups.setdefault(tuple(sorted(record.inputs)), []).append(index)
    readers = [[list(paths), indices] for paths, indices in groups.items()]
    return _line(readers, [_text(record_to_json(r, report_only=True)) for r in records])


def _text(value: Any) -> str:
    return json_text(value, sort_keys=True, separators=(",", ":"))


def _line(readers: list[Any], reports: list[str]) -> str:
    at, offset = [], 0
    for text in reports:
        at.append(offset)
        offset += len(text) + 1
    return f'{PREFIX}{_text(at)},"readers":{_text(readers)}{_REPORTS}{",".join(reports)}]}}\n'


class Indexed:
    """A reports line as read: its index parsed, each report parsed when asked for."""

    def __init__(self, text: str) -> None:
        """Raises ValueError (a JSONDecodeError too) when ``text`` is not such a line."""
        if not text.startswith(PREFIX):
            raise ValueError("not an indexed reports line")
        at, end = _DECODER.raw_decode(text, len(PREFIX))
        if not text.startswith(',"readers":', end):
            raise ValueError("no readers")
        readers, end = _DECODER.raw_decode(text, end + len(',"readers":'))
        if not text.startswith(_REPORTS, end) or not text.endswith("]}"):
            raise ValueError("no reports")
        if not isinstance(at, list) or not all(isinstance(a, int) for a in at):
            raise ValueError("bad offsets")
        self.text = text
        self.at: list[int] = at
        self.readers: list[tuple[list[str], list[int]]] = [(list(p), list(i)) for p, i in readers]
        self._body = end + len(_REPORTS)
        self._end = len(text) - 2  # the closing "]}"

    def __len__(self) -> int:
        return len(self.at)

    def _span(self, index: int) -> tuple[int, int]:
        start = self._body + self.at[index]
        end = self._body + self.at[index + 1] - 1 if index + 1 < len(self.at) else self._end
        return start, end

    def report(self, index: int) -> dict[str, Any]:
        """The report of the job at ``index``, checked to fill its place exactly."""
        start, end = self._span(index)
        value, stop = _DECODER.raw_decode(self.text, start)
        if stop != end or not isinstance(value, dict) or self.text[end] not in ",]":
            raise ValueError(f"report {index} is not where the index says")
        return value

    def replaced(self, records: dict[int, JobRecord]) -> str:
        """The line with the reports of ``records`` (index -> its new record) replaced; the
        readers stay (the caller has checked that each job read the same inputs)."""
        reports = []
        for index in range(len(self.at)):
            if index in records:
                reports.append(_text(record_to_json(records[index], report_only=True)))
            else:
                start, end = self._span(index)
                reports.append(self.text[start:end])
        readers = [[paths, indices] for paths, indices in self.readers]
        return _line(readers, reports)


def indexed(closing: Closing) -> Indexed | None:
    """The closing's reports line with its index, or None when it is not one."""
    line = closing.reports_line()
    try:
        return None if line is None else Indexed(line.decode("utf-8"))
    except (ValueError, TypeError, IndexError):  # ValueError includes a UnicodeDecodeError
        return None
