"""The tool names Claude Code accepts in an agent's ``tools``, as data.

``SENT``: every tool Claude Code 2.1.332 offers its model, as the real program sent them to a
fake Messages API in two runs of ``claude --print``: as it starts (ToolSearch and the tools it
defers), and with ``ENABLE_TOOL_SEARCH=false`` (the deferred ones sent whole);
tests/integration/test_subagents_live.py captures them again and fails when the program's list
is no longer within this one.

``NAMED``: the tools the same program names in its own agent definitions and permission rules
without offering them in that run (an environment turns them on: Grep and Glob where its search
is not embedded in Bash, ExitPlanMode in plan mode, the Artifact tools in the desktop app).

``BUILT_IN`` and ``LEGACY``: the program's own list of built-in tool names and its map of old
names to current ones (``Task`` is ``Agent`` now), which it applies to an agent's ``tools``, so
agent files written for older releases keep working. Both were read from the 2.1.332 package's
executable: its JavaScript holds the list as an array of names ending ``"Workflow","Write"]``,
followed by the map (``{Task:"Agent",KillShell:"TaskStop",…}``). Many of these are offered only
in some environments (PowerShell on Windows, LSP with a language server, the task-list tools in
interactive sessions), which is why the fake API's runs did not see them.

An MCP tool (``mcp__<server>__<tool>``, or ``mcp__<server>`` for all of a server's) is the
user's own and is never checked; ``*`` is every tool, ``Bash(git *)`` a tool with a rule.

An empty ``tools`` is no tool at all: the program reads an absent ``tools`` as every tool, and
an empty list (or an empty string) as the empty list of allowed tools.
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
BUILT_IN = (
    *("Agent", "Artifact", "AskUserQuestion", "Bash", "ClaudeDesign", "CronCreate", "CronDelete"),
    *("CronList", "Edit", "EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode"),
    *("ExitWorktree", "Glob", "Grep", "ListAgents", "ListMcpResourcesTool", "LSP", "Monitor"),
    *("NotebookEdit", "OfferChromeSetup", "PowerShell", "Projects", "propose_skills"),
    *("PushNotification", "Read", "ReadMcpResourceDirTool", "ReadMcpResourceTool"),
    *("ReadNotifications", "RemoteTrigger", "ReportFindings", "ScheduleWakeup", "SendFeedback"),
    *("SendMessage", "SendUserFile", "SendUserMessage", "SetGoal", "ShareOnboardingGuide"),
    *("ShowOnboardingRolePicker", "Skill", "SubagentHandback", "TaskCreate", "TaskGet"),
    *("TaskList", "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch", "WaitForMcpServers"),
    *("WebFetch", "WebSearch", "Workflow", "Write"),
)
LEGACY = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "ListPeers": "ListAgents",
    "Brief": "SendUserMessage",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
    "ReadMcpResourceDir": "ReadMcpResourceDirTool",
    "ProposeGoal": "SetGoal",
}
TOOLS = frozenset(SENT + NAMED + BUILT_IN) | LEGACY.keys()
MCP_PREFIX = "mcp__"
