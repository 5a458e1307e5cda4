"""attrs, with the methods it generates for a class compiled once per installation, not at every
start: every module that declares attrs classes imports ``attrs`` from here.

attrs writes each class's ``__init__``, ``__eq__``, ``__hash__``, ``__setattr__`` as Python
source and compiles it, at every start of every process: about 45 classes on a build's compile
path, a quarter of that path's import instructions. The source depends only on the class
declaration and attrs's version, so the code is kept as Python keeps a module's bytecode: in
``__pycache__`` beside this module (``generated.<cache tag>.marshal``; under
``PYTHONPYCACHEPREFIX`` when it is set), looked up by the exact source text and file name. A hit
is the code Python would compile from that text; a miss (a new class, another attrs) compiles as
attrs does and adds it. The file is written as a .pyc is:
not when ``sys.dont_write_bytecode`` holds, atomically, and a failure to read or write it only
costs the compile. The classes stay plain attrs classes (``attrs.has``, ``attrs.evolve``,
cattrs).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import sys
from importlib.machinery import PathFinder
from importlib.util import cache_from_source
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["attrs"]

# Where Python keeps this module's bytecode (its __pycache__, or under PYTHONPYCACHEPREFIX for a
# read-only install), named as the .pyc is: by the interpreter's cache tag and the -O level
# (compile() honours it).
_PATH = Path(cache_from_source(__file__)).with_suffix(".marshal")


def _load() -> dict[tuple[str, str, str], object]:
    try:
        codes = marshal.loads(_PATH.read_bytes())  # marshal.load reads a file in small pieces
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(codes, dict):
        return {}
    return {
        key: code
        for key, code in codes.items()
        if type(key) is tuple and len(key) == 3 and type(code) is _CODE
    }


_CODE = type(_load.__code__)
_codes = _load()
# A frozen class's __hash__ mixes in a number attrs draws from the salted hash of a name, so it
# differs in every process: the key leaves it out, and a hit keeps the first process's number,
# as arbitrary as any other (no hash outlives its process).
_SALT = re.compile(r"(hash\(\(\s*)-?\d+,")


def _compile(source: str, filename: str, mode: str, *args: object, **kwargs: object) -> object:
    """``compile`` as attrs calls it, from the kept code when the same source was compiled."""
    if args or kwargs or not isinstance(source, str) or not _ours(filename):
        return compile(source, filename, mode, *args, **kwargs)  # type: ignore[call-overload]
    key = (_SALT.sub(r"\1", source), filename, mode)
    code = _codes.get(key)
    if code is None:
        code = compile(source, filename, mode)
        # The class's code as an older hotplex or attrs made it is dropped: one entry a class.
        for old in [k for k in _codes if k[1:] == key[1:]]:
            del _codes[old]
        _codes[key] = code
        _save()
    return code


# The classes whose code is kept: hotplex's, and those of attrs and cattrs (a fixed set for a
# version). A program's own classes, made in a process that imported hotplex, are compiled as
# attrs does: one that makes classes by the thousand must not grow the file or rewrite it.
_KEPT = ("hotplex.", "attr.", "attrs.", "cattrs.")


def _ours(filename: str) -> bool:
    """Whether attrs's file name (``<attrs generated methods hotplex.records.Stamped>``) names
    a class whose code is kept."""
    return filename.rpartition(" ")[2].startswith(_KEPT)


def _save() -> None:
    if sys.dont_write_bytecode:
        return
    # Not ``writes.write_atomic``: its crash points are the build's steps, and this is no step.
    temp = _PATH.with_name(f"{_PATH.name}.{os.getpid()}")
    try:
        _PATH.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(marshal.dumps(_codes))
        temp.replace(_PATH)
    except BaseException as exc:  # a Ctrl-C too: no temp file left behind
        with contextlib.suppress(OSError):
            temp.unlink()
        if not isinstance(exc, OSError):
            raise


class _BeforeAttrs:
    """Gives ``attr._make`` this ``compile`` before its code runs: attrs makes its own classes
    (``Attribute``, ``Factory``, ...) as it is imported, 20 M instructions of compiling."""

    @staticmethod
    def find_spec(name: str, path: Any, target: Any = None) -> Any:
        if name != "attr._make":
            return None
        sys.meta_path.remove(_BeforeAttrs)
        spec = PathFinder.find_spec(name, path, target)
        loader = spec.loader if spec is not None else None
        if loader is not None and hasattr(loader, "exec_module"):

            def exec_module(module: Any) -> None:
                del loader.exec_module  # its own again: a zip's loader serves other modules too
                module.compile = _compile
                loader.exec_module(module)

            loader.exec_module = exec_module
        return spec


# attrs calls ``compile`` by its module's global name: this one shadows the builtin there.
if "attr._make" in sys.modules:  # imported before hotplex: its own classes are made already
    sys.modules["attr._make"].compile = _compile
else:
    sys.meta_path.insert(0, _BeforeAttrs)

import attrs  # noqa: E402 - after the hook that must see its import
