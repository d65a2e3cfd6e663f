"""TiCDC Craft's columnar primitives: chunks, the size tables, the term dictionary, and the
reversed uvarint of the trailer (``specs/ticdc_craft.yaml``, ``research/craft.md``).

The spec declares the layout of a Craft message; these are the constructs it names where
construct lacks one: the chunks, whose element count comes from elsewhere (they take
``count`` as construct's :class:`~construct.Array` does: an int, ``this.n`` or a callable),
the size tables and the term dictionary (regions that use all the bytes they are given),
and the reversed uvarint read backwards from the end:

    >>> from construct import Struct, this
    >>> s = Struct("n" / UVarIntChunk(1), "ids" / DeltaVarIntChunk(lambda ctx: ctx.n[0]))
    >>> s.parse(bytes.fromhex("03 04 02 03")).ids
    ListContainer([2, 3, 1])

Each of them also has a bytes-level protocol: ``unpack(buf, pos, end, ...) -> (value,
new_pos)`` raising :class:`DecodeError` with offsets into ``buf``, and ``pack(value,
out: bytearray)`` raising :class:`EncodeError`.
"""

from __future__ import annotations

import functools
import operator
from itertools import accumulate as _accumulate

from construct import Construct, ListContainer, SizeofError, evaluate
from construct.expr import ExprMixin

from runtime.core import limits as _limits
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.leb128 import (
    MAX_BYTES,
    read_reversed_uvarint,
    read_uvarint,
    skip_varints,
    write_reversed_uvarint,
    write_uvarint,
    write_zigzag,
)
from runtime.core.spans import current as current_spans

U64 = (1 << 64) - 1
_I64 = 1 << 63


def _wrap64(v: int) -> int:
    """Wrap to int64 as Go's integer arithmetic does."""
    return ((v + _I64) & U64) - _I64


def _check_count(n, pos: int, end: int, limits: _limits.Limits) -> None:
    # Every element takes at least one byte, so this bounds allocation by the input size.
    if type(n) is not int or n < 0:
        raise DecodeError(f"invalid element count {n!r}", offset=pos)
    if n > limits.max_count:
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

    # How ``wirespec inspect`` shows the elements (the roles of base and deltas).
    _signed = _delta = False

    def _parse(self, stream, context, path):
        start = stream.tell()
        values = self._read(stream, self._count(context, start), _limits.current(context))
        spans = current_spans(context)
        if spans is not None:
            end = stream.tell()
            stream.seek(start)
            raw = stream.read(end - start)
            with spans.shifted(start):
                self._record(spans, raw, values)
        return values

    def read(self, buf, pos: int, end: int, n, limits: _limits.Limits = _limits.DEFAULT):
        """What ``_parse`` does, on bytes (the generated fast path calls it): ``n``
        elements from ``buf[pos:end]`` -> ``(list, next_pos)``, the same errors."""
        if (
            type(n) is int
            and 0 <= n <= limits.max_count
            and n <= end - pos
            and buf[pos : pos + n].isascii()
        ):  # n one-byte varints, the usual chunk: the bytes are the values
            stop = pos + n
            values = list(map(_unzigzag, buf[pos:stop])) if self._signed else list(buf[pos:stop])
            if self._delta:  # deltas of one byte: no sum of them reaches 2**63
                values = list(_accumulate(values))
        else:  # the varint chunks' loop (a payload chunk has its own read)
            values, stop = _unpack_varints(buf, pos, end, n, limits, self._signed, self._delta)
        if self.enum is not None:
            by_value = self._by_value
            try:
                values = list(map(by_value.__getitem__, values))
            except KeyError:
                i = next(i for i, v in enumerate(values) if v not in by_value)
                message = f"{values[i]} is not a {self.enum.__name__}"
                raise _at(DecodeError(message, offset=skip_varints(buf, pos, i)), index=i) from None
        return values, stop

    @functools.cached_property
    def _by_value(self) -> dict:
        return {m.value: m for m in self.enum}

    def _record(self, spans, raw: bytes, values) -> None:
        _record_varints(spans, raw, None, 0, values, self._signed, self._delta)

    _MOST_BYTES = MAX_BYTES
    """The most bytes one element takes (None: the payloads run to the end of the stream)."""

    def _read(self, stream, n: int, limits: _limits.Limits):
        """:meth:`read` on a construct stream (one bounded read; the unused tail is given
        back)."""
        start = stream.tell()
        data = stream.read(n * self._MOST_BYTES if self._MOST_BYTES else -1)
        try:
            values, used = self.read(data, 0, len(data), n, limits)
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


