"""TiCDC Craft: the runtime primitives its spec names, and the mapping to events.

A Craft message (``specs/ticdc_craft.yaml``, record ``frame``; ``research/craft.md``) is::

    version (uvarint) | header | bodies | term dictionary | size tables | len(size tables)

The spec declares that layout; this module supplies what construct lacks for it: the
chunks, whose element count comes from elsewhere (they take ``count`` as construct's
:class:`~construct.Array` does: an int, ``this.n`` or a callable), the size tables and
the term dictionary (regions that use all the bytes they are given), and the reversed
uvarint read backwards from the end:

    >>> from construct import Struct, this
    >>> s = Struct("n" / UVarIntChunk(1), "ids" / DeltaVarIntChunk(lambda ctx: ctx.n[0]))
    >>> s.parse(bytes.fromhex("03 04 02 03")).ids
    ListContainer([2, 3, 1])

Each of them also has a bytes-level protocol: ``unpack(buf, pos, end, ...) -> (value,
new_pos)`` raising :class:`DecodeError` with offsets into ``buf``, and ``pack(value,
out: bytearray)`` raising :class:`EncodeError`.

:class:`CraftMessage` maps the spec's frame to the shared event model of
:mod:`runtime.formats.ticdc` (names through the term dictionary, values by the spec's type-code
table) and back; its ``encode_events`` batches like tiflow does.
"""

from __future__ import annotations

import functools
import io
import operator
import struct
from collections.abc import Iterable, Iterator
from itertools import accumulate as _accumulate

from construct import Construct, ConstructError, Container, ListContainer, SizeofError, evaluate
from construct.expr import ExprMixin

from runtime.core import codec as _codec
from runtime.core import limits as _limits
from runtime.core import tier as _tier
from runtime.core.codec import build_fast
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.leb128 import (
    MAX_BYTES,
    read_reversed_uvarint,
    read_uvarint,
    read_zigzag,
    skip_varints,
    write_reversed_uvarint,
    write_uvarint,
    write_zigzag,
)
from runtime.core.spans import current as current_spans
from runtime.formats.ticdc import (
    FLAG_UNSIGNED,
    Column,
    DdlEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
)
from runtime.formats.ticdc_json import EXTRA_KEYS, EventNames, bytes_value_from_json, text_or_hex

# -------------------------------------------------------------------------------------
# Column value encodings: MySQL type code -> how the value bytes are encoded. The table and
# what each kind means are the spec's (``specs/ticdc_craft.yaml``: the ``craft`` attribute
# of ``column_type``, generated as ``COLUMN_TYPE_CRAFT``; the codes are MySQL's, imported
# from ``specs/mysql_types.yaml``); this module implements the kinds (:func:`decode_value`).
# A code missing from the table is rejected on both decode and encode.
# -------------------------------------------------------------------------------------
VALUE_KINDS = ("int", "sint", "uint", "float64", "text", "bytes", "null")

_COMPILED = _tier.compiled("runtime._compiled.craft")
"""The compiled tier's reader of whole messages (runtime/_compiled/craft.pyx), or None."""

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
    runtime.core.errors.DecodeError: <message> at offset 0: float64 value needs 8 bytes, got 7
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


def _bad_element(message, buf, chunk_start, i, name):
    """A DecodeError at element ``i`` of the varint chunk starting at ``chunk_start``."""
    return _at(DecodeError(message, offset=skip_varints(buf, chunk_start, i)), name, index=i)


def _read_frame(frame, buf, limits, spans=None, encodings=None):
    """Parse a message with the spec's ``frame`` record, then check what the event model
    needs beyond the layout; returns the frame model and the positions of each column
    group's types and values (for the offsets of value errors).

    ``spans`` (a :class:`runtime.core.spans.SpanRecorder`, for ``wirespec inspect``) gets the
    byte range of every field, element by element, with names and values resolved: each
    region is re-walked by the ``_record_*`` functions once it has been checked, so the
    untraced path pays nothing. ``encodings`` (type code -> kind) only serves the column
    values shown in those spans."""
    limits.check("max_message_bytes", len(buf), offset=0)
    try:
        model = _parse_frame(frame, buf, limits)
        at, positions = _check_frame(buf, model)
    except DecodeError:
        if spans is not None:  # show the fields read before the error, as the frame has them
            _parse_frame(frame, buf, limits, spans)
        raise
    if spans is not None:
        _record_frame(spans, buf, model, at, encodings)
    return model, positions


