"""Sections as build products (``sources/sections.py``): resolved once per key and dependencies,
shared by every job whose dependencies hold, each job's report as if it had resolved them itself."""

from __future__ import annotations

import gc
import os
import time

import pytest
from hotplex import Project
from hotplex.document import configuration
from hotplex.document.compile import compile_job
from hotplex.errors import BuildFailed
from hotplex.manifest import load as loading
from hotplex.manifest.jobs import plan
from hotplex.sources.inputs import Inputs, read_cap
from hotplex.sources.logs import days_glob
from hotplex.sources.sections import SectionCache

TARGETS = (("cc", "claude-code", ""), ("ocs", "opencode-server", ""))
TARGETS += (("ocs2", "opencode-server", 'vars = { team = "two" }\n'),)
MANIFEST = (
    '[variants]\nplatforms = ["slack", "feishu"]\n[memory]\nlogs = "memory/*.md"\n'
    + "".join(
        f'[[target]]\nname = "{name}"\nworker = "{worker}"\n{more}'
        for name, worker, more in TARGETS
    )
)

FILES = {
    "agent-configs/SOUL.md": "You are {{ target }}.\n",  # a per-target variable: one per target
    "agent-configs/SOUL.slack.md": "On Slack.\n",
    "agent-configs/AGENTS.md": 'Rules.\n{% include "shared/red.md" %}\n',
    "agent-configs/shared/red.md": "Red lines.\n",
    "agent-configs/SKILLS.md": "Skills for {{ team | default('everyone') }}.\n",
    "agent-configs/USER.md": "User.\n" + "x" * (1 << 20),  # past the read cap: cut on every read
    "agent-configs/MEMORY.md": "Memory.\n",
    "agent-configs/memory/2026-11-29.md": "- a day\n",
}


def _load(root):
    model = loading.load(root, root / "hotplex.toml")
    return model, plan(model)


def _inputs(root, model, cache: SectionCache | None = None) -> Inputs:
    inputs = Inputs(root, read_cap(model), days_glob(model))
    if cache is not None:
        inputs.sections = cache
    return inputs


def test_every_job_gets_what_it_would_resolve_alone(make_project) -> None:
    root = make_project(FILES, manifest=MANIFEST)
    model, jobs = _load(root)
    shared = _inputs(root, model)
    together = [compile_job(model, job, shared) for job in jobs]
    for job, compiled in zip(jobs, together, strict=True):
        alone = compile_job(model, job, _inputs(root, model))  # a cache of its own
        assert compiled.emitted == alone.emitted  # files, cuts (the read cap's), sizes, warnings
        assert list(compiled.inputs.items()) == list(alone.inputs.items())  # in first-use order
        assert compiled.variables == alone.variables
        assert compiled.sections == alone.sections
    texts = {c.job.id: c.emitted.files[c.emitted.primary].decode() for c in together}
    assert "You are cc." in texts["cc/slack"] and "You are ocs2." in texts["ocs2/slack"]
    assert (
        "Skills for two." in texts["ocs2/feishu"] and "Skills for everyone." in texts["ocs/feishu"]
    )
    assert all(any(t.limit == "read" for t in c.emitted.truncations) for c in together)


def test_a_section_is_resolved_once_per_key_and_dependencies(make_project) -> None:
    root = make_project(FILES, manifest=MANIFEST)
    model, jobs = _load(root)
    inputs = _inputs(root, model)
    for job in jobs:
        compile_job(model, job, inputs)
    cache = inputs.sections
    platforms = 3  # the base, slack, feishu
    # META-COGNITION once; SOUL per target and platform ({{ target }}); SKILLS per platform and
    # per value of {{ team }} (cc and ocs read none: one entry); the others per platform (and
    # MEMORY with its daily logs per worker budget: both workers have [limits]).
    expected = 1 + 3 * platforms + 2 * platforms + 3 * platforms
    assert cache.computed == expected
    assert cache.served == len(jobs) * 6 - expected


def test_a_secret_is_found_in_every_job_that_reads_it(make_project) -> None:
    key = "sk-ant-api03-" + "a1B2c3D4e5" * 9 + "AA"
    root = make_project({**FILES, "agent-configs/SOUL.slack.md": f"key {key}\n"}, manifest=MANIFEST)
    model, jobs = _load(root)
    inputs = _inputs(root, model)
    messages = []
    for job in jobs:
        if job.platform != "slack":
            compile_job(model, job, inputs)
            continue
        with pytest.raises(BuildFailed) as failed:
            compile_job(model, job, inputs)
        messages.append(str(failed.value.problems[0].message))
    assert len(messages) == 3 and len(set(messages)) == 1


def test_the_cache_drops_least_recently_used_sections_past_its_bound(make_project) -> None:
    root = make_project(FILES, manifest=MANIFEST)
    model, jobs = _load(root)
    small = SectionCache(max_chars=1 << 20, max_entries=4)  # one capped USER.md fills it
    inputs = _inputs(root, model, small)
    compiled = [compile_job(model, job, inputs) for job in jobs]
    assert small.count <= 4 and small.chars <= 1 << 20
    fresh = [compile_job(model, job, _inputs(root, model)) for job in jobs]
    assert [c.emitted for c in compiled] == [c.emitted for c in fresh]


def _settled(root):
    past = time.time_ns() - 10**10
    for path in root.rglob("*"):
        os.utime(path, ns=(past, past))
    return root


def test_an_overlay_is_never_cached_nor_kept_after_its_call(make_project) -> None:
    root = _settled(make_project(FILES, manifest=MANIFEST))
    project = Project.load(root)
    base = project.compile("ocs", "slack").text
    secret_user = "Only this call's user, 7f3a9."
    overlaid = project.compile("ocs", "slack", overlay={"USER.md": secret_user}).text
    assert secret_user in overlaid
    assert project.compile("ocs", "slack", overlay={"USER.md": "another"}).text != overlaid
    assert project.compile("ocs", "slack").text == base
    cache = project._inputs.sections
    kept = [p for ps in cache._entries.values() for p in ps]
    assert all(secret_user not in (p.section.text if p.section else "") for p in kept)
    gc.collect()
    assert all(secret_user not in d.text for d in configuration._DOCUMENTS.values())


def test_a_project_shares_the_sections_an_overlay_does_not_touch(make_project) -> None:
    root = _settled(make_project(FILES, manifest=MANIFEST))
    project = Project.load(root)
    project.compile("cc", "slack", overlay={"USER.md": "first"})
    cache = project._inputs.sections
    computed = cache.computed
    project.compile("cc", "slack", overlay={"USER.md": "second", "MEMORY.md": "m"})
    assert cache.computed == computed + 2  # USER and MEMORY alone, each overlaid


def test_a_long_lived_section_keeps_no_trace_of_the_calls_that_shared_it(make_project) -> None:
    root = _settled(make_project(FILES, manifest=MANIFEST))
    project = Project.load(root)
    project.compile("ocs", "slack")
    for call in range(50):
        project.compile("ocs", "slack", overlay={"USER.md": f"user {call}"})
    listed = [len(held.documents) for held in configuration._HELD.values()]
    assert max(listed) <= 2  # the project's own document (and its sub-agent view), not 50 more
