"""Errors as RFC 9457 problem documents (``application/problem+json``), carrying what the CLI
prints: each problem's message, its place (``file:line:column`` or a manifest key path) and its
hint, in ``problems``; ``detail`` is the CLI's text of them all."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

from hotplex.errors import HotplexError, Problem
from hotplex.json_writer import json_text
from starlette.responses import Response

MEDIA_TYPE = "application/problem+json"


def problem_response(
    status: int,
    detail: str,
    problems: list[Problem] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    body: dict[str, object] = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if problems:
        body["problems"] = [_problem(p) for p in problems]
    # A message quotes what the client sent: even a lone surrogate in it is written as its
    # escape (``json_writer.json_text``, the one JSON writer), never an error turned into a crash.
    data = json_text(body).encode("utf-8")
    return Response(data, status, headers=dict(headers or {}), media_type=MEDIA_TYPE)


def error_response(
    status: int, error: HotplexError, headers: Mapping[str, str] | None = None
) -> Response:
    return problem_response(status, error.render(), error.problems, headers)


def _problem(problem: Problem) -> dict[str, object]:
    out = problem.to_json()
    if problem.span is not None:
        out["place"] = problem.span.location()
    return out
