"""Repeated fields: a list of elements of one construct, however the format says where it
ends. :class:`Repeat` is the loop they share (an element's index in error paths and spans,
``max_count`` checked as the list grows); its kinds say whether another element follows:

* :class:`RepeatCount`: a count (a number or a field read before);
* :class:`RepeatEos`: to the end of the stream; :class:`RepeatWhileTag`: while the next
  byte is the element's tag (both with a ``min_count``);
* :class:`RepeatUntil`: until a terminator; :class:`RepeatBlocks`: Avro's blocks.

Building one returns a :class:`BuiltList`, which keeps each element's byte size for
``sizeof``.

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

from construct import Container, FormatFieldError, ListContainer, StreamError, Subconstruct

from runtime.core import kept, leb128
from runtime.core.construct_errors import packing_message
from runtime.core.errors import DecodeError, EncodeError, SiblingError
from runtime.core.fast import Retry
from runtime.core.limits import current as current_limits
from runtime.core.spans import current as current_spans
from runtime.core.stream import peek_byte, remaining


class Repeat(Subconstruct):
    """The loop every repeated field shares: the index in error paths and spans,
    ``max_count`` checked as the list grows; a subclass says by ``_more(stream, context,
    items)`` whether another element follows.

    >>> from construct import Int8ul
    >>> RepeatCount(Int8ul, 2).parse(b"\\x07\\x08"), RepeatEos(Int8ul).parse(b"\\x09")
    (ListContainer([7, 8]), ListContainer([9]))
    """

    def _parse(self, stream, context, path):
        items = ListContainer()
        limits = current_limits(context)
        spans = current_spans(context)
        while self._more(stream, context, items):
            limits.check("max_count", len(items) + 1, offset=stream.tell())
            self._element(stream, context, path, items, spans)
        return items

    def _element(self, stream, context, path, items, spans) -> None:
        """Read one element onto ``items`` (its index in spans and error paths)."""
        context._index = len(items)
        if spans is not None:
            spans.open(len(items), stream.tell())
        try:
            items.append(self.subcon._parsereport(stream, context, path))
        except DecodeError as err:
            err.add_path(index=len(items))
            raise
        if spans is not None:
            spans.close(stream.tell(), items[-1])

    def _build(self, obj, stream, context, path):
        built = BuiltList()
        for i, item in enumerate(obj if type(obj) is list else _listed(obj)):
            context._index = i
            start = stream.tell()
            try:
                built.append(self.subcon._build(item, stream, context, path))
            except EncodeError as err:
                err.add_path(index=i)
                raise
            except FormatFieldError as err:  # a fixed-width number: its index, as elsewhere
                raise EncodeError(packing_message(err, item), path=f"[{i}]") from None
            built.sizes.append(stream.tell() - start)
        return built


def _listed(obj):
    """The elements of a repeated field's value: None is none, a tuple is a list; what else
    is refused: a str or a mapping (whose characters or keys would be written as elements),
    and a generator, an iterator or a set (used up by the first reader of the list, its
    count, or in no order).

    >>> _listed(None), _listed((1, 2))
    ((), (1, 2))
    >>> try:
    ...     _listed(x for x in "ab")
    ... except EncodeError as err:
    ...     print(err.message.partition(" <")[0])
    expected a list, got generator
    """
    if obj is None:
        return ()
    if type(obj) is not list and not isinstance(obj, (list, tuple)):
        raise EncodeError.expected("a list", obj)
    return obj


class BuiltList(ListContainer):
    """What building a repeated field returns: the built elements, and in ``sizes`` the
    byte size of each (what :func:`sizeof` gives for the field)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.sizes = []


class _RepeatAtLeast(Repeat):
    """A repeat that ``min_count`` bounds from below, both ways."""

    def __init__(self, subcon, *, min_count: int = 0):
        super().__init__(subcon)
        self.min_count = min_count

    def _too_few(self) -> str:
        return f"expected at least {self.min_count} element(s)"

    def _parse(self, stream, context, path):
        start = stream.tell()
        items = super()._parse(stream, context, path)
        if len(items) < self.min_count:
            raise DecodeError(self._too_few(), offset=start)
        return items

    def _build(self, obj, stream, context, path):
        if len(_listed(obj)) < self.min_count:
            raise EncodeError(f"needs at least {self.min_count} element(s)")
        return super()._build(obj, stream, context, path)


