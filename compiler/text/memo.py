"""A cache for the texts a build renders the same way for many jobs, shared by the content scans.

A leaf (the standard library only): the secret rules, which every message's redaction uses, are
memoised with it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import TypeVar

Result = TypeVar("Result")

# The cache keeps its texts alive: only short ones (nearly all sources) are worth keeping.
CACHED_CHARS = 32_768

# False inside ``uncached()``.
_KEPT = contextvars.ContextVar("hotplex_scans_kept", default=True)


@contextlib.contextmanager
def uncached() -> Iterator[None]:
    """The scans in this block (this thread's, this task's) neither read nor fill the cache: a
    library call's overlaid texts, a user's memory, are kept by nothing after the call."""
    token = _KEPT.set(False)
    try:
        yield
    finally:
        _KEPT.reset(token)


def cached_for_short_texts(scan: Callable[[str], Result]) -> Callable[[str], Result]:
    """``scan`` is pure, so a file rendered the same for many jobs (or sessions of a gateway) is
    searched once; long texts are searched each time rather than kept alive."""
    cached = functools.lru_cache(maxsize=1024)(scan)

    @functools.wraps(scan)
    def wrapper(text: str) -> Result:
        return cached(text) if len(text) <= CACHED_CHARS and _KEPT.get() else scan(text)

    wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return wrapper
