"""Truncation: per file then total, in order, in the configured unit, never silent or mid-character."""

from __future__ import annotations

import json

import pytest
import regex
from hotplex.document.limits import TRUNCATION_MARKER, Limited, apply, fair_shares
from hotplex.errors import HotplexError
from hotplex.manifest.model import Limits
from hotplex.text.measure import measure
from hypothesis import given
from hypothesis import strategies as st


def sections(*texts: str) -> list[Limited]:
    return [Limited(f"s{i}", (f"F{i}.md",), t) for i, t in enumerate(texts)]


def test_nothing_is_cut_within_limits():
    kept, cuts = apply(sections("a" * 100, "b" * 100), Limits(per_file=100, total=200))
    assert [k.text for k in kept] == ["a" * 100, "b" * 100] and cuts == []


def test_per_file_then_total_in_source_order():
    kept, cuts = apply(sections("a" * 300, "b" * 300, "c" * 300), Limits(per_file=200, total=560))
    sizes = [len(k.text) for k in kept]
    assert sizes == [200, 200, 160]
    assert all(k.text.endswith(TRUNCATION_MARKER) for k in kept)
    assert [(c.section, c.limit, c.before, c.after) for c in cuts] == [
        ("s0", "per_file", 300, 200),
        ("s1", "per_file", 300, 200),
        ("s2", "per_file", 300, 200),
        ("s2", "total", 200, 160),
    ]


def test_a_section_with_room_too_small_for_the_marker_keeps_what_fits_and_is_reported():
    kept, cuts = apply(sections("a" * 100, "b" * 100, "c" * 9), Limits(per_file=1000, total=110))
    assert [k.text for k in kept] == ["a" * 100, "b" * 10]
    assert [(c.section, c.limit, c.after, c.style) for c in cuts] == [
        ("s1", "total", 10, "head"),
        ("s2", "total", 0, "dropped"),  # nothing left of the total
    ]
    assert cuts[0].describe() == "F1.md: truncated 100 → 10 chars (limits.total)"
    assert "dropped" in cuts[1].describe()


# Texts as sections hold them: decoded UTF-8 (no lone surrogate), trimmed, and without a '<' (a
# cut never ends in an open '<name', so a text made of one could lose it all; test_sanitize
# covers that rule).
section_text = st.text(st.characters(codec="utf-8", exclude_characters="<"), max_size=900).map(
    str.strip
)


@given(
    st.lists(section_text, min_size=1, max_size=40),
    st.integers(1, 9000),
    st.integers(1, 3000),
    st.sampled_from(["chars", "bytes"]),
    st.sampled_from(["order", "fair"]),
)
def test_any_total_is_spent_and_held(texts, per_file, total, unit, share):
    limits = Limits(per_file=per_file, total=total, unit=unit, share=share)
    kept, cuts = apply(sections(*texts), limits)
    assert sum(measure(k.text, unit) for k in kept) <= total
    # A cut keeps whole grapheme clusters (a flag is two characters, up to eight bytes): the
    # document is empty only when no section's first cluster fits the room one section has.
    room = min(per_file, total)
    if any(t and measure(regex.match(r"\X", t)[0], unit) <= room for t in texts):
        assert kept
    assert bool(kept) <= any(texts)
    cut_names = {c.section for c in cuts}
    assert all(k.text == texts[int(k.name[1:])] or k.name in cut_names for k in kept)


def test_fair_shares_smaller_than_the_marker_still_fill_the_document(make_project, hotplex):
    files = {
        f"agent-configs/{name}.md": f"# {name}\n" + f"{name} says something useful. " * 30
        for name in ("SOUL", "AGENTS", "USER", "MEMORY")
    }
    root = make_project(
        files,
        manifest="[metacognition]\nenabled = false\n\n[limits]\nper_file = 8000\ntotal = 100\n"
        'share = "fair"\n\n[[target]]\nname = "cc"\nworker = "claude-code"\n',
    )
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    prompt = (root / "dist/cc/default/prompt.xml").read_text(encoding="utf-8")
    for name in ("SOUL", "AGENTS", "USER", "MEMORY"):
        assert f"# {name}" in prompt
    (artifact,) = [
        a for a in json.loads(result.stdout)["artifacts"] if a["path"].endswith("prompt.xml")
    ]
    cuts = artifact["truncations"]
    assert {c["style"] for c in cuts} == {"head"} and len(cuts) == 4
    assert sum(c["after"] for c in cuts) <= 100


