"""The document's bytes, encoded line by line (``configuration.utf8``), are its text's UTF-8."""

from __future__ import annotations

from hotplex.document import assemble, configuration
from hotplex.document.limits import TRUNCATION_MARKER
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
    document = configuration.Document(assembled.text, (), (), {}, assembled.lines)
    assert configuration.utf8(document) == assembled.text.encode()
