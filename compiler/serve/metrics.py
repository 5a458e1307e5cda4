"""The server's Prometheus metrics (prometheus_client). With ``--workers N`` each process writes
its figures to the folder ``PROMETHEUS_MULTIPROC_DIR`` names (set by ``run.py`` before any worker
imports this module), and ``/metrics`` adds up every process's."""

from __future__ import annotations

import functools
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

disable_created_metrics()  # no *_created series: a start time per label set is noise here

REQUESTS = Counter(
    "hotplex_http_requests_total", "HTTP requests answered", ["route", "method", "status"]
)
ABORTED = Counter(
    "hotplex_http_aborted_requests_total",
    "Requests whose client hung up before the answer (while sending its body, or waiting)",
    ["route", "method"],
)
LATENCY = Histogram(
    "hotplex_http_request_duration_seconds",
    "Time from request to the end of the response",
    ["route", "method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60),
)
COMPILES = Counter(
    "hotplex_compiles_total",
    "Compiles asked for: an artifact (of the files on disk) or a per-user overlay; abandoned:"
    " one that ran on after its client hung up",
    ["kind", "outcome"],
)
FINDINGS = Counter(
    "hotplex_findings_total",
    "Findings (secrets, hidden text, injection) reported to clients, by what they caused",
    ["route", "action"],
)
LEARNED = Counter(
    "hotplex_learned_facts_total",
    "Facts given to /v1/learn, by what became of them (added, superseded, unchanged, refused,"
    " evicted)",
    ["status"],
)
RELOADS = Counter("hotplex_reloads_total", "Artifacts served anew because their files changed")
WAITING = Gauge(
    "hotplex_waiting_requests",
    "Requests holding for a change (?wait=)",
    multiprocess_mode="livesum",
)
QUEUED = Gauge(
    "hotplex_queued_compiles",
    "Per-user compiles waiting for their turn (one compiles at a time in each process)",
    multiprocess_mode="livesum",
)
STALE = Counter(
    "hotplex_stale_responses_total",
    "Artifacts served from the last good compile while the project does not build",
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


@functools.cache
def labelled(metric: Counter | Histogram, *values: str) -> Counter | Histogram:
    """``metric.labels(*values)``, looked up once (its checks and lock cost every request a few
    µs): only for label values from a closed set (a route's template, a method, a status)."""
    return metric.labels(*values)


def exposition() -> bytes:
    """Every metric in the text format: this process's, or the whole server's with workers."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def process_stopped() -> None:
    """A worker that stops takes its share of the live gauges (requests waiting) with it."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid())
