"""A byte order chosen by the data (a record's ``endian: {switch_on: ..., cases: ...}``).

A pcap file's magic says the byte order of every later field; so does a pcapng section
header for its section. The field that says it is read with :class:`ChoosesByteOrder`,
which puts the order its value names in the record's context; the integers after it, in
that record and in the records it holds, are :class:`ByteOrdered`: each reads and writes
in the nearest order an enclosing record chose (the spec's ``endian:`` where none did).

    >>> from construct import Int16ub, Int16ul, Int32ub, Int32ul
    >>> from runtime.core.record import Record
    >>> file = Record(
    ...     "magic" / ChoosesByteOrder(Int32ub, {0xA1B2C3D4: "be", 0xD4C3B2A1: "le"}),
    ...     "version" / ByteOrdered(Int16ul, Int16ub, "le"),
    ... )
    >>> file.parse(bytes.fromhex("d4c3b2a1 0200")).version
    2
    >>> file.parse(bytes.fromhex("a1b2c3d4 0002")).version
    2
    >>> file.build({"magic": 0xA1B2C3D4, "version": 2}).hex()
    'a1b2c3d40002'
    >>> file.parse(bytes.fromhex("0a0d0d0a 0200"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: magic at offset 0: 0xa0d0d0a names no byte order \
(its cases: 0xa1b2c3d4, 0xd4c3b2a1)
"""

from __future__ import annotations

from construct import Construct, Subconstruct

from runtime.core.errors import DecodeError, EncodeError

ORDER_KEY = "_byte_order"
"""The context key a record's chosen byte order is kept under (``le`` or ``be``)."""


def chosen_order(context, default: str) -> str:
    """The byte order the nearest enclosing record chose, else ``default``."""
    while context is not None:
        order = context.get(ORDER_KEY)
        if order is not None:
            return order
        context = context.get("_")
    return default


class ChoosesByteOrder(Subconstruct):
    """The field whose value picks the byte order of the fields after it (``orders``:
    value -> ``le``/``be``; ``default``: the order of every other value, else one not
    listed is a DecodeError on parse and an EncodeError on build: nothing after it could
    be read or written)."""

    def __init__(self, subcon, orders: dict[int, str], default: str | None = None):
        super().__init__(subcon)
        self.orders, self.default = orders, default

    def _choose(self, value, context, error):
        order = self.orders.get(int(value), self.default) if isinstance(value, int) else None
        if order is None:
            listed = ", ".join(f"{v:#x}" for v in self.orders)
            shown = f"{value:#x}" if isinstance(value, int) else repr(value)
            raise error(f"{shown} names no byte order (its cases: {listed})")
        context[ORDER_KEY] = order

    def _parse(self, stream, context, path):
        start = stream.tell()
        value = self.subcon._parsereport(stream, context, path)
        self._choose(value, context, lambda text: DecodeError(text, offset=start))
        return value

    def _build(self, obj, stream, context, path):
        built = self.subcon._build(obj, stream, context, path)
        self._choose(built if built is not None else obj, context, EncodeError)
        return built


class ByteOrdered(Construct):
    """A fixed-width number read and written in the byte order an enclosing record chose:
    ``little`` or ``big`` (two constructs of one size), ``default`` where none chose."""

    def __init__(self, little, big, default: str):
        super().__init__()
        self.little, self.big, self.default = little, big, default
        self.flagbuildnone = little.flagbuildnone

    def _pick(self, context):
        return self.little if chosen_order(context, self.default) == "le" else self.big

    def _parse(self, stream, context, path):
        return self._pick(context)._parsereport(stream, context, path)

    def _build(self, obj, stream, context, path):
        return self._pick(context)._build(obj, stream, context, path)

    def _sizeof(self, context, path):
        return self.little._sizeof(context, path)
