"""A ``data:`` document of an XML media type is read as a browser's XML parser reads it (adversary11
D4): an element or attribute known by its namespace whatever its prefix, ``<?xml-stylesheet?>``
fetching its ``href``, entities expanded within bounds, read up to its first error."""

from __future__ import annotations

import base64
import urllib.parse
import xml.parsers.expat
from pathlib import Path

import pytest
from hotplex import Project
from hotplex.scanning import fetched, xml_documents
from test_findings_cost import _calls

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
EVIL = "https://evil.example/p.png"
XML_TYPES = ["text/xml", "application/xml", "image/svg+xml", "application/xhtml+xml"]
XHTML = "http://www.w3.org/1999/xhtml"
SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
# The tester's five (each under four media types), and the control it found already.
FETCHING = {
    "prefixed xhtml img": f'<x xmlns:h="{XHTML}"><h:img src="{EVIL}"/></x>',
    "prefixed svg image": f'<s:svg xmlns:s="{SVG}"><s:image href="{EVIL}"/></s:svg>',
    "xlink under another prefix": (
        f'<svg xmlns="{SVG}" xmlns:q="{XLINK}"><image q:href="{EVIL}"/></svg>'
    ),
    "xml-stylesheet PI": '<?xml-stylesheet type="text/css" href="https://evil.example/p.css"?><x/>',
    "prefixed xhtml link": (
        f'<h:link xmlns:h="{XHTML}" rel="stylesheet" href="https://evil.example/p.css"/>'
    ),
    "default namespace (the control)": f'<x xmlns="{XHTML}"><img src="{EVIL}"/></x>',
}


def _rules(document: str, media_type: str = "image/svg+xml") -> list[str]:
    """The rules a memory holding ``document`` in an ``<iframe>``'s ``data:`` URL breaks."""
    url = f"data:{media_type}," + urllib.parse.quote(document, safe="")
    answer = Project.load(EXAMPLE).check({"MEMORY.md": f'<iframe src="{url}"></iframe>\n'})
    return [finding["rule"] for finding in answer.to_json()["findings"]]


@pytest.mark.parametrize("media_type", XML_TYPES)
@pytest.mark.parametrize("case", FETCHING)
def test_a_prefixed_fetch_of_an_xml_document_is_found(case, media_type) -> None:
    assert _rules(FETCHING[case], media_type) == ["image-url-data"]


@pytest.mark.parametrize(
    "document",
    [
        f'<f:img xmlns:f="urn:example:foreign" src="{EVIL}"/>',  # no image in a browser
        f'<svg xmlns="{SVG}" xmlns:f="urn:example:foreign"><image f:href="{EVIL}"/></svg>',
        f'<?other-instruction href="{EVIL}"?><x/>',
    ],
)
def test_a_prefix_bound_to_a_foreign_namespace_fetches_nothing(document) -> None:
    assert _rules(document) == []


def test_what_comes_before_the_first_well_formedness_error_is_read() -> None:
    broken = f'<x xmlns:h="{XHTML}"><h:img src="{EVIL}"/><y></x> & <unclosed'
    assert _rules(broken, "application/xml") == ["image-url-data"]
    assert xml_documents.as_html(broken.encode()).whole


def test_internal_entities_are_expanded_as_a_browser_expands_them() -> None:
    declared = (
        f'<!DOCTYPE svg [<!ENTITY u "{EVIL}"><!ENTITY e "<image href=\'&u;\'/>">]>'
        f'<svg xmlns="{SVG}">'
    )
    assert _rules(declared + '<image href="&u;"/></svg>') == ["image-url-data"]
    assert _rules(declared + "&e;</svg>") == ["image-url-data"]


def test_an_entity_declared_by_a_parameter_entity_is_expanded() -> None:
    """``%p;`` in the internal subset declares ``u`` as a browser reads it (adversary12 D4)."""
    declared = f"<!ENTITY % p \"<!ENTITY u '{EVIL}'>\"> %p;"
    document = f'<!DOCTYPE s [{declared}]><svg xmlns="{SVG}"><image href="&u;"/></svg>'
    assert _rules(document) == ["image-url-data"]
    assert _base64_frame("image/svg+xml", document.encode()) == ["image-url-data"]


def test_an_external_entity_is_not_resolved() -> None:
    document = (
        '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        f'<svg xmlns="{SVG}"><style>&x;</style></svg>'
    )
    assert xml_documents.as_html(document.encode()) == ("<svg><style></style></svg>", True)
    parameter = '<!DOCTYPE svg [<!ENTITY % x SYSTEM "file:///etc/passwd"> %x;]><svg/>'
    assert xml_documents.as_html(parameter.encode()) == ("", True)


def test_an_entity_expanded_past_the_budget_is_left_unread() -> None:
    """Billion laughs: expat refuses the expansion past a hundred times its input (8 MiB on),
    and what is written stops at sixteen times the document's length before that."""
    assert xml.parsers.expat.version_info >= (2, 4, 0)  # the first with that refusal
    laughs = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10)
    )
    document = f'<!DOCTYPE s [{laughs}]><s xmlns="{SVG}"><style>&a9;</style></s>'
    written = xml_documents.as_html(document.encode())
    assert not written.whole
    assert len(written.html) <= 16 * len(document) + (1 << 16)
    assert _rules(document) == ["unread-markup"]


