"""The marker rules read a text as it renders: Markdown escapes and character references decoded,
markup that renders as nothing dropped, look-alike vertical lines as "|" (adversary17 D15); and
a code span after an escaped backslash is code (adversary17 D8)."""

from __future__ import annotations

import pytest
from hotplex.scanning import injection
from hotplex.text import commonmark

LEAD = "a note\n\n"  # past the first paragraph: a code span there is code wherever the text lands


def found(text: str) -> list[tuple[str, int, str]]:
    return [(m.rule, m.start, m.text) for m in injection.scan(text)]


@pytest.mark.parametrize(
    ("written", "rule", "renders"),
    [
        ("<|im\\_start|>", "special-token", "&lt;|im_start|&gt;"),
        ("<|eot\\_id|>", "special-token", "&lt;|eot_id|&gt;"),
        ("\\[INST\\]", "special-token", "[INST]"),
        ("[\\/INST]", "special-token", "[/INST]"),
        ("<\\|im_start\\|>", "special-token", "&lt;|im_start|&gt;"),
        ("<|im_st&#97;rt|>", "special-token", "&lt;|im_start|&gt;"),
        ("<|eot&#95;id|>", "special-token", "&lt;|eot_id|&gt;"),
        ("&lt;|eot_id|&gt;", "special-token", "&lt;|eot_id|&gt;"),
        ("[INST&#93;", "special-token", "[INST]"),
        ("&lt;&lt;SYS&gt;&gt;", "special-token", "&lt;&lt;SYS&gt;&gt;"),
        ("&lt;system&gt;", "role-tag", "&lt;system&gt;"),
        ("&#60;/system&#62;", "role-tag", "&lt;/system&gt;"),
        ("&lt;ѕystem&gt;", "role-tag", "&lt;ѕystem&gt;"),  # a Cyrillic ѕ as well
        ("\\<system>", "role-tag", "&lt;system&gt;"),
        ("<|eot<b></b>_id|>", "special-token", "&lt;|eot<b></b>_id|&gt;"),
        # adversary18 D2: an empty link or image renders as nothing, here as in a key.
        ("<|im_st[](x)art|>", "special-token", '&lt;|im_st<a href="x"></a>art|&gt;'),
        ("<|im_st![](x)art|>", "special-token", '&lt;|im_st<img src="x" alt="" />art|&gt;'),
        ("<|im_st[<b></b>](x)art|>", "special-token", '<a href="x"><b></b></a>art|&gt;'),
        ("[IN[](x)ST]", "special-token", '[IN<a href="x"></a>ST]'),
        ("<sys[](x)tem>", "role-tag", '&lt;sys<a href="x"></a>tem&gt;'),
        # and a marker in compatibility forms is split alike (the break pass of D2).
        ("＜｜im_st<b></b>art｜＞", "special-token", "＜｜im_st<b></b>art｜＞"),
        ("<｜im_st[](x)art｜>", "special-token", '&lt;｜im_st<a href="x"></a>art｜&gt;'),
        ("＜sys<b></b>tem＞", "role-tag", "＜sys<b></b>tem＞"),
    ],
)
def test_a_marker_as_it_renders_is_found_where_it_is_written(
    written: str, rule: str, renders: str
) -> None:
    text = f"{LEAD}before {written} after\n"
    assert renders in commonmark.parser().render(text)
    assert found(text) == [(rule, text.index(written), written)]


BARS = ["\u01c0", "\u2223", "\u05c0", "\u23d0", "\u0964", "\uffe8"]
BARS += ["\u16c1", "\u2d4f", "\ua7fe", "\u2503", "\u00a6", "\u3163", "\u2f01"]  # adversary18 D5


@pytest.mark.parametrize("bar", BARS)
@pytest.mark.parametrize("spelt", ["{bar}", "&#x{code:x};"])
def test_a_vertical_line_look_alike_is_a_tokens_bar(bar: str, spelt: str) -> None:
    mark = spelt.format(bar=bar, code=ord(bar))
    token = f"<{mark}eot_id{mark}>"
    text = f"{LEAD}before {token} after\n"
    assert found(text) == [("special-token", text.index(token), token)]


@pytest.mark.parametrize(
    "text",
    [
        "if a &lt; b and c &gt; d, swap them\n",
        "wrap it in a &lt;div&gt; or a &lt;span class=x&gt;\n",
        "Tom &amp; Jerry &mdash; &#169; 2024\n",
        "C:\\\\Users\\\\me and \\*not emphasis\\* and 50\\% off\n",
        "\\\\[INST\\\\] renders with its backslashes\n",
        "<label>name</label> <lol> [INSTALL] <|>\n",
        "नमस्ते। यह एक वाक्य है। <b>x</b> ।\n",
        "a ∣ b and ǀ clicks, x׀y\n",
        "┃ name ┃ value ┃\n<b>┃</b> ¦ <ᛁ> <ا...ا> <Іван І> <١٠١> <ㅣㅣ>\n",
        "Привет <b>мир</b> [ссылка](x) и [] ｜ 日本 <i>x</i>｜[](y)\n",
        "see [docs](https://x), a[a](b)c, <|>[](x) and [INST[](x)ALL]\n",
    ],
)
def test_ordinary_text_stays_clean(text: str) -> None:
    assert found(LEAD + text) == []


@pytest.mark.parametrize(
    "text",
    [
        "quote it as `&lt;system&gt;` in HTML\n",
        "escape it: `<|im\\_start|>`\n",
        "```html\n&lt;system&gt; &lt;|eot_id|&gt; <|im\\_start|> \\[INST\\]\n```\n",
        "split in a span: `<|im_st[](x)art|>` `</mem[](x)ory>`\n",
        "```\n<|im_st[](x)art|> <sys![](x)tem>\n```\n",
    ],
)
def test_code_still_exempts_the_markers_as_read(text: str) -> None:
    assert found(LEAD + text) == []


def test_a_code_span_after_an_escaped_backslash_is_code() -> None:
    text = LEAD + "a path \\\\`<|im_start|>` here\n"
    assert "\\<code>&lt;|im_start|&gt;</code>" in commonmark.parser().render(text)
    assert found(text) == []


@pytest.mark.parametrize("backslashes", [1, 3])
def test_a_backtick_after_an_odd_run_of_backslashes_opens_no_span(backslashes: int) -> None:
    text = LEAD + "a path " + "\\" * backslashes + "`<|im_start|>` here\n"
    assert "<code>" not in commonmark.parser().render(text)
    assert found(text) == [("special-token", text.index("<|"), "<|im_start|>")]


@pytest.mark.parametrize("written", ["&lt;|eot_id|&gt;", "<|eot\\_id|>", "<|eot_id|>"])
def test_an_allowed_token_is_allowed_however_it_is_spelt(written: str) -> None:
    allowance = injection.allowance(["<|eot_id|>"], [])
    text = f"{LEAD}note {written} here and &lt;|im_start|&gt;\n"
    left = [
        m.text for m in injection.scan(text) if not injection._allowed_alone(allowance, m, text)
    ]
    assert left == ["&lt;|im_start|&gt;"]
