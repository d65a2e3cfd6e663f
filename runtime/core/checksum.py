"""Checksums over byte streams derived from other fields: verified on parse, computed on build.

    >>> crc8(b"123456789") == 0xF4          # CRC-8/SMBUS check value
    True
    >>> hex(crc32(b"123456789"))
    '0xcbf43926'
    >>> hex(crc32c(b"123456789"))           # CRC-32C (Castagnoli), Kafka's batches
    '0xe3069283'

A :class:`Checksum` field names what it covers with *items*, each a function of the
record's context that returns bytes; :func:`raw`, :func:`each` and :func:`value` make them.
"""

from __future__ import annotations

import zlib

import anycrc
import crc32c as _crc32c
from construct import Subconstruct

from runtime.core.errors import DecodeError

_CRC8_POLY = 0x07


def _crc8_table() -> bytes:
    table = bytearray(256)
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = ((crc << 1) ^ _CRC8_POLY) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table[i] = crc
    return bytes(table)


CRC8_TABLE = _crc8_table()
_SMBUS = anycrc.Model("CRC8-SMBUS")


def crc8(data: bytes, crc: int = 0) -> int:
    """CRC-8, polynomial 0x07, init 0, MSB first, no reflection, no final xor (SMBUS).

    Computed by anycrc's C code: about 3x faster than the table-driven loop, which matters
    because PlainBuffer checksums every cell."""
    return _SMBUS.calc(data, crc)


def crc32(data: bytes, crc: int = 0) -> int:
    """The IEEE CRC-32 of zlib (binlog event checksums)."""
    return zlib.crc32(data, crc)


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli, iSCSI), the checksum of Kafka's record batches.

    The ``crc32c`` package uses the CPU's CRC instruction: 3x faster than anycrc's
    ``CRC32C`` model on batch-sized inputs (benchmarks/kafka_record_batch.py)."""
    return _crc32c.crc32c(data, crc)


ALGORITHMS = {"crc8": crc8, "crc32": crc32, "crc32c": crc32c}
"""Every checksum a spec can name (``checksum: {algorithm: NAME}``)."""


def raw(field: str, skip: int = 0):
    """Item: the raw bytes a sibling field occupied on the wire, minus ``skip`` leading
    bytes (its tag and length prefix); nothing when the field is absent."""

    def item(context) -> bytes:
        if context.get(field) is None:
            return b""
        start, end = context._spans[field]
        return _wire(context, start + skip, end)

    return item


def span(first: str, last: str):
    """Item: the raw bytes from the start of ``first`` to the end of ``last``, fields of the
    same record that may come after the checksum (Kafka's CRC covers ``attributes`` to the
    batch's end): the record verifies and writes such a checksum once ``last`` is done."""

    def item(context) -> bytes:
        return _wire(context, context._spans[first][0], context._spans[last][1])

    item.last = last
    return item


def _wire(context, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of the stream the record is read from or built into."""
    stream = context._io
    here = stream.tell()
    stream.seek(start)
    data = stream.read(end - start)
    stream.seek(here)
    return data


def each(field: str, member: str, encoder):
    """Item: ``encoder`` applied to ``member`` of every element of the list ``field``."""

    def item(context) -> bytes:
        return b"".join(encoder.build(element[member]) for element in context.get(field) or ())

    return item


def value(expression, encoder):
    """Item: ``encoder`` applied to ``expression(context)``."""

    def item(context) -> bytes:
        return encoder.build(expression(context))

    return item


class Checksum(Subconstruct):
    """A stored checksum (read and written by ``subcon``) of the bytes the items give.

    >>> from construct import Int8ul
    >>> from runtime.core.record import Record, LengthPrefixedBytes
    >>> rec = Record("name" / LengthPrefixedBytes(Int8ul),
    ...              "crc" / Checksum(Int8ul, "crc8", raw("name", skip=1)))
    >>> rec.build({"name": b"pk1"}).hex()
    '03706b3192'
    >>> rec.parse(bytes.fromhex("03706b3100"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: crc at offset 4: checksum mismatch: stored 0x00, computed 0x92
    """

    def __init__(self, subcon, algorithm: str, *items):
        super().__init__(subcon)
        self.flagbuildnone = True
        self.algorithm = algorithm
        self.function = ALGORITHMS[algorithm]
        self.items = items
        self.after = next((item.last for item in items if hasattr(item, "last")), None)
        """The last field a ``span`` item covers: the record checks (and, on build, writes)
        the checksum once that field is done, through :meth:`verify` and :meth:`patch`."""

    def _compute(self, context) -> int:
        return self.function(b"".join(item(context) for item in self.items))

    def _parse(self, stream, context, path):
        start = stream.tell()
        stored = self.subcon._parsereport(stream, context, path)
        if self.after is None:
            self._check(stored, context, start)
        return stored

    def _check(self, stored: int, context, start: int) -> None:
        computed = self._compute(context)
        if stored != computed:
            width = self.subcon.sizeof() * 2
            raise DecodeError(
                f"checksum mismatch: stored 0x{stored:0{width}x}, computed 0x{computed:0{width}x}",
                offset=start,
            )

    def verify(self, name: str, context) -> None:
        """Check the stored checksum ``name`` once the fields after it are read."""
        try:
            self._check(context[name], context, context._spans[name][0])
        except DecodeError as err:
            err.add_path(name)
            raise

    def _build(self, obj, stream, context, path):
        if self.after is not None:
            # a placeholder: patch() writes the sum once the covered fields are built
            self.subcon._build(0, stream, context, path)
            return None
        computed = self._compute(context)
        self.subcon._build(computed, stream, context, path)
        return computed

    def patch(self, name: str, stream, context, path) -> int:
        """Write the checksum ``name`` over its placeholder once its fields are built."""
        computed = self._compute(context)
        here = stream.tell()
        stream.seek(context._spans[name][0])
        self.subcon._build(computed, stream, context, path)
        stream.seek(here)
        return computed
