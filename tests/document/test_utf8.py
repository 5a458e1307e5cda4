"""The document's bytes, encoded piece by piece (``configuration.utf8``), are its text's UTF-8;
a framed file (``configuration.Framed``: a JSON field's) made piece by piece, kept blocks' once,
is the file made of the whole."""

from __future__ import annotations

from hotplex.document import assemble, configuration
from hotplex.document.limits import TRUNCATION_MARKER
from hotplex.targets.gateway import json_field, json_frame
from hypothesis import given, settings
from hypothesis import strategies as st

_LINE = st.text(alphabet=st.sampled_from("ab<\n é…😀\u2028")).map(
    lambda text: text.replace("\n", " ")
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["B", "C"]), _LINE, st.sampled_from(["", TRUNCATION_MARKER])),
        max_size=4,
    )
)
def test_the_document_bytes_are_its_text_encoded(bodies: list[tuple[str, str, str]]) -> None:
    """Bodies of ASCII or not, cut (ending with the marker) or not: the same bytes as the text's
    own encoding, which the line by line encoding must give."""
    parts = [
        assemble.Part(f"s{i}", channel, "", body + "\n" + marker)
        for i, (channel, body, marker) in enumerate(bodies)
    ]
    assembled = assemble.document(parts, {"B": "directives", "C": "context"}, {"B": "", "C": ""})
    document = configuration.Document(
        assembled.text, (), (), {}, assembled.pieces, (None,) * len(assembled.pieces)
    )
    assert configuration.utf8(document) == assembled.text.encode()


# What a JSON string escapes or spells as ``\u``: quotes, backslashes, controls, DEL, a line
# separator; and characters beyond ASCII that print.
_RAW = st.text(alphabet=st.sampled_from('ab"\\\t\x00\x1f\x7f é…😀\u2028\u202e'))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["B", "C"]), _RAW, _RAW, st.booleans(), st.booleans()),
        max_size=4,
    ),
)
def test_a_framed_file_made_piece_by_piece_is_the_whole_texts(parts) -> None:
    """Blocks kept or not, notes or not, cut or not: the file and the UTF-8 of the whole text,
    each made three times (the kept blocks met, then made, then taken)."""
    made = [
        assemble.Part(f"s{i}", channel, note, body + (TRUNCATION_MARKER if cut else ""))
        for i, (channel, note, body, cut, _kept) in enumerate(parts)
    ]
    assembled = assemble.document(made, {"B": "directives", "C": "context"}, {"B": "b", "C": ""})
    kept = [None] * len(assembled.pieces)
    for (index, _start, _end), at in zip(assembled.bodies, assembled.blocks, strict=True):
        if parts[index][4]:
            kept[at] = configuration.Block(assembled.pieces[at].encode())
    document = configuration.Document(assembled.text, (), (), {}, assembled.pieces, tuple(kept))
    envelope = {"parts": [], "x": "é"}
    whole = json_field(envelope, "system", assembled.text.encode())
    for _ in range(3):  # a block met for the first time, the second (made), the third (kept)
        assert configuration.utf8(document) == assembled.text.encode()
        file = configuration.file_bytes(document, json_frame(envelope, "system"))
        assert file == whole
        assert configuration.file_text(file) == whole.decode()
    for index, start, end in assembled.bodies:
        assert assembled.text[start:end] == made[index].body


def test_a_framed_files_text_is_taken_once_and_only_by_its_own_file() -> None:
    """Another call's file (another thread's) made in between: each text is its file decoded,
    and the text of neither is left behind."""
    frame = json_frame({"parts": []}, "system")
    files = []
    for body in ("first \u2026", "second \u00e9"):
        parts = [assemble.Part("s", "C", "", body)]
        assembled = assemble.document(parts, {"C": "context"}, {"C": ""})
        document = configuration.Document(
            assembled.text, (), (), {}, assembled.pieces, (None,) * len(assembled.pieces)
        )
        files.append(configuration.file_bytes(document, frame))
    assert configuration.file_text(files[0]) == files[0].decode()  # the second's text dropped
    assert configuration.file_text(files[1]) == files[1].decode()
    assert not configuration._LAST_FRAMED
