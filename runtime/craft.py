"""TiCDC Craft: columnar chunks, size tables, the term dictionary, and a whole-message codec.

A Craft message (see ``research/craft.md``) is::

    version (uvarint) | header | bodies | term dictionary | size tables | len(size tables)

where the header is five columnar chunks (commit ts, event type, partition, schema id,
table id), and the last field is a *reversed* uvarint read backwards from the end. No
chunk stores its own element count: it comes from elsewhere, so the chunk classes take
``count`` as construct's :class:`~construct.Array` does (an int, ``this.n`` or a callable):

    >>> from construct import Struct, this
    >>> s = Struct("n" / UVarIntChunk(1), "ids" / DeltaVarIntChunk(lambda ctx: ctx.n[0]))
    >>> s.parse(bytes.fromhex("03 04 02 03")).ids
    ListContainer([2, 3, 1])

Every class here also has a bytes-level protocol used by :class:`CraftMessage` (and later
by generated fast paths): ``unpack(buf, pos, end, ...) -> (value, new_pos)`` raising
:class:`DecodeError` with offsets into ``buf``, and ``pack(value, out: bytearray)``
raising :class:`EncodeError`.

:func:`decode_message` and :func:`encode_events` convert between messages and the shared
event model of :mod:`runtime.ticdc`; :func:`encode_events` batches like tiflow does.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from itertools import accumulate as _accumulate

from construct import Construct, Container, ListContainer, SizeofError, evaluate
from construct.expr import ExprMixin

from . import limits as _limits
from .errors import DecodeError, EncodeError, SpecError
from .leb128 import (
    MAX_BYTES,
    read_uvarint,
    read_zigzag,
    skip_varints,
    write_uvarint,
    write_zigzag,
)
from .spans import current as current_spans
from .stream import read_exact
from .ticdc import FLAG_UNSIGNED, Column, DdlEvent, Event, ResolvedEvent, RowChangedEvent

# -------------------------------------------------------------------------------------
# Column value encodings: MySQL type code -> how the value bytes are encoded (research §7).
# The table is data from the spec (``specs/ticdc_craft.yaml``: the ``craft`` attribute of
# ``column_type``, generated as ``COLUMN_TYPE_CRAFT``); this module only knows the kinds:
#   "int"     ZigZag varint of the int64, or uvarint of the uint64 when the column has the
#             Unsigned flag (0x80)
#   "sint"    always a ZigZag varint (YEAR ignores the Unsigned flag)
#   "uint"    always a uvarint
#   "float64" 8 bytes IEEE-754 little-endian (FLOAT is widened, never 4 bytes)
#   "text"    UTF-8 text as TiCDC renders it; decoded to str
#   "bytes"   raw bytes, unmodified
#   "null"    always NULL (length -1): unsupported or valueless kinds
# A code missing from the table is rejected on both decode and encode.
# -------------------------------------------------------------------------------------
VALUE_KINDS = ("int", "sint", "uint", "float64", "text", "bytes", "null")

VERSION = 1
EVENT_ROW, EVENT_DDL, EVENT_RESOLVED = 1, 2, 3
GROUP_NEW, GROUP_OLD = 1, 2

U64 = (1 << 64) - 1
_I64 = 1 << 63
_DOUBLE = struct.Struct("<d")


def _wrap64(v: int) -> int:
    """Wrap to int64 as Go's integer arithmetic does."""
    return ((v + _I64) & U64) - _I64


def _check_count(n, pos: int, end: int, limits: _limits.Limits) -> None:
    # Every element takes at least one byte, so this bounds allocation by the input size.
    if type(n) is not int or n < 0:
        raise DecodeError(f"invalid element count {n!r}", offset=pos)
    limits.check("max_count", n, offset=pos)
    if n > end - pos:
        raise DecodeError(f"truncated chunk: {n} elements, {end - pos} bytes remain", offset=pos)


def _check_len(values, n: int) -> None:
    if len(values) != n:
        raise EncodeError(f"expected {n} elements, found {len(values)}")


def _as_bytes(value, encoding) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if encoding and isinstance(value, str):
        return value.encode(encoding, "surrogateescape")
    raise EncodeError(f"expected {'str or ' if encoding else ''}bytes, got {type(value).__name__}")


def _decode_text(data: bytes, encoding, offset: int):
    if not encoding:
        return data
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        raise DecodeError(f"invalid {encoding}: {err.reason}", offset=offset + err.start) from None


# -------------------------------------------------------------------------------------
# Chunks: n elements back to back, n from the context
# -------------------------------------------------------------------------------------
class _Chunk(Construct):
    """Shared construct protocol of the chunks: ``count`` is evaluated like Array's.

    ``enum`` (varint chunks) makes every element a member of that IntEnum class: any
    other value is a DecodeError at the element. ``check_on_build=False`` writes the
    elements given when the count is computed on build from what is built (a size table
    written after the chunk)."""

    def __init__(self, count, *, enum=None, check_on_build: bool = True):
        super().__init__()
        self.count = count
        self.enum = enum
        self.check_on_build = check_on_build

    def _count(self, context, offset: int) -> int:
        n = evaluate(self.count, context)
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=offset)
        _limits.current(context).check("max_count", n, offset=offset)
        return n

    def _parse(self, stream, context, path):
        start = stream.tell()
        values = self._read(stream, self._count(context, start), _limits.current(context))
        return values if self.enum is None else self._members(values, stream, start)

    def _members(self, values, stream, start: int):
        enum = self.enum
        for i, v in enumerate(values):
            try:
                values[i] = enum(v)
            except ValueError:
                end = stream.tell()
                stream.seek(start)
                offset = start + skip_varints(stream.read(end - start), 0, i)
                stream.seek(end)
                raise _at(DecodeError(f"{v} is not a {enum.__name__}", offset=offset), index=i)
        return values

    def _read(self, stream, n: int, limits: _limits.Limits):
        # One bounded read instead of one per varint; the unused tail is given back.
        start = stream.tell()
        data = stream.read(n * MAX_BYTES)
        try:
            values, used = self.unpack(data, 0, len(data), n, limits)
        except DecodeError as err:
            err.shift(start)
            raise
        stream.seek(start + used)
        return ListContainer(values)

    def _build(self, obj, stream, context, path):
        n = evaluate(self.count, context) if self.check_on_build else len(obj)
        return self._build_n(obj, stream, n)

    def _sizeof(self, context, path):
        raise SizeofError("a chunk's size depends on its values", path=path)

    # The compiled parser calls the interpreted one through a per-instance helper: the
    # count expression is emitted inline, so only plain ints and ``this`` expressions can
    # be compiled; a lambda falls back to construct's linked instance.
    def _emitparse(self, code):
        return f"{self._emit_instance(code)}._parse_n(io, {self._emit_count()}, this)"

    def _emitbuild(self, code):
        return f"{self._emit_instance(code)}._build_n(obj, io, {self._emit_count()})"

    def _emit_count(self) -> str:
        if isinstance(self.count, (int, ExprMixin)):
            return repr(self.count)
        raise NotImplementedError

    def _emit_instance(self, code) -> str:
        name = f"_craft_{type(self).__name__}_{id(self)}"
        code.append(f"from {__name__} import {type(self).__name__}")
        code.append(f"{name} = {self._ctor()}")
        return name

    def _ctor(self) -> str:
        return f"{type(self).__name__}(0)"

    def _parse_n(self, stream, n, context):
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=stream.tell())
        limits = _limits.current(context)
        limits.check("max_count", n, offset=stream.tell())
        return self._read(stream, n, limits)

    def _build_n(self, obj, stream, n):
        out = bytearray()
        self.pack(obj, n, out)
        stream.write(out)
        return obj

    def __repr__(self):
        return f"{type(self).__name__}({self.count!r})"


def _unpack_varints(buf, pos, end, n, limits, signed=False, delta=False):
    """The one decoding loop of the varint chunks, with the one-byte case inlined (hot)."""
    _check_count(n, pos, end, limits)
    out = []
    append = out.append
    acc = i = 0
    try:
        for i in range(n):
            v = buf[pos] if pos < end else 0x80  # 0x80: let read_uvarint report truncation
            if v < 0x80:
                pos += 1
            else:
                v, pos = read_uvarint(buf, pos, end=end)
            if signed:
                v = (v >> 1) ^ -(v & 1)
                if delta:
                    acc = v = ((acc + v + _I64) & U64) - _I64
            elif delta:
                acc = v = (acc + v) & U64
            append(v)
    except DecodeError as err:
        raise _at(err, index=i)
    return out, pos


class UVarIntChunk(_Chunk):
    """``count`` unsigned varints back to back.

    >>> UVarIntChunk(3).parse(bytes.fromhex("0f fe01 0a")), UVarIntChunk(1).build([300]).hex()
    (ListContainer([15, 254, 10]), 'ac02')
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits)

    def pack(self, values, n, out):
        _check_len(values, n)
        for i, v in enumerate(values):
            out += _indexed(write_uvarint, v, i)


class VarIntChunk(_Chunk):
    """``count`` ZigZag varints back to back (not used by the released format).

    >>> VarIntChunk(3).parse(bytes.fromhex("01 02 03")), VarIntChunk(1).build([-13]).hex()
    (ListContainer([-1, 1, -2]), '19')
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits, signed=True)

    def pack(self, values, n, out):
        _check_len(values, n)
        for i, v in enumerate(values):
            out += _indexed(write_zigzag, v, i)


class DeltaUVarIntChunk(_Chunk):
    """A uvarint base, then uvarint deltas to the previous element, all modulo 2**64.

    A decreasing sequence wraps: its delta is a 10-byte uvarint.

    >>> DeltaUVarIntChunk(2).build([5, 4]).hex()
    '05ffffffffffffffffff01'
    >>> DeltaUVarIntChunk(2).parse(bytes.fromhex("05ffffffffffffffffff01"))
    ListContainer([5, 4])
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits, delta=True)

    def pack(self, values, n, out):
        _check_len(values, n)
        prev = 0
        for i, v in enumerate(values):
            if type(v) is not int or not 0 <= v <= U64:
                raise _at(EncodeError(f"{v!r} is not a uint64"), index=i)
            out += write_uvarint((v - prev) & U64)
            prev = v


class DeltaVarIntChunk(_Chunk):
    """A ZigZag varint base, then ZigZag varint deltas to the previous element (int64 wrap).

    >>> DeltaVarIntChunk(3).parse(bytes.fromhex("04 02 0f")), DeltaVarIntChunk(2).build([13, 5]).hex()
    (ListContainer([2, 3, -5]), '1a0f')
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits, signed=True, delta=True)

    def pack(self, values, n, out):
        _check_len(values, n)
        prev = 0
        for i, v in enumerate(values):
            if type(v) is not int or not -_I64 <= v < _I64:
                raise _at(EncodeError(f"{v!r} is not an int64"), index=i)
            out += write_zigzag(_wrap64(v - prev))
            prev = v


