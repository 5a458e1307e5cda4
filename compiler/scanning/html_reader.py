"""``html.parser`` without its square-cost corner: the scanners read untrusted text as HTML, and a
text of many comments never closed (``<span hidden><!--`` repeated) cost the square of its length.

At its end (``close``), the parser takes a ``<!--`` whose close it cannot find for text and goes
on, looking for the next one's close from there to the end again: 1 MB of them took a minute
(Python 3.10 to 3.13 alike). A comment with no close after it is known at once here: the last
place a close may start is found once per text the parser holds."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Every way a comment's close may be written, in any Python's html.parser (``--\s*>`` before
# 3.13.6, ``--!?>`` after, and ``<!-->``'s abrupt close, whose "--" is the opener's own): a
# comment no match of this starts after cannot close.
_CLOSE = re.compile(r"--!?\s*>")


class HTMLReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._closes_of: str | None = None  # the text the last close was found in
        self._last_close = -1

    def parse_comment(self, i: int, report: bool = True) -> int:
        """The comment at ``i``'s end, as html.parser finds it; -1 at once when no close of a
        comment starts after its opener (``i + 2``: ``<!-->`` closes itself)."""
        if self._closes_of is not self.rawdata:
            self._closes_of = self.rawdata
            self._last_close = -1
            for found in _CLOSE.finditer(self.rawdata):
                self._last_close = found.start()
        if self._last_close < i + 2:
            return -1
        return super().parse_comment(i, report)
