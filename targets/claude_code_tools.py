"""The tool names Claude Code accepts in an agent's ``tools``, as data.

``SENT``: every tool Claude Code 2.1.332 offers its model, as the real program sent them to a
fake Messages API in two runs of ``claude --print``: as it starts (ToolSearch and the tools it
defers), and with ``ENABLE_TOOL_SEARCH=false`` (the deferred ones sent whole);
tests/integration/test_subagents_live.py captures them again and fails when the program's list
is no longer within this one.

``NAMED``: the tools the same program names in its own agent definitions and permission rules
without offering them in that run (an environment turns them on: Grep and Glob where its search
is not embedded in Bash, ExitPlanMode in plan mode, the Artifact tools in the desktop app).

An MCP tool (``mcp__<server>__<tool>``, or ``mcp__<server>`` for all of a server's) is the
user's own and is never checked; ``*`` is every tool, ``Bash(git *)`` a tool with a rule.
"""

from __future__ import annotations

SENT = (
    "Agent",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterWorktree",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "TaskStop",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
)
NAMED = (
    "Artifact",
    "ArtifactCheck",
    "ArtifactComments",
    "ArtifactData",
    "ExitPlanMode",
    "Glob",
    "Grep",
)
TOOLS = frozenset(SENT + NAMED)
MCP_PREFIX = "mcp__"