def _indexed(write, value, i):
    """``write(value)``, with the element index on the path of an :class:`EncodeError`."""
    try:
        return write(value)
    except EncodeError as err:
        err.add_path(index=i)
        raise


class _PayloadChunk(_Chunk):
    """All n lengths first, then the n payloads concatenated (string and nullable chunks)."""

    def __init__(self, count, encoding: str | None = None, *, check_on_build: bool = True):
        super().__init__(count, check_on_build=check_on_build)
        self.encoding = encoding

    def _ctor(self) -> str:
        return f"{type(self).__name__}(0, {self.encoding!r})"

    def _read(self, stream, n: int, limits: _limits.Limits):
        lengths = _Lengths(self)._read(stream, n, limits)
        payload_start = stream.tell()
        total = sum(x for x in lengths if x > 0)
        data = read_exact(stream, total, "chunk payloads")
        try:
            values, _ = self._payloads(data, 0, len(data), lengths)
        except DecodeError as err:
            err.shift(payload_start)
            raise
        return ListContainer(values)

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        lengths, pos = self._lengths(buf, pos, end, n, limits)
        return self._payloads(buf, pos, end, lengths)

    def _payloads(self, buf, pos, end, lengths):
        out = []
        encoding = self.encoding
        for i, ln in enumerate(lengths):
            if ln < 0:
                out.append(None)
                continue
            if ln > end - pos:
                err = DecodeError(
                    f"truncated element: needs {ln} bytes, {end - pos} remain", offset=pos
                )
                err.add_path(index=i)
                raise err
            data = bytes(buf[pos : pos + ln])
            try:
                out.append(_decode_text(data, encoding, pos) if encoding else data)
            except DecodeError as err:
                err.add_path(index=i)
                raise
            pos += ln
        return out, pos

    def pack(self, values, n, out):
        _check_len(values, n)
        payloads = []
        for i, v in enumerate(values):
            try:
                payloads.append(self._payload(v))
            except EncodeError as err:
                err.add_path(index=i)
                raise
        for p in payloads:
            out += self._write_length(p)
        for p in payloads:
            if p:
                out += p


class _Lengths(_Chunk):
    """The lengths half of a payload chunk, so ``_parse`` reads it with one bounded read."""

    def __init__(self, owner: _PayloadChunk):
        super().__init__(None)
        self.owner = owner

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return self.owner._lengths(buf, pos, end, n, limits)


class StringChunk(_PayloadChunk):
    """n uvarint lengths, then the n byte strings concatenated.

    Parses to bytes, or to str when ``encoding`` is given (invalid text is a DecodeError).

    >>> StringChunk(2, "utf-8").parse(bytes.fromhex("01 02 61 6263"))
    ListContainer(['a', 'bc'])
    >>> StringChunk(2).build([b"a", b""]).hex()
    '010061'
    """

    def _lengths(self, buf, pos, end, n, limits=_limits.DEFAULT):
        start = pos
        lengths, pos = _unpack_varints(buf, pos, end, n, limits)
        _check_lengths(lengths, buf, start, limits)
        return lengths, pos

    def _payload(self, value) -> bytes:
        return _as_bytes(value, self.encoding)

    @staticmethod
    def _write_length(p: bytes) -> bytes:
        return write_uvarint(len(p))


class NullableBytesChunk(_PayloadChunk):
    """n ZigZag varint lengths (-1 = NULL), then the bytes of the non-NULL elements.

    >>> NullableBytesChunk(3).parse(bytes.fromhex("04 01 00 6869"))
    ListContainer([b'hi', None, b''])
    >>> NullableBytesChunk(2).build([None, b"x"]).hex()
    '010278'

    Raises :class:`DecodeError` for a length below -1.
    """

    def _lengths(self, buf, pos, end, n, limits=_limits.DEFAULT):
        start = pos
        lengths, pos = _unpack_varints(buf, pos, end, n, limits, signed=True)
        _check_lengths(lengths, buf, start, limits)
        return lengths, pos

    def _payload(self, value):
        return None if value is None else _as_bytes(value, self.encoding)

    @staticmethod
    def _write_length(p) -> bytes:
        return b"\x01" if p is None else write_zigzag(len(p))


def _check_lengths(lengths, buf, start: int, limits: _limits.Limits) -> None:
    """Lengths are -1 (NULL, nullable chunks only) or 0 .. ``max_string``."""
    for i, ln in enumerate(lengths):
        if ln < -1 or ln > limits.max_string:
            offset = skip_varints(buf, start, i)
            try:
                if ln < -1:
                    raise DecodeError(f"negative length {ln}", offset=offset)
                limits.check("max_string", ln, offset=offset)
            except DecodeError as err:
                raise _at(err, index=i)


def _at(err, name=None, index=None):
    err.add_path(name, index=index)
    return err


