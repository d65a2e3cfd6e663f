"""Values decoded by a kind table (a spec's ``decode_by:``): the bytes of each element of a
bytes chunk are one value whose wire type an enum attribute's ``kinds:`` names, chosen by
the element's code (a type code in a sibling chunk), signed unless a flag says unsigned.

A Craft column group decodes its values by the ``craft`` kind of each MySQL type code::

    column_type:
      attributes:
        craft:
          kinds: {int: {type: varint, unsigned: uvarint}, sint: varint, float64: f64, ...}
    column_group:
      fields:
        - {name: values, type: nullable_bytes_chunk,
           decode_by: {code: types, attribute: column_type.craft,
                       signed_unless: "flags[_index] & column_flag.UNSIGNED"}}

The generated module configures one :class:`ValueKinds` per such field
(``VALUE_DECODERS["record.field"]``); the mapping of the message asks it for each value:

    >>> kinds = ValueKinds("column type", {"int": Kind("varint", "uvarint"), "sint": Kind("varint"),
    ...                                    "float64": Kind("f64")}, {3: "int", 13: "sint", 4: "float64"}, 0x80)
    >>> kinds.decode(3, 0, bytes.fromhex("a01f")), kinds.decode(3, 0x80, b"\\x01")
    (2000, 1)
    >>> kinds.encode(13, 0x80, 2021).hex(), kinds.wire_type(3, 0x80), kinds.wire_type(99, 0)
    ('ca1f', 'uvarint', None)
    >>> kinds.decode(4, 0, bytes(7))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: float64 value needs 8 bytes, got 7
"""

from __future__ import annotations

import dataclasses
import struct

from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.leb128 import read_uvarint, read_zigzag, write_uvarint, write_zigzag

UNSURE = type("Unsure", (), {"__repr__": lambda self: "UNSURE"})()
"""What :meth:`ValueKinds.quick_encode` answers for a value it leaves to :meth:`ValueKinds.encode`."""
_U64, _I64 = (1 << 64) - 1, 1 << 63
_SMALL = [bytes((i,)) for i in range(128)]


def _utf8(text: str):
    """``text`` as UTF-8, bytes a reader kept as escapes (U+DC80-U+DCFF) written back as
    they were read; :data:`UNSURE` for a lone surrogate no reader gives.

    >>> _utf8("a\\udcff"), _utf8("a\\ud800")
    (b'a\\xff', UNSURE)
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return UNSURE


WIRE_TYPES = ("varint", "uvarint", "f64", "str", "bytes", "null")
"""The wire types a kind may name: a ZigZag varint (int64), a uvarint (uint64), an IEEE-754
double in the spec's byte order, UTF-8 text, the raw bytes, or always NULL (a value is an
error)."""

Q_SIGNED_UNLESS, Q_VARINT, Q_UVARINT, Q_F64, Q_STR, Q_BYTES, Q_NULL = range(7)
"""The codes of :attr:`ValueKinds.quick`: a varint that is a uvarint where the unsigned flag
is set, then the wire types in :data:`WIRE_TYPES` order (so the integers are the codes <= 2)."""


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of a ``kinds:`` table: its wire ``type``, and the wire type where the value
    is unsigned (``unsigned``; None: the same whatever the flags)."""

    type: str
    unsigned: str | None = None


