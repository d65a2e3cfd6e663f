"""MySQL's msb-count variable-length integers (``mysql::serialization``).

This is **not** LEB128. The number of trailing 1-bits of the first byte, plus one, is the
total length; the bytes are little-endian and the value sits above the length marker:

    ======  ===================  ==============================
    length  byte 0 (bits 7..0)   value
    ======  ===================  ==============================
    1       ``vvvvvvv0``         ``W >> 1``   (0 .. 127)
    2       ``vvvvvv01``         ``W >> 2``   (.. 16383)
    n<=8    n-1 ones, a zero     ``W >> n``   (.. 2**(7n)-1)
    9       ``11111111``         bytes 1..8 as a plain uint64
    ======  ===================  ==============================

where W is the n bytes read as one little-endian integer. Writers use the shortest form;
readers accept longer ones, as MySQL does (``01 00`` reads as 0), and note them
(``runtime.core.kept``: the message that holds one keeps its bytes); the bytes-level
:func:`msb_uvar` notes nothing (a message's header and a peeked id are read with it).

    >>> encode_uvar(128).hex(), decode_uvar(bytes.fromhex("0102"), 0)
    ('0102', (128, 2))
    >>> MsbZigZag().parse(b"\\x04"), MsbVarInt(8).build(255).hex()
    (1, 'fd03')
"""

from __future__ import annotations

from runtime.core import kept
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.leb128 import zigzag_decode
from runtime.core.stream import StreamVarInt, as_int, ran_out, read_ahead

_LENGTH = bytes(((~b) & (b + 1)).bit_length() for b in range(256))
"""The total length (1..9) a first byte announces: its trailing ones + 1 (0xff: the 9-byte
form); ``runtime.core.fast.MSB_LENGTH`` to generated code.

    >>> _LENGTH[0x02], _LENGTH[0x01], _LENGTH[0x7F], _LENGTH[0xFF]
    (1, 2, 8, 9)
"""


def uvar_size(value: int) -> int:
    """Length in bytes of the shortest encoding of the unsigned ``value`` (0 .. 2**64-1).

    >>> [uvar_size(v) for v in (0, 127, 128, 2**56 - 1, 2**56)]
    [1, 1, 2, 8, 9]
    """
    bits = value.bit_length()
    if bits > 56:
        return 9
    return (bits + 6) // 7 or 1


def encode_uvar(value: int) -> bytes:
    """The shortest encoding of the unsigned 64-bit ``value``. The caller checks the range.

    >>> encode_uvar(0).hex(), encode_uvar(16384).hex(), encode_uvar(2**64 - 1).hex()
    ('00', '030002', 'ffffffffffffffffff')
    """
    return encode_uvar_wide(value, uvar_size(value))


def encode_uvar_wide(value: int, width: int) -> bytes:
    """``value`` in ``width`` bytes (``uvar_size(value)`` .. 9): a reader takes the longer
    forms too. The caller checks that ``value`` fits.

    >>> encode_uvar_wide(0, 2).hex(), encode_uvar_wide(1, 9).hex()
    ('0100', 'ff0100000000000000')
    """
    if width == 9:
        return b"\xff" + value.to_bytes(8, "little")
    return ((value << width) | ((1 << (width - 1)) - 1)).to_bytes(width, "little")


def decode_uvar(buf, pos: int = 0) -> tuple[int, int]:
    """Decode one varint of ``buf`` (bytes-like) at ``pos``; returns ``(value, new_pos)``.

    Raises :class:`DecodeError` (offset ``pos``) when ``buf`` ends before the varint does.

    >>> decode_uvar(b"\\x00\\xfd\\x03", 1)
    (255, 3)
    >>> decode_uvar(b"\\x01", 0)
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: truncated varint: announces 2 bytes, 1 remain
    """
    return msb_uvar(buf, pos, len(buf), 64)


def msb_uvar(buf, pos: int, end: int, bits: int, what: str = "varint") -> tuple[int, int]:
    """One unsigned msb-count varint of ``buf`` at ``pos`` (``end``: where ``buf``'s input
    ends): ``(value, new_pos)``, or :class:`DecodeError` at ``pos`` for truncation or a value
    wider than ``bits``. Generated code calls it as ``rt_fast.msb_uvar``.

    >>> msb_uvar(bytes.fromhex("c3020b"), 0, 3, 64)
    (90200, 3)
    """
    if pos >= end:
        raise DecodeError(f"truncated {what}: needs 1 byte, 0 remain", offset=pos)
    first = buf[pos]
    n = _LENGTH[first]
    if n == 1:
        return first >> 1, pos + 1
    stop = pos + n
    if stop > end:
        raise DecodeError(f"truncated {what}: announces {n} bytes, {end - pos} remain", offset=pos)
    if n == 9:
        value = int.from_bytes(buf[pos + 1 : stop], "little")
    else:
        value = int.from_bytes(buf[pos:stop], "little") >> n
    if value >> bits:
        raise DecodeError(f"{what} {value} does not fit in uint{bits}", offset=pos)
    return value, stop


