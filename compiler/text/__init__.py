"""What any floor may ask of a text, with nothing of hotplex below it: where its grapheme clusters
end (``graphemes``), its size in a budget's unit (``measure``), the secrets in it
(``secret_rules``, which ``errors`` uses to redact every message, with ``secret_values`` and
``assignment_rule``), and the memo the scans keep of short texts (``memo``)."""
