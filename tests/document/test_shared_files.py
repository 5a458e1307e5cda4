"""The work the jobs of one build share beyond their sections: a kept document's files encoded
once (``configuration.file_bytes``), and the manifest's texts scanned once
(``SectionCache.clean_settings``). Shared only between jobs whose inputs to it are the same."""

from __future__ import annotations

import json
import os
import time

import pytest
from hotplex import Project
from hotplex.document.compile import compile_job
from hotplex.errors import HotplexError
from hotplex.manifest import load as loading
from hotplex.manifest.jobs import plan
from hotplex.sources.inputs import Inputs, read_cap
from hotplex.sources.logs import days_glob
from hotplex_testing import FAKE_SECRETS

TARGETS = (("a", "opencode-server", ""), ("b", "opencode-server", ""), ("c", "claude-code", ""))
TARGETS += (("d", "claude-code", ""),)
TARGETS += (("named", "opencode-server", 'vars = { who = "Named" }\n'),)
MANIFEST = '[variants]\nplatforms = ["slack", "feishu"]\n' + "".join(
    f'[[target]]\nname = "{name}"\nworker = "{worker}"\n{more}' for name, worker, more in TARGETS
)
FILES = {
    "agent-configs/SOUL.md": "You are {{ who | default('an agent') }}.\n",
    "agent-configs/SOUL.slack.md": "On Slack.\n",
    "agent-configs/AGENTS.md": "Rules.\n",
}


def _compiled(root, inputs=None):
    model = loading.load(root, root / "hotplex.toml")
    inputs = inputs or Inputs(root, read_cap(model), days_glob(model))
    return {job.id: compile_job(model, job, inputs).emitted for job in plan(model)}


def _document(emitted) -> bytes:
    return emitted.files[emitted.primary]


def test_jobs_that_differ_only_in_their_name_share_the_document_file(make_project) -> None:
    root = make_project(FILES, manifest=MANIFEST)
    together = _compiled(root)
    # "a" and "b" differ only in their name, which the document does not read: one object.
    assert _document(together["a/slack"]) is _document(together["b/slack"])
    assert _document(together["a/feishu"]) is _document(together["b/feishu"])
    # Another platform's sections, a per-target variable's value, another worker's encoding:
    # each its own bytes, and the right ones.
    slack, feishu = _document(together["a/slack"]), _document(together["a/feishu"])
    named = _document(together["named/slack"])
    assert slack != feishu and b"On Slack." in slack and b"On Slack." not in feishu
    assert b"You are Named." in named and b"You are an agent." in slack
    assert b"You are Named." not in slack
    # Claude Code's sub-agent document too: one object for "c" and "d".
    assert (
        together["c/slack"].files["dist/c/slack/subagent.xml"]
        is (together["d/slack"].files["dist/d/slack/subagent.xml"])
    )
    claude = _document(together["c/slack"])
    assert json.loads(slack)["system"] == claude.decode()  # one document, two files of it
    # Each job's files are those it compiles alone (a fresh cache, fresh sections).
    for job_id, emitted in together.items():
        assert emitted == _compiled(root)[job_id]


@pytest.mark.parametrize("second", ["other", "same"])
def test_a_manifest_text_scanned_clean_for_one_target_is_still_scanned_for_another(
    make_project, second
) -> None:
    """Clean texts are kept by their content (the same text is clean under every key); a text
    with a finding never is: a secret in a target's ``cwd`` is found at each key that holds it,
    after another target's clean one and after the same text under another key."""
    secret = FAKE_SECRETS["github-token"]
    first = "srv" if second == "other" else f"srv-{secret}"
    texts = {"one": first, "two": f"srv-{secret}", "three": "srv"}
    manifest = "".join(
        f'[[target]]\nname = "{name}"\nworker = "claude-code"\ncwd = "{text}"\n'
        for name, text in texts.items()
    )
    root = make_project(FILES, manifest=manifest)
    for folder in set(texts.values()):
        (root / folder).mkdir()
    model = loading.load(root, root / "hotplex.toml")
    inputs = Inputs(root, read_cap(model), days_glob(model))  # one build's: shared
    problems = []
    for job in plan(model):
        try:
            compile_job(model, job, inputs)
        except HotplexError as error:
            problems += error.problems
    placed = {p.span.key for p in problems if p.span is not None}
    assert all(secret not in p.message for p in problems)  # redacted
    expected = {"target[1].cwd"} if second == "other" else {"target[0].cwd", "target[1].cwd"}
    assert placed == expected, problems


def test_a_text_allowed_under_one_manifest_is_scanned_again_under_the_next(make_project) -> None:
    """The clean texts belong to one model: a long-lived ``Project`` whose manifest drops the
    allowance refuses the text it compiled before."""
    secret = FAKE_SECRETS["github-token"]
    manifest = f'[[target]]\nname = "one"\nworker = "claude-code"\ncwd = "srv-{secret}"\n'
    root = make_project(FILES, manifest=manifest + '[secrets]\nallow = ["github-token"]\n')
    (root / f"srv-{secret}").mkdir()
    project = Project(root)
    assert project.compile("one").files
    (root / "hotplex.toml").write_text(manifest, encoding="utf-8")
    later = time.time_ns() + 2 * 10**9  # not the stamp it had
    os.utime(root / "hotplex.toml", ns=(later, later))
    with pytest.raises(HotplexError) as raised:
        project.compile("one")
    assert [p.span.key for p in raised.value.problems if p.span] == ["target[0].cwd"]
