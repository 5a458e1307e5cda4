"""Learned facts in a user's profile: the deterministic, audited half of "the agent learns".

The gateway's own worker does the language work (``request.py`` compiles what it needs to
extract facts from a conversation); hotplex guards the answer and merges it into the learned
block of USER.md (``merge.py``), keeping what it replaces (``history.py``). hotplex never calls a
model, never runs a program and never reads the clock: every date is the caller's.

The block's lines, their one reader and what reaches the worker are ``hotplex.sources.learned``,
and when two keys are one ``hotplex.sources.learned_keys`` (a build reads the block too, below
this stage); ``facts.py`` reads the facts a caller gives. ``api.Project.learn``, ``hotplex
learn`` (``commands/learn.py``) and ``POST /v1/learn`` are thin edges over ``merge.learn``.
"""
