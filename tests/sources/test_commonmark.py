"""Every reader of Markdown (the write guard's render, Claude Code's imports, the compacted
months' headings) shares one CommonMark parser: building one costs as much as a compile."""

from __future__ import annotations

import markdown_it
from hotplex.scanning import injection
from hotplex.sources import claude_imports, compacted


def test_the_readers_of_markdown_build_at_most_one_parser(monkeypatch) -> None:
    built = []
    init = markdown_it.MarkdownIt.__init__

    def counted(self, *args, **kwargs) -> None:
        built.append(args)
        init(self, *args, **kwargs)

    monkeypatch.setattr(markdown_it.MarkdownIt, "__init__", counted)
    for _ in range(2):
        assert compacted.section_headings("# 2026-10\n\n- a day\n## 2026-10-03\n") == [
            (0, 1),
            (3, 4),
        ]
        assert claude_imports.written_imports("see @notes.md\n") == ["notes.md"]
        assert claude_imports.visible_text("<!-- a note -->\nshown\n") == "shown"
        assert [m.rule for m in injection.scan.__wrapped__("<img src=//evil.example/x>")] == [
            "image-url-data"
        ]
    assert len(built) <= 1
