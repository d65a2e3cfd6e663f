"""A float32 as a Python float, bit for bit: a NaN keeps its sign and payload.

``struct``'s ``"f"`` widens a float32 to a C double, and on x86 that sets the quiet bit of a
signalling NaN (``7f8f0004`` reads back as ``7fcf0004``). Every float32 fits a double
exactly, NaNs included, when the widening is done on the bits: the sign and the 23-bit
payload move up into the double's, the quiet bit (the payload's top bit) landing on the
double's quiet bit. The readers unpack with ``struct`` as before and take this module's way
only for a NaN (``value != value``), so a number costs one comparison.

    >>> signalling = nan_from(bytes.fromhex("7f8f0004"), 0, ">")
    >>> signalling != signalling, pack(signalling, ">").hex()
    (True, '7f8f0004')
    >>> pack(1.5, "<").hex(), pack(float("nan"), ">").hex()
    ('0000c03f', '7fc00000')

A NaN double whose payload has bits below a float32's (not one a float32 read gave) packs as
``struct`` packs it: quieted and cut to the float32 payload. The compiled tier's twin is
``runtime/_compiled/float32.pxd`` (``float32_widened``, ``float32_narrowed``).
"""

from __future__ import annotations

import struct

_BITS = {">": struct.Struct(">I"), "<": struct.Struct("<I")}
_FLOATS = {">": struct.Struct(">f"), "<": struct.Struct("<f")}
_DOUBLE_BITS = struct.Struct("<Q")
_DOUBLE = struct.Struct("<d")
PAYLOAD_SHIFT = 52 - 23
"""A float32 payload's place in a double's 52-bit mantissa."""


def widen(bits: int) -> float:
    """The float32 of ``bits`` (an unsigned 32-bit integer) as a double, exactly."""
    if bits & 0x7F800000 != 0x7F800000 or not bits & 0x7FFFFF:
        return _FLOATS[">"].unpack(_BITS[">"].pack(bits))[0]  # a number or an infinity
    double = (bits >> 31) << 63 | 0x7FF << 52 | (bits & 0x7FFFFF) << PAYLOAD_SHIFT
    return _DOUBLE.unpack(_DOUBLE_BITS.pack(double))[0]


def nan_from(data, pos: int, order: str) -> float:
    """The float32 at ``data[pos:pos + 4]`` (``order`` ``">"`` or ``"<"``) as a double,
    exactly: what a reader calls when ``struct`` gave it a NaN."""
    return widen(_BITS[order].unpack_from(data, pos)[0])


def narrow(value: float) -> int | None:
    """The float32 bits of the NaN ``value`` when a float32 holds it exactly, else None."""
    (double,) = _DOUBLE_BITS.unpack(_DOUBLE.pack(value))
    if double & ((1 << PAYLOAD_SHIFT) - 1):
        return None
    return (double >> 63) << 31 | 0xFF << 23 | (double >> PAYLOAD_SHIFT) & 0x7FFFFF


def pack(value: float, order: str) -> bytes:
    """The 4 bytes of ``value`` as a float32 (``order`` ``">"`` or ``"<"``), a NaN's
    payload kept bit for bit (see the module docstring)."""
    if value == value:  # noqa: PLR0124 - not a NaN (the cheapest test)
        return _FLOATS[order].pack(value)
    bits = narrow(value)
    if bits is None:
        return _FLOATS[order].pack(value)
    return _BITS[order].pack(bits)


class Float32Struct:
    """``struct.Struct("<f")``'s (or ``">f"``'s) ``size``, ``unpack_from``, ``iter_unpack``
    and ``pack``, a NaN's payload kept: for a runtime reader that holds a ``struct`` per type.

    >>> exact = Float32Struct("<")
    >>> [exact.pack(v).hex() for (v,) in exact.iter_unpack(bytes.fromhex("04008f7f0000c03f"))]
    ['04008f7f', '0000c03f']
    """

    size = 4

    def __init__(self, order: str):
        self.order = order
        self._unpack_from = _FLOATS[order].unpack_from

    def unpack_from(self, buf, offset: int = 0) -> tuple[float]:
        (value,) = self._unpack_from(buf, offset)
        if value != value:  # noqa: PLR0124 - a NaN
            return (nan_from(buf, offset, self.order),)
        return (value,)

    def iter_unpack(self, data):
        return (self.unpack_from(data, at) for at in range(0, len(data), 4))

    def pack(self, value: float) -> bytes:
        return pack(value, self.order)