def _check_frame(buf, model) -> tuple[_Layout, dict]:
    """What the event model needs beyond the layout of a parsed frame; returns where its
    parts start and the positions :func:`_check_bodies` gives."""
    at = _Layout(buf, model)
    _check_header(buf, model, at)
    return at, _check_bodies(buf, model, at)


def _checked_events(buf, model, encodings) -> list[Event]:
    """The events of a parsed frame, checked as :func:`_read_frame` checks it."""
    _, positions = _check_frame(buf, model)
    return _to_events(model, positions, buf, encodings)


def _parse_frame(frame, buf, limits, spans=None):
    stream = io.BytesIO(buf)
    extra = {} if spans is None else {"spans": spans}
    try:
        return frame.parse_stream(stream, limits=limits, **extra)
    except ConstructError as err:
        raise DecodeError(str(err), offset=stream.tell()) from None


class _Layout:
    """Where the parts of a parsed frame start (its size tables say it)."""

    def __init__(self, buf, model):
        tables = model.size_tables
        _, self.header_start = read_uvarint(buf, 0)
        self.tail = read_reversed_uvarint(buf, len(buf))[1]
        self.tables_start = self.tail - model.size_tables_length
        self.header_end = self.header_start + tables[0][0]
        self.body_starts = list(_accumulate(tables[1][:-1], initial=self.header_end))
        self.dict_start = self.tables_start - tables[0][1]


def _check_header(buf, model, at: _Layout) -> None:
    """Rows never mix with DDL/resolved events; names are term ids (or -1 where allowed)."""
    h, n, nterms = model.header, len(model.size_tables[1]), len(model.term_dictionary)
    starts = {"commit_ts": at.header_start}
    for name, prev in (("type", "commit_ts"), ("partition", "type"), ("schema", "partition"),
                       ("table", "schema")):  # fmt: skip
        starts[name] = skip_varints(buf, starts[prev], n)
    types = h.type
    rows = types.count(EVENT_ROW)
    if 0 < rows < n:
        raise _at(
            _at(DecodeError("row events mixed with DDL/resolved events", offset=starts["type"]),
                "type"),
            "header",
        )  # fmt: skip
    for i, t in enumerate(types):
        for name in ("partition", "schema", "table"):
            v = h[name][i]
            if t == EVENT_RESOLVED or (t == EVENT_DDL and name == "partition"):
                ok, allowed = v == -1, "always -1 here"
            elif name == "partition":
                ok, allowed = v >= -1, "-1 = none, else a table id"
            else:
                ok, allowed = -1 <= v < nterms, f"-1 .. {nterms - 1}"
            what = "partition" if name == "partition" else "term id"
            message = f"{what} {v} out of range ({allowed})"
            if ok and name != "partition" and v >= 0 and not model.term_dictionary[v]:
                # the reference writes -1 for an empty name: a "" term would not rebuild
                ok, message = False, f"term id {v} is the empty name, which is written as -1"
            if not ok:
                err = _bad_element(message, buf, starts[name], i, name)
                raise _at(err, "header")


def _check_bodies(buf, model, at: _Layout) -> dict:
    """A row body has one NEW and/or one OLD group whose names are term ids."""
    nterms = len(model.term_dictionary)
    positions = {}
    for i, body in enumerate(model.bodies):
        if body.column_groups is None:
            continue
        pos, seen = at.body_starts[i], set()
        for g, group in enumerate(body.column_groups):
            where = ("bodies", i, "column_groups", g)
            if group.type in seen:
                raise _at_path(DecodeError(f"a second group of type {group.type}", offset=pos),
                               *where, "type")  # fmt: skip
            seen.add(group.type)
            count, names_pos = read_uvarint(buf, pos + 1)
            for j, term in enumerate(group.names):
                if not 0 <= term < nterms:
                    err = _bad_element(f"term id {term} out of range (0 .. {nterms - 1})",
                                       buf, names_pos, j, "names")  # fmt: skip
                    raise _at_path(err, *where)
            types_pos = skip_varints(buf, names_pos, count)
            positions[i, g] = (types_pos, skip_varints(buf, types_pos, 2 * count))
            pos += model.size_tables[2 + i][g]
        if not body.column_groups:
            raise _at_path(DecodeError("a row event needs at least one column group",
                                       offset=at.body_starts[i]), "bodies", i, "column_groups")  # fmt: skip
    return positions