class ValueKinds:
    """The kinds (name -> :class:`Kind`) of an enum attribute, the table ``codes`` (code ->
    kind name, the attribute's generated table, or any narrower one), and the flag bits
    ``unsigned`` (``signed_unless:``) that make a kind read its ``unsigned`` wire type.
    ``noun``: what a code is called in errors (the enum's name, in words)."""

    def __init__(self, noun: str, kinds: dict, codes: dict, unsigned: int = 0, byte_order="<"):
        self.noun, self.kinds, self.unsigned = noun, kinds, unsigned
        self.byte_order = byte_order
        self.codes = {int(k): v for k, v in codes.items()}
        bad = {k: v for k, v in self.codes.items() if v not in kinds or not 0 <= k < 256}
        if bad:
            raise SpecError(f"value encodings {bad}: kinds are {tuple(kinds)}, codes 0..255")
        self.double = struct.Struct(byte_order + "d")
        """An f64 value's layout."""
        self.quick = [None] * 256
        """The quick mapping's table: the ``Q_*`` code of each code 0..255, or None for an
        unknown code or a kind it leaves to :meth:`decode` (an ``unsigned:`` other than a
        varint's uvarint)."""
        for code, name in self.codes.items():
            kind = kinds[name]
            if kind.unsigned is None or kind.unsigned == kind.type:
                self.quick[code] = 1 + WIRE_TYPES.index(kind.type)
            elif (kind.type, kind.unsigned) == ("varint", "uvarint"):
                self.quick[code] = Q_SIGNED_UNLESS

    def wire_type(self, code: int, flags: int) -> str | None:
        """The wire type of a value of ``code`` with ``flags``, or None for an unknown code."""
        name = self.codes.get(code)
        if name is None:
            return None
        kind = self.kinds[name]
        return kind.unsigned if kind.unsigned and flags & self.unsigned else kind.type

    def decode(self, code: int, flags: int, raw: bytes | None):
        """The typed value of the bytes of one element (offsets in errors are into ``raw``)."""
        wire = self.wire_type(code, flags)
        if wire is None:
            raise DecodeError(f"unknown {self.noun} code {code}", offset=0)
        if raw is None:
            return None
        if wire == "bytes":
            return raw
        if wire == "str":
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DecodeError(f"invalid utf-8: {err.reason}", offset=err.start) from None
        if wire == "f64":
            if len(raw) != 8:
                name = self.codes[code]
                raise DecodeError(f"{name} value needs 8 bytes, got {len(raw)}", offset=0)
            return self.double.unpack(raw)[0]
        if wire == "null":
            raise DecodeError(f"type code {code} is always NULL but has a value", offset=0)
        value, used = (read_zigzag if wire == "varint" else read_uvarint)(raw, 0)
        if used != len(raw):
            raise DecodeError(f"{len(raw) - used} bytes after the varint value", offset=used)
        return value

    def decode_all(self, codes, flags, raws) -> list | None:
        """:meth:`decode` of every element of a group (``codes``, ``flags``, ``raws`` side by
        side), or None at the first error (the checked mapping then finds where).

        >>> kinds = ValueKinds("column type", {"int": Kind("varint", "uvarint")}, {3: "int"}, 0x80)
        >>> kinds.decode_all([3, 3], [0, 0x80], [b"\\x03", None]), kinds.decode_all([4], [0], [b""])
        ([-2, None], None)
        """
        try:
            return list(map(self.decode, codes, flags, raws))
        except DecodeError:
            return None

    def quick_values(self, codes, flags, raws) -> list | None:
        """:meth:`decode_all` for groups as the reference writes them (minimal varints, a
        known kind per code), quickly; None for anything else, left to :meth:`decode_all`.

        >>> kinds = ValueKinds("column type", {"int": Kind("varint", "uvarint")}, {3: "int"}, 0x80)
        >>> kinds.quick_values([3, 3], [0, 0x80], [b"\\xa0\\x1f", b"\\x01"]), kinds.quick_values([99], [0], [b""])
        ([2000, 1], None)
        """
        values = []
        append = values.append
        table, mask, unpack_double = self.quick, self.unsigned, self.double.unpack
        try:
            for code, fl, raw in zip(codes, flags, raws):
                kind = table[code]  # an IndexError past 255, like an unknown code
                if kind is None:
                    return None
                if raw is None:
                    append(None)
                elif kind == Q_BYTES:
                    append(raw)
                elif kind == Q_STR:
                    append(raw.decode())
                elif kind <= Q_UVARINT:  # a varint filling exactly the value bytes
                    value = raw[0]
                    if len(raw) == 1 and value < 0x80:
                        pass
                    elif len(raw) == 2 and value >= 0x80 and raw[1] < 0x80:
                        value = (value & 0x7F) | (raw[1] << 7)
                    else:
                        value, used = read_uvarint(raw, 0)
                        if used != len(raw):
                            return None
                    if kind == Q_VARINT or (kind == Q_SIGNED_UNLESS and not fl & mask):
                        value = (value >> 1) ^ -(value & 1)
                    append(value)
                elif kind == Q_F64 and len(raw) == 8:
                    append(unpack_double(raw)[0])
                else:  # NULL kind with a value, or a double that is not 8 bytes
                    return None
        except (IndexError, UnicodeDecodeError, DecodeError):
            return None
        return values

    def quick_encode(self, code, flags, value):
        """:meth:`encode` for values as the model holds them (an int, float, str or bytes of
        the code's wire type, a known code), quickly; :data:`UNSURE` for anything else, left
        to :meth:`encode` and its error.

        >>> kinds = ValueKinds("column type", {"int": Kind("varint", "uvarint")}, {3: "int"}, 0x80)
        >>> kinds.quick_encode(3, 0, -128).hex(), kinds.quick_encode(3, 0, 2**63) is UNSURE
        ('ff01', True)
        """
        kind = self.quick[code] if type(code) is int and 0 <= code < 256 else None
        if kind is None:
            return UNSURE
        if value is None:
            return None
        cls = type(value)
        if kind == Q_BYTES:
            return value if cls is bytes else UNSURE
        if kind == Q_STR:
            return _utf8(value) if cls is str else UNSURE
        if kind == Q_F64:
            return self.double.pack(value) if cls is float else UNSURE
        if kind == Q_NULL or cls is not int:
            return UNSURE
        if kind == Q_UVARINT or (kind == Q_SIGNED_UNLESS and flags & self.unsigned):
            if 0 <= value < 0x80:
                return _SMALL[value]
            return write_uvarint(value) if 0 <= value <= _U64 else UNSURE
        if not -_I64 <= value < _I64:
            return UNSURE
        value = (value << 1) ^ (value >> 63)
        return _SMALL[value] if value < 0x80 else write_uvarint(value)

    def encode(self, code: int, flags: int, value) -> bytes | None:
        """The bytes of one element, or None for NULL.

        >>> kinds = ValueKinds("column type", {"int": Kind("varint", "uvarint"), "null": Kind("null")},
        ...                    {3: "int", 6: "null"}, 0x80)
        >>> kinds.encode(3, 0, -128).hex(), kinds.encode(6, 0, None) is None
        ('ff01', True)
        """
        wire = self.wire_type(code, flags)
        if wire is None:
            raise EncodeError(f"unknown {self.noun} code {code!r}")
        if value is None:
            return None
        if wire == "bytes":
            if isinstance(value, (bytes, bytearray, memoryview)):
                return bytes(value)
        elif wire == "str":
            if isinstance(value, str):
                text = _utf8(value)
                if text is UNSURE:
                    raise EncodeError(f"type code {code} needs text UTF-8 can write, got {value!r}")
                return text
        elif wire == "f64":
            if isinstance(value, float):
                return self.double.pack(value)
        elif wire == "varint":
            return write_zigzag(value)
        elif wire == "uvarint":
            return write_uvarint(value)
        else:
            raise EncodeError.expected(f"None (type code {code} is always NULL)", value)
        want = {"bytes": "bytes", "str": "str", "f64": "float"}[wire]
        raise EncodeError.expected(f"{want} (type code {code})", value)
