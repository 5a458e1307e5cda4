"""The Lark grammars hotplex parses sources with (package data)."""