def _at_path(err, *parts):
    """Prefix ``err``'s path with ``parts`` (names and list indices, outermost first)."""
    for part in reversed(parts):
        if isinstance(part, int):
            err.add_path(index=part)
        else:
            err.add_path(part)
    return err


def _record_frame(spans, buf, model, at: _Layout, encodings) -> None:
    terms, tables = model.term_dictionary, model.size_tables
    _region(spans, "version", 0, at.header_start, model.version)
    _record_header(spans, buf, at.header_start, at.header_end, model.header, terms)
    spans.open("bodies", at.header_end)
    for i, body in enumerate(model.bodies):
        b_end = at.body_starts[i] + tables[1][i]
        _record_body(spans, buf, i, at.body_starts[i], b_end, body, terms, encodings)
    spans.close(at.dict_start, model.bodies)
    _record_terms(spans, buf, at.dict_start, at.tables_start, terms)
    _record_tables(spans, buf, at.tables_start, at.tail, tables)
    spans.open("size_tables_length", at.tail)
    spans.mark(at.tail, len(buf), "reversed length", model.size_tables_length)
    spans.close(len(buf), model.size_tables_length)


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
    if body.query is not None:
        _, p = read_uvarint(buf, pos)
        _region(spans, "ddl_type", pos, p, body.ddl_type)
        pos = p
        spans.open("query", pos)
        ln, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "length", ln)
        spans.close(end, body.query)
    elif body.column_groups is not None:
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
    raw = group.values
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
        value = decode_value(code, flags, raw, encodings)
    except DecodeError:
        return raw
    if isinstance(value, bytes):  # a text column's bytes as its text (runtime.formats.ticdc_json)
        shown = text_or_hex(value, flags)
        return shown if isinstance(shown, str) else value
    return value


# -------------------------------------------------------------------------------------
# Messages <-> runtime.formats.ticdc events
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
    types, flags, raws = group.types, group.flags, group.values
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
        raise EncodeError(f"not a runtime.formats.ticdc event: {type(ev).__name__}")
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
                    values=values,
                )
                for group_type, names, types, flags, values in p.body
            ]
            bodies.append(Container(column_groups=groups, ddl_type=None, query=None))
        elif p.type == EVENT_DDL:
            bodies.append(
                Container(column_groups=None, ddl_type=p.body.ddl_type, query=p.body.query)
            )
        else:
            bodies.append(Container(column_groups=None, ddl_type=None, query=None))
    header = Container(
        commit_ts=[p.commit_ts for p in parts],
        type=[p.type for p in parts],
        partition=[p.partition for p in parts],
        schema=schemas,
        table=tables,
    )
    return Container(header=header, bodies=bodies, term_dictionary=list(terms))


def _parts_of(events, encodings) -> list[_Parts]:
    out = []
    for i, ev in enumerate(events):
        with _Path("events", i):
            out.append(_event_parts(ev, encodings))
    return out


# -------------------------------------------------------------------------------------
# The fast path's mapping: a frame read by the generated fast path -> events
# -------------------------------------------------------------------------------------
# The generated ``_read_frame`` (from the spec's ``frame`` record) reads the layout with
# construct's errors; what is left is the mapping, which _quick_events does with no error
# bookkeeping. At the first thing it does not like it gives up, and the checked mapping
# (_check_header, _check_bodies, _to_events) maps the same frame again and raises its
# precise DecodeError, so both paths fail the same way by construction; tests prove they
# return the same events. The type-code table from the spec drives both (``kinds``).
_K_INT, _K_SINT, _K_UINT, _K_F64, _K_TEXT, _K_BYTES, _K_NULL = range(7)
_KIND_CODES = dict(zip(VALUE_KINDS, range(7)))
_UNPACK_DOUBLE = _DOUBLE.unpack


class _GiveUp(Exception):
    """The quick mapping met something it leaves to the checked one."""