class NullableString(Construct):
    """One ZigZag varint length (-1 = NULL), then that many bytes.

    >>> NullableString("utf-8").parse(b"\\x04hi"), NullableString().parse(b"\\x01")
    ('hi', None)
    >>> NullableString().build(b"").hex()
    '00'
    """

    def __init__(self, encoding: str | None = None):
        super().__init__()
        self._chunk = NullableBytesChunk(1, encoding)

    def unpack(self, buf, pos, end, limits=_limits.DEFAULT):
        values, pos = self._chunk.unpack(buf, pos, end, 1, limits)
        return values[0], pos

    def pack(self, value, out):
        self._chunk.pack([value], 1, out)

    def _parse(self, stream, context, path):
        return self._chunk._parse(stream, context, path)[0]

    def _build(self, obj, stream, context, path):
        self._chunk._build([obj], stream, context, path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a string's size depends on its value", path=path)


# -------------------------------------------------------------------------------------
# The trailer, size tables and the term dictionary
# -------------------------------------------------------------------------------------
def read_reversed_uvarint(buf, end: int | None = None) -> tuple[int, int]:
    """Read the uvarint whose bytes are stored reversed and end at ``end``.

    Returns ``(value, start)``, where ``start`` is the offset of its first byte.

    >>> read_reversed_uvarint(bytes.fromhex("ff 01c6"))
    (198, 1)
    """
    if end is None:
        end = len(buf)
    lo = max(0, end - MAX_BYTES)
    backwards = bytes(buf[lo:end])[::-1]
    try:
        value, used = read_uvarint(backwards, 0)
    except DecodeError as err:
        # Forward offsets: the field would start at the lowest byte it examined.
        raise DecodeError(f"reversed uvarint: {err.message}", offset=lo) from None
    return value, end - used


def write_reversed_uvarint(value) -> bytes:
    """The bytes of ``write_uvarint(value)`` in reverse order.

    >>> write_reversed_uvarint(198).hex()
    '01c6'
    """
    return write_uvarint(value)[::-1]


class ReversedUVarInt(Construct):
    """The trailing length of a Craft message: a uvarint stored in reverse byte order.

    Parsing looks at the *end* of the stream and walks backwards; like construct's
    ``Pointer`` it leaves the stream position unchanged. Building writes the reversed bytes
    at the current position, which must be the end of the message.

    >>> ReversedUVarInt().parse(bytes.fromhex("00 01 c6")), ReversedUVarInt().build(10).hex()
    (198, '0a')
    """

    def _parse(self, stream, context, path):
        here = stream.tell()
        end = stream.seek(0, 2)
        lo = max(here, end - MAX_BYTES)
        stream.seek(lo)
        tail = stream.read()
        stream.seek(here)
        try:
            return read_reversed_uvarint(tail)[0]
        except DecodeError as err:
            err.shift(lo)
            raise

    def _parse_backwards(self, data: bytes, end: int, base: int, context, path):
        """As a record's trailer field: the reversed uvarint whose last byte is
        ``data[end - 1]``; returns ``(value, offset of its first byte)``."""
        if end == 0:
            raise DecodeError("no bytes left for the reversed uvarint", offset=base)
        try:
            return read_reversed_uvarint(data, end)
        except DecodeError as err:
            err.shift(base)
            raise

    def _build(self, obj, stream, context, path):
        stream.write(write_reversed_uvarint(obj))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a varint's size depends on its value", path=path)


class _Region(Construct):
    """A construct that owns the rest of its stream (wrap it in FixedSized to bound it)."""

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read()
        try:
            return self.unpack(data, 0, len(data), _limits.current(context))
        except DecodeError as err:
            err.shift(start)
            raise

    def _build(self, obj, stream, context, path):
        out = bytearray()
        self.pack(obj, out)
        stream.write(out)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError(f"{type(self).__name__} has a variable size", path=path)


class SizeTables(_Region):
    """Size tables: each is a uvarint count and a delta varint chunk; repeated to the end.

    >>> SizeTables().parse(bytes.fromhex("02 1a 5e 01 b003 02 d801 00"))
    ListContainer([[13, 60], [216], [108, 108]])
    >>> SizeTables().build([[13, 5], [16]]).hex()
    '021a0f0120'
    """

    _chunk = DeltaVarIntChunk(0)

    def unpack(self, buf, pos, end, limits=_limits.DEFAULT):
        return ListContainer(self.unpack_with_offsets(buf, pos, end, limits)[0])

    def unpack_with_offsets(self, buf, pos, end, limits=_limits.DEFAULT):
        """Also return where each table starts (its count), to point errors at entries."""
        tables, starts = [], []
        while pos < end:
            starts.append(pos)
            try:
                n, pos = read_uvarint(buf, pos, end=end)
                table, pos = self._chunk.unpack(buf, pos, end, n, limits)
            except DecodeError as err:
                raise _at(err, index=len(tables))
            tables.append(table)
        return tables, starts

    def pack(self, tables, out):
        for i, table in enumerate(tables):
            try:
                out += write_uvarint(len(table))
                self._chunk.pack(table, len(table), out)
            except EncodeError as err:
                raise _at(err, index=i)


class TermDictionary(_Region):
    """The per-message term dictionary: uvarint count + string chunk; absent when empty.

    >>> TermDictionary().parse(bytes.fromhex("02 01 01 61 62")), TermDictionary().parse(b"")
    (ListContainer(['a', 'b']), ListContainer([]))
    >>> TermDictionary().build([]).hex(), TermDictionary().build(["a"]).hex()
    ('', '010161')

    Raises :class:`DecodeError` for a present but empty dictionary (writers omit it) and
    for bytes after the last term.
    """

    _chunk = StringChunk(0, "utf-8")

    def unpack(self, buf, pos, end, limits=_limits.DEFAULT):
        if pos == end:
            return ListContainer()
        n, p = read_uvarint(buf, pos, end=end)
        if n == 0:
            raise DecodeError("an empty term dictionary must be omitted", offset=pos)
        terms, p = self._chunk.unpack(buf, p, end, n, limits)
        if p != end:
            raise DecodeError(f"{end - p} bytes after the last term", offset=p)
        return ListContainer(terms)

    def pack(self, terms, out):
        if terms:
            out += write_uvarint(len(terms))
            self._chunk.pack(terms, len(terms), out)


# -------------------------------------------------------------------------------------
# Column values (research §7)
# -------------------------------------------------------------------------------------
def value_kind(type_code: int, flags: int, encodings) -> str | None:
    """The encoding of a column's value (``encodings[type_code]``, with "int" resolved by
    the Unsigned flag), or None for an unknown type code.

    >>> enc = {3: "int", 13: "sint"}
    >>> value_kind(3, 0, enc), value_kind(3, 0x80, enc), value_kind(13, 0x80, enc), value_kind(99, 0, enc)
    ('sint', 'uint', 'sint', None)
    """
    kind = encodings.get(type_code)
    if kind == "int":
        return "uint" if flags & FLAG_UNSIGNED else "sint"
    return kind


def decode_value(type_code: int, flags: int, raw: bytes | None, encodings):
    """The typed value of the value bytes of one column (offsets in errors are into ``raw``).

    >>> enc = {3: "int", 4: "float64", 8: "int"}
    >>> decode_value(3, 0, bytes.fromhex("a01f"), enc), decode_value(8, 0x80, b"\\x01", enc)
    (2000, 1)
    >>> decode_value(4, 0, bytes(7), enc)
    Traceback (most recent call last):
    ...
    runtime.errors.DecodeError: <message> at offset 0: float64 value needs 8 bytes, got 7
    """
    kind = encodings.get(type_code)
    if kind is None:
        raise DecodeError(f"unknown column type code {type_code}", offset=0)
    if raw is None:
        return None
    if kind == "int":
        kind = "uint" if flags & FLAG_UNSIGNED else "sint"
    if kind == "bytes":
        return raw
    if kind == "text":
        return _decode_text(raw, "utf-8", 0)
    if kind == "float64":
        if len(raw) != 8:
            raise DecodeError(f"float64 value needs 8 bytes, got {len(raw)}", offset=0)
        return _DOUBLE.unpack(raw)[0]
    if kind == "null":
        raise DecodeError(f"type code {type_code} is always NULL but has a value", offset=0)
    value, used = (read_zigzag if kind == "sint" else read_uvarint)(raw, 0)
    if used != len(raw):
        raise DecodeError(f"{len(raw) - used} bytes after the varint value", offset=used)
    return value


def encode_value(type_code: int, flags: int, value, encodings) -> bytes | None:
    """The value bytes of one column, or None for NULL.

    >>> enc = {3: "int", 6: "null", 13: "sint"}
    >>> encode_value(3, 0, -128, enc).hex(), encode_value(13, 0x80, 2021, enc).hex()
    ('ff01', 'ca1f')
    >>> encode_value(6, 0, None, enc) is None
    True
    """
    kind = value_kind(type_code, flags, encodings)
    if kind is None:
        raise EncodeError(f"unknown column type code {type_code!r}")
    if value is None:
        return None
    if kind == "bytes":
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
    elif kind == "text":
        if isinstance(value, str):
            return value.encode("utf-8", "surrogateescape")
    elif kind == "float64":
        if isinstance(value, float):
            return _DOUBLE.pack(value)
    elif kind == "sint":
        return write_zigzag(value)
    elif kind == "uint":
        return write_uvarint(value)
    else:
        raise EncodeError(f"type code {type_code} is always NULL, got {type(value).__name__}")
    want = {"bytes": "bytes", "text": "str", "float64": "float"}[kind]
    raise EncodeError(f"type code {type_code} needs {want}, got {type(value).__name__}")


# -------------------------------------------------------------------------------------
# Whole messages
# -------------------------------------------------------------------------------------
class _Path:
    """``with _Path("bodies", 3):`` prepends ``bodies[3]`` to the path of an escaping error."""

    __slots__ = ("index", "name")

    def __init__(self, name, index=None):
        self.name, self.index = name, index

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if isinstance(err, (DecodeError, EncodeError)):
            err.add_path(self.name, index=self.index)
        return False


_UVARINTS = UVarIntChunk(0)
_DELTA_UVARINTS = DeltaUVarIntChunk(0)
_DELTA_VARINTS = DeltaVarIntChunk(0)
_VALUES = NullableBytesChunk(0)
_QUERY = StringChunk(0, "utf-8")
_TERMS = TermDictionary()
_TABLES = SizeTables()


def _bad_element(message, buf, chunk_start, i, name):
    """A DecodeError at element ``i`` of the varint chunk starting at ``chunk_start``."""
    return _at(DecodeError(message, offset=skip_varints(buf, chunk_start, i)), name, index=i)


def _unpack_message(buf, limits, spans=None, encodings=None):
    """Parse a message into the raw Container, plus element positions for error offsets.

    ``spans`` (a :class:`runtime.spans.SpanRecorder`, for ``wirespec inspect``) gets the
    byte range of every field: each region (version, header, bodies, term dictionary, size
    tables, their length) is re-walked by :func:`_record_fields` once it has been checked,
    so the untraced path pays nothing. ``encodings`` (type code -> kind) only serves the
    column values shown in those spans."""
    end = len(buf)
    limits.check("max_message_bytes", end, offset=0)
    with _Path("version"):
        version, pos = read_uvarint(buf, 0)
        if version != VERSION:
            raise DecodeError(f"unsupported craft version {version}, expected {VERSION}", offset=0)
    with _Path("size_tables_length"):
        tables_len, tail = read_reversed_uvarint(buf, end)
        if tables_len > tail - pos:
            raise DecodeError(
                f"size tables length {tables_len} points outside the message "
                f"({max(tail - pos, 0)} bytes between the version and the trailer)",
                offset=tail,
            )
    tables_start = tail - tables_len
    with _Path("size_tables"):
        tables, starts = _TABLES.unpack_with_offsets(buf, tables_start, tail, limits)
        _check_tables(buf, tables, starts, tables_start)
    if spans is not None:
        _region(spans, "version", 0, pos, version)
        _record_tables(spans, buf, tables_start, tail, tables)
        spans.open("size_tables_length", tail)
        spans.mark(tail, end, "reversed length", tables_len)
        spans.close(end, tables_len)
    (header_size, dict_size), sizes = tables[0], tables[1]
    n = len(sizes)
    header_end = pos + header_size
    dict_start = header_end + sum(sizes)
    if dict_start + dict_size != tables_start:
        raise _at(
            DecodeError(
                f"header ({header_size} bytes), bodies ({dict_start - header_end}) and term "
                f"dictionary ({dict_size}) end at offset {dict_start + dict_size}, but the size "
                f"tables start at {tables_start}",
                offset=starts[0],
            ),
            "size_tables",
            index=0,
        )
    with _Path("term_dictionary"):
        terms = _TERMS.unpack(buf, dict_start, tables_start, limits)
    with _Path("header"):
        header, rows = _unpack_header(buf, pos, header_end, n, len(terms), limits)
    if spans is not None:
        _record_terms(spans, buf, dict_start, tables_start, terms)
        _record_header(spans, buf, pos, header_end, header, terms)
        spans.open("bodies", header_end)
    expected = 2 + n if rows else 2
    if len(tables) != expected:
        err = DecodeError(
            f"{n} {'row' if rows else 'DDL/resolved'} event(s) need {expected} size tables, "
            f"found {len(tables)}",
            offset=starts[min(expected, len(tables) - 1)],
        )
        raise _at(err, "size_tables")
    bodies, positions = [], {}
    p = header_end
    for i in range(n):
        b_end = p + sizes[i]
        with _Path("bodies", i):
            if not rows:
                bodies.append(_unpack_other(buf, p, b_end, header.type[i], limits))
            else:
                group_sizes = tables[2 + i]
                if sum(group_sizes) != sizes[i]:
                    raise DecodeError(
                        f"column group sizes {group_sizes} do not add up to the body size "
                        f"{sizes[i]}",
                        offset=p,
                    )
                bodies.append(_unpack_row(buf, p, group_sizes, len(terms), limits, positions, i))
        if spans is not None:
            _record_body(spans, buf, i, p, b_end, bodies[-1], terms, encodings)
        p = b_end
    if spans is not None:
        spans.close(p, bodies)
    message = Container(
        version=version,
        header=header,
        bodies=ListContainer(bodies),
        term_dictionary=terms,
        size_tables=ListContainer(ListContainer(t) for t in tables),
    )
    return message, positions


def _region(spans, key, start: int, end: int, value) -> None:
    spans.open(key, start)
    spans.close(end, value)


# -- field spans for ``wirespec inspect`` (only called with a recorder; the region they
# walk has been decoded and checked already, so these re-reads cannot fail) -------------
def _record_varints(spans, buf, key, pos, values, signed=False, delta=False, labels=None):
    """A node ``key`` over a varint chunk, one child per element: its value, and for a
    delta chunk the role ``base`` or ``delta +d ->`` (what the bytes say; the value is the
    running one). ``labels[j]`` (a column or term name) prefixes the role."""
    if key is not None:
        spans.open(key, pos)
    for j, v in enumerate(values):
        raw, nxt = read_uvarint(buf, pos)
        role = "value"
        if delta:
            d = (raw >> 1) ^ -(raw & 1) if signed else raw
            role = "base" if j == 0 else f"delta {d:+d} ->"
        label = labels[j] if labels is not None else None
        if label is not None:
            role = f"{label}: {'' if role == 'value' else role}".rstrip()
        spans.open(j, pos)
        if role != "value":
            spans.mark(pos, nxt, role, v)
        spans.close(nxt, v)
        pos = nxt
    if key is not None:
        spans.close(pos, ListContainer(values))
    return pos


def _record_payloads(spans, buf, key, pos, lengths, values, labels=None):
    """A node ``key`` over the payloads of a string/nullable chunk (NULLs have no bytes)."""
    spans.open(key, pos)
    for j, (ln, v) in enumerate(zip(lengths, values, strict=True)):
        if ln < 0:
            continue
        spans.open(j, pos)
        label = labels[j] if labels is not None else None
        if label is not None:
            spans.mark(pos, pos + ln, f"{label}:", v)
        spans.close(pos + ln, v)
        pos += ln
    spans.close(pos, ListContainer(values))
    return pos


def _record_tables(spans, buf, pos, end, tables):
    spans.open("size_tables", pos)
    for t, table in enumerate(tables):
        spans.open(t, pos)
        n, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "count", n)
        pos = _record_varints(spans, buf, None, p, table, signed=True, delta=True)
        spans.close(pos, ListContainer(table))
    spans.close(end, tables)