_ZIGZAG = [(b >> 1) ^ -(b & 1) for b in range(128)]
"""ZigZag decoding of the one-byte varints."""
_unzigzag = _ZIGZAG.__getitem__
_IDENTITY = list(range(128))
"""The value of each one-byte uvarint (a table like _ZIGZAG, for one loop over both)."""


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
            elif pos + 1 < end and buf[pos + 1] < 0x80:  # type codes >= 128, flags, sizes
                v = (v & 0x7F) | (buf[pos + 1] << 7)
                pos += 2
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


_MANY = 4
"""From this many elements on, a chunk's quick pack (no loop in Python) pays for its checks."""
_UVARINTS_OF_BYTES = [write_uvarint(v) for v in range(0x100)]


class UVarIntChunk(_Chunk):
    """``count`` unsigned varints back to back.

    >>> UVarIntChunk(3).parse(bytes.fromhex("0f fe01 0a")), UVarIntChunk(1).build([300]).hex()
    (ListContainer([15, 254, 10]), 'ac02')
    """

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits)

    def pack(self, values, n, out):
        _check_len(values, n)
        if len(values) >= _MANY and set(map(type, values)) == {int} and 0 <= min(values):
            top = max(values)
            if top < 0x80:
                out += bytes(values)  # one-byte varints are their values
                return
            if top < 0x100:  # type codes and flag bytes: their varints from a table
                out += b"".join(map(_UVARINTS_OF_BYTES.__getitem__, values))
                return
            if top <= U64:  # all in range: no element to name in an error
                out += b"".join(map(write_uvarint, values))
                return
        for i, v in enumerate(values):
            out += _indexed(write_uvarint, v, i)


class VarIntChunk(_Chunk):
    """``count`` ZigZag varints back to back (not used by the released format).

    >>> VarIntChunk(3).parse(bytes.fromhex("01 02 03")), VarIntChunk(1).build([-13]).hex()
    (ListContainer([-1, 1, -2]), '19')
    """

    _signed = True

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

    _delta = True

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits, delta=True)

    def pack(self, values, n, out):
        _check_len(values, n)
        if len(values) >= _MANY and set(map(type, values)) == {int}:
            deltas = list(map(operator.sub, values, [0, *values]))
            if min(deltas) >= 0 and max(deltas) < 0x80:  # one-byte deltas are their bytes
                out += bytes(deltas)
                return
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

    _signed = True
    _delta = True

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        return _unpack_varints(buf, pos, end, n, limits, signed=True, delta=True)

    def pack(self, values, n, out):
        _check_len(values, n)
        if len(values) >= _MANY and set(map(type, values)) == {int}:
            deltas = map(operator.sub, values, [0, *values])
            zigzag = [d + d if d >= 0 else -d - d - 1 for d in deltas]
            if max(zigzag) < 0x80:  # |delta| < 64, so no int64 wrap: the ZigZag bytes
                out += bytes(zigzag)
                return
        prev = 0
        for i, v in enumerate(values):
            if type(v) is not int or not -_I64 <= v < _I64:
                raise _at(EncodeError(f"{v!r} is not an int64"), index=i)
            d = v - prev
            if not -_I64 <= d < _I64:
                d = _wrap64(d)
            out += write_uvarint((d << 1) ^ (d >> 63))  # the ZigZag varint of an int64
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

    # The rest of the stream (a sized region), so a payload that does not fit is reported
    # at its own element.
    _MOST_BYTES = None

    def read(self, buf, pos: int, end: int, n, limits: _limits.Limits = _limits.DEFAULT):
        """:meth:`_Chunk.read`: the usual chunk (one-byte lengths, payloads that fit, valid
        text) in one loop; at anything else the exact :meth:`unpack` reads it again."""
        if type(n) is int and 0 <= n <= limits.max_count and n <= end - pos and type(buf) is bytes:
            p = pos + n
            raw = buf[pos:p]
            if raw.isascii():
                lengths = _ZIGZAG if self._signed else _IDENTITY
                encoding, most = self.encoding, limits.max_string
                out = []
                append = out.append
                try:
                    for b in raw:
                        ln = lengths[b]
                        if ln < 0:
                            if ln != -1:
                                break
                            append(None)
                            continue
                        q = p + ln
                        if ln > most or q > end:
                            break
                        append(buf[p:q])
                        p = q
                    else:
                        if not encoding:
                            return out, p
                        if None not in out and encoding in ("utf-8", "utf8"):
                            return list(map(bytes.decode, out)), p
                        return [v if v is None else v.decode(encoding) for v in out], p
                except UnicodeDecodeError:
                    pass
        return self.unpack(buf, pos, end, n, limits)

    def _record(self, spans, raw: bytes, values) -> None:
        lengths = [-1 if v is None else len(self._payload(v)) for v in values]
        pos = _record_varints(spans, raw, "lengths", 0, lengths, signed=self._signed)
        _record_payloads(spans, raw, "payloads", pos, lengths, values)

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
        if self._pack_quick(values, out):
            return
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

    def _pack_quick(self, values, out) -> bool:
        """:meth:`pack` of the usual chunk (bytes, text with an encoding, NULLs where they
        are allowed) without a loop in Python over the elements; False leaves anything else
        to the exact loop, which says what is wrong."""
        encoding, nullable = self.encoding, self._signed
        kinds = set(map(type, values))
        plain = {bytes, type(None)} if nullable else {bytes}
        if kinds <= plain:
            payloads = values
        elif encoding and kinds <= plain | {str}:
            payloads = [
                v.encode(encoding, "surrogateescape") if type(v) is str else v for v in values
            ]
        else:
            return False
        if nullable:  # ZigZag lengths, -1 for NULL
            lengths = [1 if p is None else len(p) << 1 for p in payloads]
        else:
            lengths = list(map(len, payloads))
        if lengths and max(lengths) >= 0x80:
            out += b"".join(map(write_uvarint, lengths))
        else:  # one-byte varints are their values
            out += bytes(lengths)
        out += b"".join(filter(None, payloads))
        return True


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

    _signed = True

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
    if not lengths or (min(lengths) >= -1 and max(lengths) <= limits.max_string):
        return
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