def _quick_events(model, kinds) -> list[Event]:
    """The events of a parsed frame, when everything in it is as the reference writes it
    (no error bookkeeping: anything else raises, and the caller maps the frame again with
    the checks of the construct path, which raise the exact error or decode the rest).
    ``kinds``: the value kind code of each type code (None: unknown)."""
    terms = model.term_dictionary
    nterms = len(terms)
    h = model.header
    types, partitions, schemas, tables = h.type, h.partition, h.schema, h.table
    rows = types.count(EVENT_ROW)
    if rows and rows != len(types):
        raise _GiveUp
    events = []
    append_event = events.append
    for i, body in enumerate(model.bodies):
        t, part, sid, tid = types[i], partitions[i], schemas[i], tables[i]
        if t == EVENT_RESOLVED:
            if part != -1 or sid != -1 or tid != -1:
                raise _GiveUp
            append_event(ResolvedEvent(h.commit_ts[i]))
            continue
        if not (-1 <= sid < nterms and -1 <= tid < nterms):
            raise _GiveUp
        schema = terms[sid] if sid >= 0 else None
        table = terms[tid] if tid >= 0 else None
        if schema == "" or table == "":  # the reference writes -1 for an empty name
            raise _GiveUp
        if t == EVENT_DDL:
            if part != -1:
                raise _GiveUp
            append_event(DdlEvent(h.commit_ts[i], schema, table, body.ddl_type, body.query))
            continue
        groups = body.column_groups
        if part < -1 or not groups:
            raise _GiveUp
        ev = RowChangedEvent(h.commit_ts[i], schema, table, None if part < 0 else part)
        seen = 0
        for group in groups:
            image = group.type  # GROUP_NEW (1) or GROUP_OLD (2): one bit each
            if image & seen:
                raise _GiveUp
            seen |= image
            names = group.names
            if names and (min(names) < 0 or max(names) >= nterms):
                raise _GiveUp
            codes, flags = group.types, group.flags
            values = _quick_values(codes, flags, group.values, kinds)
            columns = list(map(Column, map(terms.__getitem__, names), codes, flags, values))
            if image == GROUP_NEW:
                ev.new = columns
            else:
                ev.old = columns
        append_event(ev)
    return events


def _quick_values(codes, flags, raws, kinds) -> list:
    """:func:`decode_value` of every column of a group, raising on anything unusual."""
    values = []
    append = values.append
    for code, fl, raw in zip(codes, flags, raws):
        kind = kinds[code]  # an IndexError past 255, like an unknown code: the checked path
        if kind is None:
            raise _GiveUp
        if raw is None:
            append(None)
        elif kind == _K_BYTES:
            append(raw)
        elif kind == _K_TEXT:
            append(raw.decode())
        elif kind <= _K_UINT:  # a varint filling exactly the value bytes
            value = raw[0]
            if len(raw) == 1 and value < 0x80:
                pass
            elif len(raw) == 2 and value >= 0x80 and raw[1] < 0x80:
                value = (value & 0x7F) | (raw[1] << 7)
            else:
                value, used = read_uvarint(raw, 0)
                if used != len(raw):
                    raise _GiveUp
            if kind == _K_SINT or (kind == _K_INT and not fl & FLAG_UNSIGNED):
                value = (value >> 1) ^ -(value & 1)
            append(value)
        elif kind == _K_F64 and len(raw) == 8:
            append(_UNPACK_DOUBLE(raw)[0])
        else:  # NULL kind with a value, or a double that is not 8 bytes
            raise _GiveUp
    return values


# -------------------------------------------------------------------------------------
# The quick mapping of events to parts (what _event_parts makes of them)
# -------------------------------------------------------------------------------------
# Like _quick_events it never reports an error: an event it is not sure about (a type it
# does not expect exactly, a value out of range) goes to the checked _event_parts, which
# encodes it or raises the precise EncodeError. Tests hold both to the same bytes. The
# parts then become a frame (_assemble) that the spec's ``frame`` record builds.
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
    if value is None:
        return None
    if kind == "bytes":  # text for a text column (runtime.formats.ticdc_json), else {"$hex"}
        return bytes_value_from_json(value)
    if kind == "text":
        if isinstance(value, str):
            return value
        raise EncodeError(f"expected a string, got {value!r}")
    if kind == "float64":
        return _codec.float_from_json(value)
    if kind in ("sint", "uint"):
        return _int_json(value)
    raise EncodeError(f"this type code is always NULL, got {value!r}")


