"""The one document every worker that sends HotPlex's sections receives: sanitize -> limit ->
assemble.

One program gets it as a file, another as the ``system`` string of every message; all must see
the same bytes, so each of those workers calls ``build`` and only wraps its result differently.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable
from typing import NamedTuple

from hotplex.document import assemble, limits
from hotplex.manifest.model import Limits, Model
from hotplex.manifest.vocabulary import WRAPPER_TAG
from hotplex.records import Section, SectionSize, Truncation
from hotplex.scanning import sanitize
from hotplex.sources import logs as memory_logs
from hotplex.text.measure import measure


class Document(NamedTuple):
    text: str
    truncations: tuple[Truncation, ...]
    sizes: tuple[SectionSize, ...]
    spans: dict[str, tuple[int, int]]  # where each placed section's text lies in ``text``
    pieces: tuple[str, ...] = ()  # ``text`` in the pieces it was joined of (``assemble``)
    # Each piece's block where it was kept beside its section (a part kept whole), else None.
    kept: tuple[Block | None, ...] = ()


class Block:
    """A section's block kept beside it while the limits keep it whole (``_Held.whole``): its
    UTF-8 and what each ``Framed`` file makes of it, made once for every document holding it."""

    __slots__ = ("framed", "utf8")

    def __init__(self, utf8: bytes) -> None:
        self.utf8 = utf8
        # By ``Framed.piece``: its bytes and text; None: met once (a call's own section is
        # met once, and made with the pieces beside it).
        self.framed: dict[Callable[[bytes], tuple[bytes, str]], tuple[bytes, str] | None] = {}


class Framed(NamedTuple):
    """A worker's file that is ``head``, then ``piece`` of the document's UTF-8, then ``tail``,
    where ``piece`` of a text is ``piece`` of its lines joined (a JSON string's escape), and
    gives its bytes and their text: made piece by piece (``Document.pieces``), so a section
    kept from one document to the next has its part made once, beside it."""

    head: bytes
    piece: Callable[[bytes], tuple[bytes, str]]
    tail: bytes


# The marker's bytes: a cut section's one character beyond ASCII, often the document's only one.
_MARKER_UTF8 = limits.TRUNCATION_MARKER.encode()


def utf8(document: Document) -> bytes:
    """``document.text.encode()``, piece by piece: one character beyond ASCII (the truncation
    marker's '…') makes the whole text two bytes a character, which UTF-8 encodes one character
    at a time (a tenth of an overlaid compile's time beside the scans). A section's block the
    limits keep whole is encoded once, beside it (``_Held.whole``); a piece of ASCII is copied,
    and a cut section's around its markers, which is ASCII again, joined with the marker's
    bytes."""
    if document.text.isascii():
        return document.text.encode()
    return b"".join(
        block.utf8 if block is not None else _piece_utf8(piece)
        for piece, block in zip(document.pieces, document.kept, strict=True)
    )


def _piece_utf8(piece: str) -> bytes:
    if piece.isascii():
        return piece.encode()
    around = piece.split(limits.TRUNCATION_MARKER)
    if len(around) > 1 and all(map(str.isascii, around)):
        return _MARKER_UTF8.join(map(str.encode, around))
    return piece.encode()


def file_bytes(
    document: Document, to_file: Callable[[bytes], bytes] | Framed | None = None
) -> bytes:
    """``to_file(utf8(document))``: a worker's file made of the document (``to_file`` a pure
    function of the bytes, the same object for the same work: a worker's bound method, or a
    ``Framed`` one; None: the UTF-8 itself). A kept
    document (``build``) is the same object for every job given the same sections and settings,
    so its files are encoded once while it is kept (the fleet's hundred jobs of one platform: a
    12 KB document escaped for JSON once); any other is encoded each time."""
    held = _FILES.get(id(document))
    if held is None or held[0] is not document:
        return _file(document, to_file)
    found = held[1].get(to_file)
    if found is None:
        found = held[1][to_file] = _file(document, to_file)
    return found


def _file(document: Document, to_file: Callable[[bytes], bytes] | Framed | None) -> bytes:
    if isinstance(to_file, Framed):
        return _framed(document, to_file)
    data = utf8(document)
    return data if to_file is None else to_file(data)


def _framed(document: Document, frame: Framed) -> bytes:
    """The file ``frame`` makes of ``document``: a block met before made once, beside it; the
    pieces between two of them made at once. Its text waits for ``file_text``."""
    data, text, between = [frame.head], [frame.head.decode()], []

    def flush() -> None:
        made = frame.piece(b"".join(between))
        data.append(made[0])
        text.append(made[1])
        between.clear()

    for piece, block in zip(document.pieces, document.kept, strict=True):
        found = block.framed.get(frame.piece, _UNMET) if block is not None else _UNMET
        if found is _UNMET:
            if block is not None:
                block.framed[frame.piece] = None
            between.append(block.utf8 if block is not None else _piece_utf8(piece))
            continue
        if between:
            flush()
        if found is None:
            found = block.framed[frame.piece] = frame.piece(block.utf8)
        data.append(found[0])
        text.append(found[1])
    if between:
        flush()
    data.append(frame.tail)
    text.append(frame.tail.decode())
    whole = b"".join(data)
    _LAST_FRAMED[:] = [(whole, "".join(text))]
    return whole


def file_text(data: bytes) -> str:
    """``data.decode()`` for ``data`` a file of ``file_bytes``: a ``Framed`` one made last has
    its text made with it (an overlaid call's answer holds the file and its text), taken once,
    so no user's text is kept past the call; any other is decoded."""
    try:
        kept = _LAST_FRAMED.pop()
    except IndexError:  # none, or another thread's call took it
        kept = None
    if kept is None or kept[0] is not data:
        return data.decode("utf-8")
    return kept[1]


_UNMET = object()
# The last ``Framed`` file made and its text (``file_text``).
_LAST_FRAMED: list[tuple[bytes, str]] = []


def reserved_tags(
    sections: list[Section], model: Model, also: frozenset[str] = frozenset()
) -> frozenset[str]:
    """Every tag the configuration can emit, whether this artifact has that section or not: with
    MEMORY.md absent, a ``<memory>`` typed into SOUL.md must not pass for the memory section.
    ``also``: tags of the worker's own wrapper around the document (Gemini CLI has one)."""
    tags, more = _model_tags(model)
    extra = (*(s.tag for s in sections if s.tag not in tags), *also)
    if not extra:
        return tags  # the same object for every call of a model: hashed once, in ``build``'s key
    found = more.get(extra)
    if found is None:  # a built-in section's (metacognition's), a worker's own: a few a model
        found = more[extra] = frozenset({*tags, *extra})
    return found


# The last model's own reserved tags, and with each set of others: a per-user compile asks for
# them three times a call.
_MODEL_TAGS: list[tuple[Model, frozenset[str], dict[tuple[str, ...], frozenset[str]]]] = []


def _model_tags(model: Model) -> tuple[frozenset[str], dict[tuple[str, ...], frozenset[str]]]:
    kept = _MODEL_TAGS[-1] if _MODEL_TAGS else None
    if kept is not None and kept[0] is model:
        return kept[1], kept[2]
    channel_tags = {c.tag for c in model.manifest.channels.values()}
    tags = frozenset({WRAPPER_TAG, *channel_tags, *(s.tag for s in model.sources)})
    more: dict[tuple[str, ...], frozenset[str]] = {}
    _MODEL_TAGS[:] = [(model, tags, more)]  # one slot: another model's call replaces it whole
    return tags, more


def build(
    sections: list[Section],
    model: Model,
    also_reserved: frozenset[str] = frozenset(),
    as_sent: Callable[[str], str] | None = None,
) -> Document:
    """``as_sent``: what the worker's program makes of a text on the way (Gemini CLI's word
    joiners), applied to each section before the limits, so that they hold for what is sent.

    The same sections (the cache's objects) under the same settings give the same document, so
    it is kept while every one of them lives (``_HELD``): a thousand jobs of one platform cut
    and assemble it once."""
    manifest = model.manifest
    channels = tuple((name, c.tag, c.note) for name, c in manifest.channels.items())
    reserved = reserved_tags(sections, model, also_reserved)
    key = (tuple(map(id, sections)), reserved, as_sent, manifest.limits, channels)
    found = _DOCUMENTS.get(key) if sections else None
    if found is None:
        held = [_held(s) for s in sections]
        cleaned = [_cleaned(h, s, reserved, as_sent) for h, s in zip(held, sections, strict=True)]
        found = _document(sections, cleaned, held, reserved, manifest.limits, channels)
        if held:  # none: the empty document, not worth keeping
            _DOCUMENTS[key] = found
            _FILES[id(found)] = (found, {})
            for h in held:
                h.documents.add(key)
    return found


def _document(
    sections: list[Section],
    cleaned: list[limits.Limited],
    held: list[_Held],
    reserved: frozenset[str],
    budgets: Limits,
    channels: tuple[tuple[str, str, str], ...],
) -> Document:
    """Sanitized sections -> limit -> assemble. A section the limits keep whole has the same
    part and size in every document (a gateway's persona beside each call's memory): made once,
    kept beside it (``_Held.whole``)."""
    kept, cuts = limits.apply(cleaned, budgets)
    by_name = {k.name: k for k in kept}
    unit = budgets.unit
    placed, parts, blocks, kept_blocks, sizes = [], [], [], [], []
    for section, limited, mine in zip(sections, cleaned, held, strict=True):
        ours = by_name.get(limited.name)
        if ours is limited:
            made = mine.whole.get((id(limited), unit))
            if made is None:
                made = mine.whole[id(limited), unit] = _whole(section, limited, reserved, unit)
        else:
            made = (*_pieces(section, limited, ours, reserved, unit), None, None)
        part, size, block, kept_block = made
        if part is not None:
            placed.append(section)
            parts.append(part)
            blocks.append(block)
            kept_blocks.append(kept_block)
        sizes.append(size)
    assembled = assemble.document(
        parts,
        {name: tag for name, tag, _ in channels},
        {name: _note(note, reserved) for name, _, note in channels},
        blocks,
    )
    spans = {placed[index].name: (start, end) for index, start, end in assembled.bodies}
    kept: list[Block | None] = [None] * len(assembled.pieces)
    for (index, _start, _end), at in zip(assembled.bodies, assembled.blocks, strict=True):
        kept[at] = kept_blocks[index]
    return Document(assembled.text, tuple(cuts), tuple(sizes), spans, assembled.pieces, tuple(kept))


def _whole(
    section: Section, cleaned: limits.Limited, reserved: frozenset[str], unit: str
) -> tuple[assemble.Part | None, SectionSize, str | None, Block | None]:
    """``_pieces`` of a section the limits keep whole, with its block, as text and kept: the
    same in every document that holds it."""
    part, size = _pieces(section, cleaned, cleaned, reserved, unit)
    if part is None:
        return part, size, None, None
    block = assemble.block(part)
    return part, size, block, Block(_piece_utf8(block))


def _pieces(
    section: Section,
    cleaned: limits.Limited,
    kept: limits.Limited | None,
    reserved: frozenset[str],
    unit: str,
) -> tuple[assemble.Part | None, SectionSize]:
    """A section's part of the document (None: nothing of it kept) and its size record."""
    text = kept.text if kept is not None else ""
    files = (
        cleaned.files + tuple(day.display for day in cleaned.logs.days)
        if cleaned.logs
        else cleaned.files
    )
    size = SectionSize(cleaned.name, files, measure(cleaned.text, unit), measure(text, unit), unit)
    if kept is None:
        return None, size
    return assemble.Part(section.tag, section.channel, _note(section.note, reserved), text), size


# What is kept beside each live section, for exactly as long as it lives: its sanitized forms (by
# reserved tags and ``as_sent``) and the keys of the documents made with it. A section from the
# cache (``sources/sections.py``) is one object a thousand jobs share, sanitized once; a section
# of one call's overlay takes its forms, and every document holding it, with it when it goes.
# Keys hold ``id``s: an entry goes before its section's id can be another object's.
class _Held:
    __slots__ = ("cleaned", "documents", "ref", "whole")

    def __init__(self, section: Section) -> None:
        self.ref = weakref.ref(section, functools.partial(_forget, id(section)))
        self.cleaned: dict[Hashable, limits.Limited] = {}
        # By sanitized form (the id of one of ``cleaned``, which lives as long) and unit, its
        # part, size, block and ``Block`` when the limits keep it whole (``_whole``).
        self.whole: dict[tuple[int, str], tuple] = {}
        self.documents: set[tuple] = set()


_HELD: dict[int, _Held] = {}
_DOCUMENTS: dict[tuple, Document] = {}
# Each kept document's files by how they are made of it (``file_bytes``); by ``id``, holding the
# document, for exactly as long as ``_DOCUMENTS`` keeps it.
_FILES: dict[int, tuple[Document, dict[Callable[[bytes], bytes] | None, bytes]]] = {}


def _held(section: Section) -> _Held:
    held = _HELD.get(id(section))
    if held is None or held.ref() is not section:
        held = _HELD[id(section)] = _Held(section)
    return held


def _forget(key: int, ref: weakref.ref[Section]) -> None:
    """A section is gone: so are its forms and every document made with it, which the other
    sections of those documents stop listing (a long-lived section, a gateway's persona, would
    otherwise list one document per overlaid call)."""
    held = _HELD.get(key)
    if held is None or held.ref is not ref:
        return
    del _HELD[key]
    for document in held.documents:
        gone = _DOCUMENTS.pop(document, None)
        if gone is not None:
            _FILES.pop(id(gone), None)
        for other in document[0]:
            sharing = _HELD.get(other) if other != key else None
            if sharing is not None:
                sharing.documents.discard(document)


def _cleaned(
    held: _Held, section: Section, reserved: frozenset[str], as_sent: Callable[[str], str] | None
) -> limits.Limited:
    found = held.cleaned.get((reserved, as_sent))
    if found is None:

        def clean(text: str) -> str:
            cleaned = sanitize.sanitize(text, reserved)
            return as_sent(cleaned) if as_sent is not None else cleaned

        logs = memory_logs.mapped(section.logs, clean)
        found = limits.Limited(section.name, section.files, clean(section.text), logs)
        held.cleaned[(reserved, as_sent)] = found
    return found


@functools.lru_cache(maxsize=256)
def _note(note: str, reserved: frozenset[str]) -> str:
    """A note of the manifest sanitized: the same few for every job."""
    return sanitize.sanitize(note, reserved)
