"""``link-url-data`` on real links of many languages (adversary16 D7: a length is counted as
the server reads it, decoded), on tokens cut by punctuation inside one value (D5; adversary17
D4: any mark, not a listed few) and on links of schemes with no host (adversary17 D12),
linked or bare, their parameters after "?" or in their address (adversary19 D7)."""

from __future__ import annotations

import itertools
from urllib.parse import quote, quote_plus

import pytest
from hotplex.scanning import injection, url_data
from hypothesis import given
from hypothesis import strategies as st

TOKEN = "aB3xQ9zK2mN7pL4vR8sT1uW6yE5cD0fG"

CLEAN = [
    "https://www.google.com/search?q=" + quote_plus("как установить питон на виндовс"),
    "https://www.google.com/search?q="
    + quote_plus("東京から大阪までの新幹線の時刻表と料金を調べる"),
    "https://he.wikipedia.org/w/index.php?search=" + quote_plus("שפת תכנות פייתון היסטוריה"),
    "https://ar.wikipedia.org/w/index.php?search=" + quote_plus("لغة البرمجة بايثون وتاريخها"),
    "https://ja.wikipedia.org/wiki/東京?action=history&oldid=98765432&diff=prev&title="
    + quote("東京都庁舎の歴史と建築の特徴"),
    "https://www.baidu.com/s?wd=" + quote("如何在视窗系统上安装蟒蛇编程语言"),
    "https://search.naver.com/search.naver?query=" + quote("파이썬 설치 방법 윈도우"),
    "https://www.google.com/search?q=how+to+install+python+on+windows",
    "https://example.com/docs?version=1.2.3&lang=en-US",
    "https://example.com/a?ts=2026-12-04T11:17:44Z",
    "https://github.com/o/r/commit/8f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a?diff=split",
    "https://example.com/f?sha=8f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a",
    "https://example.com/x?id=550e8400-e29b-41d4-a716-446655440000",
    "https://example.com/p?file=report.2026.final.v2.pdf",
    "https://example.com/p?path=src/hotplex/scanning/url_data.py",
    "https://www.google.com/maps?q=35.6764,139.6500&z=11",
    "https://www.figma.com/file/AbC123/Design?node-id=12-345&t=AbCdEfGh12345678-1",
    "https://example.com/?ts=2026-12-04T11:17:44.123Z&tz=Europe/Berlin",
    "https://example.com/?ip=2001:db8::ff00:42:8329",
    "https://example.com/?cls=com.Example2.Foo3Bar.Baz4Qux.Handler5Impl",
    "https://www.amazon.com/dp/B08N5WRWNW?content-id=amzn1.sym.7dd7f3f9-2b2e-4e5c-8a12-3f4b5c6d7e8f"
    "&pd_rd_r=ABCD1234EFGH5678IJKL&pd_rd_wg=XyZ12&ref_=pd_gw_ci_mcx_mr_hp_atf_m",
    "https://www.bing.com/search?q=" + quote_plus("الذكاء الاصطناعي والتعلم الآلي"),
    "https://www.google.com/search?q=" + quote_plus("मशीन लर्निंग क्या है"),
]


@pytest.mark.parametrize("url", CLEAN)
def test_ordinary_links_carry_nothing(url: str) -> None:
    assert not url_data.carries(url)


def test_a_long_value_is_long_decoded() -> None:
    assert url_data.carries("https://evil.example/?q=" + quote_plus("слово " * 17))


@pytest.mark.parametrize(
    "sep",
    [
        *(".", "~", "%7E", "!", ",", "%2C", ":", "-", ";", "*", "'", "(", ")", "$", "@", "|", "?"),
        *("%20", "%7C", "%0A", "..", "%C2%A7", "%E3%80%80", "%E2%80%A2", "%25"),
    ],
)
def test_a_token_cut_by_punctuation_inside_one_value_is_read_joined(sep: str) -> None:
    pieces = sep.join([TOKEN[:8], TOKEN[8:16], TOKEN[16:24], TOKEN[24:]])
    assert url_data.carries(f"https://evil.example/?d={pieces}")


def test_a_token_cut_every_four_characters_is_read_joined() -> None:
    pieces = ".".join(TOKEN[i : i + 4] for i in range(0, 32, 4))
    assert url_data.carries(f"https://evil.example/?d={pieces}")


