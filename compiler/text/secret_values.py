"""Whether a matched value is a secret or stands for one: a placeholder (``your-token``,
``${VAR}``, ``********``), a kind of value (a path, a time, a tag), a name with numbers
(``gpt-4o-2024-08-06``), prose; or real-looking (``Xk9mP2vL8qR4wz``), a passphrase.

A leaf beside ``secret_rules``, which judges each match of its rules with these.
"""

from __future__ import annotations

import itertools
import re


def _has_digit_or_symbol(secret: str) -> bool:
    """Identifiers, words and dotted names (``password=password``, ``token: string``) are code."""
    return any(c.isdigit() or not (c.isalnum() or c in "_-.") for c in secret)


def _in_caseless_script(secret: str) -> bool:
    """A letter of a script without case (Han, kana, Hangul, Thai…): prose, which in Chinese and
    Japanese runs on without a blank, so a count in it (``第3步``) is no secret's digit."""
    return not secret.isascii() and any(c.isalpha() and c.lower() == c.upper() for c in secret)


# Words that stand for a secret in documentation rather than being one.
_PLACEHOLDER_WORD = re.compile(
    r"your|example|placeholder|redacted|changeme|dummy|xxxx|\.\.\.", re.IGNORECASE
)
# A value wrapped as a variable or a template (``${…}``, ``{{…}}``, ``<…>``, ``%…%``) or masked
# (``********``): a placeholder by its shape, unless what it holds is a real-looking value.
_WRAPPED = re.compile(r"^[$<%{\[(]|\*\*\*")
PLACEHOLDER_OR_MASK = re.compile(rf"{_PLACEHOLDER_WORD.pattern}|\*\*\*", re.IGNORECASE)
# What a real value has and a name lacks: a digit run followed by letters twice in one word
# (``Xk9mP2vL``); a name has one at most (``DB_PASSWORD2``, ``b64encode``, ``k8s``, ``x509v3``).
MIXED_RUN = r"[0-9]++[a-z]++[0-9]++[a-z]"
_MIXED = re.compile(MIXED_RUN, re.IGNORECASE)
# What a value is, not the value: a YAML tag (``password: !vault |``, the value on the lines
# after) or alias (``*db_password``), a path (``PWD=/home/dev``, ``password_file=~/.pgpass``,
# ``./secrets/token``, ``C:\Users\dev``), a duration (``1h30m``), a colour (``#3b82f6``), a
# time (``2024-08-06T10:00:00Z``, ``12:30:00``), a secret store's reference, which is written
# instead of the secret (``op://vault/item/field``, ``vault:secret/data/db#pw``, an AWS ARN, a
# GCP ``projects/…/secrets/…``), a key's algorithm (``rsa4096``). Not a URL: a webhook's path
# is its credential.
_ALGORITHM = r"(?:aes|rsa|dsa|ecdsa|ecdh|ed|x|sha[123]?|chacha|poly|pbkdf2|hmac|argon2|p|md5)"
# Its sizes: key, hash, curve and nonce sizes a name carries (a weak password's year is none).
_SIZE = r"(?:20|128|160|192|224|256|384|448|512|521|1024|2048|3072|4096|8192|25519|1305)"
_MODE = r"(?:gcm|cbc|ctr|ecb|ccm|ocb|siv|cfb|ofb|id|i|d)"
_KIND_OF_VALUE = re.compile(
    r"!!?[a-z_]++|\*[a-z_][\w-]*+"
    r"|(?:~|\.\.?|[a-z]:|(?:/|\\{1,2})[\w.-]++)(?:(?:/|\\{1,2})[\w.-]++)++[/\\]?"
    r"|(?:[0-9]++(?:\.[0-9]++)?(?:ns|us|ms|[smhdwy]))++|#[0-9a-f]{3,8}+"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}[t ][0-9:.]++(?:z|[+-][0-9:]++)?|[0-9]{1,2}(?::[0-9]{2}){1,2}+"
    r"|(?:op|vault|secret|gcpsm|azkv)://\S++|vault:\S++|arn:aws[\w-]*+:(?:secretsmanager|ssm):\S++"
    r"|projects/[^/\s]++/secrets/\S++"
    # A key's algorithm, its parts joined by dashes (``AES-256-GCM``, ``ChaCha20-Poly1305``,
    # ``PBKDF2-SHA256``, ``ECDSA-P256``): an algorithm's name first, numbers and modes after it.
    rf"|{_ALGORITHM}(?:-?{_SIZE})?(?:-(?:{_ALGORITHM}(?:-?{_SIZE})?|{_SIZE}|{_MODE})){{0,3}}"
    # A member chain asserted non-null in TypeScript (``process.env.OPENAI_API_KEY!``).
    r"|[a-z_$][\w$]*+(?:\.[a-z_$][\w$]*+)++!",
    re.IGNORECASE,
)
# A lower-case name whose digits are versions, sizes or dates (``gpt-4o-2024-08-06``,
# ``claude-3-5-sonnet-20241022``, ``1.2.3-rc1``, ``128k-context``, ``v2beta3``): parts between
# ``-``, ``.`` or ``_`` of letters or of digits, or marked (``4o``, ``8x7b``, ``p50k``), three or
# more or one marked. Two plain parts are a weak password as often (``summer-2024``, ``admin_1``).
_PLAIN = r"(?:[a-z]++|[0-9]++)"
_MARKED = r"(?:[a-z]{1,2}+[0-9]++k?+|[0-9]++(?:x[0-9]++)?[a-z]{1,2}+)"
_PART = rf"(?:{_MARKED}|{_PLAIN})"
_NUMBERED_NAME = re.compile(
    rf"v[0-9]++(?:alpha|beta)[0-9]*+|{_PART}(?:[-._]{_PART}){{2,}}+"
    rf"|{_MARKED}[-._]{_PART}|{_PLAIN}[-._]{_MARKED}"
)