class RepeatEos(_RepeatAtLeast):
    """Elements back to back until the end of the stream; ``min_count`` rejects fewer.

    ``cut`` (the field's name, ``on_cut: keep``): an element whose read fails after a read
    ran short (the stream it is read from ends inside it) ends the list; its bytes go to
    ``context["_<cut>_cut"]`` (the model's ``<name>_cut``), which build writes after the
    elements, so a cut file rebuilds as it was. Any other failure (a bad value, a read past
    a sized region inside the element, whose bytes were all there) is the DecodeError it
    was, and truncation is a DecodeError in every tier as before: only this list tells a
    cut from other failures, by watching its own stream's reads (:class:`ShortReads`):

    >>> from runtime.core.fixed import Int16ul
    >>> context = Container()
    >>> RepeatEos(Int16ul, cut="xs")._parse(io.BytesIO(bytes([1, 0, 2])), context, "")
    ListContainer([1])
    >>> list(context["_xs_cut"])
    [2]
    """

    def __init__(self, subcon, *, min_count: int = 0, cut: str = ""):
        super().__init__(subcon, min_count=min_count)
        self.cut = cut

    def _more(self, stream, context, items):
        return peek_byte(stream) is not None

    def _element(self, stream, context, path, items, spans) -> None:
        if not self.cut:
            return super()._element(stream, context, path, items, spans)
        start = stream.tell()
        watched = ShortReads(stream)
        depth = 0 if spans is None else len(spans.stack)
        try:
            super()._element(watched, context, path, items, spans)
        except (DecodeError, StreamError):
            if not watched.short:
                raise
            if spans is not None:  # the element's open spans: its bytes are the cut's
                spans.abandon(depth)
            stream.seek(start)
            context[f"_{self.cut}_cut"] = stream.read()

    def _parse(self, stream, context, path):
        if self.cut:
            context[f"_{self.cut}_cut"] = None
        return super()._parse(stream, context, path)

    def _build(self, obj, stream, context, path):
        built = super()._build(obj, stream, context, path)
        tail = context.get(f"{self.cut}_cut") if self.cut else None
        if tail is not None:
            if not isinstance(tail, (bytes, bytearray)):
                raise SiblingError(
                    f"expected bytes, got {type(tail).__name__}", path=f"{self.cut}_cut"
                )
            stream.write(tail)
        return built


class ShortReads:
    """A stream's reads, noting whether one returned fewer bytes than it asked for (the
    stream ended inside it: :class:`RepeatEos`'s ``cut``); everything else is the stream's.

    >>> watched = ShortReads(io.BytesIO(b"ab"))
    >>> watched.read(1), watched.short, watched.read(5), watched.short
    (b'a', False, b'b', True)
    """

    def __init__(self, stream):
        self.stream = stream
        self.short = False

    def read(self, size=-1):
        data = self.stream.read(size)
        if size is not None and 0 <= size and len(data) < size:
            self.short = True
        return data

    def read_ahead(self, size):
        """``runtime.core.stream.read_ahead``: fewer bytes is not yet short."""
        return self.stream.read(size)

    def __getattr__(self, name):
        return getattr(self.stream, name)


PROBE_PADDING = bytes(64)
"""What :func:`ran_short` puts after the input to see whether a failed read needed more."""


def ran_short(failure: DecodeError, read_again, buf, start: int, end: int) -> bool:
    """Whether the fast read of an element at ``start`` that failed with ``failure`` ran
    past ``end`` (the input, or the region its list is read from, ends inside it): the
    fast readers' :class:`ShortReads`, for ``on_cut: keep``. They read a buffer, not a
    stream, so the element is read again, ``read_again(padded, start, padded_end)``, over
    the same bytes with :data:`PROBE_PADDING` after ``end``: a read that stayed inside
    fails the same way again; one that ran short gets further, or fails otherwise.

    >>> def read_u16(buf, pos, end):
    ...     if end - pos < 2:
    ...         raise DecodeError(f"truncated: needs 2 bytes, {end - pos} remain", offset=pos)
    ...     if buf[pos + 1] > 0x7F:
    ...         raise DecodeError("negative", offset=pos)
    ...     return pos + 2
    >>> def failure(buf, pos, end):
    ...     try:
    ...         read_u16(buf, pos, end)
    ...     except DecodeError as err:
    ...         return err
    >>> data = bytes([1, 0, 2])
    >>> ran_short(failure(data, 2, 3), read_u16, data, 2, 3)
    True
    >>> data = bytes([1, 0xFF, 2])
    >>> ran_short(failure(data, 0, 3), read_u16, data, 0, 3)
    False
    """
    padded = bytes(buf[:end]) + PROBE_PADDING
    seen = kept.SEEN.count  # what the padding reads is no form of the input's to keep
    try:
        read_again(padded, start, len(padded))
    except DecodeError as again:
        same = (type(again), again.offset, again.path, again.message)
        return same != (type(failure), failure.offset, failure.path, failure.message)
    finally:
        kept.SEEN.count = seen
    return True