def test_bytes_unit_never_splits_a_utf8_sequence():
    text = "界" * 100  # 3 bytes each
    kept, cuts = apply(sections(text), Limits(per_file=200, total=1000, unit="bytes"))
    body = kept[0].text.removesuffix(TRUNCATION_MARKER)
    assert set(body) == {"界"}
    assert measure(kept[0].text, "bytes") <= 200
    assert cuts[0].unit == "bytes"


def test_chars_unit_counts_characters():
    kept, _ = apply(sections("é" * 150), Limits(per_file=140, total=1000))
    assert len(kept[0].text) <= 140


def test_a_cut_never_leaves_half_an_escape():
    text = "x" * 60 + "&lt;persona>" * 20
    for budget in range(len(TRUNCATION_MARKER) + 64, len(TRUNCATION_MARKER) + 80):
        kept, _ = apply(sections(text), Limits(per_file=budget, total=10_000))
        body = kept[0].text.removesuffix(TRUNCATION_MARKER)
        assert not body.endswith(("&", "&l", "&lt")), budget


def test_overflow_error_names_the_file_and_limit():
    with pytest.raises(HotplexError) as caught:
        apply(sections("a" * 300), Limits(per_file=200, overflow="error"))
    rendered = caught.value.render()
    assert rendered.startswith("F0.md: 300 chars exceed limits.per_file (200)")
    assert 'overflow = "truncate"' in rendered


@given(
    st.lists(
        st.text(st.characters(codec="utf-8"), min_size=0, max_size=400), min_size=1, max_size=5
    ),
    st.integers(1, 500),
    st.integers(1, 1500),
    st.sampled_from(["chars", "bytes"]),
)
def test_budgets_always_hold_and_every_cut_is_reported(texts, per_file, total, unit):
    kept, cuts = apply(sections(*texts), Limits(per_file=per_file, total=total, unit=unit))
    assert all(measure(k.text, unit) <= per_file for k in kept)
    assert sum(measure(k.text, unit) for k in kept) <= total
    kept_by_name = {k.name: k.text for k in kept}
    reported = {c.section for c in cuts}
    for section in sections(*texts):
        if kept_by_name.get(section.name, "") != section.text:
            assert section.name in reported, section.name


# --- share = "fair": max-min fair water-filling ------------------------------------------------


def test_fair_share_keeps_small_sections_whole_and_splits_the_rest_evenly():
    texts = ("a" * 100, "b" * 3000, "c" * 50, "d" * 3000)
    limits = Limits(per_file=2000, total=2150, share="fair")
    kept, cuts = apply(sections(*texts), limits)
    sizes = {k.name: len(k.text) for k in kept}
    assert sizes["s0"] == 100 and sizes["s2"] == 50  # under an equal share: untouched
    assert sizes["s1"] == sizes["s3"] == 1000  # (2150 - 150) / 2 each
    assert [(c.section, c.limit) for c in cuts] == [
        ("s1", "per_file"),
        ("s1", "share"),
        ("s3", "per_file"),
        ("s3", "share"),
    ]
    # In document order the last large section would get what is left: 0 here.
    kept, _ = apply(sections(*texts), Limits(per_file=2000, total=2150))
    assert "s3" not in {k.name for k in kept}


def test_fair_shares_water_fill():
    assert fair_shares([10, 500, 500], 610, ["a", "b", "c"]) == [10, 300, 300]
    assert fair_shares([10, 20], 100, ["a", "b"]) == [10, 20]
    # The remainder goes by name, not by position: the whole total is spent.
    assert fair_shares([7, 7, 7], 10, ["b", "c", "a"]) == [3, 3, 4]
    assert fair_shares([7, 7, 7], 2, ["b", "c", "a"]) == [1, 0, 1]


