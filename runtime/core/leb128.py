"""LEB128 varints as Go's ``encoding/binary`` writes them (TiCDC Craft, Thrift Compact).

An unsigned varint stores 7 bits per byte, least-significant group first, with 0x80 set
on every byte but the last. Like Go's ``binary.Uvarint`` a reader takes at most 10 bytes
and the 10th may only be 0x00 or 0x01, so every value fits in 64 bits; ``bits`` narrows
that further (Thrift's i16/i32). Signed values are ZigZag-mapped first
(0, -1, 1, -2 -> 0, 1, 2, 3):

    >>> write_uvarint(300).hex(), read_uvarint(b"\\xac\\x02", 0)
    ('ac02', (300, 2))
    >>> write_zigzag(-13).hex(), read_zigzag(b"\\x19", 0)
    ('19', (-13, 1))
    >>> UVarInt().parse(b"\\xff\\x01"), ZigZagVarInt(bits=32).build(-2).hex()
    (255, '03')

Readers accept non-shortest forms (``80 00`` is 0), as Go does (the stream and reversed readers note
them: ``runtime.core.kept``); writers always write the shortest form. Bad bytes raise :class:`DecodeError` with the offset where the varint
starts; out-of-range values raise :class:`EncodeError`.

The ``read_*``/``write_*`` functions work on bytes and are the fast path that generated
code calls; the construct classes wrap the same logic for streams.
"""

from __future__ import annotations

from runtime.core import kept
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.stream import StreamVarInt, as_int, ran_out, read_ahead

MAX_BYTES = 10
"""Longest varint Go writes for a uint64 (``binary.MaxVarintLen64``)."""

# One-byte encodings, prebuilt: almost every varint in practice is a small count or length.
_SMALL = [bytes((i,)) for i in range(128)]


def read_uvarint(buf, pos: int = 0, *, bits: int = 64, max_bytes: int = MAX_BYTES, end=None):
    """Decode the unsigned varint of ``buf`` at ``pos``; returns ``(value, new_pos)``.

    ``end`` (default ``len(buf)``) bounds the bytes it may read.

    >>> read_uvarint(b"\\x00\\x80\\x01", 1)
    (128, 3)
    >>> read_uvarint(b"\\xff" * 9 + b"\\x02")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: varint overflows 64 bits
    """
    if end is None:
        end = len(buf)
    if pos < end:
        b = buf[pos]
        if b < 0x80:  # the common case: one byte
            if b >> bits:
                raise DecodeError(f"varint {b} exceeds {bits} bits", offset=pos)
            return b, pos + 1
    start = pos
    stop = min(end, pos + max_bytes)
    value = shift = 0
    while pos < stop:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
    else:
        if pos - start == max_bytes:
            raise DecodeError(f"varint longer than {max_bytes} bytes", offset=start)
        raise DecodeError(
            f"truncated varint: input ends {pos - start} byte(s) into it", offset=start
        )
    if value >> 64:
        raise DecodeError("varint overflows 64 bits", offset=start)
    if value >> bits:
        raise DecodeError(f"varint {value} exceeds {bits} bits", offset=start)
    return value, pos


def read_zigzag(buf, pos: int = 0, *, bits: int = 64, max_bytes: int = MAX_BYTES, end=None):
    """Decode the ZigZag varint of ``buf`` at ``pos`` to a signed int of ``bits`` width.

    >>> read_zigzag(b"\\x01"), read_zigzag(b"\\xd8\\x01")
    ((-1, 1), (108, 2))
    """
    u, pos = read_uvarint(buf, pos, bits=bits, max_bytes=max_bytes, end=end)
    return (u >> 1) ^ -(u & 1), pos


def skip_varints(buf, pos: int, n: int) -> int:
    """Position after ``n`` varints from ``pos`` (used only to locate errors precisely).

    >>> skip_varints(b"\\x01\\x80\\x01\\x02", 0, 2)
    3
    """
    for _ in range(n):
        while pos < len(buf) and buf[pos] & 0x80:
            pos += 1
        pos += 1
    return pos


