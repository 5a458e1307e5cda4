"""The scans of every input: secrets and hidden Unicode, each finding with its origin."""