# -------------------------------------------------------------------------------------
# The trailer, size tables and the term dictionary
# -------------------------------------------------------------------------------------
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
    """A construct that owns the rest of its stream (a spec gives it a ``size:``)."""

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read()
        try:
            value = self.unpack(data, 0, len(data), _limits.current(context))
        except DecodeError as err:
            err.shift(start)
            raise
        spans = current_spans(context)
        if spans is not None:
            with spans.shifted(start):
                self._record(spans, data, len(data), value)
        return value

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
        tables = self._quick(buf, pos, end, limits)
        if tables is None:
            tables = self.unpack_with_offsets(buf, pos, end, limits)[0]
        return ListContainer(tables)

    @staticmethod
    def _quick(buf, pos, end, limits):
        """The usual tables (one-byte counts, entries of one or two bytes) in one loop; None
        for anything else, which the exact reader reads again."""
        tables = []
        most = min(limits.max_count, 0x7F)
        while pos < end:
            n = buf[pos]
            pos += 1
            if n > most or n > end - pos:
                return None
            table = []
            append = table.append
            acc = 0
            for _ in range(n):
                v = buf[pos] if pos < end else 0xFF
                if v < 0x80:
                    pos += 1
                elif pos + 1 < end and buf[pos + 1] < 0x80:
                    v = (v & 0x7F) | (buf[pos + 1] << 7)
                    pos += 2
                else:
                    return None
                acc += (v >> 1) ^ -(v & 1)  # |entry| < 2**13, n < 128: no int64 wrap
                append(acc)
            tables.append(table)
        return tables

    def unpack_with_offsets(self, buf, pos, end, limits=_limits.DEFAULT):
        """Also return where each table starts (its count), to point errors at entries."""
        tables, starts = [], []
        while pos < end:
            starts.append(pos)
            try:
                n = buf[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_uvarint(buf, pos, end=end)
                table, pos = self._chunk.read(buf, pos, end, n, limits)
            except DecodeError as err:
                raise _at(err, index=len(tables))
            tables.append(table)
        return tables, starts

    def _record(self, spans, data, end, tables):
        _record_tables(spans, data, 0, end, tables, key=None)

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
        terms, p = self._chunk.read(buf, p, end, n, limits)
        if p != end:
            raise DecodeError(f"{end - p} bytes after the last term", offset=p)
        return ListContainer(terms)

    def _record(self, spans, data, end, terms):
        _record_terms(spans, data, 0, end, terms, key=None)

    def pack(self, terms, out):
        if terms:
            out += write_uvarint(len(terms))
            self._chunk.pack(terms, len(terms), out)


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


def _record_tables(spans, buf, pos, end, tables, key="size_tables"):
    """``key`` None: into the node the caller opened (the record's field)."""
    if key is not None:
        spans.open(key, pos)
    for t, table in enumerate(tables):
        spans.open(t, pos)
        n, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "count", n)
        pos = _record_varints(spans, buf, None, p, table, signed=True, delta=True)
        spans.close(pos, ListContainer(table))
    if key is not None:
        spans.close(end, tables)


def _record_terms(spans, buf, pos, end, terms, key="term_dictionary"):
    if key is not None:
        spans.open(key, pos)
    if terms:
        n, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "count", n)
        lengths = [len(t.encode("utf-8")) for t in terms]
        p = _record_varints(spans, buf, "lengths", p, lengths)
        _record_payloads(spans, buf, "terms", p, lengths, terms)
    if key is not None:
        spans.close(end, terms)
