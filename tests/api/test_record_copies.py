"""``Record.evolved``, the per-user compile's copy of a record with a field changed: the record
``attrs.evolve`` makes, for every record class."""

from __future__ import annotations

import pytest
from hotplex import records
from hotplex.generated import attrs
from hotplex.values import Record

CLASSES = sorted(
    (
        c
        for c in vars(records).values()
        if isinstance(c, type) and issubclass(c, Record) and attrs.has(c)
    ),
    key=lambda c: c.__name__,
)


def _made(cls: type) -> Record:
    """An instance whose every field holds a value of its own (attrs checks no types here)."""
    return cls(*(f"{a.name}-value" for a in attrs.fields(cls)))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_evolved_is_attrs_evolve_for_every_record(cls):
    record = _made(cls)
    for field in attrs.fields(cls):
        changed = record.evolved(**{field.alias: "changed"})
        assert changed == attrs.evolve(record, **{field.alias: "changed"})
        assert type(changed) is cls and getattr(changed, field.name) == "changed"
    assert record.evolved() == record


def test_an_unknown_field_is_a_type_error_and_changes_nothing():
    cut = records.Truncation("memory", ("MEMORY.md",), "per_file", 9, 8, "chars")
    with pytest.raises(TypeError, match="Truncation has no field file"):
        cut.evolved(file=("USER.md",))
    assert cut.files == ("MEMORY.md",)


def test_a_record_with_a_keyword_only_field_is_refused_not_miscopied():
    @attrs.frozen(repr=False)
    class Keyed(Record):
        name: str
        size: int = attrs.field(kw_only=True)

    with pytest.raises(TypeError, match="by keyword"):
        Keyed("a", size=1).evolved(name="b")