@given(st.lists(st.integers(0, 5000), min_size=1, max_size=8), st.integers(0, 20000))
def test_fair_shares_properties(demands, total):
    names = [f"s{i}" for i in range(len(demands))]
    shares = fair_shares(demands, total, names)
    assert sum(shares) == min(total, sum(demands))  # the total is spent
    equal = total // len(demands)
    assert all(s >= min(d, equal) for s, d in zip(shares, demands, strict=True))
    assert all(s <= d for s, d in zip(shares, demands, strict=True))
    reordered = fair_shares(demands[::-1], total, names[::-1])[::-1]
    assert reordered == shares  # any order of the sections: the same allocation


@given(
    st.lists(
        st.text(st.characters(codec="utf-8"), min_size=0, max_size=600), min_size=1, max_size=6
    ),
    st.integers(1, 700),
    st.integers(1, 2000),
    st.sampled_from(["chars", "bytes"]),
    st.randoms(use_true_random=False),
)
def test_fair_budgets_hold_and_equal_sections_fare_alike_in_any_order(
    texts, per_file, total, unit, rng
):
    limits = Limits(per_file=per_file, total=total, unit=unit, share="fair")
    kept, cuts = apply(sections(*texts), limits)
    assert sum(measure(k.text, unit) for k in kept) <= total
    assert all(measure(k.text, unit) <= per_file for k in kept)
    demands = [min(measure(t, unit), per_file) for t in texts]
    equal = total // len(texts)
    by_name = {k.name: k.text for k in kept}
    for index, text in enumerate(texts):
        got = by_name.get(f"s{index}", "")
        if demands[index] <= equal and measure(text, unit) <= per_file:
            assert got == text  # a section within an equal share is never cut
        elif got != text:
            assert f"s{index}" in {c.section for c in cuts}
    order = list(range(len(texts)))
    rng.shuffle(order)
    shuffled = [Limited(f"s{i}", (f"F{i}.md",), texts[i]) for i in order]
    again = {k.name: k.text for k in apply(shuffled, limits)[0]}
    assert again == by_name


def test_overflow_error_names_the_fair_share():
    limits = Limits(per_file=1000, total=300, share="fair", overflow="error")
    with pytest.raises(HotplexError) as raised:
        apply(sections("a" * 100, "b" * 400), limits)
    message = raised.value.problems[0].message
    assert message.startswith("400 chars exceed a fair share of limits.total (300")


# --- daily logs: whole days, newest first --------------------------------------------------------


@given(
    st.lists(
        st.lists(
            st.text(st.characters(codec="utf-8", exclude_characters="#"), min_size=1, max_size=80),
            max_size=6,
        ),
        min_size=1,
        max_size=8,
    ),
    st.text(st.characters(codec="utf-8"), max_size=200),
    st.integers(80, 900),
    st.sampled_from(["chars", "bytes"]),
)
def test_days_fit_whole_newest_first_and_every_other_day_is_reported(days, curated, per_file, unit):
    from hotplex.records import Day, Logs
    from hotplex.sources.logs import full_text

    read = tuple(
        Day(f"m/{n:02d}.md", f"{n:02d}", tuple(e.strip() or "x" for e in entries))
        for n, entries in enumerate(days)
    )
    logs = Logs(read, curated=curated)
    limits = Limits(per_file=per_file, total=10_000, unit=unit)
    section = Limited("memory", ("MEMORY.md",), full_text(curated, read), logs)
    kept, cuts = apply([section], limits)
    text = kept[0].text if kept else ""
    assert measure(text, unit) <= per_file
    if measure(curated, unit) <= per_file:
        assert text.startswith(curated)  # MEMORY.md first, cut only by the ordinary limits
    nonempty = [d for d in logs.days if d.entries]
    shown = [d for d in nonempty if f"## {d.name}\n\n" in text]
    whole = [d for d in nonempty if "\n\n".join((f"## {d.name}", *d.entries)) in text]
    assert whole == nonempty[: len(whole)]  # a run of the newest days, each whole...
    assert len(shown) <= len(whole) + 1  # ...plus at most the newest day, cut on entries
    reported = {c.files[0] for c in cuts if c.files[0].startswith("m/")}
    assert reported == {d.display for d in nonempty[len(whole) :]}


