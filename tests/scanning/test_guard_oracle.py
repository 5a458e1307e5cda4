"""The guard against an independent oracle: a browser's reading of the rendered Markdown.

For generated Markdown (images inline and by reference, nested alt text, links, HTML that
fetches, fences and code spans, list items, entity-written and odd schemes) the oracle renders
the text as a chat client does (markdown-it-py's CommonMark, HTML on), parses that HTML with
html5lib (the HTML5 parsing algorithm a browser runs) twice, with scripting off and on (a client
running JavaScript reads ``<noscript>`` as raw text), lists every URL either document fetches
without a click, and resolves each against an ``https://`` page. Every such URL to another host
must be an ``image-url-data`` finding of the guard naming that host. The oracle's extraction is
its own (html5lib's tree, its own tables and patterns); nothing of it is the guard's code.
"""

from __future__ import annotations

import re

import ada_url
import html5lib
from hotplex.scanning import injection
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

PAGE = "https://page.example/"

# What a browser fetches unclicked, by element (html5lib names SVG's <image> "image" in the SVG
# namespace, and HTML's <image> "img").
FETCHING = {
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "image": ("href", "{http://www.w3.org/1999/xlink}href"),
    "link": ("href",),
}
CSS_ESCAPE = re.compile(r"\\([^0-9a-fA-F\n])")  # the generated CSS has no hex escapes
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""", re.IGNORECASE)
REFRESH_URL = re.compile(r"""^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"]+)""", re.IGNORECASE)


ANIMATED = {"image", "use", "feImage"}  # SVG elements whose href an animation sets on load


def oracle(markdown: str) -> set[str]:
    """The hosts other than the page's that the rendered ``markdown`` fetches unclicked, with
    scripting off or on."""
    page = MarkdownIt("commonmark", {"html": True}).render(markdown)
    written: list[str] = []
    for scripting in (False, True):
        tree = html5lib.parse(
            page, treebuilder="etree", namespaceHTMLElements=False, scripting=scripting
        )
        written += _fetched(tree)
    hosts = set()
    for url in written:
        try:
            host = ada_url.URL(url, base=PAGE).hostname
        except ValueError:
            continue
        if host and host != "page.example":
            hosts.add(host)
    return hosts


def _fetched(tree) -> list[str]:
    """Every URL the document ``tree`` fetches unclicked, as written."""
    written: list[str] = []
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue  # a comment
        tag = element.tag.rpartition("}")[2]
        for name in FETCHING.get(tag, ()):
            value = element.get(name)
            if value is None:
                continue
            if name.endswith("srcset"):
                written += [c.split()[0] for c in value.split(",") if c.split()]
            else:
                written.append(value)
        if element.get("background") is not None:
            written.append(element.get("background"))
        css = CSS_ESCAPE.sub(r"\1", element.get("style") or "")  # a CSS escape: the character
        written += CSS_URL.findall(css)
        if tag == "meta" and (element.get("http-equiv") or "").lower() == "refresh":
            written += REFRESH_URL.findall(element.get("content") or "")
        if tag in ANIMATED:
            for child in element:
                name = child.get("attributeName") if isinstance(child.tag, str) else None
                if child.tag.rpartition("}")[2] in ("set", "animate") and name in (
                    "href",
                    "xlink:href",
                ):
                    written += [child.get(a) for a in ("to", "from", "by") if child.get(a)]
                    written += [v.strip() for v in (child.get("values") or "").split(";")]
    return written


HOST = st.integers(0, 9).map(lambda n: f"h{n}.example")
URL = st.one_of(
    HOST.map(lambda h: f"https://{h}/p.png"),
    HOST.map(lambda h: f"HTTPS://{h}/a/b.png?d=1"),
    HOST.map(lambda h: f"http:{h}/p"),
    HOST.map(lambda h: f"//{h}/p"),
    HOST.map(lambda h: f"/\\{h}/p"),
    HOST.map(lambda h: f"https:\\\\{h}/p"),
    HOST.map(lambda h: f"ftp://{h}/p"),
    HOST.map(lambda h: f"ht&#116;tps://{h}/p"),
    HOST.map(lambda h: f"https&colon;//{h}/p"),
    st.sampled_from(["p.png", "./a/b.png", "javascript:alert(1)", "data:image/png;base64,AA"]),
)
# Only HTML: a tab written as a reference inside the scheme, which the URL parser drops.
HTML_URL = st.one_of(URL, HOST.map(lambda h: f"ht&Tab;tps://{h}/p"))
WORD = st.sampled_from(["tea", "note", "a b", "x", "SYSTEM", "`", "*", "_"])
QUOTE = st.sampled_from(['"{}"', "'{}'", "{}"])


def _attribute(url: str, quote: str) -> str:
    return quote.format(url) if quote != "{}" or not re.search(r"[\s\"'=<>`]", url) else f'"{url}"'