def real_looking(value: str) -> bool:
    """A word of ``value`` is random-looking (``_MIXED``) and no name, path or other kind of
    value, or its words together are where none reads as prose (a key shown in groups,
    ``Xk9m P2vL 8qR4``): the one test a value gets where nothing around it says it is a secret."""
    if _PLACEHOLDER_WORD.search(value):
        return False
    words = value.split()
    if len(words) > 1 and not any(_prose_word(w) for w in words):
        words.append("".join(words))
    return any(
        _MIXED.search(word)
        and not (_KIND_OF_VALUE.fullmatch(word) or _NUMBERED_NAME.fullmatch(word))
        for word in words
    )


def _prose_word(word: str) -> bool:
    """Three letters or more as a sentence writes them: ``the``, ``Step``, ``UTC``."""
    return len(word) > 2 and word.isalpha() and (word.islower() or word.istitle() or word.isupper())


# Words every sentence has and a generated passphrase hardly ever does.
_LITTLE_WORD = re.compile(
    r"an?|the|and|or|not?|to|of|in|on|at|by|as|for|with|from|is|are|be|was|must|should|can|will"
    r"|does|do|this|that|it"
)


def _passphrase(words: list[str]) -> bool:
    """Four or more lower-case words and nothing else (``correct horse battery staple``); prose
    has capitals, digits, punctuation or little words (``does not match the confirmation``)."""
    return len(words) >= 4 and all(
        w.isascii() and w.isalpha() and w.islower() and not _LITTLE_WORD.fullmatch(w) for w in words
    )


# A word's humps as an identifier is split: a capital and small letters, or capitals alone.
_HUMP = re.compile(r"[A-Z]?[a-z]++|[A-Z]++(?![a-z])")


def _drawn_letters(word: str) -> bool:
    """Twenty ASCII letters or more, of both cases, at most one in five a vowel, and the cases
    mixed as no identifier mixes them: changing at every other letter or more, or in humps of
    three or more with no vowel (``Kjhq``, ``Ncbv``) as many as the others
    (``KjhqWepoIzmxNcbvTrewQasdfGhjklZxc``): a key drawn at random from the letters. Words and
    identifiers (``getUserPasswordFromVault``, ``SQLGetConnectAttrStr``) have a vowel in each
    hump but an abbreviation's. Shorter runs of letters and runs of one case stay names; a value
    of digits only (a port, a PIN in a manual, a year) and a lone word (``letmein``) are never
    told from ordinary text by their characters, and are not found."""
    word = word.rstrip(".")  # a sentence's end
    if len(word) < 20 or not (word.isascii() and word.isalpha()) or word.islower():
        return False
    if sum(c in "aeiouAEIOU" for c in word) * 5 > len(word):
        return False
    changes = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(word))
    humps = [h for h in _HUMP.findall(word) if len(h) > 2 and not h.isupper()]
    silent = sum(not any(c in "aeiouy" for c in h.lower()) for h in humps)
    return changes * 2 >= len(word) - 1 or (silent >= 3 and silent * 2 >= len(humps))


def plausible_value(secret: str) -> bool:
    """A value assigned to a key name: real-looking, a passphrase, or one word with a digit or a
    symbol that is no placeholder, kind of value, numbered name or prose."""
    words = secret.split()
    if len(words) != 1:
        return real_looking(secret) or (
            _PLACEHOLDER_WORD.search(secret) is None and _passphrase(words)
        )
    word = words[0]  # a quoted one without the blanks around it
    if word.isdigit() or len(set(word)) < 3:
        return False
    if not _has_digit_or_symbol(word):
        return _drawn_letters(word) and _PLACEHOLDER_WORD.search(word) is None
    if _MIXED.search(word):
        return real_looking(word)
    return not (
        _PLACEHOLDER_WORD.search(word)
        or _KIND_OF_VALUE.fullmatch(word)
        or _NUMBERED_NAME.fullmatch(word)
        or _WRAPPED.search(word)
        or _in_caseless_script(word)
    )


def not_placeholder(secret: str) -> bool:
    """No placeholder word in it, and not wrapped as a variable or template or masked."""
    return _PLACEHOLDER_WORD.search(secret) is None and _WRAPPED.search(secret) is None
