"""Bit fields: integers narrower than a byte (a spec's ``type: b3``, ``sb12``, ``b4le``).

Consecutive bit fields of a record are one *run* that fills whole bytes: the run's bytes
are read as one big-endian integer and each field is a slice of it, the first field the
most significant bits (``order="little"``: one little-endian integer, the first field the
least significant bits, Kaitai's ``b4le``). A ``signed`` field is two's complement in its
width. MessagePack's fixmap byte ``1000 nnnn`` is a run of two fields:

    >>> from runtime.core.record import Record, Computed
    >>> from construct import Const
    >>> byte = Record(
    ...     "code" / Const(0x8, BitField(1, 4, 4, first=True)),
    ...     "count" / BitField(1, 0, 4, last=True),
    ... )
    >>> byte.parse(b"\\x83")
    Container(code=8, count=3)
    >>> byte.build({"count": 5}).hex()
    '85'

The first field of a run reads the run's bytes and leaves the integer in the record's
context; each field takes its bits from it. Building, each field ORs its bits into the
integer and the last one writes the bytes. ``inspect`` shows every field of a run over the
run's bytes, with its bits (``Node.bits``).

A field with an ``enum`` (an ``enum.IntEnum``, a DNS header's 4-bit OPCODE) holds the
member; a code it does not list is a DecodeError at the run's first byte:

    >>> import enum
    >>> class Opcode(enum.IntEnum):
    ...     QUERY = 0
    ...     STATUS = 2
    >>> header = Record(
    ...     "qr" / BitField(1, 7, 1, first=True),
    ...     "opcode" / BitField(1, 3, 4, enum=Opcode),
    ...     "rest" / BitField(1, 0, 3, last=True),
    ... )
    >>> header.parse(b"\\x90").opcode
    <Opcode.STATUS: 2>
    >>> header.parse(b"\\x88")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: opcode at offset 0: 1 (0x01) is not a known Opcode
    >>> header.build({"qr": 1, "opcode": "STATUS", "rest": 0}).hex()
    '90'
"""

from __future__ import annotations

from construct import Construct

from runtime.core.errors import DecodeError, EncodeError, a_or_an
from runtime.core.scalars import refuse_bool
from runtime.core.spans import current as current_spans
from runtime.core.stream import read_exact

_READ = "_bit_run"
_AT = "_bit_run_at"
_BUILT = "_bit_run_built"


class BitField(Construct):
    """``width`` bits at ``shift`` (from the least significant end) of a run of
    ``group`` bytes; ``first``/``last``: the field that reads / writes the run's bytes."""

    def __init__(
        self,
        group: int,
        shift: int,
        width: int,
        first: bool = False,
        last: bool = False,
        *,
        order: str = "big",
        signed: bool = False,
        enum=None,
    ):
        super().__init__()
        self.enum = enum
        self.group, self.shift, self.width = group, shift, width
        self.first, self.last = first, last
        self.order, self.signed = order, signed
        self.mask = (1 << width) - 1
        self.low = -(1 << (width - 1)) if signed else 0
        self.high = (1 << (width - 1)) - 1 if signed else self.mask

    def _parse(self, stream, context, path):
        if self.first:
            context[_AT] = stream.tell()
            run = read_exact(stream, self.group, f"{self.group}-byte bit field run")
            context[_READ] = int.from_bytes(run, self.order)
        spans = current_spans(context)
        if spans is not None:  # every field of the run over the run's bytes, with its bits
            spans.current.start = spans.base + context[_AT]
            spans.current.bits = (self.shift, self.width, self.group, self.first)
        value = (context[_READ] >> self.shift) & self.mask
        if self.signed and value > self.high:
            value -= 1 << self.width
        if self.enum is None:
            return value
        try:
            return self.enum(value)
        except ValueError:
            raise DecodeError(
                f"{value} (0x{value & self.mask:02x}) is not a known {self.enum.__name__}",
                offset=context[_AT],
            ) from None

    def _build(self, obj, stream, context, path):
        if self.enum is not None:  # a member, its name or its code, as an integer enum takes
            refuse_bool(self.enum, obj)
            try:
                obj = self.enum[obj] if isinstance(obj, str) else self.enum(obj)
            except (KeyError, ValueError, TypeError):
                raise EncodeError(f"{obj!r} is not {a_or_an(self.enum.__name__)}") from None
        if not isinstance(obj, int) or isinstance(obj, bool):
            raise EncodeError(f"a {self.width}-bit field takes an int, not {type(obj).__name__}")
        if not self.low <= obj <= self.high:
            kind = "signed " if self.signed else ""
            raise EncodeError(f"{obj} does not fit {self.width} {kind}bits")
        built = (0 if self.first else context[_BUILT]) | ((obj & self.mask) << self.shift)
        context[_BUILT] = built
        if self.last:
            stream.write(built.to_bytes(self.group, self.order))
        return obj

    def _sizeof(self, context, path):
        return self.group if self.first else 0