def msb_uvar_noting(buf, pos: int, end: int, bits: int, what: str = "varint"):
    """:func:`msb_uvar`, noting a form longer than it needs (``runtime.core.kept``): a
    value's varint, which build writes shortest. Generated code calls it as
    ``rt_fast.msb_uvar_noting``.

        >>> seen = kept.SEEN.count
        >>> msb_uvar_noting(b"\\x01\\x00", 0, 2, 64), kept.SEEN.count - seen  # 0 in two bytes
        ((0, 2), 1)
    """
    value, stop = msb_uvar(buf, pos, end, bits, what)
    if stop - pos > 1 and uvar_size(value) < stop - pos:
        kept.note()
    return value, stop


def msb_svar_noting(buf, pos: int, end: int, bits: int, what: str = "signed varint"):
    """One zigzag msb-count varint (:func:`read_svar` on bytes), noting a longer form."""
    value, pos = msb_uvar_noting(buf, pos, end, bits, what)
    return zigzag_decode(value), pos


def read_uvar_as_is(stream, bits: int = 64, what: str = "varint") -> tuple[int, int]:
    """Read one unsigned varint from a construct stream, checking it fits in ``bits``:
    ``(value, its length in bytes)``, whatever form it takes (nothing noted).

    Errors carry the offset where the varint starts.
    """
    start = stream.tell()
    # One bounded read instead of a read per byte; the unused tail is given back.
    data = read_ahead(stream, 9)
    try:
        value, used = msb_uvar(data, 0, len(data), bits, what)
    except DecodeError as err:
        if not data or _LENGTH[data[0]] > len(data):  # truncated: it ran out of input
            ran_out(stream)
        err.shift(start)
        raise
    stream.seek(start + used)
    return value, used


def read_uvar(stream, bits: int = 64, what: str = "varint") -> int:
    """:func:`read_uvar_as_is`'s value, noting a form longer than it needs (its message
    keeps its bytes, ``runtime.core.kept``). Used by the classes below and by
    :mod:`runtime.formats.serializable`.
    """
    value, used = read_uvar_as_is(stream, bits, what)
    if used > 1 and uvar_size(value) < used:
        kept.note()
    return value


def write_uvar(value, stream, bits: int = 64, what: str = "varint") -> int:
    """Check that ``value`` is an int in ``0 .. 2**bits-1``, write it, and return it."""
    value = as_int(value)
    if value < 0 or value >> bits:
        raise EncodeError(f"{what} {value} is out of range for uint{bits}")
    stream.write(encode_uvar(value))
    return value


def zigzag(value: int, bits: int = 64) -> int:
    """Signed ``value`` to the unsigned zigzag form (protobuf's sint): 0, -1, 1, -2 -> 0, 1, 2, 3."""
    return ((value << 1) ^ (value >> (bits - 1))) & ((1 << bits) - 1)


def read_svar(stream, bits: int = 64, what: str = "signed varint") -> int:
    """Read one zigzag varint; the unsigned form must fit ``bits`` (as MySQL checks it)."""
    return zigzag_decode(read_uvar(stream, bits, what))


def write_svar(value, stream, bits: int = 64, what: str = "signed varint") -> int:
    """Check that ``value`` fits in int``bits``, write its zigzag varint, and return it."""
    value = as_int(value)
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise EncodeError(f"{what} {value} is out of range for int{bits}")
    stream.write(encode_uvar(zigzag(value, bits)))
    return value


class _VarIntBase(StreamVarInt):
    """Shared shape of the two varint classes: a width of 8, 16, 32 or 64 bits."""

    def __init__(self, bits: int = 64):
        super().__init__()
        if bits not in (8, 16, 32, 64):
            raise SpecError(f"bits must be 8, 16, 32 or 64, not {bits!r}")
        self.bits = bits

    def __repr__(self):
        return f"{type(self).__name__}({self.bits})"


class MsbVarInt(_VarIntBase):
    """Unsigned msb-count varint that must fit in ``bits`` (8, 16, 32 or 64).

        >>> MsbVarInt().parse(bytes.fromhex("c3020b"))
        90200
        >>> MsbVarInt().build(2**56).hex()
        'ff0000000000000001'
        >>> MsbVarInt(8).parse(bytes.fromhex("0104"))
        Traceback (most recent call last):
        ...
        runtime.core.errors.DecodeError: <message> at offset 0: varint 256 does not fit in uint8

    Parse raises :class:`DecodeError` on truncation or a value wider than ``bits``
    (non-minimal encodings are accepted and noted, ``runtime.core.kept``); build raises
    :class:`EncodeError` for a non-integer or out-of-range value. Size is variable
    (:class:`construct.SizeofError`).
    """

    _read = staticmethod(read_uvar)
    _write = staticmethod(write_uvar)


class MsbZigZag(_VarIntBase):
    """Signed zigzag varint: ``(x << 1) ^ (x >> bits-1)``, then :class:`MsbVarInt`.

        >>> [MsbZigZag().parse(bytes([b])) for b in (0x00, 0x02, 0x04, 0x06)]
        [0, -1, 1, -2]
        >>> MsbZigZag().build(-2**63).hex()
        'ffffffffffffffffff'

    Errors as for :class:`MsbVarInt`; the range is ``-2**(bits-1) .. 2**(bits-1)-1``.
    """

    _read = staticmethod(read_svar)
    _write = staticmethod(write_svar)
