"""hotplex: compile agent-context Markdown into exact per-worker artifacts."""

__version__ = "0.1.0"
