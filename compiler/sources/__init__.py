"""The sources stage: each job's Markdown files found, read, imported and rendered."""
