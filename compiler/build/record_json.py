"""A job record as the build log's JSON holds it, and back: the log (``log.py``) checks a line's
shape and hands the record here; the reports line and the touched path write the same form."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the no-op path imports the log
if TYPE_CHECKING:
    from typing import Any

    from hotplex.records import JobRecord, Truncation


def record_from_json(data: dict[str, Any]) -> JobRecord:
    from hotplex.records import JobRecord, SectionSize, Stamped, Truncation

    return JobRecord(
        job=data["job"],
        target=data["target"],
        worker=data["worker"],
        platform=data["platform"],
        primary=data["primary"],
        keys=data["keys"],
        inputs=data["inputs"],
        variables=data["variables"],
        outputs={path: Stamped.from_list(stamp) for path, stamp in data["outputs"].items()},
        truncations=_cuts_from_json(Truncation, data["truncations"]),
        warnings=tuple(data["warnings"]),
        sizes=tuple(SectionSize(n, tuple(f), r, i, u) for n, f, r, i, u in data["sizes"]),
        placed=tuple(_placed(data.get("placed", []), data["outputs"])),
    )


def _placed(paths: object, outputs: dict[str, Any]) -> list[str]:
    """A record's placed files: outputs of it, each a string (anything else is corrupt)."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and p in outputs for p in paths):
        raise ValueError("bad placed files")
    return paths


def record_to_json(record: JobRecord, report_only: bool = False) -> dict[str, Any]:
    """A job record as the log writes it; ``report_only`` leaves out what only deciding needs."""
    data: dict[str, Any] = {
        "job": record.job,
        "target": record.target,
        "worker": record.worker,
        "platform": record.platform,
        "primary": record.primary,
        "outputs": {path: stamp.to_list() for path, stamp in record.outputs.items()},
        "truncations": _cuts_to_json(record.truncations),
        "warnings": list(record.warnings),
        "sizes": [[s.name, list(s.files), s.raw, s.injected, s.unit] for s in record.sizes],
    }
    if record.placed:  # absent otherwise: logs of builds without placed files stay as they were
        data["placed"] = list(record.placed)
    if not report_only:
        data.update(keys=record.keys, inputs=record.inputs, variables=record.variables)
    return data


def _cuts_to_json(cuts: tuple[Truncation, ...]) -> list[dict[str, Any]]:
    """A record's cuts as the log writes them, each its ``to_json``; but cuts in a row that
    differ only in their one file and its size (the days left out for room: 1,000 days are
    974 such cuts) are one entry, the first cut's with its ``files`` and ``before`` replaced
    by ``run``: the [file, size] of each, in order. The log's JSON is then a pair per day."""
    written: list[dict[str, Any]] = []
    shape: dict[str, Any] | None = None  # the last cut's, without its file and size
    for cut in cuts:
        data = cut.to_json()
        if len(cut.files) != 1:
            written.append(data)
            shape = None
            continue
        one = [data.pop("files")[0], data.pop("before")]
        if data != shape:
            written.append({**data, "files": [one[0]], "before": one[1]})
            shape = data
        elif "run" in written[-1]:
            written[-1]["run"].append(one)
        else:  # the second of a run: the first becomes its start
            first = written[-1]
            written[-1] = {**data, "run": [[first["files"][0], first["before"]], one]}
    return written


def _cuts_from_json(kind: type[Truncation], written: list[Any]) -> tuple[Truncation, ...]:
    """``_cuts_to_json``'s cuts back, each run of them one cut per [file, size]."""
    cuts = []
    for data in written:
        if "run" not in data:
            cuts.append(kind.from_json(data))
            continue
        cuts.extend(kind.from_json({**data, "files": [f], "before": n}) for f, n in data["run"])
    return tuple(cuts)
