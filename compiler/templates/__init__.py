"""The template language: parsed (Lark grammar), rendered, code regions left alone."""
