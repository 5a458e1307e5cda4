"""A cache for the texts a build renders the same way for many jobs, shared by the content scans.

A leaf (the standard library only): the secret rules, which every message's redaction uses, are
memoised with it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

Result = TypeVar("Result")

# The cache keeps its texts alive: only short ones (nearly all sources) are worth keeping.
CACHED_CHARS = 32_768

# Inside ``uncached()``: what its block has scanned, (scan, text) -> result; else None.
_CALL: contextvars.ContextVar[dict[tuple[Any, str], Any] | None] = contextvars.ContextVar(
    "hotplex_scans_of_call", default=None
)


@contextlib.contextmanager
def uncached() -> Iterator[None]:
    """The scans in this block (this thread's, this task's) neither read nor fill the cache: a
    library call's overlaid texts, a user's memory, are kept by nothing after the call. Within
    the block each text is scanned once: the guard's scan of a file, a prefilter and the
    findings after it, each job's compile of the same overlay share one result."""
    outer = _CALL.get()
    token = _CALL.set({} if outer is None else outer)
    try:
        yield
    finally:
        _CALL.reset(token)


def cached_for_short_texts(scan: Callable[[str], Result]) -> Callable[[str], Result]:
    """``scan`` is pure, so a file rendered the same for many jobs (or sessions of a gateway) is
    searched once; long texts are searched each time rather than kept alive."""
    cached = functools.lru_cache(maxsize=1024)(scan)

    @functools.wraps(scan)
    def wrapper(text: str) -> Result:
        call = _CALL.get()
        if call is None:
            return cached(text) if len(text) <= CACHED_CHARS else scan(text)
        key = (scan, text)
        if key not in call:
            call[key] = scan(text)
        return call[key]

    wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return wrapper