def _record_terms(spans, buf, pos, end, terms):
    spans.open("term_dictionary", pos)
    if terms:
        n, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "count", n)
        lengths = [len(t.encode("utf-8")) for t in terms]
        p = _record_varints(spans, buf, "lengths", p, lengths)
        _record_payloads(spans, buf, "terms", p, lengths, terms)
    spans.close(end, terms)


def _term_names(ids, terms):
    return [terms[i] if 0 <= i < len(terms) else None for i in ids]


def _record_header(spans, buf, pos, end, header, terms):
    spans.open("header", pos)
    pos = _record_varints(spans, buf, "commit_ts", pos, header.commit_ts, delta=True)
    pos = _record_varints(spans, buf, "type", pos, header.type)
    pos = _record_varints(spans, buf, "partition", pos, header.partition, True, True)
    for name in ("schema", "table"):
        ids = header[name]
        pos = _record_varints(spans, buf, name, pos, ids, True, True, _term_names(ids, terms))
    spans.close(end, header)


def _record_body(spans, buf, i, pos, end, body, terms, encodings):
    spans.open(i, pos)
    if "query" in body:
        _, p = read_uvarint(buf, pos)
        _region(spans, "ddl_type", pos, p, body.ddl_type)
        pos = p
        spans.open("query", pos)
        ln, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "length", ln)
        spans.close(end, body.query)
    elif "column_groups" in body:
        spans.open("column_groups", pos)
        for g, group in enumerate(body.column_groups):
            pos = _record_group(spans, buf, g, pos, group, terms, encodings)
        spans.close(end, body.column_groups)
    spans.close(end, body)


def _record_group(spans, buf, g, pos, group, terms, encodings):
    spans.open(g, pos)
    spans.open("type", pos)
    spans.close(pos + 1, group.type)
    n, p = read_uvarint(buf, pos + 1)
    spans.mark(pos + 1, p, "count", n)
    names = _term_names(group.names, terms)
    p = _record_varints(spans, buf, "names", p, group.names, True, True, names)
    p = _record_varints(spans, buf, "types", p, group.types, labels=names)
    p = _record_varints(spans, buf, "flags", p, group.flags, labels=names)
    raw = group.raw_values
    lengths = [-1 if v is None else len(v) for v in raw]
    p = _record_varints(spans, buf, "value_lengths", p, lengths, labels=names)
    shown = [
        _shown_value(code, flag, v, encodings)
        for code, flag, v in zip(group.types, group.flags, raw, strict=True)
    ]
    p = _record_payloads(spans, buf, "values", p, lengths, shown, names)
    spans.close(p, group)
    return p


def _shown_value(code, flags, raw, encodings):
    """The typed value of a column for the dump, or its raw bytes when it cannot be typed
    (no table given, or bytes the event model would reject: that error comes later)."""
    if raw is None or not encodings:
        return raw
    try:
        return decode_value(code, flags, raw, encodings)
    except DecodeError:
        return raw


def _check_tables(buf, tables, starts, tables_start):
    if len(tables) < 2:
        raise DecodeError(
            f"expected at least 2 size tables (meta, bodies), found {len(tables)}",
            offset=tables_start,
        )
    if len(tables[0]) != 2:
        raise _at(DecodeError("the meta size table needs 2 elements", offset=starts[0]), index=0)
    if not tables[1]:
        raise _at(DecodeError("a message holds at least one event", offset=starts[1]), index=1)
    for t, table in enumerate(tables):
        for j, size in enumerate(table):
            if size < 0:
                raise _at(
                    _bad_element(f"negative size {size}", buf, starts[t], j + 1, None),
                    index=t,
                )


def _unpack_header(buf, pos, end, n, nterms, limits):
    starts = {}
    cols = {}
    for name, chunk in (
        ("commit_ts", _DELTA_UVARINTS),
        ("type", _UVARINTS),
        ("partition", _DELTA_VARINTS),
        ("schema", _DELTA_VARINTS),
        ("table", _DELTA_VARINTS),
    ):
        starts[name] = pos
        try:
            cols[name], pos = chunk.unpack(buf, pos, end, n, limits)
        except DecodeError as err:
            raise _at(err, name)
    if pos != end:
        raise DecodeError(f"{end - pos} bytes after the header's chunks", offset=pos)
    types = cols["type"]
    for i, t in enumerate(types):
        if t not in (EVENT_ROW, EVENT_DDL, EVENT_RESOLVED):
            raise _bad_element(f"unknown event type {t}", buf, starts["type"], i, "type")
    rows = types.count(EVENT_ROW)
    if 0 < rows < n:
        raise _at(
            DecodeError("row events mixed with DDL/resolved events", offset=starts["type"]),
            "type",
        )
    for i, t in enumerate(types):
        for name in ("partition", "schema", "table"):
            v = cols[name][i]
            if t == EVENT_RESOLVED or (t == EVENT_DDL and name == "partition"):
                ok, allowed = v == -1, "always -1 here"
            elif name == "partition":
                ok, allowed = v >= -1, "-1 = none, else a table id"
            else:
                ok, allowed = -1 <= v < nterms, f"-1 .. {nterms - 1}"
            if not ok:
                what = "partition" if name == "partition" else "term id"
                raise _bad_element(
                    f"{what} {v} out of range ({allowed})", buf, starts[name], i, name
                )
    header = Container((k, ListContainer(v)) for k, v in cols.items())
    return header, bool(rows)


def _unpack_other(buf, pos, end, event_type, limits):
    """The body of a DDL (ddl type + query) or resolved (empty) event."""
    if event_type == EVENT_RESOLVED:
        if end != pos:
            raise DecodeError(
                f"a resolved event has an empty body, not {end - pos} bytes", offset=pos
            )
        return Container()
    with _Path("ddl_type"):
        ddl_type, pos = read_uvarint(buf, pos, end=end)
    with _Path("query"):
        (query,), pos = _QUERY.unpack(buf, pos, end, 1, limits)
    if pos != end:
        raise DecodeError(f"{end - pos} bytes after the DDL query", offset=pos)
    return Container(ddl_type=ddl_type, query=query)


def _unpack_row(buf, pos, group_sizes, nterms, limits, positions, event):
    if not group_sizes:
        raise DecodeError("a row event needs at least one column group", offset=pos)
    groups, seen = [], set()
    for g, size in enumerate(group_sizes):
        with _Path("column_groups", g):
            group, types_pos, values_pos = _unpack_group(buf, pos, pos + size, nterms, limits)
            if group.type in seen:
                raise _at(DecodeError(f"a second group of type {group.type}", offset=pos), "type")
        seen.add(group.type)
        positions[event, g] = (types_pos, values_pos)
        groups.append(group)
        pos += size
    return Container(column_groups=ListContainer(groups))


def _unpack_group(buf, pos, end, nterms, limits):
    """One column group: type byte, count, names, types, flags, values."""
    if pos >= end:
        raise _at(DecodeError("empty column group: missing its type byte", offset=pos), "type")
    group_type = buf[pos]
    if group_type not in (GROUP_NEW, GROUP_OLD):
        raise _at(DecodeError(f"unknown column group type {group_type}", offset=pos), "type")
    # One handler names the failing field (a ``with _Path`` per field costs more here).
    field = "count"
    try:
        count, pos = read_uvarint(buf, pos + 1, end=end)
        names_pos, field = pos, "names"
        names, pos = _DELTA_VARINTS.unpack(buf, pos, end, count, limits)
        types_pos, field = pos, "types"
        types, pos = _UVARINTS.unpack(buf, pos, end, count, limits)
        field = "flags"
        flags, pos = _UVARINTS.unpack(buf, pos, end, count, limits)
        values_pos, field = pos, "raw_values"
        values, pos = _VALUES.unpack(buf, pos, end, count, limits)
    except DecodeError as err:
        raise _at(err, field)
    for i, term in enumerate(names):
        if not 0 <= term < nterms:
            raise _bad_element(
                f"term id {term} out of range (0 .. {nterms - 1})", buf, names_pos, i, "names"
            )
    if pos != end:
        raise DecodeError(
            f"{end - pos} bytes left after {count} columns: the column count disagrees with "
            "the size table",
            offset=pos,
        )
    group = Container(
        type=group_type,
        names=ListContainer(names),
        types=ListContainer(types),
        flags=ListContainer(flags),
        raw_values=ListContainer(values),
    )
    return group, types_pos, values_pos


def _get(c, name):
    try:
        return c[name]
    except (KeyError, TypeError, IndexError):
        raise EncodeError(f"missing field {name!r}") from None