@pytest.mark.parametrize(
    "holder",
    [
        ("<text>{}</text>", "{}"),  # text no rule reads (adversary12 D3)
        ('<g fill="{}"/>', "{}"),  # an attribute no rule reads
        ("<x:a xmlns:x='urn:x'>{}</x:a>", "{}"),  # an element of a namespace no browser shows
        ("<text>{}</text>", "<!--{}-->"),  # comments
        ("<text>{}</text>", "<?x {}?>"),  # processing instructions
    ],
)
@pytest.mark.parametrize("length", [60, 80, 200])
def test_an_expansion_no_rule_reads_still_counts_and_leaves_the_rest_unread(holder, length):
    """An entity expanded where nothing is written (text, a foreign element, a comment) costs
    the reading all the same: past the budget the fetch after it is unread, not passed as
    clean; 6 to 20 MB from 500 bytes (expat's own bound starts at 8 MiB)."""
    where, what = holder
    entities = f'<!ENTITY l0 "{what.format("l" * length)}">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 6)
    )
    document = (
        f'<!DOCTYPE s [{entities}<!ENTITY u "{EVIL}">]>'
        f'<svg xmlns="{SVG}">{where.format("&l5;")}<image href="&u;"/></svg>'
    )
    assert not xml_documents.as_html(document.encode()).whole
    assert _base64_frame("image/svg+xml", document.encode()) == ["unread-markup"]


def test_expats_own_bound_on_an_expansion_is_no_error_of_the_document() -> None:
    """An expansion expat refuses itself (a hundred times its input, past 8 MiB) leaves the
    rest unread, as the budget does: it is no well-formedness error to read up to."""
    laughs = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10)
    )
    document = f'<!DOCTYPE s [{laughs}]><s xmlns="{SVG}" a="&a9;"/>'
    assert not xml_documents.as_html(document.encode()).whole


def test_a_style_sheet_is_read_past_an_end_tag_inside_it() -> None:
    """``</style>`` in a ``data:`` style sheet or an XML ``<style>``'s text (``&lt;/style>``) is
    CSS, not the end of the HTML ``<style>`` it is read in."""
    css = f"a{{}}</style>b{{background:url({EVIL})}}"
    url = "data:text/css," + urllib.parse.quote(css, safe="")
    answer = Project.load(EXAMPLE).check({"MEMORY.md": f'<link rel=stylesheet href="{url}">\n'})
    assert [f["rule"] for f in answer.to_json()["findings"]] == ["image-url-data"]
    sheet = f"a{{}}&lt;/style>b{{background:url({EVIL})}}"
    assert _rules(f'<s:svg xmlns:s="{SVG}"><s:style>{sheet}</s:style></s:svg>') == [
        "image-url-data"
    ]


@pytest.mark.parametrize(
    "instruction",
    [
        f"<?xml-stylesheet href='{EVIL}' type='text/xsl'?>",
        '<?xml-stylesheet type="text/css"\n  href="https://evil.example/a&amp;b.css"?>',
    ],
)
def test_every_spelling_of_a_stylesheet_instruction_fetches(instruction) -> None:
    assert _rules(instruction + "<x/>", "text/xml") == ["image-url-data"]


def test_attribute_values_are_written_back_as_expat_decoded_them() -> None:
    """``&amp;lt;`` is the text ``&lt;``: written so that html.parser decodes it to that, not
    to ``<``; a quote stays inside its value."""
    document = f'<s xmlns="{SVG}"><image href="a&amp;lt;&quot;b" style="x:url(&#x27;c)"/></s>'
    written = xml_documents.as_html(document.encode())
    assert written.html == '<s><image href="a&amp;lt;&quot;b" style="x:url(\'c)"></image></s>'
    assert [f.written for f in fetched.read(written.html, 1).fetches] == ['a&lt;"b', "c)"]


def _iframe(elements: int) -> str:
    images = "".join(f'<h:img src="{EVIL}?n={i}"/>' for i in range(elements))
    document = f'<x xmlns:h="{XHTML}">{images}</x>'
    return f'<iframe src="data:application/xml,{urllib.parse.quote(document, safe="")}">'


def test_twice_the_elements_cost_twice_the_calls() -> None:
    small, large = _iframe(200), _iframe(400)
    assert len(fetched.read(large).fetches) == 2 * len(fetched.read(small).fetches) - 1
    assert _calls(fetched.read, large) <= 2.2 * _calls(fetched.read, small)


def _base64_frame(media_type: str, document: bytes) -> list[str]:
    url = f"data:{media_type};base64,{base64.b64encode(document).decode()}"
    answer = Project.load(EXAMPLE).check({"MEMORY.md": f'<iframe src="{url}"></iframe>\n'})
    return [finding["rule"] for finding in answer.to_json()["findings"]]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_a_document_in_utf16_is_read_in_its_encoding(encoding) -> None:
    """expat reads the bytes as a browser does (a byte-order mark, or ``<`` and a zero byte),
    where the HTML reading of them as UTF-8 sees no tag."""
    document = f'<s:svg xmlns:s="{SVG}"><s:image href="{EVIL}"/></s:svg>'
    assert _base64_frame("image/svg+xml", document.encode(encoding)) == ["image-url-data"]


@pytest.mark.parametrize(
    ("media_type", "document"),
    [
        # Any "+xml" type loads as XML.
        ("application/rss+xml", f'<h:img xmlns:h="{XHTML}" src="{EVIL}"/>'),
        # A local name html.parser reads as no tag still has its style read.
        ("text/xml", f'<h:_x xmlns:h="{XHTML}" style="background:url({EVIL})"/>'),
        # An XML document nested in an XML document's <object>.
        (
            "application/xhtml+xml",
            f'<h:object xmlns:h="{XHTML}" data="data:image/svg+xml,'
            + urllib.parse.quote(FETCHING["prefixed svg image"], safe="")
            + '"/>',
        ),
    ],
)
def test_other_xml_documents_are_read_as_xml(media_type, document) -> None:
    assert _rules(document, media_type) == ["image-url-data"]
