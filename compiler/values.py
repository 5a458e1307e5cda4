"""Immutable value classes for the modules every command loads (errors, fs, the build's no-op
path), without ``dataclasses``: importing it (inspect, ast, dis, tokenize) and making each class
with it cost an up-to-date build about a third of its instructions.

A class lists its fields in ``FIELDS`` and writes its own ``__init__`` (storing them with
``self.__dict__.update``, fast and explicit); ``@value`` gives it equality and hashing by those
fields, a repr, ``replace(**changes)`` and immutability. Instances pickle by their ``__dict__``,
as a frozen dataclass's do (a ``-j`` worker sends them back).
"""

from __future__ import annotations

import functools
from operator import attrgetter

TYPE_CHECKING = False  # not typing's: importing typing costs the no-op path milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")


def value(cls: type[T]) -> type[T]:
    names: tuple[str, ...] = cls.FIELDS  # type: ignore[attr-defined]

    def fields(self: Any) -> tuple[Any, ...]:
        return tuple(map(self.__dict__.__getitem__, names))  # no generator frame per field

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields(self) == fields(other)

    def __hash__(self: Any) -> int:
        return hash(fields(self))

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{n}={self.__dict__[n]!r}" for n in names)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self: Any, name: str, _: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {cls.__name__} is immutable")

    def __delattr__(self: Any, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {cls.__name__} is immutable")

    def replace(self: T, **changes: Any) -> T:
        """A copy with ``changes`` (field names) applied."""
        unknown = set(changes) - set(names)
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    for function in (__eq__, __hash__, __repr__, __setattr__, __delattr__, replace):
        function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"
        setattr(cls, function.__name__, function)
    return cls


class Record:
    """The base of the attrs records (``records.py``, ``manifest/model.py``), declared with
    ``repr=False``: one ``__repr__`` for them all, the one attrs would generate, where a
    generated one costs each class about a million instructions at every start-up."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{a.name}={getattr(self, a.name)!r}"
            for a in self.__attrs_attrs__  # type: ignore[attr-defined]
            if a.repr
        )
        return f"{type(self).__qualname__.rsplit('>.', 1)[-1]}({shown})"

    def evolved(self: T, **changes: Any) -> T:
        """``attrs.evolve(self, **changes)`` with every field passed by position, read in one
        call: a per-user compile copies a few records a call (its sections, the answer's records
        renamed for the overlay's labels), and ``attrs.evolve`` asks ``attrs.fields`` and reads
        and passes each by keyword."""
        cls = type(self)
        read, index = _init_fields(cls)
        values = list(read(self))
        for name, given in changes.items():
            if name not in index:
                raise TypeError(f"{cls.__name__} has no field {name}")
            values[index[name]] = given
        return cls(*values)


@functools.cache
def _init_fields(cls: type) -> tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]:
    """A record class's fields read in one call (a tuple, one field too), and each one's place
    in ``__init__``."""
    fields = cls.__attrs_attrs__  # type: ignore[attr-defined]
    if not all(a.init and not a.kw_only for a in fields):
        raise TypeError(f"{cls.__name__}'s __init__ takes a field by keyword or not at all")
    names = [a.name for a in fields]
    read = attrgetter(*names) if len(names) > 1 else (lambda record: (getattr(record, names[0]),))
    return read, {a.alias: index for index, a in enumerate(fields)}