TAG = st.tuples(
    st.sampled_from(
        [
            '<img src={u} alt="x">',
            '<img srcset="p.png 1x, {v} 2x">',
            "<picture><source srcset={u}></picture>",
            '<link rel="stylesheet" href={u}>',
            "<div style=\"background: url('{v}')\">x</div>",
            "<table background={u}><tr><td>x</td></tr></table>",
            "<video poster={u}></video>",
            "<audio src={u}></audio>",
            "<video><track src={u}></video>",
            "<iframe src={u}></iframe>",
            "<embed src={u}>",
            "<object data={u}></object>",
            "<svg><image href={u} /></svg>",
            '<meta http-equiv="refresh" content="0;url={v}">',
            '<svg><image><set attributeName="href" to="{v}"/></image></svg>',
            '<svg><use><animate attributeName="xlink:href" values="a.png; {v}"/></use></svg>',
            '<svg><feImage><animate attributeName="href" from={u} /></feImage></svg>',
        ]
    ),
    HTML_URL,
    QUOTE,
).map(lambda t: t[0].format(u=_attribute(t[1], t[2]), v=t[1]))
# Elements a browser reads as raw text up to their first end tag, quotes or not; <noscript>
# when scripting is on (and <plaintext> to the end).
RAW_TEXT = st.sampled_from(
    ["textarea", "title", "iframe", "xmp", "noembed", "noframes", "noscript", "style", "script"]
)
RAW_WRAPPED = st.one_of(
    st.tuples(RAW_TEXT, TAG).map(lambda p: f'<{p[0]}><p title="</{p[0]}>{p[1]}">'),
    st.tuples(RAW_TEXT, TAG).map(lambda p: f"<{p[0]}><a title='</{p[0]}\n>{p[1]}'>a</a>"),
    st.tuples(RAW_TEXT, TAG).map(lambda p: f"<{p[0]}><!--</{p[0]}/>{p[1]}-->"),
    st.tuples(RAW_TEXT, TAG).map(lambda p: f"<noscript><{p[0]}></noscript>{p[1]}"),
    st.tuples(RAW_TEXT, TAG).map(lambda p: f"<{p[0]}>{p[1]}</{p[0]}>"),
    TAG.map(lambda t: f"<plaintext>{t}"),
)
INLINE = st.one_of(
    WORD,
    st.tuples(WORD, URL).map(lambda p: f"![{p[0]}]({p[1]})"),
    st.tuples(WORD, URL).map(lambda p: f'![{p[0]}](<{p[1]}> "t")'),
    st.tuples(WORD, URL).map(lambda p: f"![a ![{p[0]}](x.png) b]({p[1]})"),
    st.tuples(WORD, URL).map(lambda p: f"[{p[0]}]({p[1]})"),
    st.integers(0, 3).map(lambda n: f"![r{n}]"),
    st.integers(0, 3).map(lambda n: f"![x][r{n}]"),
    TAG,
    RAW_WRAPPED,
    st.tuples(st.sampled_from(["`", "``"]), TAG).map(lambda p: f"{p[0]}{p[1]}{p[0]}"),
)
LINE = st.lists(INLINE, min_size=1, max_size=4).map(" ".join)
BLOCK = st.one_of(
    LINE,
    LINE.map(lambda s: f"- {s}"),
    LINE.map(lambda s: f"> {s}"),
    TAG,
    RAW_WRAPPED,
    st.tuples(st.integers(0, 3), URL).map(lambda p: f"[r{p[0]}]: {p[1]}"),
    st.tuples(st.integers(0, 3), URL).map(lambda p: f"- [r{p[0]}]: <{p[1]}>"),
    LINE.map(lambda s: f"```\n{s}\n```"),
    LINE.map(lambda s: f"- item\n  ```\n{s}"),
    LINE.map(lambda s: f"    {s}"),
)
SEPARATOR = st.sampled_from(["\n", "\n\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(BLOCK, SEPARATOR), min_size=1, max_size=6))
def test_every_host_a_renderer_fetches_from_is_a_finding(blocks) -> None:
    text = "".join(block + separator for block, separator in blocks)
    found = {m.host for m in injection.scan(text) if m.rule == "image-url-data"}
    assert oracle(text) <= found


def test_the_oracle_sees_what_it_should() -> None:
    """The oracle itself, on forms whose fetches are known."""
    assert oracle("![a](http:h1.example/p) `![b](https://h2.example/p)`") == {"h1.example"}
    assert oracle('<svg><image href="//h3.example/i"/></svg>') == {"h3.example"}
    assert oracle("```\n![b](https://h4.example/p)\n```") == set()  # code
    assert oracle("- a\n  ```\n- ![b](https://h4.example/p)") == {"h4.example"}  # the item's
    assert oracle("![c][r]\n\n[r]: http:h5.example/p") == {"h5.example"}
    assert oracle("<div style=\"background: url('/\\h6.example')\">") == set()  # CSS: /h6…
    assert oracle('<textarea><p title="</textarea><img src=//h7.example>">') == {"h7.example"}
    assert oracle('<noscript><p title="</noscript><img src=//h8.example>">') == {"h8.example"}
    assert oracle('<textarea><img src="//h9.example"></textarea>') == set()  # text
    assert oracle('<svg><image><set attributeName="href" to="//h0.example"/></image></svg>') == {
        "h0.example"
    }