def _pack_message(c) -> bytes:
    """Build the raw Container of :func:`_unpack_message`; size tables are recomputed."""
    with _Path("version"):
        if _get(c, "version") != VERSION:
            raise EncodeError(f"craft version must be {VERSION}, not {c['version']!r}")
    terms = list(_get(c, "term_dictionary"))
    nterms = len(terms)
    h = _get(c, "header")
    bodies = list(_get(c, "bodies"))
    n = len(bodies)
    if not n:
        raise _at(EncodeError("a message holds at least one event"), "bodies")
    header = bytearray()
    with _Path("header"):
        types = list(_get(h, "type"))
        rows = types.count(EVENT_ROW)
        for i, t in enumerate(types):
            if t not in (EVENT_ROW, EVENT_DDL, EVENT_RESOLVED) or (rows and t != EVENT_ROW):
                raise _at(EncodeError(f"event type {t!r}: 1, 2, 3 and never mixed"), "type", i)
        for name, chunk in (
            ("commit_ts", _DELTA_UVARINTS),
            ("type", _UVARINTS),
            ("partition", _DELTA_VARINTS),
            ("schema", _DELTA_VARINTS),
            ("table", _DELTA_VARINTS),
        ):
            with _Path(name):
                values = _get(h, name)
                if name in ("schema", "table"):
                    _check_ids(values, -1, nterms)
                chunk.pack(values, n, header)
    out_bodies, group_tables = [], []
    for i, body in enumerate(bodies):
        out = bytearray()
        with _Path("bodies", i):
            if types[i] == EVENT_ROW:
                group_tables.append(_pack_row(body, nterms, out))
            elif types[i] == EVENT_DDL:
                with _Path("ddl_type"):
                    out += write_uvarint(_get(body, "ddl_type"))
                with _Path("query"):
                    _QUERY.pack([_get(body, "query")], 1, out)
        out_bodies.append(out)
    dictionary = bytearray()
    with _Path("term_dictionary"):
        _TERMS.pack(terms, dictionary)
    tables = bytearray()
    _TABLES.pack(
        [[len(header), len(dictionary)], [len(b) for b in out_bodies], *group_tables], tables
    )
    parts = [write_uvarint(VERSION), header, *out_bodies, dictionary, tables]
    parts.append(write_reversed_uvarint(len(tables)))
    return b"".join(parts)


def _check_ids(ids, lo, nterms):
    for i, term in enumerate(ids):
        if type(term) is not int or not lo <= term < nterms:
            raise _at(EncodeError(f"term id {term!r} out of range ({lo} .. {nterms - 1})"), None, i)


def _pack_row(body, nterms, out) -> list[int]:
    groups = list(_get(body, "column_groups"))
    if not groups:
        raise _at(EncodeError("a row event needs at least one column group"), "column_groups")
    sizes, seen = [], set()
    for g, group in enumerate(groups):
        start = len(out)
        with _Path("column_groups", g):
            group_type = _get(group, "type")
            if group_type not in (GROUP_NEW, GROUP_OLD) or group_type in seen:
                raise _at(EncodeError(f"group type {group_type!r}: 1 or 2, once each"), "type")
            seen.add(group_type)
            names = _get(group, "names")
            count = len(names)
            out.append(group_type)
            out += write_uvarint(count)
            with _Path("names"):
                _check_ids(names, 0, nterms)
                _DELTA_VARINTS.pack(names, count, out)
            for name, chunk in (
                ("types", _UVARINTS),
                ("flags", _UVARINTS),
                ("raw_values", _VALUES),
            ):
                with _Path(name):
                    chunk.pack(_get(group, name), count, out)
        sizes.append(len(out) - start)
    return sizes


# -------------------------------------------------------------------------------------
# Messages <-> runtime.ticdc events
# -------------------------------------------------------------------------------------
def _to_events(message, positions, buf, encodings) -> list[Event]:
    terms = message.term_dictionary
    h = message.header
    events = []
    for i, body in enumerate(message.bodies):
        ts, t = h.commit_ts[i], h.type[i]
        schema = terms[h.schema[i]] if h.schema[i] >= 0 else None
        table = terms[h.table[i]] if h.table[i] >= 0 else None
        if t == EVENT_RESOLVED:
            events.append(ResolvedEvent(ts))
        elif t == EVENT_DDL:
            events.append(DdlEvent(ts, schema, table, body.ddl_type, body.query))
        else:
            partition = h.partition[i]
            ev = RowChangedEvent(ts, schema, table, None if partition < 0 else partition)
            for g, group in enumerate(body.column_groups):
                image = "new" if group.type == GROUP_NEW else "old"
                try:
                    columns = _group_columns(group, terms, buf, encodings, *positions[i, g])
                except DecodeError as err:
                    raise _at(_at(err, image), "events", i)
                setattr(ev, image, columns)
            events.append(ev)
    return events


def _group_columns(group, terms, buf, encodings, types_pos, values_pos):
    columns = []
    types, flags, raws = group.types, group.flags, group.raw_values
    for j, term in enumerate(group.names):
        try:
            value = decode_value(types[j], flags[j], raws[j], encodings)
        except DecodeError as err:
            if err.message.startswith("unknown column type"):
                err = DecodeError(err.message, offset=skip_varints(buf, types_pos, j))
                raise _at(_at(err, "type"), None, j) from None
            # Value bytes start after all the lengths and the earlier non-NULL values.
            base = skip_varints(buf, values_pos, len(raws))
            err.shift(base + sum(len(r) for r in raws[:j] if r is not None))
            raise _at(_at(err, "value"), None, j)
        columns.append(Column(terms[term], types[j], flags[j], value))
    return columns


class _Parts:
    """One event checked and with its values encoded: the unit of batching (§9)."""

    __slots__ = ("body", "commit_ts", "estimate", "partition", "schema", "table", "type")


def _event_parts(ev, encodings) -> _Parts:
    """Validate ``ev`` and encode its values once, for the size estimate and the message."""
    p = _Parts()
    if isinstance(ev, RowChangedEvent):
        p.type = EVENT_ROW
    elif isinstance(ev, DdlEvent):
        p.type = EVENT_DDL
    elif isinstance(ev, ResolvedEvent):
        p.type = EVENT_RESOLVED
    else:
        raise EncodeError(f"not a runtime.ticdc event: {type(ev).__name__}")
    with _Path("commit_ts"):
        if type(ev.commit_ts) is not int or not 0 <= ev.commit_ts <= U64:
            raise EncodeError(f"commit ts {ev.commit_ts!r} is not a uint64")
    p.commit_ts = ev.commit_ts
    p.partition, p.schema, p.table, p.body = -1, None, None, None
    if p.type == EVENT_RESOLVED:
        p.estimate = 32
        return p
    for name in ("schema", "table"):
        value = getattr(ev, name)
        if value is not None and not isinstance(value, str):
            raise _at(EncodeError(f"expected str or None, got {type(value).__name__}"), name)
        # The reference writes -1 (null) for an empty name, never a "" term.
        setattr(p, name, value or None)
    p.estimate = 32 + len(_utf8(p.schema)) + len(_utf8(p.table))
    if p.type == EVENT_DDL:
        with _Path("ddl_type"):
            write_uvarint(ev.ddl_type)
        with _Path("query"):
            if not isinstance(ev.query, str):
                raise EncodeError(f"expected str, got {type(ev.query).__name__}")
        p.body = Container(ddl_type=ev.ddl_type, query=ev.query)
        return p
    if ev.partition is not None:
        with _Path("partition"):
            if type(ev.partition) is not int or not 0 <= ev.partition < _I64:
                raise EncodeError(f"partition {ev.partition!r}: None or a table id >= 0")
        p.partition = ev.partition
    groups = []
    for image, group_type in (("new", GROUP_NEW), ("old", GROUP_OLD)):
        columns = getattr(ev, image)
        if columns is not None:
            with _Path(image):
                groups.append(_encode_columns(columns, group_type, p, encodings))
    if not groups:
        raise EncodeError("a row event needs new or old columns")
    p.body = groups
    return p


def _encode_columns(columns, group_type, p, encodings):
    names, types, flags, values = [], [], [], []
    for j, col in enumerate(columns):
        with _Path(None, j):
            if not isinstance(col, Column) or not isinstance(col.name, str):
                raise EncodeError(f"expected a Column with a str name, got {col!r}")
            with _Path("flags"):
                write_uvarint(col.flags)
            with _Path("value"):
                raw = encode_value(col.type, col.flags, col.value, encodings)
        name = _utf8(col.name)
        p.estimate += len(name) + (len(raw) if raw else 0) + 16
        names.append(col.name)
        types.append(col.type)
        flags.append(col.flags)
        values.append(raw)
    return group_type, names, types, flags, values


def _utf8(s) -> bytes:
    return s.encode("utf-8", "surrogateescape") if s else b""


def _assemble(parts: list[_Parts]) -> Container:
    """The raw message of checked events, with terms interned in the reference order (§5):
    every schema, then every table, then column names in body order (new before old)."""
    terms: dict[str, int] = {}

    def intern(s):
        if s is None:
            return -1
        term = terms.get(s)
        if term is None:
            term = terms[s] = len(terms)
        return term

    schemas = [intern(p.schema) for p in parts]
    tables = [intern(p.table) for p in parts]
    bodies = []
    for p in parts:
        if p.type == EVENT_ROW:
            groups = [
                Container(
                    type=group_type,
                    names=[intern(name) for name in names],
                    types=types,
                    flags=flags,
                    raw_values=values,
                )
                for group_type, names, types, flags, values in p.body
            ]
            bodies.append(Container(column_groups=groups))
        else:
            bodies.append(p.body if p.type == EVENT_DDL else Container())
    header = Container(
        commit_ts=[p.commit_ts for p in parts],
        type=[p.type for p in parts],
        partition=[p.partition for p in parts],
        schema=schemas,
        table=tables,
    )
    return Container(version=VERSION, header=header, bodies=bodies, term_dictionary=list(terms))


def _parts_of(events, encodings) -> list[_Parts]:
    out = []
    for i, ev in enumerate(events):
        with _Path("events", i):
            out.append(_event_parts(ev, encodings))
    return out