@pytest.mark.parametrize(
    "url",
    [
        f"https://{TOKEN}@evil.example/",
        f"https://{TOKEN[:16]}:{TOKEN[16:]}@evil.example/",
        f"https://{quote(TOKEN[:10])}%2E{TOKEN[10:]}@evil.example/x",
        f"//{TOKEN}@evil.example/",
    ],
)
def test_a_token_as_user_info_is_data(url: str) -> None:
    assert url_data.carries(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://git@github.com/o/r.git",
        "https://alice@example.com/",
        "https://medium.com/@someone/a-post-1a2b3c4d5e6f",
        f"https://docs.google.com/document/d/1{TOKEN}xyzAB/edit",
        "https://github.com/o/r/blob/8f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a/src/a.py",
        f"https://example.com/a/{TOKEN}?x=1@evil",
    ],
)
def test_a_plain_user_or_a_path_carries_nothing(url: str) -> None:
    """The path is out of the rule's scope: ids of the token alphabet are ordinary there."""
    assert not url_data.carries(url)


@pytest.mark.parametrize(
    "query",
    [
        "q=React+Hooks+useEffect+Cleanup+Function+Example2024",
        "q=best+Python3+web+frameworks+for+HighTraffic+sites",
        "q=C%2B%2B+tutorial+ForBeginners2024+HighTraffic+Guide",
        "q=AWS+Lambda+Python3+API+Gateway+Tutorial2024",
    ],
)
def test_a_search_of_words_spaced_by_plus_carries_nothing(query: str) -> None:
    """A form's ``+`` is a space: a search's words joined by it were one coded run."""
    assert not url_data.carries(f"https://example.com/search?{query}")


def test_a_token_holding_plus_is_still_data() -> None:
    assert url_data.carries("https://x.example/?d=aB3x+Q9zK2mN7+pL4vR8sT1u+W6yE5cD0fGh")