@given(
    st.lists(
        st.text(st.characters(codec="utf-8"), min_size=0, max_size=300), min_size=1, max_size=5
    ),
    st.lists(
        st.lists(
            st.text(st.characters(codec="utf-8"), min_size=1, max_size=60), min_size=1, max_size=4
        ),
        max_size=5,
    ),
    st.integers(1, 500),
    st.integers(1, 1500),
    st.sampled_from(["chars", "bytes"]),
)
def test_fair_shares_pass_on_what_a_section_cannot_use(texts, days, per_file, total, unit):
    """The invariant: given every unit the fair budgets leave unspent, no cut section (one that
    keeps less than its text, up to per_file) would keep one more unit."""
    from hotplex.records import Day, Logs
    from hotplex.sources.logs import full_text

    read = tuple(
        Day(f"m/{n:02d}.md", f"{n:02d}", tuple(e.strip() or "x" for e in entries))
        for n, entries in enumerate(days)
    )
    memory = Limited("memory", ("MEMORY.md",), full_text("M", read), Logs(read, curated="M"))
    all_sections = [*sections(*texts), memory]
    limits = Limits(per_file=per_file, total=total, unit=unit, share="fair")
    kept = {k.name: measure(k.text, unit) for k in apply(all_sections, limits)[0]}
    spare = total - sum(kept.values())
    assert spare >= 0
    for section in all_sections:
        size = kept.get(section.name, 0)
        if size < min(measure(section.text, unit), per_file):
            alone = Limits(per_file=per_file, total=size + spare, unit=unit, share="fair")
            more = apply([section], alone)[0]
            assert sum(measure(k.text, unit) for k in more) == size


