"""The manifest stage: hotplex.toml read, structured, validated, cached, planned into jobs."""
