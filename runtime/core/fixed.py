"""Fixed-width integers and floats whose truncation errors carry the exact offset.

construct's ``Int32sl`` raises a ``StreamError`` after it has consumed what was left, so the
offset of the short read is lost. These are the same ``FormatField`` constructs (they
compile the same way) but raise :class:`~runtime.core.errors.DecodeError` at the offset where
the value starts:

    >>> Int32sl.parse(b"\\x01\\x00")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: truncated: needs 4 bytes, 2 remain
    >>> Int64sl.build(-2).hex()
    'feffffffffffffff'
    >>> Int16ub.build(70000)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: 70000 is out of range for uint16
"""

from __future__ import annotations

import struct

from construct import FormatField

from runtime.core import float32
from runtime.core.construct_errors import unpackable
from runtime.core.errors import DecodeError, EncodeError


class Fixed(FormatField):
    """A ``struct``-format field; see the module docstring."""

    def __init__(self, endianity: str, format: str):
        super().__init__(endianity, format)
        self.packer = struct.Struct(self.fmtstr)

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read(self.length)
        if len(data) != self.length:
            raise DecodeError(
                f"truncated: needs {self.length} bytes, {len(data)} remain", offset=start
            )
        return self.packer.unpack(data)[0]

    def _build(self, obj, stream, context, path):
        # packed here, not by construct: a refusal in our words, not construct's to rephrase;
        # a bool too, which struct packs as 0 or 1 but parse never gives back
        if obj.__class__ is bool:
            raise EncodeError(unpackable(self.fmtstr, obj))
        try:
            stream.write(self.packer.pack(obj))
        except struct.error:
            raise EncodeError(unpackable(self.fmtstr, obj)) from None
        return obj


class Float32(Fixed):
    """A float32 whose NaN keeps its payload bit for bit (:mod:`runtime.core.float32`).

    >>> Float32b.build(Float32b.parse(bytes.fromhex("7f8f0004"))).hex()
    '7f8f0004'
    """

    def _parse(self, stream, context, path):
        start = stream.tell()
        value = super()._parse(stream, context, path)
        if value != value:  # noqa: PLR0124 - a NaN: read again, struct quieted it
            stream.seek(start)
            value = float32.nan_from(stream.read(4), 0, self.fmtstr[0])
        return value

    def _build(self, obj, stream, context, path):
        if obj != obj:  # noqa: PLR0124 - a NaN: its payload as read, struct quiets it
            stream.write(float32.pack(obj, self.fmtstr[0]))
            return obj
        return super()._build(obj, stream, context, path)


Int8ul = Fixed("<", "B")
Int8sl = Fixed("<", "b")
Int8ub = Fixed(">", "B")
Int8sb = Fixed(">", "b")
Int16ul = Fixed("<", "H")
Int16sl = Fixed("<", "h")
Int16ub = Fixed(">", "H")
Int16sb = Fixed(">", "h")
Int32ul = Fixed("<", "L")
Int32sl = Fixed("<", "l")
Int32ub = Fixed(">", "L")
Int32sb = Fixed(">", "l")
Int64ul = Fixed("<", "Q")
Int64sl = Fixed("<", "q")
Int64ub = Fixed(">", "Q")
Int64sb = Fixed(">", "q")
Float32l = Float32("<", "f")
Float32b = Float32(">", "f")
Float64l = Fixed("<", "d")
Float64b = Fixed(">", "d")
