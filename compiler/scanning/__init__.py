"""The scans of every input: secrets, hidden Unicode and prompt injection, each finding with its
origin; and the sanitizer that escapes the reserved tags in a text (``sanitize``)."""
