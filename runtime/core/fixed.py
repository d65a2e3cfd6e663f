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
"""

from __future__ import annotations

import struct

from construct import FormatField

from runtime.core.errors import DecodeError


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
Float32l = Fixed("<", "f")
Float32b = Fixed(">", "f")
Float64l = Fixed("<", "d")
Float64b = Fixed(">", "d")