def test_a_fair_share_memory_cannot_use_goes_to_the_section_that_wants_it(make_project, hotplex):
    days = {f"agent-configs/memory/2026-11-0{n}.md": f"- {n} " + "d" * 180 + "\n" for n in range(5)}
    files = {"agent-configs/SOUL.md": "S" * 1000, "agent-configs/MEMORY.md": "M", **days}
    manifest = (
        '[metacognition]\nenabled = false\n[limits]\ntotal = 600\nshare = "fair"\n'
        '[memory]\nlogs = "memory/*.md"\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    for name in ("AGENTS", "SKILLS", "USER"):
        files[f"agent-configs/{name}.md"] = ""
    root = make_project(files, manifest=manifest)
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    (artifact,) = [a for a in json.loads(result.stdout)["artifacts"] if a["path"].endswith("xml")]
    (soul,) = [c for c in artifact["truncations"] if c["section"] == "soul"]
    memory = len("M\n\n## 2026-11-04\n\n- 4 " + "d" * 180)  # the newest day fits, no more
    assert soul["after"] == 600 - memory  # not its fair share of 300: the whole total is spent


def test_limits_in_a_project_they_cut_nothing_of_are_a_warning_naming_the_keys(
    make_project, hotplex
):
    manifest = (
        '[limits]\nper_file = 10\nunit = "bytes"\n[[target]]\nname = "claw"\nworker = "openclaw"\n'
    )
    root = make_project({"agent-configs/SOUL.md": "Soul."}, manifest=manifest)
    for _ in range(2):  # the no-op build repeats it
        result = hotplex("-C", str(root), "build")
        assert result.status == 0, result.stderr
        assert (
            "warning: hotplex.toml: limits.per_file, limits.unit: [limits] cut no target here;"
            " OpenClaw's own budgets, set by max_chars"
        ) in result.stderr
    mixed = manifest + '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    root = make_project({"agent-configs/SOUL.md": "Soul."}, manifest=mixed, name="mixed")
    assert "[limits] cut no target" not in hotplex("-C", str(root), "build").stderr


@pytest.mark.slow  # a 64 MiB source, read and written
def test_huge_budgets_read_no_file_past_the_ceiling_and_say_so(make_project, hotplex):
    from hotplex.sources.inputs import READ_CEILING

    manifest = (
        "[metacognition]\nenabled = false\n[limits]\nper_file = 100000000000000000\n"
        'total = 100000000000000000\n[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    size = READ_CEILING + 4096
    root = make_project({"agent-configs/SOUL.md": "a" * size}, manifest=manifest)
    result = hotplex("-C", str(root), "build")
    assert result.status == 0, result.stderr
    assert f"truncated {size} → {READ_CEILING} bytes (limits.read)" in result.stderr


ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
# Characters whose clusters and hidden-text rules a cut can break: a subdivision flag's parts,
# emoji ZWJ sequences and skin tones, combining accents, Indic conjuncts, a Persian ZWNJ between
# joining letters, a right-to-left mark, an Arabic prepended mark, CR LF, and what the sanitizer
# and the tag guard look at.
CLUSTER_PARTS = [
    *"a \n\re\u0301\U0001f44d\U0001f3fd\U0001f468\U0001f469\u200d\u200c\u200f\u05e9\u06cc\u062e",
    *"\u0915\u094d\u0600\U0001f1ec\U0001f1e7<é",
    *(ENGLAND, ENGLAND[:3], "&lt;"),
]


def boundaries(text: str) -> set[int]:
    import regex

    return {0} | {m.end() for m in regex.finditer(r"\X", text)}


@given(
    st.lists(st.sampled_from(CLUSTER_PARTS), max_size=60).map("".join),
    st.integers(0, 400),
    st.sampled_from(["chars", "bytes"]),
)
def test_a_cut_keeps_whole_grapheme_clusters_within_its_budget(text, budget, unit):
    from hotplex.document.limits import cut
    from hotplex.scanning import hidden

    result = cut(text, budget, unit)
    kept = result.removesuffix(TRUNCATION_MARKER)
    assert measure(result, unit) <= budget
    assert text.startswith(kept) and len(kept) in boundaries(text)
    if not hidden.scan(text):
        assert not hidden.scan(result)


@pytest.mark.parametrize("per_file", [5, 9, 200])
@pytest.mark.parametrize(
    ("text", "cluster"),
    [
        pytest.param("Fans of " + ENGLAND * 40, ENGLAND, id="flags"),
        pytest.param("Thanks " + "\U0001f44d\U0001f3fd" * 80, "\U0001f44d\U0001f3fd", id="skin"),
        pytest.param("Cafe" + "e\u0301" * 200, "e\u0301", id="accent"),
        pytest.param("a" + "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 40, "", id="zwj"),
    ],
)
def test_a_built_cut_never_splits_a_grapheme_cluster(make_project, per_file, text, cluster):
    from hotplex import Project
    from hotplex.scanning import hidden

    manifest = (
        "[metacognition]\nenabled = false\n"
        f"[limits]\nper_file = {per_file}\ntotal = 100000\n"
        '[[target]]\nname = "cc"\nworker = "claude-code"\n'
    )
    root = make_project({"agent-configs/SOUL.md": text}, manifest)
    document = Project(root).compile("cc").text
    persona = document.split("<persona>", 1)[1].split("</persona>", 1)[0]
    body = persona.strip().split("\n", 1)[1]  # after the section's note
    kept = body.removesuffix(TRUNCATION_MARKER.strip()).strip()
    assert not hidden.scan(persona)
    assert text.startswith(kept) and len(kept) in boundaries(text)
    if cluster:  # the text's lead, then only whole clusters
        lead = text[: text.index(cluster)]
        assert lead.startswith(kept) or kept[len(lead) :].replace(cluster, "") == ""
