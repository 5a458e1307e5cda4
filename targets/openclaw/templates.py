"""Starter workspace files for OpenClaw, for ``hotplex init --worker openclaw``.

As OpenClaw's own workspace setup does (``ensureAgentWorkspace``), a template is written
only where the file is missing, never over a user's edit, and BOOTSTRAP.md (a first-run ritual the
agent deletes when done) only into a brand-new folder, one that holds none of the other files.
MEMORY.md has no template: OpenClaw treats it as optional and the agent grows it over time.

Each template also says how a manifest declares it as a ``[[source]]`` (name, channel, tag, note),
so the files work for the XML workers too. Source names follow hotplex's defaults ("rules" for
AGENTS.md, "tools" for TOOLS.md), which is what ``profile = "subagent"`` keeps by default.

The texts are hotplex's own, written from the seed's description of each file. They hold no
template syntax, and each fits OpenClaw's smallest default budget with room to grow.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hotplex.manifest.model import Source
from hotplex.records import SourceTemplate


@dataclass(frozen=True)
class Template:
    file: str
    source: str  # the [[source]] name
    channel: str
    tag: str
    note: str
    text: str


AGENTS = """\
# AGENTS.md - How you work

This folder is your workspace. These files are loaded at the start of every session; sub-agents
you start see this file (and perhaps TOOLS.md) but none of the others, so put here what every
helper must know.

## Every session
1. SOUL.md says who you are; USER.md says who you help.
2. MEMORY.md holds decisions already made: use them instead of asking again.
3. If BOOTSTRAP.md exists, follow it once, then delete it.

## Memory
- When something must outlive this session (a decision, a preference, an open task), write it to
  MEMORY.md in one line with the date.
- Keep the files short. Long files are cut: the beginning and the end survive, the middle does not.

## Safety
- Never reveal secrets, tokens, passwords or private files, not even to the user's contacts.
- Ask before anything destructive or anything that leaves this machine: sending messages or
  email, posting, buying, deleting.
- If instructions conflict, the user's explicit request in the current chat wins over these files.
"""

SOUL = """\
# SOUL.md - Who you are

Replace this with the persona you want. A few lines are enough.

## Voice
- Warm, direct and brief. Answer first, explain after, and only as much as needed.
- Have opinions: when asked for a recommendation, give one and say why.
- Admit uncertainty plainly instead of guessing.

## Boundaries
- You are an assistant, not the user: do not speak for them in group chats.
- Private things stay private.
"""

TOOLS = """\
# TOOLS.md - Notes on your tools

This file does not grant or remove tools; it records how to use the ones you have here.

## Local setup
- Describe devices, accounts and services the agent may use, and how (for example: which
  calendar is the work one, which folder holds invoices).

## Conventions
- Prefer reading a file over guessing its content.
- Quote commands before running anything that changes state.
"""

IDENTITY = """\
# IDENTITY.md - Your name and face

- Name: (pick one together with the user)
- Creature: an AI assistant
- Vibe: (two or three words, e.g. calm, curious, dry humour)
- Emoji: (one, used as a signature now and then)
"""

USER = """\
# USER.md - Who you help

- Name:
- What to call them:
- Time zone:
- Languages:

## Preferences
- (How they like answers: length, tone, format.)
- (What they never want you to do.)
"""

HEARTBEAT = """\
# HEARTBEAT.md - Periodic check

On each heartbeat, look at the items below. If nothing needs attention, stay silent.

- (Add short checks here, e.g. "unread messages from family older than two hours".)
"""

BOOTSTRAP = """\
# BOOTSTRAP.md - First run

You have just been set up. Before anything else:
1. Introduce yourself and ask the user what to call you and what they want help with.
2. Fill in IDENTITY.md and USER.md with what you learn, and adjust SOUL.md if they ask.
3. Delete this file when you are done: it is only for the first conversation.
"""

TEMPLATES: tuple[Template, ...] = (
    Template("AGENTS.md", "rules", "B", "rules", "Treat as mandatory workspace rules.", AGENTS),
    Template("SOUL.md", "soul", "B", "persona", "Embody this persona in all interactions.", SOUL),
    Template("TOOLS.md", "tools", "B", "tools", "How to use the tools available here.", TOOLS),
    Template("IDENTITY.md", "identity", "B", "identity", "Your name and presentation.", IDENTITY),
    Template("USER.md", "user", "C", "user", "Tailor responses to this user.", USER),
    Template("HEARTBEAT.md", "heartbeat", "B", "heartbeat", "Periodic checks.", HEARTBEAT),
    Template("BOOTSTRAP.md", "bootstrap", "B", "bootstrap", "First-run instructions.", BOOTSTRAP),
)
FIRST_RUN_ONLY = frozenset({"BOOTSTRAP.md"})


def workspace_templates(*, brand_new: bool = True) -> dict[str, str]:
    """File name -> text of every template to write where missing, in OpenClaw's load order.

    ``brand_new`` is True when the folder holds none of the template files yet; only then is the
    first-run BOOTSTRAP.md included.
    """
    return {t.file: t.text for t in TEMPLATES if brand_new or t.file not in FIRST_RUN_ONLY}


def scaffold(folder: Path) -> tuple[SourceTemplate, ...]:
    """The templates for ``hotplex init`` in ``folder``, each with its source declaration; the
    first-run BOOTSTRAP.md only when the folder holds none of the files yet."""
    brand_new = not any(os.path.lexists(folder / t.file) for t in TEMPLATES)
    texts = workspace_templates(brand_new=brand_new)
    return tuple(
        SourceTemplate(Source(t.source, t.file, t.channel, t.tag, t.note), texts[t.file])
        for t in TEMPLATES
        if t.file in texts
    )
