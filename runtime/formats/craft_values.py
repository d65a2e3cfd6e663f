"""TiCDC Craft's column values: the seven value kinds the spec's type-code table names.

Which kind a MySQL type code's value bytes have is the spec's (``specs/ticdc_craft.yaml``:
the ``craft`` attribute of ``column_type``, generated as ``COLUMN_TYPE_CRAFT``; the codes
are MySQL's, imported from ``specs/mysql_types.yaml``); this module implements the kinds.
A code missing from the table is rejected on both decode and encode:

    >>> enc = {3: "int", 13: "sint"}
    >>> decode_value(3, 0, bytes.fromhex("a01f"), enc), encode_value(13, 0x80, 2021, enc).hex()
    (2000, 'ca1f')
"""

from __future__ import annotations

from runtime.core.errors import DecodeError, EncodeError
from runtime.core.leb128 import (
    read_uvarint,
    read_zigzag,
    write_uvarint,
    write_zigzag,
)
from runtime.formats.craft_chunks import _DOUBLE, _decode_text
from runtime.formats.ticdc import (
    FLAG_UNSIGNED,
)

VALUE_KINDS = ("int", "sint", "uint", "float64", "text", "bytes", "null")
"""The value kinds a ``craft`` attribute may name (research §7)."""


def value_kind(type_code: int, flags: int, encodings) -> str | None:
    """The encoding of a column's value (``encodings[type_code]``, with "int" resolved by
    the Unsigned flag), or None for an unknown type code.

    >>> enc = {3: "int", 13: "sint"}
    >>> value_kind(3, 0, enc), value_kind(3, 0x80, enc), value_kind(13, 0x80, enc), value_kind(99, 0, enc)
    ('sint', 'uint', 'sint', None)
    """
    kind = encodings.get(type_code)
    if kind == "int":
        return "uint" if flags & FLAG_UNSIGNED else "sint"
    return kind


def decode_value(type_code: int, flags: int, raw: bytes | None, encodings):
    """The typed value of the value bytes of one column (offsets in errors are into ``raw``).

    >>> enc = {3: "int", 4: "float64", 8: "int"}
    >>> decode_value(3, 0, bytes.fromhex("a01f"), enc), decode_value(8, 0x80, b"\\x01", enc)
    (2000, 1)
    >>> decode_value(4, 0, bytes(7), enc)
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: float64 value needs 8 bytes, got 7
    """
    kind = encodings.get(type_code)
    if kind is None:
        raise DecodeError(f"unknown column type code {type_code}", offset=0)
    if raw is None:
        return None
    if kind == "int":
        kind = "uint" if flags & FLAG_UNSIGNED else "sint"
    if kind == "bytes":
        return raw
    if kind == "text":
        return _decode_text(raw, "utf-8", 0)
    if kind == "float64":
        if len(raw) != 8:
            raise DecodeError(f"float64 value needs 8 bytes, got {len(raw)}", offset=0)
        return _DOUBLE.unpack(raw)[0]
    if kind == "null":
        raise DecodeError(f"type code {type_code} is always NULL but has a value", offset=0)
    value, used = (read_zigzag if kind == "sint" else read_uvarint)(raw, 0)
    if used != len(raw):
        raise DecodeError(f"{len(raw) - used} bytes after the varint value", offset=used)
    return value


def encode_value(type_code: int, flags: int, value, encodings) -> bytes | None:
    """The value bytes of one column, or None for NULL.

    >>> enc = {3: "int", 6: "null", 13: "sint"}
    >>> encode_value(3, 0, -128, enc).hex(), encode_value(13, 0x80, 2021, enc).hex()
    ('ff01', 'ca1f')
    >>> encode_value(6, 0, None, enc) is None
    True
    """
    kind = value_kind(type_code, flags, encodings)
    if kind is None:
        raise EncodeError(f"unknown column type code {type_code!r}")
    if value is None:
        return None
    if kind == "bytes":
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
    elif kind == "text":
        if isinstance(value, str):
            return value.encode("utf-8", "surrogateescape")
    elif kind == "float64":
        if isinstance(value, float):
            return _DOUBLE.pack(value)
    elif kind == "sint":
        return write_zigzag(value)
    elif kind == "uint":
        return write_uvarint(value)
    else:
        raise EncodeError(f"type code {type_code} is always NULL, got {type(value).__name__}")
    want = {"bytes": "bytes", "text": "str", "float64": "float"}[kind]
    raise EncodeError(f"type code {type_code} needs {want}, got {type(value).__name__}")
