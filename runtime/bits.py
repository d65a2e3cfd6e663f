"""Bit fields: integers narrower than a byte (a spec's ``type: b3``), big-endian bit order.

Consecutive bit fields of a record are one *run* that fills whole bytes: the run's bytes
are read as one big-endian integer and each field is a slice of it, the first field the
most significant bits. MessagePack's fixmap byte ``1000 nnnn`` is a run of two fields:

    >>> from runtime.record import Record, Computed
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
integer and the last one writes the bytes.
"""

from __future__ import annotations

from construct import Construct

from .errors import EncodeError
from .stream import read_exact

_READ = "_bit_run"
_BUILT = "_bit_run_built"


class BitField(Construct):
    """``width`` bits at ``shift`` (from the least significant end) of a run of
    ``group`` bytes; ``first``/``last``: the field that reads / writes the run's bytes."""

    def __init__(self, group: int, shift: int, width: int, first: bool = False, last: bool = False):
        super().__init__()
        self.group, self.shift, self.width = group, shift, width
        self.first, self.last = first, last
        self.mask = (1 << width) - 1

    def _parse(self, stream, context, path):
        if self.first:
            run = read_exact(stream, self.group, f"{self.group}-byte bit field run")
            context[_READ] = int.from_bytes(run, "big")
        return (context[_READ] >> self.shift) & self.mask

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int) or isinstance(obj, bool):
            raise EncodeError(f"a {self.width}-bit field takes an int, not {type(obj).__name__}")
        if not 0 <= obj <= self.mask:
            raise EncodeError(f"{obj} does not fit {self.width} bits")
        built = (0 if self.first else context[_BUILT]) | (obj << self.shift)
        context[_BUILT] = built
        if self.last:
            stream.write(built.to_bytes(self.group, "big"))
        return obj

    def _sizeof(self, context, path):
        return self.group if self.first else 0
