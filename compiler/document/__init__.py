"""The document stage: sections sanitized, measured against limits, assembled, emitted."""
