"""The fields of a protobuf message, as :class:`runtime.formats.protobuf.ProtobufMessage`
takes them: the scalar types (:data:`SCALARS`: each one's wire type, integer range and
default; how a varint reads as each and is written back; when a value is the default
that is left off the wire), and :class:`PbField`, one field of a message's table.

    >>> PbField(2, "ys", "sint32", repeated="packed")
    PbField(2, 'ys', 'sint32')
    >>> PbField(3, "name", "string", repeated="packed")
    Traceback (most recent call last):
    ...
    runtime.core.errors.SpecError: field name: only numeric scalars pack
"""

from __future__ import annotations

import math
import struct

from runtime.core.errors import SpecError
from runtime.core.float32 import Float32Struct
from runtime.core.leb128 import write_uvarint
from runtime.formats.protobuf_records import I32, I64, LEN, VARINT

MAX_FIELD_NUMBER = 2**29 - 1
_MASK32, _MASK64 = 2**32 - 1, 2**64 - 1

_F32, _F64 = Float32Struct("<"), struct.Struct("<d")  # a float NaN keeps its payload
_U32, _S32, _U64, _S64 = (struct.Struct(f) for f in ("<I", "<i", "<Q", "<q"))

# Scalar -> (wire type, (lo, hi) of an integer, default value). Integers decode from the
# varint's value; fixed types and floats from their bytes; string/bytes from a LEN slice.
SCALARS = {
    "int32": (VARINT, (-(2**31), 2**31 - 1), 0),
    "int64": (VARINT, (-(2**63), 2**63 - 1), 0),
    "uint32": (VARINT, (0, _MASK32), 0),
    "uint64": (VARINT, (0, _MASK64), 0),
    "sint32": (VARINT, (-(2**31), 2**31 - 1), 0),
    "sint64": (VARINT, (-(2**63), 2**63 - 1), 0),
    "enum": (VARINT, (-(2**31), 2**31 - 1), 0),
    "bool": (VARINT, None, False),
    "fixed32": (I32, (0, _MASK32), 0),
    "sfixed32": (I32, (-(2**31), 2**31 - 1), 0),
    "float": (I32, None, 0.0),
    "fixed64": (I64, (0, _MASK64), 0),
    "sfixed64": (I64, (-(2**63), 2**63 - 1), 0),
    "double": (I64, None, 0.0),
    "string": (LEN, None, ""),
    "bytes": (LEN, None, b""),
}
"""Every protobuf scalar type: its wire type, the range of an integer, its default."""


def from_varint(scalar: str, v: int):
    """The value of a varint read for ``scalar`` (upb's truncation for 32-bit types).

    >>> from_varint("sint32", 3), from_varint("int32", 2**64 - 1), from_varint("bool", 2)
    (-2, -1, True)
    """
    if scalar == "uint64":
        return v
    if scalar in ("int64",):
        return v - (1 << 64) if v >> 63 else v
    if scalar in ("int32", "enum"):
        v &= _MASK32
        return v - (1 << 32) if v >> 31 else v
    if scalar == "uint32":
        return v & _MASK32
    if scalar == "sint32":
        v &= _MASK32
        return (v >> 1) ^ -(v & 1)
    if scalar == "sint64":
        return (v >> 1) ^ -(v & 1)
    return v != 0  # bool


def to_varint(scalar: str, v) -> int:
    """The varint that writes ``v`` as ``scalar`` (a negative int32 sign-extended, as upb
    writes it): the inverse of :func:`from_varint` over the scalar's range.

    >>> to_varint("sint32", -2), to_varint("int32", -1) == 2**64 - 1, to_varint("bool", True)
    (3, True, 1)
    """
    if scalar == "bool":
        return 1 if v else 0
    if scalar == "sint32":
        return ((v << 1) ^ (v >> 31)) & _MASK32
    if scalar == "sint64":
        return ((v << 1) ^ (v >> 63)) & _MASK64
    return v & _MASK64  # negative int32/int64/enum: sign-extended to ten bytes


_NARROW = frozenset(("int32", "enum", "uint32", "sint32", "bool"))
"""Varint scalars whose value keeps fewer bits than a varint brings: a varint with more
(an int32 past 32 bits, a bool of 2) is kept as its record's bytes."""

_FIXED = {
    "fixed32": _U32,
    "sfixed32": _S32,
    "float": _F32,
    "fixed64": _U64,
    "sfixed64": _S64,
    "double": _F64,
}


def is_default(scalar: str, v) -> bool:
    """Whether an implicit-presence field holding ``v`` is left off the wire (a float
    only when it is +0.0: upb writes -0.0; ``{}`` or ``0.0`` in a string or an int: no)."""
    if scalar in ("float", "double"):
        return v == 0 and math.copysign(1.0, v) > 0
    return not v and (v is None or v == SCALARS[scalar][2] and type(v) is not float)


class PbField:
    """One field of a :class:`~runtime.formats.protobuf.ProtobufMessage`.

    ``kind`` is a scalar name of :data:`SCALARS`, or ``"message"`` (``message`` is the
    nested ProtobufMessage), or ``"map"`` (``map_key``: a scalar; ``map_value``: a scalar
    or a ProtobufMessage). ``repeated``: None, ``"packed"`` or
    ``"unpacked"`` (the form written for a model made from values; both are read).
    ``explicit``: the field has presence (None when absent): proto3 ``optional``, a oneof
    member, a message; otherwise absent reads as the default and the default is not
    written. ``oneof``: the name of its oneof group.
    """

    __slots__ = (
        "default",
        "explicit",
        "fixed",
        "key",
        "kind",
        "len_key",
        "map_key",
        "map_value",
        "message",
        "name",
        "narrow",
        "number",
        "oneof",
        "range",
        "repeated",
        "wire_type",
    )  # fmt: skip

    def __init__(
        self,
        number: int,
        name: str,
        kind: str,
        *,
        message=None,
        map_key: str | None = None,
        map_value=None,
        repeated: str | None = None,
        explicit: bool = False,
        oneof: str | None = None,
    ):
        if not 1 <= number <= MAX_FIELD_NUMBER:
            raise SpecError(f"field {name}: number {number} is not in 1..{MAX_FIELD_NUMBER}")
        self.number, self.name, self.kind = number, name, kind
        self.message, self.map_key, self.map_value = message, map_key, map_value
        self.repeated, self.oneof = repeated, oneof
        self.explicit = explicit or oneof is not None or kind == "message"
        if kind in SCALARS:
            self.wire_type, self.range, self.default = SCALARS[kind]
        elif kind in ("message", "map"):
            self.wire_type, self.range, self.default = LEN, None, None
        else:
            raise SpecError(f"field {name}: unknown kind {kind!r}")
        if repeated == "packed" and self.wire_type == LEN:
            raise SpecError(f"field {name}: only numeric scalars pack")
        if kind == "map" and (map_key not in SCALARS or map_key in ("float", "double", "bytes")):
            raise SpecError(f"field {name}: a map key is an integer, bool or string")
        self.fixed = _FIXED.get(kind)
        self.narrow = kind in _NARROW
        self.key = write_uvarint(number << 3 | self.wire_type)
        self.len_key = write_uvarint(number << 3 | LEN)

    @property
    def packable(self) -> bool:
        return self.repeated is not None and self.wire_type != LEN

    def __repr__(self):
        return f"PbField({self.number}, {self.name!r}, {self.kind!r})"