def write_uvarint(value, *, bits: int = 64) -> bytes:
    """The shortest encoding of the unsigned ``value`` (``0 .. 2**bits - 1``).

    >>> write_uvarint(2**64 - 1).hex()
    'ffffffffffffffffff01'
    >>> write_uvarint(-1)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: uvarint -1 is out of range for uint64
    """
    if type(value) is not int:
        value = as_int(value)
    if 0 <= value < 0x80 and not value >> bits:
        return _SMALL[value]
    if value < 0 or value >> bits:
        raise EncodeError(f"uvarint {value} is out of range for uint{bits}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def zigzag_decode(value: int) -> int:
    """ZigZag unsigned to signed: 0, 1, 2, 3 -> 0, -1, 1, -2."""
    return (value >> 1) ^ -(value & 1)


def write_zigzag(value, *, bits: int = 64) -> bytes:
    """The ZigZag varint of the signed ``value`` (``-2**(bits-1) .. 2**(bits-1) - 1``).

    >>> write_zigzag(-(2**63)).hex(), write_zigzag(216).hex()
    ('ffffffffffffffffff01', 'b003')
    """
    if type(value) is not int:
        value = as_int(value)
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise EncodeError(f"zigzag varint {value} is out of range for int{bits}")
    return write_uvarint(value << 1 if value >= 0 else (-value << 1) - 1)


def read_reversed_uvarint(buf, end: int | None = None, start: int = 0) -> tuple[int, int]:
    """Read the uvarint whose bytes are stored reversed and end at ``end`` (a trailer
    read from the end of a record), examining no byte before ``start``.

    Returns ``(value, first)``, where ``first`` is the offset of its first byte.

    >>> read_reversed_uvarint(bytes.fromhex("ff 01c6"))
    (198, 1)
    """
    if end is None:
        end = len(buf)
    lo = max(start, end - MAX_BYTES)
    backwards = bytes(buf[lo:end])[::-1]
    try:
        value, used = read_uvarint(backwards, 0)
    except DecodeError as err:
        # Forward offsets: the field would start at the lowest byte it examined.
        raise DecodeError(f"reversed uvarint: {err.message}", offset=lo) from None
    if not backwards[used - 1] and used > 1:  # longer than it needs: its message keeps it
        kept.note()
    return value, end - used


def write_reversed_uvarint(value) -> bytes:
    """The bytes of ``write_uvarint(value)`` in reverse order.

    >>> write_reversed_uvarint(198).hex()
    '01c6'
    """
    return write_uvarint(value)[::-1]


def parse_uvarint_stream(stream, bits: int = 64, max_bytes: int = MAX_BYTES) -> int:
    """Read one unsigned varint from a construct stream (errors: offset in that stream)."""
    start = stream.tell()
    # One bounded read instead of a read per byte; the unused tail is given back.
    data = read_ahead(stream, max_bytes)
    try:
        value, used = read_uvarint(data, 0, bits=bits, max_bytes=max_bytes)
    except DecodeError as err:
        if len(data) < max_bytes:  # truncated: it ran out of input
            ran_out(stream)
        err.shift(start)
        raise
    stream.seek(start + used)
    if not data[used - 1] and used > 1:  # longer than it needs: its message keeps it
        kept.note()
    return value


def parse_zigzag_stream(stream, bits: int = 64, max_bytes: int = MAX_BYTES) -> int:
    """Read one ZigZag varint from a construct stream."""
    return zigzag_decode(parse_uvarint_stream(stream, bits, max_bytes))


def build_uvarint_stream(obj, stream, bits: int = 64):
    """Write ``obj`` as an unsigned varint to a construct stream; returns ``obj``."""
    stream.write(write_uvarint(obj, bits=bits))
    return obj


def build_zigzag_stream(obj, stream, bits: int = 64):
    """Write ``obj`` as a ZigZag varint to a construct stream; returns ``obj``."""
    stream.write(write_zigzag(obj, bits=bits))
    return obj


class _LEB128(StreamVarInt):
    """Shared shape of :class:`UVarInt` and :class:`ZigZagVarInt`."""

    _read = staticmethod(parse_uvarint_stream)
    _write = staticmethod(build_uvarint_stream)

    def __init__(self, *, bits: int = 64, max_bytes: int = MAX_BYTES):
        super().__init__()
        if not 1 <= bits <= 64:
            raise SpecError(f"varint bits must be 1..64, not {bits!r}")
        if not 1 <= max_bytes <= MAX_BYTES:
            raise SpecError(f"varint max_bytes must be 1..{MAX_BYTES}, not {max_bytes!r}")
        self.bits, self.max_bytes = bits, max_bytes

    def read_args(self) -> tuple:
        return (self.bits, self.max_bytes)

    def __repr__(self):
        return f"{type(self).__name__}(bits={self.bits}, max_bytes={self.max_bytes})"


class UVarInt(_LEB128):
    """Unsigned LEB128 varint of at most ``max_bytes`` bytes whose value fits ``bits``.

    >>> UVarInt().parse(bytes.fromhex("ffffffffffffffffff01"))
    18446744073709551615
    >>> UVarInt(bits=16).parse(b"\\x80\\x80\\x04")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: varint 65536 exceeds 16 bits

    Raises :class:`DecodeError` on truncation, more than ``max_bytes`` bytes, overflow of
    64 bits or of ``bits``; :class:`EncodeError` for a negative or too wide value.
    """


class ZigZagVarInt(_LEB128):
    """Signed ZigZag varint whose value fits a ``bits``-wide two's complement int.

    >>> ZigZagVarInt().parse(b"\\x03"), ZigZagVarInt().build(-(2**63)).hex()
    (-2, 'ffffffffffffffffff01')
    >>> ZigZagVarInt(bits=16).build(40000)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: zigzag varint 40000 is out of range for int16
    """

    _read = staticmethod(parse_zigzag_stream)
    _write = staticmethod(build_zigzag_stream)
