"""Built-in workers: one module each holding one ``hotplex.worker.Worker`` subclass, named by a
line in ``hotplex.registry.BUILT_IN`` (the core imports none of them)."""