# Links people keep in notes, with the marks that now cut a value: none carries data.
REAL_WORLD = [
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "https://youtu.be/dQw4w9WgXcQ?si=Xk3pL9qR2mTz&t=120",
    "https://www.google.com/search?q=React+Hooks+useEffect+Example2024",
    "https://www.google.com/search?q=React%20Hooks%20useEffect%20Cleanup%20Example2024&hl=en",
    "https://www.google.com/search?q=%22TypeError%3A+Cannot+read+properties+of+undefined%22+React18",
    "https://www.bing.com/search?q=Win11%2023H2%20KB5034441%20error%200x80070005&form=QBLH",
    "https://duckduckgo.com/?q=python3.12+asyncio.TaskGroup+ExceptionGroup&ia=web",
    "https://www.amazon.com/dp/B08N5WRWNW?th=1&psc=1",
    "https://www.amazon.com/s?k=USB-C+hub+4K60Hz+(100W+PD)&crid=2M096C61O4MLT&sprefix=usb-c+hub%2Caps%2C283&ref=nb_sb_noss_1",
    "https://www.amazon.de/gp/product/B0BSHF7WHW/ref=ppx_yo_dt_b_asin_title_o00_s00?ie=UTF8&psc=1",
    "https://stackoverflow.com/questions/11227809/why-is-processing-a-sorted-array-faster?noredirect=1&lq=1",
    "https://stackoverflow.com/search?q=%5Bpython%5D+%22list+comprehension%22+is%3Aanswer+score%3A10",
    "https://github.com/search?q=repo%3Afacebook%2Freact+useEffect+is%3Aissue+is%3Aopen&type=issues",
    "https://github.com/search?q=org%3Amicrosoft+language%3ATypeScript+stars%3A%3E1000&type=repositories",
    "https://github.com/o/r/issues?q=is%3Aissue+is%3Aopen+label%3A%22good+first+issue%22+author%3AJaneDoe42",
    "https://github.com/o/r/pulls?q=is%3Apr+is%3Aclosed+review%3Aapproved+head%3Afeature%2FOAuth2Login",
    "https://github.com/o/r/compare/v1.2.3...8f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a?expand=1",
    "https://docs.google.com/document/d/1aB3xQ9zK2mN7pL4vR8sT1uW6yE5cD0fGhJ/edit?usp=sharing",
    "https://docs.google.com/spreadsheets/d/1aB3xQ9zK2mN7pL4vR8sT1uW6yE5cD0fGhJ/edit#gid=0",
    "https://example.com/landing?utm_source=newsletter&utm_medium=email&utm_campaign=Spring2024Sale&utm_content=HeroBanner3",
    "https://en.wikipedia.org/wiki/Python_(programming_language)?action=history",
    "https://en.wikipedia.org/w/index.php?title=Special:Search&search=Guido+van+Rossum+(1956)",
    "https://www.google.com/maps/search/?api=1&query=Eiffel%20Tower%2C%20Paris",
    "https://maps.apple.com/?q=Caf%C3%A9%20de%20Flore&ll=48.8540,2.3325",
    "https://example.com/?email=jane.doe42%40example.com&ref=SignUp2",
    "https://grafana.example.com/explore?left=%7B%22datasource%22%3A%22Prometheus%22%2C%22queries%22%3A%5B%7B%22expr%22%3A%22rate(http_requests_total%7Bjob%3D%5C%22api%5C%22%7D%5B5m%5D)%22%7D%5D%7D",
    "https://kibana.example.com/app/discover#/?_g=(filters:!(),time:(from:now-15m,to:now))&_a=(query:(language:kuery,query:'host.name:web01'))",
    "https://kibana.example.com/app/discover?_g=(filters:!(),refreshInterval:(pause:!t,value:0),time:(from:now-7d,to:now))",
    "https://jira.example.com/issues/?jql=project%20%3D%20ABC%20AND%20status%20%3D%20%22In%20Progress%22%20ORDER%20BY%20created%20DESC",
    "https://www.reddit.com/r/Python/comments/1abc2de/whats_new_in_python_313/?utm_source=share&utm_medium=web2x&context=3",
    "https://twitter.com/jack/status/20?s=20&t=AbCdEf12GhIj34KlMn56Op",
    "https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT?si=8f3a9c2e7b1d4f6a",
    "https://www.linkedin.com/in/jane-doe-42a1b3c4/?originalSubdomain=uk",
    "https://example.com/search?q=C%2B%2B17+std%3A%3Aoptional+vs+std%3A%3Avariant+(GCC13)",
    "https://example.com/?q=SELECT+*+FROM+users+WHERE+id%3D42+AND+orgId%3D'Acme7'",
    "https://example.com/calc?expr=(3*x%2B2)*(y-1)%2F7&vars=x%7Cy",
    "https://example.com/?price=%2419.99&currency=USD&promo=SAVE20",
    "https://example.com/?q=%E3%83%9D%E3%82%B1%E3%83%A2%E3%83%B3%20Switch2%20%E6%94%BB%E7%95%A5%20Ver1.2",
    "https://www.google.com/search?q=%D0%BE%D1%88%D0%B8%D0%B1%D0%BA%D0%B0+TS2345+%D0%B2+React18+%D0%BA%D0%BE%D0%BC%D0%BF%D0%BE%D0%BD%D0%B5%D0%BD%D1%82%D0%B5",
    "https://example.com/?ts=2026-12-04T11%3A17%3A44.123Z&tz=Europe%2FBerlin",
    "https://example.com/a?id=550e8400-e29b-41d4-a716-446655440000&rev=3f786850e387550fdab836ed7e6dc881de23001b",
    "https://npmjs.com/search?q=keywords%3Areact%20hooks%20%40tanstack%2Fquery",
    "https://pypi.org/search/?q=pydantic%20v2%20%7C%20fastapi&o=-created",
    "https://www.youtube.com/results?search_query=GPT4+API+tutorial+(Python3)",
    "https://news.ycombinator.com/item?id=38471822",
    "https://example.com/?q=who%27s+afraid+of+Virginia+Woolf%3F+(1966)",
    "mailto:a@b.example?subject=Hello%20there",
    "mailto:support@example.com?subject=Bug%20report%20(v2.3.1)&body=Hi%20team%2C%20see%20ticket%20ABC-1234.",
    "mailto:jane.doe@example.com",
    "tel:+1-555-123-4567",
    "sms:+15551234567?body=Running%20late%2C%20ETA%2010min",
]


def test_real_world_links_carry_nothing() -> None:
    """Each read alone and as a rendered autolink; all named at once when some fail."""
    flagged = [u for u in REAL_WORLD if url_data.carries(u) or injection.scan(f"- <{u}>\n")]
    assert flagged == []


