"""Repetition until a terminator, and block-encoded sequences (Avro's arrays and maps).

:class:`RepeatUntil` reads elements until one satisfies a condition (``repeat: {until:
EXPR}``; the element just read is ``_item`` in the expression). The terminator is the
last element of the list, or (``include: false``) kept apart in the model as
``<name>_terminator`` so the list holds only the elements and build writes it back:

    >>> from construct import Int8ul
    >>> RepeatUntil(Int8ul, "xs", lambda this: this._item == 0).parse(b"\\x03\\x01\\x00")
    ListContainer([3, 1, 0])

:class:`RepeatBlocks` reads Avro's block encoding (``repeat: blocks``): a ZigZag varint
count, then that many elements, again and again until a count of 0; a negative count
``-n`` is followed by the byte size of its ``n`` elements. The model holds the elements
flat (the JSON form and Spark see one list) and ``<name>_blocks`` the split as read (the
counts, negative where a byte size followed), so build writes the same blocks; a model
without it (or whose counts no longer add up) is written as one block with a positive
count, as fastavro and Java's Avro write:

    >>> RepeatBlocks(Int8ul, "xs").parse(b"\\x04\\x07\\x08\\x01\\x02\\x09\\x00")
    ListContainer([7, 8, 9])
"""

from __future__ import annotations

import io

from construct import Container, ListContainer, Subconstruct

from runtime.core import leb128
from runtime.core.errors import DecodeError, EncodeError, SiblingError
from runtime.core.limits import current as current_limits
from runtime.core.record import BuiltList, _listed, _Repeat
from runtime.core.spans import current as current_spans
from runtime.core.stream import remaining


def default_terminator(default):
    """The terminator a new model is written with: a record's is given as a mapping, so a
    Container (which the ``until`` expression reads by attribute)."""
    return Container(default) if isinstance(default, dict) else default


class RepeatUntil(_Repeat):
    """Elements until ``until(context)`` holds for the one just read (``this._item``).

    ``include``: the terminator stays the list's last element (Kaitai's ``repeat-until``);
    else it goes to ``context["_<name>_terminator"]`` and build writes the model's
    ``<name>_terminator`` (or ``default`` for a new model) after the elements.
    """

    def __init__(self, subcon, name: str, until, *, include: bool = True, default=None):
        super().__init__(subcon)
        self.field = name
        self.until = until
        self.include = include
        self.default = default_terminator(default)

    def _done(self, context, item) -> bool:
        context._item = item
        return bool(self.until(context))

    def _more(self, stream, context, items):
        if items and self._done(context, items[-1]):
            return False
        if remaining(stream) == 0:
            raise DecodeError("the sequence ends before its terminator", offset=stream.tell())
        return True

    def _parse(self, stream, context, path):
        items = super()._parse(stream, context, path)
        if not self.include:
            context[f"_{self.field}_terminator"] = items.pop()
        return items

    def _build(self, obj, stream, context, path):
        items = list(_listed(obj))
        for i, item in enumerate(items):
            last = i == len(items) - 1
            if (self.include and last) != self._done(context, item):
                where = "the last element" if last else f"element {i}"
                raise EncodeError(f"{where} does not fit repeat until (terminator or not)")
        if not self.include:
            terminator = context.get(f"{self.field}_terminator")
            terminator = self.default if terminator is None else terminator
            if terminator is None or not self._done(context, terminator):
                raise EncodeError("no terminator to write (give <name>_terminator)")
            items.append(terminator)
        elif not items:
            raise EncodeError("a repeat until needs its terminator as the last element")
        built = super()._build(items, stream, context, path)
        if not self.include:
            built.pop()
            built.sizes.pop()
        return built


class RepeatBlocks(_Repeat):
    """Avro's blocks: ``count`` (ZigZag varint), a byte size when negative, the elements;
    until a 0 count. The split as read goes to ``context["_<name>_blocks"]``."""

    def __init__(self, subcon, name: str):
        super().__init__(subcon)
        self.field = name

    def _parse(self, stream, context, path):
        items = ListContainer()
        blocks = []
        limits = current_limits(context)
        spans = current_spans(context)
        while True:
            start = stream.tell()
            count = leb128.parse_zigzag_stream(stream)
            if spans is not None:
                spans.mark(start, stream.tell(), "count", count)
            if count == 0:
                break
            n = abs(count)
            limits.check("max_count", len(items) + n, offset=start)
            end = None
            if count < 0:
                at = stream.tell()
                size = leb128.parse_zigzag_stream(stream)
                if spans is not None:
                    spans.mark(at, stream.tell(), "length", size)
                if size < 0 or size > remaining(stream):
                    raise DecodeError(f"block byte size {size} out of range", offset=at)
                end = stream.tell() + size
            for _ in range(n):
                self._element(stream, context, path, items, spans)
            if end is not None and stream.tell() != end:
                raise DecodeError(
                    f"block of {n} element(s) ends at {stream.tell()}, its byte size says {end}",
                    offset=start,
                )
            blocks.append(count)
        context[f"_{self.field}_blocks"] = blocks
        return items

    def _build(self, obj, stream, context, path):
        items = list(_listed(obj))
        blocks = context.get(f"{self.field}_blocks")
        if blocks and not (
            isinstance(blocks, (list, tuple)) and all(type(c) is int for c in blocks)
        ):
            what = EncodeError.expected("a list of counts", blocks).message
            raise SiblingError(what, path=f"{self.field}_blocks")
        if not blocks or sum(abs(c) for c in blocks) != len(items) or 0 in blocks:
            blocks = [len(items)] if items else []
        built = BuiltList()
        done = 0
        for count in blocks:
            n = abs(count)
            part = io.BytesIO()
            chunk = super()._build(items[done : done + n], part, context, path)
            for i, value in enumerate(chunk):  # indexes of the whole list in errors
                built.append(value)
                built.sizes.append(chunk.sizes[i])
            data = part.getvalue()
            stream.write(leb128.write_zigzag(count))
            if count < 0:
                stream.write(leb128.write_zigzag(len(data)))
            stream.write(data)
            done += n
        stream.write(b"\x00")
        return built


class Kept(Subconstruct):
    """A zero-width model field that keeps what another field read beside its value (a
    ``process:`` field's wire bytes, a block split, an excluded terminator): parse returns
    ``context[key]``; build writes nothing (the field it belongs to reads the model's)."""

    def __init__(self, key: str):
        from construct import Pass

        super().__init__(Pass)
        self.key = key
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        return context.get(self.key)

    def _build(self, obj, stream, context, path):
        return obj

    def _sizeof(self, context, path):
        return 0
