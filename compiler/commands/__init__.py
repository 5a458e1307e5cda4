"""The commands, each a ``run(args, root, manifest) -> int`` that prints its own text and
``--json`` report: build, check, show, clean, graph, stats, init (``scaffold``), watch, memory,
learn; ``invocation`` holds what they share of the command line. ``import``'s is
``importing.run``; ``serve``'s options go to ``serve/run.py``."""
