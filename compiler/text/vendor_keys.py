"""The shapes of other vendors' keys, each a prefix no prose writes and a body of a fixed alphabet
and length, so a match is a key (adversary21 D5): Stripe's, Google's, Hugging Face's, GitLab's,
npm's, SendGrid's, and a JSON Web Token. ``secret_rules.RULES`` makes each a ``Rule``.

A leaf (the standard library only), as ``secret_rules`` is. Left out by choice: Stripe's test-mode
keys (``sk_test_…``: they move no money, and Stripe's own guides print one for every reader to
copy), and Twilio's ``SK…`` (an API key's SID, which names a key rather than being its secret; two
capitals as an anchor would be tried in every capitalised word).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A key's first character may not follow a letter or digit (``desk_live_…``, ``heyJ…``); a
# ``_`` or ``-`` before it too where the body may hold the prefix again (``glpat-glpat-…``,
# ``eyJeyJ…``): each place in one run tried would read the run to its end again, its length
# squared. After a key, a character of its body's alphabet makes it a longer word; a ``_``
# after a body without one may close emphasis (``_sk_live_…_``).
_ALNUM = re.compile(r"[^\W_]")
_WORD = re.compile(r"[\w-]")
_END = r"(?![A-Za-z0-9_-])"
# A body written to stand for a key: a run of one character (``XXXX…``, ``0000…``) or a word
# that says so (``AIzaSyYourApiKeyHere…``). A random body holds neither but by a rare chance.
_STAND_IN = re.compile(r"(.)\1{3}|your|example|placeholder|redacted|dummy|sample", re.IGNORECASE)


def _random_after(prefix: int) -> Callable[[str], bool]:
    """Whether a key's body (past its ``prefix`` characters) is random: two of capitals, small
    letters and digits, no long word or name, and no stand-in (``_STAND_IN``)."""

    def random(secret: str) -> bool:
        body = secret[prefix:]
        kinds = (str.isupper, str.islower, str.isdigit)
        mixed = sum(any(kind(c) for c in body) for kind in kinds) >= 2
        return mixed and not _STAND_IN.search(body)

    return random


def _random_letters(secret: str) -> bool:
    """A Hugging Face token's 34 letters or more, drawn at random: capitals and small letters
    a quarter of them each at least (a token fails that once in a thousand), which a name in
    camel case (``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``, a capital a word) lacks."""
    body = secret[len("hf_") :]
    capitals = sum(c.isupper() for c in body)
    return min(capitals, len(body) - capitals) >= len(body) // 4 and not _STAND_IN.search(body)


def _token_header(secret: str) -> bool:
    """A JSON Web Token's header, decoded, is a JSON object naming its algorithm (``alg``)."""
    import base64  # here: a text holding no token never loads them
    import json

    header = secret.partition(".")[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, RecursionError):  # not base64, UTF-8 or JSON; nested past the stack
        return False
    return isinstance(decoded, dict) and "alg" in decoded


# Each as ``secret_rules.Rule``'s fields: name, description, pattern, anchors, and how it is
# judged (``plausible``) and bounded (``inside_word``).
KEYS: tuple[dict[str, object], ...] = (
    {
        "name": "stripe-api-key",
        "description": "a Stripe live secret or restricted key",
        "pattern": re.compile(r"[sr]k_live_[A-Za-z0-9]{24,}+"),
        "anchors": ("sk_live_", "rk_live_"),
        "plausible": _random_after(len("sk_live_")),
        "inside_word": _ALNUM,
    },
    {
        "name": "google-api-key",
        "description": "a Google API key",
        "pattern": re.compile(r"AIza[A-Za-z0-9_-]{35}" + _END),
        "anchors": ("AIza",),
        "plausible": _random_after(len("AIza")),
        "inside_word": _WORD,
    },
    {
        "name": "huggingface-token",
        "description": "a Hugging Face access token",
        "pattern": re.compile(r"hf_[A-Za-z]{34,}+(?![0-9])"),
        "anchors": ("hf_",),
        "plausible": _random_letters,
        "inside_word": _ALNUM,
    },
    {
        "name": "gitlab-token",
        "description": "a GitLab personal access token",
        "pattern": re.compile(r"glpat-[A-Za-z0-9_-]{20,}+(?:\.[A-Za-z0-9_-]{8,}+)?" + _END),
        "anchors": ("glpat-",),
        "plausible": _random_after(len("glpat-")),
        "inside_word": _WORD,
    },
    {
        "name": "npm-token",
        "description": "an npm access token",
        "pattern": re.compile(r"npm_[A-Za-z0-9]{36}+(?![A-Za-z0-9])"),
        "anchors": ("npm_",),
        "plausible": _random_after(len("npm_")),
        "inside_word": _ALNUM,
    },
    {
        "name": "sendgrid-api-key",
        "description": "a SendGrid API key",
        "pattern": re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END),
        "anchors": ("SG.",),
        "plausible": _random_after(len("SG.")),
        "inside_word": _WORD,
    },
    {
        # Three base64url parts, header and payload each a JSON object (``{"`` is ``eyJ``); an
        # unsigned one (``alg: none``, no third part) carries no key to steal.
        "name": "jwt",
        "description": "a JSON Web Token",
        "pattern": re.compile(
            r"eyJ[A-Za-z0-9_-]{10,}+\.eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{16,}+" + _END
        ),
        "anchors": ("eyJ",),
        "plausible": _token_header,
        "inside_word": _WORD,
    },
)
ANCHORS = frozenset(anchor for key in KEYS for anchor in key["anchors"])  # type: ignore[attr-defined]


def searched(anchor: str) -> tuple[str, str]:
    """Any rule's anchor as ``secret_rules``' one search finds it, as its first character and a
    pattern for the rest: as written, or one of these from its first character that is no small
    letter (``_live_``, ``J``), the letters before it read behind, in group 1, where it starts.
    From a first letter (``e``, ``n``, ``r``) a match would be tried at a third of a text's
    characters."""
    i = next((i for i, c in enumerate(anchor) if not "a" <= c <= "z"), 0)
    if anchor not in ANCHORS or i == 0:
        return anchor[0], re.escape(anchor[1:])
    rest = re.escape(anchor[i + 1 :])
    return anchor[i], f"{rest}(?<=({re.escape(anchor[:i])}){re.escape(anchor[i:])})"
