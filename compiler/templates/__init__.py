"""The template language: parsed (Lark grammar), rendered, code regions left alone."""


def might_have_syntax(text: str) -> bool:
    """The cheap half of ``parse.has_template_syntax()``: any ``{{``, ``{%`` or ``{#`` at all.
    Here, so that a build whose files have none imports neither the parser nor the renderer."""
    return "{{" in text or "{%" in text or "{#" in text