# Marks a server may strip from between a token's pieces: ASCII punctuation but the query's own
# ``&``/``#``, base64's ``+ / _ -`` (a run holds them) and ``%`` (an escape's start), written or
# escaped; spaces and punctuation of other scripts, escaped.
_MARKS = [c for c in "!\"$'()*,.:;<=>?@[\\]^`{|}~" if c not in "&#"] + [
    "%20",
    "%09",
    "%22",
    "%25",
    "%3C",
    "%7B",
    "%C2%A0",
    "%C2%B7",
    "%E2%80%94",
    "%E3%80%81",
]


@given(
    token=st.text(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=32, max_size=48
    ),
    cuts=st.sets(st.integers(1, 47), max_size=6),
    mark=st.sampled_from(_MARKS),
)
def test_any_mark_inside_a_value_cuts_it_as_an_ampersand_does(
    token: str, cuts: set[int], mark: str
) -> None:
    """adversary17 D4: a token cut by ``*``, ``$``, ``|`` or an escaped space inside one value
    reaches its server as whole as one cut by ``&``: it is found exactly when that one is."""
    at = [0, *sorted(c for c in cuts if c < len(token)), len(token)]
    pieces = [token[a:b] for a, b in itertools.pairwise(at)]
    by_mark = url_data.carries(f"https://evil.example/?d={mark.join(pieces)}")
    assert by_mark == url_data.carries(f"https://evil.example/?d={'&'.join(pieces)}")


@pytest.mark.parametrize(
    "link",
    [
        f"<mailto:a@evil.example?body={TOKEN}>",
        f"[mail](mailto:a@evil.example?body={TOKEN})",
        f"[x](sms:+15551234?body={TOKEN})",
        f"[x](xmpp:a@evil.example?message;body={TOKEN})",
        f"[x](MAILTO:a@evil.example?subject=hi&body={TOKEN[:16]}%20{TOKEN[16:]})",
        f"[x][m]\n\n[m]: mailto:a@evil.example?body={TOKEN}",
        f'<a href="mailto:a@evil.example?body={TOKEN}">x</a>',
    ],
)
def test_a_link_with_no_host_carries_its_query_to_whom_it_addresses(link: str) -> None:
    """adversary17 D12: one click on a ``mailto:`` (``sms:``, ``xmpp:``) link sends its query."""
    found = injection.scan(f"Prose.\n\n{link}\n")
    assert [(m.rule, m.host) for m in found] == [("link-url-data", None)]


@pytest.mark.parametrize(
    "link",
    [
        "<mailto:a@b.example?subject=Hello%20there>",
        "[mail me](mailto:jane.doe@example.com)",
        "[call](tel:+1-555-123-4567)",
        f"[x](data:text/plain?body={TOKEN})",
    ],
)
def test_an_ordinary_mail_link_or_a_data_link_carries_nothing(link: str) -> None:
    """A ``data:`` link is sent to no one."""
    assert injection.scan(f"Prose.\n\n{link}\n") == ()


@pytest.mark.parametrize(
    "url",
    [
        f"sms:+15551234567&body={TOKEN}",  # iOS: the body after "&", no "?"
        f"sms:/open?addresses=+15551234567,+15557654321&body={TOKEN}",
        f"sms:+15551234567;body={TOKEN}",
        f"mailto:a@evil.example?body={TOKEN}",
        f"MaIlTo:a@evil.example?subject=hi&body={TOKEN[:16]}%20{TOKEN[16:]}",
        f"mailto:{TOKEN}@evil.example",
        f"xmpp:a@evil.example?message;body={TOKEN}",
        f"tel:+15551234567;ext={TOKEN}",
    ],
)
@pytest.mark.parametrize("form", ["Write to {} now.", "- [x]({})", "<{}>", "- {}"])
def test_a_hostless_link_carries_its_address_parameters_linked_or_bare(url: str, form: str):
    """adversary19 D7: iOS reads ``sms:<number>&body=…`` as a body; and linkify.js links a
    ``mailto:`` in prose with its query (GFM its address): a link there too."""
    text = f"Prose.\n\n{form.format(url)}\n"
    found = injection.scan(text)
    assert [(m.rule, m.host, m.start, m.text) for m in found] == [
        ("link-url-data", None, text.index(url), url)
    ]