def cut_or_retry(read_element, buf, start: int, end: int, limits) -> bytes:
    """The bytes of a cut element for the quick tier, which reads a cut input once: the
    element at ``start`` that its quick read failed on, read again by its exact reader
    ``read_element(buf, pos, end, limits, depth)`` (a ``_read_<record>``), is a cut when
    that read fails having run past ``end`` (:func:`ran_short`); anything else (a bad
    value, or an element the exact reader takes whole) raises ``Retry``, and the exact
    reader reads the input again for its model or its DecodeError. The quick tier reads
    within ``max_depth`` only, so the element read at depth 1 meets no depth limit it
    would not have met.

    >>> def read_u16(buf, pos, end, limits, depth):
    ...     if end - pos < 2:
    ...         raise DecodeError(f"truncated: needs 2 bytes, {end - pos} remain", offset=pos)
    ...     return buf[pos] | buf[pos + 1] << 8, pos + 2
    >>> cut_or_retry(read_u16, bytes([1, 0, 2]), 2, 3, None)
    b'\\x02'
    >>> cut_or_retry(read_u16, bytes([1, 0, 2, 0]), 2, 4, None)
    Traceback (most recent call last):
    ...
    runtime.core.fast.Retry
    """

    def read_again(padded, pos, padded_end):
        read_element(padded, pos, padded_end, limits, 1)

    try:
        read_element(buf, start, end, limits, 1)
    except DecodeError as failure:
        if ran_short(failure, read_again, buf, start, end):
            return bytes(buf[start:end])
    raise Retry


def compiled_cut(read_element, element: bytes, limits) -> bytes | None:
    """:func:`cut_or_retry` for the compiled readers, which read a cut input once too: the
    bytes ``element`` from where their read of a list's element declined to the end, read
    by the element's exact reader from 0 (a record that reads no ``_parent`` nor ``_index``
    reads the same bytes the same way wherever they sit). They are the cut, or None where
    the quick tier would raise Retry (the compiled reader then declines, and the exact
    reader reads the input), or where the read noted a kept form: the Python readers keep
    forms (``runtime.core.kept``), the compiled ones decline them.

    >>> def read_u16(buf, pos, end, limits, depth):
    ...     if end - pos < 2:
    ...         raise DecodeError(f"truncated: needs 2 bytes, {end - pos} remain", offset=pos)
    ...     return buf[pos] | buf[pos + 1] << 8, pos + 2
    >>> compiled_cut(read_u16, bytes([2]), None)
    b'\\x02'
    >>> compiled_cut(read_u16, bytes([2, 0]), None) is None
    True
    """
    seen = kept.SEEN.count
    try:
        cut = cut_or_retry(read_element, element, 0, len(element), limits)
    except Retry:
        return None
    if kept.SEEN.count != seen:
        kept.SEEN.count = seen  # the Python readers read it again, and note it then
        return None
    return cut


class RepeatWhileTag(_RepeatAtLeast):
    """Elements while the next byte is ``tag`` (the element's own leading tag).

    ``min_count`` rejects a section that the format says must not be empty.
    """

    def __init__(self, subcon, tag: int, *, min_count: int = 0):
        super().__init__(subcon, min_count=min_count)
        self.tag = tag

    def _more(self, stream, context, items):
        return peek_byte(stream) == self.tag

    def _too_few(self) -> str:
        return f"{super()._too_few()} starting with tag 0x{self.tag:02x}"


class RepeatCount(Repeat):
    """Exactly ``count`` elements; ``count`` is an int or a function of the context."""

    def __init__(self, subcon, count, *, check_on_build: bool = True):
        super().__init__(subcon)
        self.count = count
        self.check_on_build = check_on_build
        """False when the count is computed on build from what is built (a size table
        written after the elements): the elements given are written as they are."""

    def _expected(self, context):
        n = self.count(context) if callable(self.count) else self.count
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=context._io.tell())
        return n

    def _parse(self, stream, context, path):
        n = self._expected(context)
        current_limits(context).check("max_count", n, offset=stream.tell())
        return super()._parse(stream, context, path)

    def _more(self, stream, context, items):
        return len(items) < self._expected(context)

    def _build(self, obj, stream, context, path):
        if self.check_on_build:
            n = self.count(context) if callable(self.count) else self.count
            if len(_listed(obj)) != n:
                raise EncodeError(f"expected {n} elements, got {len(_listed(obj))}")
        return super()._build(obj, stream, context, path)


def default_terminator(default):
    """The terminator a new model is written with: a record's is given as a mapping, so a
    Container (which the ``until`` expression reads by attribute)."""
    return Container(default) if isinstance(default, dict) else default


class RepeatUntil(Repeat):
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


class RepeatBlocks(Repeat):
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
