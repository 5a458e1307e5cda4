"""``json_writer.json_text``, the one JSON writer, and ``json_writer.json_string_bytes``, its string written from
UTF-8 bytes: JSON that reads back as the value and prints as itself."""

from __future__ import annotations

import json

from hotplex.json_writer import json_string, json_string_bytes, json_text
from hypothesis import assume, given
from hypothesis import strategies as st

# Printable text beyond ASCII (Chinese, accents, emoji) beside what does not print.
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from('部署周五 Déploiement…😀\u2028\u0085\u202e\x7f\x00\n\t"\\'),
        st.characters(),
    )
)


@given(st.dictionaries(TEXT, TEXT, max_size=4))
def test_json_text_reads_back_and_prints_but_for_the_indents_line_breaks(value) -> None:
    written = json_text(value, indent=2, sort_keys=True)
    assert json.loads(written) == value
    assert written.replace("\n", " ").isprintable()


@given(TEXT)
def test_a_string_from_its_bytes_is_written_as_json_text_writes_it(text: str) -> None:
    assume(not any("\ud800" <= c <= "\udfff" for c in text))  # no UTF-8: no document holds one
    assert json_string_bytes(text.encode("utf-8")) == json_text(text)[1:-1].encode("utf-8")


@given(TEXT)
def test_a_strings_text_is_its_bytes_decoded(text: str) -> None:
    assume(not any("\ud800" <= c <= "\udfff" for c in text))
    data, shown = json_string(text.encode("utf-8"))
    assert data == json_string_bytes(text.encode("utf-8"))
    assert shown == data.decode("utf-8")
