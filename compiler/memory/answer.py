"""A model's summary of a month, guarded before it is filed: what a worker answered to the
compaction request is the least trusted text hotplex writes into a source.

Refused, each with one error and nothing written: text that is not UTF-8 or holds a NUL, an
empty answer or one without a word in it, one longer than ``[memory] digest_chars``, one
holding a heading at a day's or a month's level (``compacted.section_headings``), and one
holding anything the build's scans would refuse (a secret, hidden text, an exfiltration URL, a
role marker, a chat template's token): the same scans, with the manifest's allowances, that a
compile and ``hotplex check`` run (``sources.blocking.scan``).
"""

from __future__ import annotations

from hotplex.errors import EXIT_FAILED, HotplexError, Span
from hotplex.sources import blocking
from hotplex.sources.compacted import section_headings
from hotplex.sources.frontmatter import checked, trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hotplex.manifest.model import Model


def guarded(model: Model, answer: str | bytes, label: str) -> str:
    """The answer's text, ready to file, or ``HotplexError`` naming what is wrong with it."""
    if isinstance(answer, bytes):
        try:
            answer = answer.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HotplexError.single(
                f"the answer is not UTF-8 text (byte 0x{answer[exc.start]:02x} at offset"
                f" {exc.start}): not filed",
                Span(label),
            ) from None
    text = trim(checked(answer, label))
    if not any(c.isalnum() for c in text):
        raise HotplexError.single(
            "the answer is empty (no word in it): not filed",
            Span(label),
            hint="run the request again; the days stay as they are",
        )
    budget = model.manifest.memory.digest_chars
    if len(text) > budget:
        raise HotplexError.single(
            f"the answer is {len(text)} characters, over memory.digest_chars ({budget}): not filed",
            Span(label),
            hint="ask the worker again for a shorter summary, or raise [memory] digest_chars",
        )
    headings = section_headings(text)
    if headings:
        line = headings[0][0] + 1
        raise HotplexError.single(
            f"line {line} is a heading at a day's or a month's level (# or ##): under the"
            " month's heading it would read as a day no log holds; not filed",
            Span(label, line=line),
            hint="write the summary as list items, or headings of ### and deeper",
        )
    found = blocking.scan(model.manifest, text, label, 1)
    if found:
        problem = found[0].problem()
        more = f" (and {len(found) - 1} more finding(s))" if found[1:] else ""
        raise HotplexError.single(
            f"the answer is not filed: {problem.message}{more}",
            found[0].span,
            hint=problem.hint or "the days stay as they are; run the request again",
            exit_status=EXIT_FAILED,
        )
    return text
