"""The OpenClaw worker: its workspace files, context predictor, templates, trims."""
