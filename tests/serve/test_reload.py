"""While the server answers without pause, a source is saved (atomically, then in place) and the
manifest broken and fixed: every answer is one whole build, never older than the files when it
was asked for, no 5xx but the broken project's documented 503. The short form of
``benchmarks/serve_reload.py`` (which the benchmark runs under its generator's load, 20 saves each).
"""

from __future__ import annotations

import pytest
from hotplex_testing import benchmark

SAVES = 3


@pytest.mark.parametrize("workers", [1, 2])
def test_every_answer_is_one_whole_build_while_the_files_are_saved(workers, example_copy):
    reload_run = benchmark("serve_reload")
    project = example_copy("basic")
    report = reload_run.Report(SAVES, workers)
    with reload_run.serving(project, workers) as server:
        reload_run.run(project, server, SAVES, report)

    assert report.failures == [], "\n".join(report.lines())
    assert report.mixed == 0
    assert report.server_errors == 0
    assert report.behind == 0  # "file change -> next request"
    # Every state of the atomic saves was served on both routes (each save waits for answers
    # to requests sent after it), the broken manifest seen as documented: GET kept the last
    # good artifact, marked stale; POST /v1/compile answered 503.
    assert report.served_builds == 2 * (SAVES + 1)
    assert report.stale > 0
    assert report.broken_503["compile"] > 0
    assert report.broken_503["artifact"] == 0  # it had a good one to serve
    assert report.in_place_behind == 0
    assert report.final_served


def test_a_job_never_asked_for_is_served_stale_once_the_project_breaks(example_copy):
    """Each server process compiles every job at its start, as `hotplex build` leaves dist/:
    a job nobody asked for before the manifest broke still has a last good artifact."""
    reload_run = benchmark("serve_reload")
    project = example_copy("basic")
    with reload_run.serving(project) as server:
        reload_run.save_atomically(project / "hotplex.toml", reload_run.BROKEN_MANIFEST)
        status, headers, _ = server.request("GET", "/v1/artifacts/ocs?platform=feishu")
        ready, _, problem = server.request("GET", "/readyz")
    assert (status, headers.get("hotplex-stale")) == (200, "true")
    assert ready == 503
    assert b"hotplex.toml:2:15" in problem