def _columns_json(items, encodings, names: EventNames):
    if items is None:
        return None
    if not isinstance(items, list):
        raise EncodeError(f"expected a list of columns, got {items!r}")
    out = []
    for j, c in enumerate(items):
        with _Path(None, j):
            with _Path("type"):
                code = names.type_from_json(_json_get(c, "type"))
            with _Path("flags"):
                flags = names.flags_from_json(c.get("flags", 0))
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


def _event_json(d, encodings, names: EventNames) -> Event:
    """One event from the JSON that :func:`_event_to_json` makes of it: the keys say
    which kind (``query``/``ddl_type``: DDL; ``new``/``old``: row; else resolved)."""
    with _Path("commit_ts"):
        ts = _int_json(_json_get(d, "commit_ts"))
    names.commit_ts_checked(d, ts)
    if "query" in d or "ddl_type" in d:
        with _Path("ddl_type"):
            ddl_type = names.ddl_type_from_json(_json_get(d, "ddl_type"))
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
                setattr(ev, image, _columns_json(d.get(image), encodings, names))
        return ev
    unknown = set(d) - {"commit_ts"} - EXTRA_KEYS
    if unknown:
        raise EncodeError(f"a resolved event has only commit_ts, not {sorted(unknown)}")
    return ResolvedEvent(ts)


def _event_to_json(ev: Event, names: EventNames) -> dict:
    """One event's JSON form: its fields in order, readable (runtime.formats.ticdc_json)."""
    out: dict = {}
    names.put_commit_ts(out, ev.commit_ts)
    if isinstance(ev, ResolvedEvent):
        return out
    out["schema"], out["table"] = ev.schema, ev.table
    if isinstance(ev, DdlEvent):
        out["ddl_type"] = names.ddl_type_json(ev.ddl_type)
        out["query"] = ev.query
        return out
    out["partition"] = _codec.to_jsonable(ev.partition)
    out["new"], out["old"] = names.image_json(ev.new), names.image_json(ev.old)
    out["row_id"] = _codec.to_jsonable(ev.row_id)
    out["handle_key_only"] = ev.handle_key_only
    out["claim_check_location"] = ev.claim_check_location
    return out


