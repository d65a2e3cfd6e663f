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
from typing import Iterable, Iterator

from construct import Construct, Container, ListContainer, SizeofError, evaluate

from . import limits as _limits
from .errors import DecodeError, EncodeError
from .leb128 import (
    MAX_BYTES,
    read_uvarint,
    read_zigzag,
    skip_varints,
    write_uvarint,
    write_zigzag,
)
from .stream import read_exact
from .ticdc import FLAG_UNSIGNED, Column, DdlEvent, Event, ResolvedEvent, RowChangedEvent

# -------------------------------------------------------------------------------------
# Column value encodings: MySQL type code -> how the value bytes are encoded (research §7).
# This table is data on purpose: it moves into the YAML spec later. The kinds are
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
VALUE_ENCODINGS: dict[int, str] = {
    1: "int",  # TINYINT / BOOL
    2: "int",  # SMALLINT
    3: "int",  # INT
    8: "int",  # BIGINT
    9: "int",  # MEDIUMINT
    13: "sint",  # YEAR
    4: "float64",  # FLOAT
    5: "float64",  # DOUBLE
    16: "uint",  # BIT
    247: "uint",  # ENUM (index)
    248: "uint",  # SET (bitmask)
    7: "text",  # TIMESTAMP
    10: "text",  # DATE
    11: "text",  # TIME (duration)
    12: "text",  # DATETIME
    14: "text",  # NEWDATE
    245: "text",  # JSON
    246: "text",  # NEWDECIMAL
    225: "text",  # TiDB VECTOR FLOAT32 (tiflow master only)
    15: "bytes",  # VARCHAR
    253: "bytes",  # VAR_STRING / VARBINARY
    254: "bytes",  # STRING: CHAR / BINARY
    249: "bytes",  # TINYBLOB / TINYTEXT
    250: "bytes",  # MEDIUMBLOB / MEDIUMTEXT
    251: "bytes",  # LONGBLOB / LONGTEXT
    252: "bytes",  # BLOB / TEXT
    6: "null",  # NULL
    255: "null",  # GEOMETRY (unsupported by TiCDC)
    0: "null",  # unspecified / MySQL's old DECIMAL
}

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
    """Shared construct protocol of the chunks: ``count`` is evaluated like Array's."""

    def __init__(self, count):
        super().__init__()
        self.count = count

    def _count(self, context, offset: int) -> int:
        n = evaluate(self.count, context)
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=offset)
        _limits.current(context).check("max_count", n, offset=offset)
        return n

    def _parse(self, stream, context, path):
        return self._read(stream, self._count(context, stream.tell()), _limits.current(context))

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
        return self._build_n(obj, stream, evaluate(self.count, context))

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
        from construct.expr import ExprMixin

        if isinstance(self.count, int) or isinstance(self.count, ExprMixin):
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


def _unpack_varints(read, buf, pos, end, n, limits):
    _check_count(n, pos, end, limits)
    out = []
    i = 0
    try:
        for i in range(n):
            v, pos = read(buf, pos, end=end)
            out.append(v)
    except DecodeError as err:
        raise _at(err, index=i)
    return out, pos


class UVarIntChunk(_Chunk):
    """``count`` unsigned varints back to back.

    >>> UVarIntChunk(3).parse(bytes.fromhex("0f fe01 0a")), UVarIntChunk(1).build([300]).hex()
    (ListContainer([15, 254, 10]), 'ac02')
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(read_uvarint, buf, pos, end, n, limits)

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
        return _unpack_varints(read_zigzag, buf, pos, end, n, limits)

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
        _check_count(n, pos, end, limits)
        out = []
        acc = i = 0
        try:
            for i in range(n):
                d, pos = read_uvarint(buf, pos, end=end)
                acc = (acc + d) & U64
                out.append(acc)
        except DecodeError as err:
            err.add_path(index=i)
            raise
        return out, pos

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
        _check_count(n, pos, end, limits)
        out = []
        acc = i = 0
        try:
            for i in range(n):
                d, pos = read_zigzag(buf, pos, end=end)
                acc = _wrap64(acc + d)
                out.append(acc)
        except DecodeError as err:
            err.add_path(index=i)
            raise
        return out, pos

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

    def __init__(self, count, encoding: str | None = None):
        super().__init__(count)
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
        lengths, pos = _unpack_varints(read_uvarint, buf, pos, end, n, limits)
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
        lengths, pos = _unpack_varints(read_zigzag, buf, pos, end, n, limits)
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
