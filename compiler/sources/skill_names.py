"""What a skill's files may be called: each is placed by its name, where the gateway runs."""

from __future__ import annotations

import re
import unicodedata

from hotplex.errors import Problem, Span
from hotplex.fs import folded, is_utf8
from hotplex.scanning.hidden import describe

_NOT_A_NAME = frozenset({"Cc", "Zl", "Zp"})  # Unicode categories no file name of a skill holds
# The names Windows keeps for devices, in any case and with any extension (``CON.md``, ``aux``):
# a file so named cannot be written there (it opens the device instead).
_DEVICE = re.compile(
    r"(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3])"
    r" *(\..*)?",
    re.I,
)
# What no Windows file name holds (':' names an NTFS stream of the file before it).
_NOT_ON_WINDOWS = frozenset('<>:"|?*')


def one_name_apart(folder: str, paths: list[str], placer: str = "a gateway") -> list[Problem]:
    """Two files whose paths are one where letter case and Unicode composition are ignored
    (``A.md``, ``a.md``): ``placer`` on macOS or Windows places one over the other."""
    first: dict[str, str] = {}
    problems = []
    for path in paths:
        seen = first.setdefault(folded(path), path)
        if seen != path:
            problems.append(
                Problem(
                    f"'{path}' and '{seen}' are one file where case is ignored (macOS, Windows):"
                    f" {placer} there places one over the other",
                    Span(f"{folder}/{path}"),
                    hint="rename one of them",
                )
            )
    return problems


def misnamed(name: str, display: str) -> Problem | None:
    """A skill's file is placed by its name (launch.json's ``files``, the program's folder): a
    backslash is a folder separator where the gateway may run, a control character or a byte
    that is not UTF-8 (a lone surrogate here) no JSON reader or terminal gets back as written;
    a trailing '.' or space Windows drops, placing ``notes.md.`` over ``notes.md``; a device
    name Windows keeps (``CON.md``, ``nul``, ``aux .md``); a character no Windows name holds."""
    if name.rstrip(". ") != name:
        return Problem(
            f"a skill file's name is where it is placed, and Windows drops the '.' or space that"
            f" ends '{name}': a gateway there places it as '{name.rstrip('. ')}'",
            Span(display),
            hint="rename it without the trailing '.' or space",
        )
    device = _DEVICE.fullmatch(name)
    if device is not None:
        return Problem(
            f"a skill file's name is where it is placed, and '{name}' names the device"
            f" {device.group(1).upper()} on Windows: a gateway there cannot write it",
            Span(display),
            hint="rename it (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-9 and LPT0-9 are taken,"
            " with any extension)",
        )
    kept = sorted(set(name) & _NOT_ON_WINDOWS)
    if kept:
        return Problem(
            f"a skill file's name is where it is placed, and Windows keeps {' '.join(kept)} out"
            f" of every file name: a gateway there cannot write '{name}' as it is",
            Span(display),
            hint="rename it (letters, digits, '.', '-', '_')",
        )
    held = odd_character(name)
    if held is None:
        return None
    return Problem(
        f"a skill file's name is where it is placed, text of one path part; this one holds {held}",
        Span(display),
        hint="rename it (letters, digits, '.', '-', '_')",
    )


def odd_character(name: str) -> str | None:
    """What in ``name`` no file name that is placed by it may hold (``misnamed``), said:
    ``U+000A`` and its name, or "a byte that is not UTF-8"; None when it is a plain name."""
    bad = next((c for c in name if c == "\\" or unicodedata.category(c) in _NOT_A_NAME), None)
    if bad is None and is_utf8(name):
        return None
    return "a byte that is not UTF-8" if bad is None else describe(bad)


def literal_glob(path: str) -> str:
    """A ``[skills] scripts`` glob that allows ``path`` and nothing else: fnmatch's ``*``, ``?``
    and ``[`` written as the one character each (``run[1].sh`` -> ``run[[]1].sh``)."""
    return re.sub(r"([*?\[])", r"[\1]", path)
