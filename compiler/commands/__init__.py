"""The commands beside build and check: clean, watch, stats, graph, init (scaffold)."""
