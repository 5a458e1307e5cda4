"""Daily memory compacted instead of dropped (``hotplex memory compact``): the built-in
compactor, the local project's plan and writes, the compaction request for a worker and the guard
of its answer, and the stateless part ``hotplex serve`` answers with. The build's side, reading
the compacted months, is ``sources/compacted.py``."""
