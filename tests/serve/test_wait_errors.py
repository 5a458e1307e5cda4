"""A request waiting for a change (``?wait=``) gets the same errors as one that does not: a
404 for an unknown platform, not a 500 from the task that watches for the client hanging up."""

from __future__ import annotations

from hotplex_testing import benchmark

NO_ETAG = "0" * 64


def test_waiting_for_an_unknown_platform_is_a_404(example_copy):
    reload_run = benchmark("serve_reload")
    project = example_copy("basic")
    with reload_run.serving(project) as server:
        status, headers, body = server.request(
            "GET", f"/v1/artifacts/cc?platform=nope&wait={NO_ETAG}&timeout=5"
        )
    assert (status, headers["content-type"]) == (404, "application/problem+json")
    assert b"target 'cc' has no platform 'nope'" in body