# -------------------------------------------------------------------------------------
# The fast decoder: the same rules as _unpack_message + _to_events, straight-line
# -------------------------------------------------------------------------------------
# Why hand-written here and not generated: the layout it follows (sizes read backwards
# from the end, chunks whose counts come from other sections, ids resolved through the
# term dictionary) is this primitive's own logic, which the record language does not
# express; what the spec does express, the type-code table, drives it (``kinds``).
#
# It never reports an error itself: at the first thing it does not like (anything the
# checked path would reject, or a limit) it gives up, and the checked path decodes the
# message again and raises its precise DecodeError. So both paths raise the same error
# at the same offset by construction, and tests prove they return the same events.
_K_INT, _K_SINT, _K_UINT, _K_F64, _K_TEXT, _K_BYTES, _K_NULL = range(7)
_KIND_CODES = dict(zip(VALUE_KINDS, range(7)))
_UNPACK_DOUBLE = _DOUBLE.unpack_from


class _GiveUp(Exception):
    """The fast decoder met something it leaves to the checked path."""


def _uv(buf, p):
    """A multi-byte uvarint at ``p`` -> (value, next); _GiveUp where read_uvarint raises."""
    v = s = 0
    for q in range(p, p + MAX_BYTES):
        b = buf[q]
        v |= (b & 0x7F) << s
        if b < 0x80:
            if v >> 64:
                raise _GiveUp
            return v, q + 1
        s += 7
    raise _GiveUp


_ZIGZAG = [(b >> 1) ^ -(b & 1) for b in range(128)]
"""ZigZag decoding of the one-byte varints."""
_unzigzag = _ZIGZAG.__getitem__

# The chunk readers below are the slow path: the fast decoder first slices a chunk of n
# bytes and, when ``chunk.isascii()`` (every byte < 0x80: n one-byte varints), takes
# ``list(chunk)`` (ZigZag through _ZIGZAG) without calling them.


def _uvarints(buf, p, n):
    """n uvarints of any length at ``p`` -> (list, next); two-byte ones inline."""
    out = []
    append = out.append
    for _ in range(n):
        v = buf[p]
        if v < 0x80:
            p += 1
        elif buf[p + 1] < 0x80:  # type codes >= 128, the unsigned flag, sizes < 16384
            v = (v & 0x7F) | (buf[p + 1] << 7)
            p += 2
        else:
            v, p = _uv(buf, p)
        append(v)
    return out, p


def _zigzags(buf, p, n):
    """n ZigZag varints of any length at ``p`` -> (list, next)."""
    out, p = _uvarints(buf, p, n)
    return [(v >> 1) ^ -(v & 1) for v in out], p


def _delta_zigzags(buf, p, n):
    """A delta varint chunk of n elements of any length at ``p`` -> (list, next); int64."""
    out, p = _zigzags(buf, p, n)
    acc = 0
    for i, v in enumerate(out):
        out[i] = acc = ((acc + v + _I64) & U64) - _I64
    return out, p


def _fast_events(buf: bytes, kinds, limits) -> list[Event]:
    end = len(buf)
    if end > limits.max_message_bytes or end < 2 or buf[0] != VERSION:
        raise _GiveUp
    max_count, max_string = limits.max_count, limits.max_string
    tail = end - 1
    tables_len = buf[tail]
    if tables_len >= 0x80:
        raise _GiveUp
    tables_start = p = tail - tables_len
    if tables_start < 1:
        raise _GiveUp
    # size tables: (uvarint count, delta varint chunk) until the trailer
    tables = []
    while p < tail:
        n = buf[p]
        if n < 0x80:
            p += 1
        else:
            n, p = _uv(buf, p)
        if n > max_count or n > tail - p:
            raise _GiveUp
        acc = 0
        table = []
        for _ in range(n):
            v = buf[p]
            if v < 0x80:
                p += 1
            elif buf[p + 1] < 0x80:
                v = (v & 0x7F) | (buf[p + 1] << 7)
                p += 2
            else:
                v, p = _uv(buf, p)
            acc = ((acc + ((v >> 1) ^ -(v & 1)) + _I64) & U64) - _I64
            if acc < 0:
                raise _GiveUp
            table.append(acc)
        tables.append(table)
    if p != tail or len(tables) < 2 or len(tables[0]) != 2 or not tables[1]:
        raise _GiveUp
    (header_size, dict_size), sizes = tables[0], tables[1]
    n = len(sizes)
    header_end = 1 + header_size
    dict_start = header_end + sum(sizes)
    if dict_start + dict_size != tables_start:
        raise _GiveUp
    # term dictionary: uvarint count, all lengths, then all terms; absent when empty
    terms = []
    if dict_size:
        p = dict_start
        nt = buf[p]
        if nt < 0x80:
            p += 1
        else:
            nt, p = _uv(buf, p)
        if not nt or nt > max_count or nt > tables_start - p:
            raise _GiveUp
        q = p + nt
        chunk = buf[p:q]
        if chunk.isascii():
            lengths, p = list(chunk), q
        else:
            lengths, p = _uvarints(buf, p, nt)
        if max(lengths) > max_string:
            raise _GiveUp
        region = buf[p:tables_start]
        if region.isascii():  # decoded once; character offsets are byte offsets
            offsets = list(_accumulate(lengths, initial=0))
            if offsets[-1] != len(region):
                raise _GiveUp
            terms = list(map(region.decode().__getitem__, map(slice, offsets, offsets[1:])))
        else:
            for ln in lengths:
                q = p + ln
                if q > tables_start:
                    raise _GiveUp
                terms.append(buf[p:q].decode())
                p = q
            if p != tables_start:
                raise _GiveUp
    nterms = len(terms)
    get_term = terms.__getitem__
    # header: five chunks of n elements
    if n > max_count or n > header_size:
        raise _GiveUp
    ts, p = _uvarints(buf, 1, n)
    ts = list(_accumulate(ts))
    if ts[-1] > U64:  # deltas are >= 0: the last sum is the largest
        ts = [v & U64 for v in ts]
    rest = buf[p:header_end]
    if len(rest) == 4 * n and rest.isascii():  # the other four chunks: one byte each
        types = list(rest[:n])
        parts = list(_accumulate(map(_unzigzag, rest[n : 2 * n])))
        schemas = list(_accumulate(map(_unzigzag, rest[2 * n : 3 * n])))
        tbls = list(_accumulate(map(_unzigzag, rest[3 * n :])))
    else:
        types, p = _uvarints(buf, p, n)
        parts, p = _delta_zigzags(buf, p, n)
        schemas, p = _delta_zigzags(buf, p, n)
        tbls, p = _delta_zigzags(buf, p, n)
        if p != header_end:
            raise _GiveUp
    rows = types.count(EVENT_ROW)
    if len(tables) != (2 + n if rows else 2) or (rows and rows != n):
        raise _GiveUp
    # bodies
    events = []
    append_event = events.append
    p = header_end
    for i in range(n):
        size = sizes[i]
        b_end = p + size
        t = types[i]
        sid, tid = schemas[i], tbls[i]
        if t == EVENT_RESOLVED:
            if size or sid != -1 or tid != -1 or parts[i] != -1:
                raise _GiveUp
            append_event(ResolvedEvent(ts[i]))
            continue
        if not (-1 <= sid < nterms and -1 <= tid < nterms):
            raise _GiveUp
        schema = terms[sid] if sid >= 0 else None
        table = terms[tid] if tid >= 0 else None
        if t == EVENT_DDL:
            if parts[i] != -1:
                raise _GiveUp
            ddl_type = buf[p]
            if ddl_type < 0x80:
                p += 1
            else:
                ddl_type, p = _uv(buf, p)
            ln = buf[p]
            if ln < 0x80:
                p += 1
            else:
                ln, p = _uv(buf, p)
            q = p + ln
            if ln > max_string or q != b_end:
                raise _GiveUp
            append_event(DdlEvent(ts[i], schema, table, ddl_type, buf[p:q].decode()))
            p = q
            continue
        if t != EVENT_ROW or parts[i] < -1:
            raise _GiveUp
        group_sizes = tables[2 + i]
        if not group_sizes or sum(group_sizes) != size:
            raise _GiveUp
        ev = RowChangedEvent(ts[i], schema, table, None if parts[i] < 0 else parts[i])
        seen = 0
        for group_size in group_sizes:
            g_end = p + group_size
            group_type = buf[p] if group_size else 0
            if group_type not in (GROUP_NEW, GROUP_OLD) or group_type & seen:
                raise _GiveUp
            seen |= group_type
            count = buf[p + 1]
            if count < 0x80:
                p += 2
            else:
                count, p = _uv(buf, p + 1)
            if count > max_count or count > g_end - p:
                raise _GiveUp
            # The chunks may run past g_end here (a corrupt count): p then ends past it,
            # which the check at the end of the group catches, so none is checked alone.
            q = p + count
            chunk = buf[p:q]
            if chunk.isascii():
                # one-byte deltas are at most 64 in size: no int64 wrap-around is possible
                names, p = list(_accumulate(map(_unzigzag, chunk))), q
            else:
                names, p = _delta_zigzags(buf, p, count)
            if names and min(names) < 0:
                raise _GiveUp
            names = list(map(get_term, names))  # IndexError past the dictionary: give up
            q = p + count
            chunk = buf[p:q]
            if chunk.isascii():
                codes, p = list(chunk), q
            else:
                codes, p = _uvarints(buf, p, count)
            q = p + count
            chunk = buf[p:q]
            if chunk.isascii():
                flags, p = list(chunk), q
            else:
                flags, p = _uvarints(buf, p, count)
            q = p + count
            chunk = buf[p:q]
            if chunk.isascii():
                lengths, p = list(map(_unzigzag, chunk)), q  # -64..63
                if max_string < 63 and lengths and max(lengths) > max_string:
                    raise _GiveUp
            else:
                lengths, p = _zigzags(buf, p, count)
                if max(lengths) > max_string:
                    raise _GiveUp
            # codes >= 256 raise IndexError here, which gives up like an unknown code
            column_kinds = list(map(kinds.__getitem__, codes))
            if None in column_kinds:
                raise _GiveUp
            values = []
            append_value = values.append
            for kind, ln, fl in zip(column_kinds, lengths, flags):
                if ln < 0:
                    if ln != -1:
                        raise _GiveUp
                    append_value(None)
                    continue
                q = p + ln
                if kind == _K_BYTES:
                    append_value(buf[p:q])
                elif kind == _K_TEXT:
                    append_value(buf[p:q].decode())
                elif kind <= _K_UINT:  # a varint filling exactly ln bytes (none if ln is 0)
                    value = buf[p]
                    if value < 0x80:
                        if ln != 1:
                            raise _GiveUp
                    elif ln == 2 and buf[p + 1] < 0x80:
                        value = (value & 0x7F) | (buf[p + 1] << 7)
                    else:
                        value, r = _uv(buf, p)
                        if r != q:
                            raise _GiveUp
                    if kind == _K_SINT or (kind == _K_INT and not fl & FLAG_UNSIGNED):
                        value = (value >> 1) ^ -(value & 1)
                    append_value(value)
                elif kind == _K_F64 and ln == 8:
                    append_value(_UNPACK_DOUBLE(buf, p)[0])
                else:  # NULL kind with a value, or a double that is not 8 bytes
                    raise _GiveUp
                p = q
            if p != g_end:
                raise _GiveUp
            columns = list(map(Column, names, codes, flags, values))
            if group_type == GROUP_NEW:
                ev.new = columns
            else:
                ev.old = columns
        append_event(ev)
    return events


