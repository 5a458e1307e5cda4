"""The document stage: the sources stage's sections sanitized (``scanning.sanitize``), cut to the
limits, assembled, emitted."""
