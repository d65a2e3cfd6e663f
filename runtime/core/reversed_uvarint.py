"""A uvarint stored in reverse byte order, read backwards from the end of its stream: the
``reversed_uvarint`` primitive, the last field of a record's ``trailer:`` (the length of
what the trailer holds before it)."""

from __future__ import annotations

from construct import Construct, SizeofError

from runtime.core.errors import DecodeError
from runtime.core.leb128 import MAX_BYTES, read_reversed_uvarint, write_reversed_uvarint


class ReversedUVarInt(Construct):
    """A uvarint stored in reverse byte order (a trailer's length).

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