# -------------------------------------------------------------------------------------
# The fast encoder: _event_parts + _assemble + _pack_message in one pass per message
# -------------------------------------------------------------------------------------
# Like the fast decoder it never reports an error: an event it is not sure about (a type
# it does not expect exactly, a value out of range) goes to the checked _event_parts, which
# encodes it or raises the precise EncodeError. Tests hold both to the same bytes.
_write_uvarint = write_uvarint


def _uvb(v: int) -> bytes:
    return _SMALL_BYTES[v] if v < 0x80 else _write_uvarint(v)


def _zzb(v: int) -> bytes:
    """ZigZag varint of an int64."""
    v = (v << 1) ^ (v >> 63)
    return _SMALL_BYTES[v] if v < 0x80 else _write_uvarint(v)


_SMALL_BYTES = [bytes((i,)) for i in range(128)]


def _quick_parts(ev, kinds):
    """:func:`_event_parts` for the events it is sure about, else None."""
    cls = type(ev)
    if cls is not RowChangedEvent and cls is not DdlEvent and cls is not ResolvedEvent:
        return None
    ts = ev.commit_ts
    if type(ts) is not int or not 0 <= ts <= U64:
        return None
    p = _Parts()
    p.commit_ts = ts
    p.partition = -1
    if cls is ResolvedEvent:
        p.type, p.schema, p.table, p.body, p.estimate = EVENT_RESOLVED, None, None, None, 32
        return p
    schema, table = ev.schema, ev.table
    if (schema is not None and type(schema) is not str) or (
        table is not None and type(table) is not str
    ):
        return None
    p.schema = schema = schema or None
    p.table = table = table or None
    estimate = 32 + (len(schema.encode("utf-8", "surrogateescape")) if schema else 0)
    estimate += len(table.encode("utf-8", "surrogateescape")) if table else 0
    if cls is DdlEvent:
        ddl_type = ev.ddl_type
        if type(ddl_type) is not int or not 0 <= ddl_type <= U64 or type(ev.query) is not str:
            return None
        p.type, p.estimate = EVENT_DDL, estimate
        p.body = Container(ddl_type=ddl_type, query=ev.query)
        return p
    if cls is not RowChangedEvent:
        return None
    part = ev.partition
    if part is not None:
        if type(part) is not int or not 0 <= part < _I64:
            return None
        p.partition = part
    groups = []
    for group_type, columns in ((GROUP_NEW, ev.new), (GROUP_OLD, ev.old)):
        if columns is None:
            continue
        if type(columns) is not list:
            return None
        names, types, flags, values = [], [], [], []
        for col in columns:
            if type(col) is not Column:
                return None
            name, code, fl, v = col.name, col.type, col.flags, col.value
            if type(name) is not str or type(code) is not int or type(fl) is not int:
                return None
            kind = kinds[code] if 0 <= code < 256 else None
            if kind is None or not 0 <= fl <= U64:
                return None
            if v is None:
                raw = None
            elif kind == _K_BYTES:
                if type(v) is not bytes:
                    return None
                raw = v
            elif kind == _K_TEXT:
                if type(v) is not str:
                    return None
                raw = v.encode("utf-8", "surrogateescape")
            elif kind == _K_F64:
                if type(v) is not float:
                    return None
                raw = _DOUBLE.pack(v)
            elif kind == _K_NULL or type(v) is not int:
                return None
            elif kind == _K_UINT or (kind == _K_INT and fl & FLAG_UNSIGNED):
                if not 0 <= v <= U64:
                    return None
                raw = _uvb(v)
            else:
                if not -_I64 <= v < _I64:
                    return None
                raw = _zzb(v)
            estimate += (len(name.encode("utf-8", "surrogateescape")) if name else 0) + 16
            if raw:
                estimate += len(raw)
            names.append(name)
            types.append(code)
            flags.append(fl)
            values.append(raw)
        groups.append((group_type, names, types, flags, values))
    if not groups:
        return None
    p.type, p.body, p.estimate = EVENT_ROW, groups, estimate
    return p


def _fast_pack(parts) -> bytes:
    """The bytes ``_pack_message(_assemble(parts))`` writes, for parts of one kind."""
    terms: dict[str, int] = {}
    ids = []
    for attr in ("schema", "table"):
        column = []
        for p in parts:
            s = getattr(p, attr)
            if s is None:
                column.append(-1)
            else:
                t = terms.get(s)
                if t is None:
                    t = terms[s] = len(terms)
                column.append(t)
        ids.append(column)
    header = bytearray()
    prev = 0
    for p in parts:
        header += _uvb((p.commit_ts - prev) & U64)
        prev = p.commit_ts
    for p in parts:
        header += _SMALL_BYTES[p.type]
    for column in ([p.partition for p in parts], *ids):
        prev = 0
        for v in column:
            header += _zzb(_wrap64(v - prev))  # partitions: deltas wrap like Go's int64
            prev = v
    bodies, group_tables = [], []
    for p in parts:
        body = bytearray()
        if p.type == EVENT_ROW:
            sizes = []
            for group_type, names, types, flags, values in p.body:
                start = len(body)
                body.append(group_type)
                body += _uvb(len(names))
                prev = 0
                for name in names:
                    t = terms.get(name)
                    if t is None:
                        t = terms[name] = len(terms)
                    body += _zzb(t - prev)
                    prev = t
                for v in types:
                    body += _uvb(v)
                for v in flags:
                    body += _uvb(v)
                for v in values:
                    body += b"\x01" if v is None else _zzb(len(v))
                for v in values:
                    if v:
                        body += v
                sizes.append(len(body) - start)
            group_tables.append(sizes)
        elif p.type == EVENT_DDL:
            query = p.body.query.encode("utf-8", "surrogateescape")
            body += _uvb(p.body.ddl_type)
            body += _uvb(len(query))
            body += query
        bodies.append(body)
    dictionary = bytearray()
    if terms:
        encoded = [t.encode("utf-8", "surrogateescape") for t in terms]
        dictionary += _uvb(len(encoded))
        for t in encoded:
            dictionary += _uvb(len(t))
        for t in encoded:
            dictionary += t
    tables = bytearray()
    for table in ([len(header), len(dictionary)], [len(b) for b in bodies], *group_tables):
        tables += _uvb(len(table))
        prev = 0
        for v in table:
            tables += _zzb(v - prev)
            prev = v
    return b"".join(
        (b"\x01", header, *bodies, dictionary, tables, write_reversed_uvarint(len(tables)))
    )


# -------------------------------------------------------------------------------------
# The JSON form of events (the generated module's to_dict/from_dict)
# -------------------------------------------------------------------------------------
def _json_get(d, key, path=None):
    if not isinstance(d, dict):
        raise EncodeError(f"expected an object, got {type(d).__name__}")
    if key not in d:
        raise EncodeError(f"missing key {key!r}")
    return d[key]