@pytest.mark.parametrize(
    "written",
    [
        f"mail&#116;o:a@evil.example?body={TOKEN}",
        f"&#x6D;ailto:a@evil.example?body={TOKEN}",
        f"mailto&#58;a@evil.example?body={TOKEN}",
        f"mailto&colon;a@evil.example?body={TOKEN}",
        f"mailto\\:a@evil.example?body={TOKEN}",
        f"s&#109;s:+15551234567&body={TOKEN}",
    ],
)
def test_a_bare_hostless_link_written_with_a_reference_is_a_link_where_written(written: str):
    """adversary19 D10: the rendering shows ``mail&#116;o:`` as "mailto:", and a linkifier of
    the shown text links it, as it links ``https&#58;//`` (found and placed where written)."""
    text = f"Prose.\n\nWrite to {written} now.\n"
    found = injection.scan(text)
    assert [(m.rule, m.start, m.text) for m in found] == [
        ("link-url-data", text.index(written), written)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "R&amp;D: mail&#116;o:jane.doe@example.com or call &#116;el:+1-555-123-4567.",
        "mail&#116;o:a@b.example?subject=Hello%20there &amp; tel&#58;+15551234567",
        "Q&amp;A at 10:30 &mdash; mailto later; \\: is an escaped colon",
    ],
)
def test_an_ordinary_hostless_link_written_with_references_carries_nothing(text: str) -> None:
    assert injection.scan(f"Prose.\n\n{text}\n") == ()


def test_a_bare_hostless_link_in_emphasis_is_a_link() -> None:
    """A linkifier reads the rendered text, where ``_…_`` is emphasis around the URL."""
    url = f"mailto:a@evil.example?body={TOKEN}"
    found = injection.scan(f"Prose.\n\nWrite _{url}_ now.\n")
    assert [(m.rule, m.start) for m in found] == [("link-url-data", len("Prose.\n\nWrite _"))]


@pytest.mark.parametrize(
    "text",
    [
        "Write to mailto:a@b.example?subject=Hello%20there or call tel:+1-555-123-4567.",
        "Text sms:+15551234567 or sms:+15551234567&body=Running%20late%2C%20ETA%2010min.",
        "- Hotel: the Ritz; SMS: no; Tel: 555-0123; mailto: later; xmpp: none",
        "Call tel:+1-201-555-0123;ext=1234 or mailto:jane.doe@example.com,john@example.com",
        "sms:/open?addresses=+15551234567,+15557654321&body=See%20you%20at%208",
        "mailto:support@example.com?subject=Bug%20report%20(v2.3.1)&body=Hi%20team%2C%20see%20ABC-1234.",
        "xmpp:romeo@montague.net?message;subject=Hi;body=Wherefore%20art%20thou",
    ],
)
def test_an_ordinary_hostless_link_in_prose_carries_nothing(text: str) -> None:
    assert injection.scan(f"Prose.\n\n{text}\n") == ()


def test_a_hosts_path_is_not_read_as_parameters() -> None:
    """Only a URL with no host has parameters in its address; a path's "&" stays a path's."""
    assert url_data.carries(f"sms:+15551234567&body={TOKEN}")
    assert not url_data.carries(f"https://example.com/a&b={TOKEN}/x")
    assert not url_data.carries(f"https://example.com/a;b={TOKEN}")


@pytest.mark.parametrize("opened", ["({})", "[{}]", "{{{}}}", '"{}"', "x({})", "{}^"])
@pytest.mark.parametrize("form", ["[docs]({})", "see {} ok", "<a href='{}'>docs</a>"])
def test_a_bracket_or_quote_before_a_token_hides_it_from_no_reading(opened: str, form: str):
    """adversary18 D14: the cheap look for URLs stopped at a bracket or quote, and with it the
    reading of the text as rendered, which links ``?d=(<token>)`` whole."""
    url = "https://evil.example/?d=" + opened.format(TOKEN)
    found = injection.scan(f"Prose.\n\n- {form.format(url)}\n")
    assert [(m.rule, m.host) for m in found] == [("link-url-data", "evil.example")]


def test_real_world_links_in_prose_and_in_links_carry_nothing() -> None:
    """The same links followed by a bracket, read on to the next blank."""
    texts = [f"See {u} (the docs) or [it]({u}), {{x}}.\n" for u in REAL_WORLD]
    assert [t for t in texts if injection.scan(t)] == []
