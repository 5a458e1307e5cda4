"""Whether an ``[injection] allow_hosts`` entry names a host a URL can have: not a URL, a
wildcard, a bare IPv6 address or a public suffix (which would allow anyone's site under it)."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from hotplex.scanning import urls


def host_entry_problem(entry: str) -> tuple[str, str | None] | None:
    """Why an ``allow_hosts`` entry names no host a URL can have, or allows every stranger's
    site under a public suffix (message, hint); None when it is a host as a URL holds it."""
    bracketed = entry.startswith("[") and entry.endswith("]")
    if not bracketed and _ipv6(entry):
        host = urls.resolve(f"https://[{entry}]/")
        return f"'{entry}' is an IPv6 address, which a URL holds in brackets", _meant(host)
    if not bracketed and any(c in entry for c in "/:@?#"):  # a URL: its host is meant
        return f"'{entry}' is a URL, not a host", _meant(urls.elsewhere(urls.decoded(entry)))
    found = urls.resolve(f"https://{entry}/") if entry.strip() else None
    if found is None or not found[1]:
        return f"'{entry}' is not a host name", 'write a host alone, e.g. "img.shields.io"'
    if found[1] != entry:
        return f"'{entry}' is not a host as a URL holds it", _meant(found)
    if bracketed:
        return None
    labels = entry.removesuffix(".").split(".")
    named = ".".join(label for label in labels if label and label != "*")
    if "*" in labels:
        return (
            f"'{entry}' is a wildcard, which no host is",
            f'"{named}" already allows the names under it' if named else None,
        )
    if "" in labels:
        return f"'{entry}' has an empty label, which no host has", _meant(("", named))
    edged = [label for label in labels if label.startswith("-") or label.endswith("-")]
    if edged:  # a URL may hold it; no host name does (RFC 1123), so no one's site is there
        meant = ".".join(label.strip("-") for label in labels if label.strip("-"))
        return (
            f"'{entry}' has a label that starts or ends with '-', which no host name has",
            _meant(("", meant)),
        )
    return public_suffix_problem(entry)


# What a token, a tag or markup holds (``<|im_start|>``, ``[INST]``, ``&lt;system&gt;``, their
# full-width forms): an entry holding one may be a token or tag as written or as it reads.
_MARKUP = frozenset("<>[]|&＜＞［］｜＆")
_ROLE = re.compile(r"\s*system\s*:", re.IGNORECASE)  # a role line's text, from its word on
_HOST_LIKE = re.compile(r"[.:/*\u3002]|^-|-$")  # a dot (an ideographic one), a URL's marks


def allow_entry_problem(entry: str) -> tuple[str, str | None] | None:
    """Why an ``[injection] allow`` entry that names no rule allows no finding, as
    ``injection._allowed_alone`` matches one (message, hint); None when it may. A finding is
    allowed by its host, by a role line's text from its ``SYSTEM:`` to the line's end, or by a
    token or tag, whole: so an entry with a line break and no markup, one with no letter or
    digit, and a host no URL holds (``example.com:443``, ``*.example.com``, a full-width
    ``ｅxample.com``, ``a b.example``) is none. Other words (``role online``) are let be."""
    text = entry.strip()
    if _MARKUP.intersection(text):
        return None
    from hotplex.scanning.hidden import visible

    if any(c in text for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        return (
            f"'{visible(entry)}' holds a line break, which no host, role line or token the"
            " scan reports does",
            "write one entry per finding",
        )
    if not any(c.isalnum() for c in text):
        return (
            f"'{visible(entry)}' holds no letter or digit, so no host, role line or token is it,"
            " and it allows nothing",
            _WHAT_ALLOWS,
        )
    folded = unicodedata.normalize("NFKC", text)  # "ＣＯＭ", "co．uk": a host to a URL
    if _ROLE.match(folded) or not (folded != text or _HOST_LIKE.search(text)):
        return None
    if any(c.isspace() for c in text):
        return (
            f"'{visible(entry)}' is no host (a host holds no blank), no role line's text and no"
            " token, so it allows nothing",
            _WHAT_ALLOWS,
        )
    # Matched in lower case (EXAMPLE.com is a host; ＣＯＭ is named as written) and unstripped:
    # "example.com " matches no host.
    return host_entry_problem(entry.lower() if entry.isascii() else entry)


_WHAT_ALLOWS = (
    'an entry names a rule ("role-line") or what a finding is: a host ("img.shields.io"), a'
    ' role line from its SYSTEM: to the line\'s end ("System: Ubuntu"), a token ("<|eot_id|>")'
)


def public_suffix_problem(entry: str) -> tuple[str, str] | None:
    """Why an entry that allows a host and the names under it (``allow_hosts``, a package's
    ``allow``) lets in every stranger's site: it is a public suffix (message, hint); else None."""
    if not _public_suffix(entry.lower().removesuffix(".")):
        return None
    return (
        f"'{entry}' is a public suffix: it would allow every site under it, anyone's",
        f'name the site meant, e.g. "example.{entry}", which allows the names under it',
    )


def _meant(found: tuple[str, str] | None) -> str | None:
    """The "did you mean" of a host entry: the host ``found`` names, if any."""
    return f'did you mean "{found[1]}"?' if found is not None and found[1] else None


def _ipv6(entry: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(entry)
    except ValueError:
        return False
    return True


def _public_suffix(host: str) -> bool:
    """Whether ``host`` is a suffix under which anyone may register a name (the Public Suffix
    List, its ICANN and private parts: ``io``, ``co.uk``, ``github.io``); a name the list
    does not know (``localhost``, an address) is none."""
    return _suffixes().is_public(host)


@functools.cache
def _suffixes() -> Any:
    from publicsuffixlist import PublicSuffixList  # read only when allow_hosts names a host

    return PublicSuffixList(accept_unknown=False)