# -------------------------------------------------------------------------------------
# The construct, and the functions a generated module re-exports
# -------------------------------------------------------------------------------------
class CraftMessage(Construct):
    """A whole Craft message as its list of :mod:`runtime.formats.ticdc` events; it owns the rest
    of its stream (a Kafka message value).

    The layout is the spec's: ``frame`` is the construct of the spec's ``frame`` record
    (version, header, bodies, term dictionary, size tables), which this class parses and
    builds; what it adds is the mapping to events: term ids resolved, values decoded by
    ``value_encodings`` (type code -> kind, the spec's ``COLUMN_TYPE_CRAFT``), and on
    build the terms interned in the reference's order. Events are row events only, or a
    single DDL/resolved event, as the reference writes.

    Decoding reads the frame with the generated fast path's reader of ``frame`` once the
    generated module has given it (:meth:`use_fast_readers`), else with construct; the
    construct protocol (``_parse``, ``parse_construct``) always uses construct. Then the
    quick mapping makes the events, and where it gives up the checked one says why.
    ``fast=False`` leaves only the checked paths (the oracle the tests compare with);
    ``compiled=False`` never tries the compiled tier (the Python path the tests and
    benchmarks compare it with).

    >>> from generated.ticdc_craft import frame, COLUMN_TYPE_CRAFT
    >>> codec = CraftMessage(frame=frame, value_encodings=COLUMN_TYPE_CRAFT)
    >>> data = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    >>> codec.parse(data), codec.build(codec.parse(data)) == data
    ([ResolvedEvent(commit_ts=424316594097225729)], True)

    Raises :class:`DecodeError` (offset, path) for any malformed message and
    :class:`EncodeError` for events it cannot write.
    """

    def __init__(
        self,
        frame,
        value_encodings,
        *,
        fast: bool = True,
        compiled: bool = True,
        event_types=None,
        group_types=None,
        column_types=None,
        column_flags=None,
        ddl_types=None,
    ):
        super().__init__()
        self.frame = frame
        self.names = EventNames(column_types, column_flags, ddl_types)
        self.fast = fast
        self.use_compiled = compiled
        self.encodings = {int(k): v for k, v in value_encodings.items()}
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
        self._enums = event_types, group_types

    def use_fast_readers(self, frame) -> None:
        """Read frames with ``frame``, the generated fast path's reader of the spec's
        ``frame`` record (``(buf, pos, end, limits, depth) -> (model, pos)``: the model
        and the errors of the construct), instead of the construct.

        The spec's frame is then the one the compiled tier reads too: when it is built,
        its decoder (driven by the spec's value kinds and event and group types) is tried
        first, and wherever it declines this Python path decodes."""
        self._read_fast_frame = frame
        event_types, group_types = self._enums
        if _COMPILED is not None and self.use_compiled and None not in self._enums:
            self._compiled = _COMPILED.Decoder(
                self.encodings, [int(m) for m in event_types], [int(m) for m in group_types],
                VERSION, EVENT_ROW, EVENT_DDL, EVENT_RESOLVED, GROUP_NEW, GROUP_OLD,
            )  # fmt: skip

    _read_fast_frame = None
    _compiled = None
    _compiled_encoder = None

    def compiled_reader(self, model, field: str, defaults: _limits.Limits):
        """The compiled tier's ``parse`` of a record that is this one ``field`` (``model``,
        a slots dataclass): ``(data, limits) -> model``, or None to decline (then
        :meth:`read` decides); None when the tier is not built or not used. Called after
        :meth:`use_fast_readers`."""
        if self._compiled is None:
            return None
        return _COMPILED.MessageReader(self._compiled, model, field, defaults).parse

    def use_fast_writers(self, frame) -> None:
        """Write frames with ``frame``, the generated fast path's writer of the spec's
        ``frame`` record (``(model, out)`` appends construct's bytes to ``out``, or raises
        for construct to build it and say why), instead of the construct.

        The spec's frame is then the one the compiled tier writes too, when it is built:
        its encoder is tried first, and wherever it declines this Python path encodes."""
        self._write_fast_frame = frame
        if _COMPILED is not None and self.use_compiled:
            self._compiled_encoder = _COMPILED.Encoder(
                self.encodings, VERSION, EVENT_ROW, EVENT_DDL, EVENT_RESOLVED, GROUP_NEW, GROUP_OLD
            )

    _write_fast_frame = None

    def strategy(self):
        """A hypothesis strategy of the event lists this message carries (a test extra)."""
        from runtime.formats.ticdc_strategies import ticdc_events

        encodings = self.encodings
        return ticdc_events(lambda code, flags: value_kind(code, flags, encodings), encodings)

    # -- bytes-level API -------------------------------------------------------------
    def decode(self, data, limits: _limits.Limits = _limits.DEFAULT) -> list[Event]:
        """The events of one whole message."""
        buf = data if type(data) is bytes else bytes(data)
        if not self.fast or self._read_fast_frame is None:
            return self._decode_checked(buf, limits)
        if self._compiled is not None:
            events = self._compiled.decode(buf, limits)
            if events is not None:
                return events
        if len(buf) > limits.max_message_bytes:
            limits.check("max_message_bytes", len(buf), offset=0)
        model = self._read_fast_frame(buf, 0, len(buf), limits, 1)[0]
        try:
            return _quick_events(model, self._kinds)
        except Exception:  # noqa: BLE001 - the checked mapping says what is wrong
            return _checked_events(buf, model, self.encodings)

    def _decode_checked(self, buf: bytes, limits, spans=None) -> list[Event]:
        """The construct path: the frame parsed by construct, then checked and mapped."""
        model, positions = _read_frame(self.frame, buf, limits, spans, self.encodings)
        return _to_events(model, positions, buf, self.encodings)

    def encode(self, events) -> bytes:
        """One message of ``events`` (not batched: all go in this message)."""
        if self.fast and self._compiled_encoder is not None and type(events) is list:
            data = self._compiled_encoder.encode(events)
            if data is not None:
                return data
        if self.fast and type(events) is list and events:
            parts = [_quick_parts(ev, self._kinds) for ev in events]
            if None not in parts:
                return self._encode_checked(parts)
        return self._encode_checked(_parts_of(events, self.encodings))

    def _encode_checked(self, parts: list[_Parts]) -> bytes:
        if not parts:
            raise _at(EncodeError("a message holds at least one event"), "events")
        rows = sum(1 for p in parts if p.type == EVENT_ROW)
        if rows not in (0, len(parts)) or (not rows and len(parts) > 1):
            raise _at(EncodeError("a message holds row events, or one DDL or resolved event"),
                      "events")  # fmt: skip
        if self.fast and self._write_fast_frame is not None:
            return build_fast(self._write_fast_frame, self.frame, _assemble(parts))
        return self.frame.build(_assemble(parts))

    def read(self, buf, pos: int, end: int, limits: _limits.Limits = _limits.DEFAULT):
        """The fast-path protocol of generated modules: ``(model of buf[pos:end], end)``."""
        try:
            return self.decode(buf if pos == 0 and end == len(buf) else buf[pos:end], limits), end
        except DecodeError as err:
            err.shift(pos)
            raise

    def decode_message(self, data, **limits) -> Iterator[Event]:
        """The events of one Craft message, in order (``limits`` as in :mod:`runtime.core.limits`).

        >>> from generated.ticdc_craft import decode_message
        >>> [e.op for e in decode_message(bytes.fromhex("018180e0bb9bb6def10503010101021a19010005"))]
        ['resolved']
        """
        lim = _limits.Limits.from_kwargs(limits) if limits else _limits.DEFAULT
        return iter(self.decode(data, lim))

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

        >>> from generated.ticdc_craft import encode_events
        >>> from runtime.formats.ticdc import ResolvedEvent
        >>> [m.hex() for m in encode_events([ResolvedEvent(424316594097225729)])]
        ['018180e0bb9bb6def10503010101021a19010005']
        """
        if max_batch_size < 1 or max_message_bytes < 1:
            raise EncodeError("max_batch_size and max_message_bytes must be positive")
        if self.fast and self._compiled_encoder is not None and type(events) is list:
            messages = self._compiled_encoder.encode_events(
                events, max_batch_size, max_message_bytes
            )
            if messages is not None:
                yield from messages
                return
        encodings, kinds = self.encodings, self._kinds
        pack = self._encode_checked
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

    def to_json(self, events) -> list[dict]:
        """The JSON form of events: readable codes, text and commit times
        (:mod:`runtime.formats.ticdc_json`)."""
        return [_event_to_json(ev, self.names) for ev in events]

    def put(self, out: dict, name: str, events) -> None:
        """The view protocol of ``runtime.core.codec.to_jsonable`` (a module's ``JSON_VIEWS``)."""
        out[name] = self.to_json(events)

    def from_json(self, value, path: str = "") -> list[Event]:
        """The events of the JSON form :meth:`to_json` makes of them (numbers for codes,
        ``{"$hex"}`` for text are taken too)."""
        if not isinstance(value, list):
            raise EncodeError(f"expected a list of events, got {type(value).__name__}")
        out = []
        for i, d in enumerate(value):
            with _Path("events", i):
                out.append(_event_json(d, self.encodings, self.names))
        return out

    # -- construct protocol ------------------------------------------------------------
    def _parse(self, stream, context, path):
        start = stream.tell()
        buf = stream.read()
        spans = current_spans(context)
        try:
            if spans is not None:  # wirespec inspect: the checked path reports its fields
                with spans.shifted(start):
                    return self._decode_checked(buf, _limits.current(context), spans)
            return self._decode_checked(buf, _limits.current(context))
        except DecodeError as err:
            err.shift(start)
            raise

    def _build(self, obj, stream, context, path):
        stream.write(self.encode(obj))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a craft message has a variable size", path=path)


def _check_enum(enum_class, expected: dict) -> None:
    """The spec's enum (event or group types) must say what this runtime implements."""
    if enum_class is None:
        return
    found = {m.name: int(m) for m in enum_class}
    if any(found.get(name) != value for name, value in expected.items()):
        raise SpecError(f"{enum_class.__name__} must include {expected}, found {found}")
