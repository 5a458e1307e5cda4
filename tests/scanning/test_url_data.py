"""``link-url-data`` on real links of many languages (adversary16 D7: a length is counted as
the server reads it, decoded) and on tokens cut by punctuation inside one value (D5)."""

from __future__ import annotations

from urllib.parse import quote, quote_plus

import pytest
from hotplex.scanning import url_data

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


@pytest.mark.parametrize("sep", [".", "~", "%7E", "!", ",", "%2C", ":", "-", ";"])
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