def _int_json(value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise EncodeError(f"expected an integer, got {value!r}")
    try:
        return int(value)
    except ValueError:
        raise EncodeError(f"expected an integer, got {value!r}") from None


def _opt_str_json(value):
    if value is not None and not isinstance(value, str):
        raise EncodeError(f"expected a string or null, got {value!r}")
    return value


def _column_value_json(value, kind):
    from . import codec as _codec

    if value is None:
        return None
    if kind == "bytes":
        return _codec.bytes_from_json(value)
    if kind == "text":
        if isinstance(value, str):
            return value
        raise EncodeError(f"expected a string, got {value!r}")
    if kind == "float64":
        return _codec.float_from_json(value)
    if kind in ("sint", "uint"):
        return _int_json(value)
    raise EncodeError(f"this type code is always NULL, got {value!r}")


def _columns_json(items, encodings):
    if items is None:
        return None
    if not isinstance(items, list):
        raise EncodeError(f"expected a list of columns, got {items!r}")
    out = []
    for j, c in enumerate(items):
        with _Path(None, j):
            with _Path("type"):
                code = _int_json(_json_get(c, "type"))
            with _Path("flags"):
                flags = _int_json(c.get("flags", 0))
            kind = value_kind(code, flags, encodings)
            if kind is None:
                raise _at(EncodeError(f"unknown column type code {code}"), "type")
            with _Path("name"):
                name = _json_get(c, "name")
                if not isinstance(name, str):
                    raise EncodeError(f"expected a string, got {name!r}")
            with _Path("value"):
                value = _column_value_json(c.get("value"), kind)
            out.append(Column(name, code, flags, value))
    return out


def _event_json(d, encodings) -> Event:
    """One event from the JSON that ``runtime.codec.to_jsonable`` makes of it: the keys say
    which kind (``query``/``ddl_type``: DDL; ``new``/``old``: row; else resolved)."""
    with _Path("commit_ts"):
        ts = _int_json(_json_get(d, "commit_ts"))
    if "query" in d or "ddl_type" in d:
        with _Path("ddl_type"):
            ddl_type = _int_json(_json_get(d, "ddl_type"))
        with _Path("query"):
            query = _json_get(d, "query")
            if not isinstance(query, str):
                raise EncodeError(f"expected a string, got {query!r}")
        return DdlEvent(ts, _opt_str_json(d.get("schema")), _opt_str_json(d.get("table")),
                        ddl_type, query)  # fmt: skip
    if "new" in d or "old" in d:
        ev = RowChangedEvent(ts, _opt_str_json(d.get("schema")), _opt_str_json(d.get("table")))
        with _Path("partition"):
            part = d.get("partition")
            ev.partition = None if part is None else _int_json(part)
        for image in ("new", "old"):
            with _Path(image):
                setattr(ev, image, _columns_json(d.get(image), encodings))
        return ev
    unknown = set(d) - {"commit_ts"}
    if unknown:
        raise EncodeError(f"a resolved event has only commit_ts, not {sorted(unknown)}")
    return ResolvedEvent(ts)


def _wire_json(d):
    """The wire Container (``CraftMessage(as_events=False)``) from its JSON form."""
    from . import codec as _codec

    def ints(values):
        return [_int_json(v) for v in values]

    h = _json_get(d, "header")
    header = Container(
        (name, ints(_json_get(h, name)))
        for name in ("commit_ts", "type", "partition", "schema", "table")
    )
    bodies = []
    for i, body in enumerate(_json_get(d, "bodies")):
        with _Path("bodies", i):
            if "column_groups" in body:
                groups = [
                    Container(
                        type=_int_json(_json_get(g, "type")),
                        names=ints(_json_get(g, "names")),
                        types=ints(_json_get(g, "types")),
                        flags=ints(_json_get(g, "flags")),
                        raw_values=[
                            None if v is None else _codec.bytes_from_json(v)
                            for v in _json_get(g, "raw_values")
                        ],
                    )
                    for g in body["column_groups"]
                ]
                bodies.append(Container(column_groups=groups))
            elif "query" in body:
                bodies.append(
                    Container(ddl_type=_int_json(_json_get(body, "ddl_type")), query=body["query"])
                )
            else:
                bodies.append(Container())
    return Container(
        version=_int_json(_json_get(d, "version")),
        header=header,
        bodies=bodies,
        term_dictionary=list(_json_get(d, "term_dictionary")),
    )


# -------------------------------------------------------------------------------------
# The construct, and the functions a generated module re-exports
# -------------------------------------------------------------------------------------
class CraftMessage(Construct):
    """A whole Craft message; it owns the rest of its stream (a Kafka message value).

    With ``as_events=False`` it parses to a Container that mirrors the wire (term ids,
    raw value bytes, the size tables) and builds any such Container back byte for byte;
    size tables are derived, so an edited Container rebuilds consistently. With
    ``as_events=True`` it parses to a list of :mod:`runtime.ticdc` events and builds from
    one (row events only, or a single DDL/resolved event, as the reference writes); the
    column values then follow ``value_encodings`` (type code -> kind, the spec's
    ``COLUMN_TYPE_CRAFT``). ``fast=False`` turns the straight-line decoder off, leaving
    only the checked path (the oracle the tests compare it with).

    >>> data = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    >>> CraftMessage(as_events=True, value_encodings={}).parse(data)
    [ResolvedEvent(commit_ts=424316594097225729)]
    >>> msg = CraftMessage().parse(data)
    >>> msg.header.type, msg.size_tables, CraftMessage().build(msg) == data
    (ListContainer([3]), ListContainer([ListContainer([13, 0]), ListContainer([0])]), True)

    Raises :class:`DecodeError` (offset, path) for any malformed message and
    :class:`EncodeError` for a model it cannot write.
    """

    def __init__(
        self,
        as_events: bool = False,
        value_encodings=None,
        *,
        fast: bool = True,
        event_types=None,
        group_types=None,
    ):
        super().__init__()
        self.as_events = as_events
        self.fast = fast
        if as_events and value_encodings is None:
            raise SpecError("CraftMessage(as_events=True) needs the spec's value_encodings")
        self.encodings = {int(k): v for k, v in (value_encodings or {}).items()}
        bad = {k: v for k, v in self.encodings.items() if v not in VALUE_KINDS or not 0 <= k < 256}
        if bad:
            raise SpecError(f"value encodings {bad}: kinds are {VALUE_KINDS}, codes 0..255")
        self._kinds = [None] * 256
        for code, kind in self.encodings.items():
            self._kinds[code] = _KIND_CODES[kind]
        _check_enum(
            event_types, {"ROW_CHANGED": EVENT_ROW, "DDL": EVENT_DDL, "RESOLVED": EVENT_RESOLVED}
        )
        _check_enum(group_types, {"NEW": GROUP_NEW, "OLD": GROUP_OLD})

    # -- bytes-level API -------------------------------------------------------------
    def decode(self, data, limits: _limits.Limits = _limits.DEFAULT):
        """The model of one whole message (events, or the wire Container)."""
        buf = data if type(data) is bytes else bytes(data)
        if self.as_events and self.fast:
            try:
                return _fast_events(buf, self._kinds, limits)
            except Exception:  # noqa: BLE001, S110 - the checked path says what is wrong
                pass
        return self._decode_checked(buf, limits)

    def _decode_checked(self, buf: bytes, limits):
        message, positions = _unpack_message(buf, limits)
        return _to_events(message, positions, buf, self.encodings) if self.as_events else message

    def encode(self, model) -> bytes:
        """One message of ``model`` (events are not batched: all go in this message)."""
        if not self.as_events:
            return _pack_message(model)
        if self.fast and type(model) is list and model:
            parts = [_quick_parts(ev, self._kinds) for ev in model]
            rows = sum(1 for p in parts if p is not None and p.type == EVENT_ROW)
            if None not in parts and (rows == len(parts) or len(parts) == 1):
                return _fast_pack(parts)
        return _pack_message(_assemble(_parts_of(model, self.encodings)))

    def read(self, buf, pos: int, end: int, limits: _limits.Limits = _limits.DEFAULT):
        """The fast-path protocol of generated modules: ``(model of buf[pos:end], end)``."""
        try:
            return self.decode(buf if pos == 0 and end == len(buf) else buf[pos:end], limits), end
        except DecodeError as err:
            err.shift(pos)
            raise

    def decode_message(self, data, **limits) -> Iterator[Event]:
        """The events of one Craft message, in order (``limits`` as in :mod:`runtime.limits`).

        >>> codec = CraftMessage(as_events=True, value_encodings={})
        >>> [e.op for e in codec.decode_message(bytes.fromhex("018180e0bb9bb6def10503010101021a19010005"))]
        ['resolved']
        """
        lim = _limits.Limits.from_kwargs(limits) if limits else _limits.DEFAULT
        return iter(_events_view(self).decode(data, lim))

    def encode_events(
        self,
        events: Iterable[Event],
        max_batch_size: int = 16,
        max_message_bytes: int = 10 * 1024 * 1024,
    ) -> Iterator[bytes]:
        """Encode events into Craft messages, batching row events as tiflow's encoder does.

        Row events are appended in order; after each append the running estimate grows by
        ``32 + len(schema) + len(table)`` plus ``len(name) + len(value bytes) + 16`` per
        column, and the batch (with the event just added) becomes a message once the
        estimate exceeds ``max_message_bytes`` or it holds ``max_batch_size`` rows. A DDL or
        resolved event is always a message of its own; pending rows are flushed first so
        the order is kept.

        >>> from runtime.ticdc import ResolvedEvent
        >>> codec = CraftMessage(as_events=True, value_encodings={})
        >>> [m.hex() for m in codec.encode_events([ResolvedEvent(424316594097225729)])]
        ['018180e0bb9bb6def10503010101021a19010005']
        """
        if max_batch_size < 1 or max_message_bytes < 1:
            raise EncodeError("max_batch_size and max_message_bytes must be positive")
        encodings, kinds = self.encodings, self._kinds
        pack = _fast_pack if self.fast else lambda batch: _pack_message(_assemble(batch))
        batch: list[_Parts] = []
        estimate = 0
        for i, ev in enumerate(events):
            parts = _quick_parts(ev, kinds) if self.fast else None
            if parts is None:
                with _Path("events", i):
                    parts = _event_parts(ev, encodings)
            if parts.type != EVENT_ROW:
                if batch:
                    yield pack(batch)
                    batch, estimate = [], 0
                yield pack([parts])
                continue
            batch.append(parts)
            estimate += parts.estimate
            if estimate > max_message_bytes or len(batch) >= max_batch_size:
                yield pack(batch)
                batch, estimate = [], 0
        if batch:
            yield pack(batch)

    def from_json(self, value):
        """The model of the JSON form ``runtime.codec.to_jsonable`` makes of one."""
        if not self.as_events:
            return _wire_json(value)
        if not isinstance(value, list):
            raise EncodeError(f"expected a list of events, got {type(value).__name__}")
        out = []
        for i, d in enumerate(value):
            with _Path("events", i):
                out.append(_event_json(d, self.encodings))
        return out

    # -- construct protocol ------------------------------------------------------------
    def _parse(self, stream, context, path):
        start = stream.tell()
        buf = stream.read()
        spans = current_spans(context)
        try:
            if spans is not None:  # wirespec inspect: the checked path reports its regions
                with spans.shifted(start):
                    message, positions = _unpack_message(
                        buf, _limits.current(context), spans, self.encodings
                    )
                if not self.as_events:
                    return message
                return _to_events(message, positions, buf, self.encodings)
            return self.decode(buf, _limits.current(context))
        except DecodeError as err:
            err.shift(start)
            raise

    def _build(self, obj, stream, context, path):
        stream.write(self.encode(obj))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a craft message has a variable size", path=path)


def _events_view(codec: CraftMessage) -> CraftMessage:
    if codec.as_events:
        return codec
    raise EncodeError("decode_message/encode_events need CraftMessage(as_events=True)")


def _check_enum(enum_class, expected: dict) -> None:
    """The spec's enum (event or group types) must say what this runtime implements."""
    if enum_class is None:
        return
    found = {m.name: int(m) for m in enum_class}
    if any(found.get(name) != value for name, value in expected.items()):
        raise SpecError(f"{enum_class.__name__} must include {expected}, found {found}")


def decode_message(data: bytes, *, value_encodings, **limits) -> Iterator[Event]:
    """:meth:`CraftMessage.decode_message` with the type-code table given here (generated
    modules re-export a bound one that uses their spec's table)."""
    return CraftMessage(True, value_encodings).decode_message(data, **limits)


def encode_events(events: Iterable[Event], *, value_encodings, **options) -> Iterator[bytes]:
    """:meth:`CraftMessage.encode_events` with the type-code table given here."""
    return CraftMessage(True, value_encodings).encode_events(events, **options)
