"""Helpers of the generated fast path: the errors it raises, built exactly as the
construct path builds them, so both paths fail the same way, and the slow branches of
the msb-count varints that the generated code inlines only for their one-byte form.

    >>> str(tag_error(b"\\x07", 0, 1, 0x03))
    '<message> at offset 0: expected tag 0x03, got 0x07'
    >>> msb_uvar(bytes.fromhex("c3020b"), 0, 3, 64)
    (90200, 3)
"""

from __future__ import annotations

import zlib
from types import SimpleNamespace

import anycrc

from .errors import DecodeError
from .msbvarint import _LENGTH, uvar_size

CHECKSUMS = {"crc8": anycrc.Model("CRC8-SMBUS").calc, "crc32": zlib.crc32}
"""The C functions behind ``runtime.checksum.crc8``/``crc32``, called without the wrapper
(the same results: the fast-path tests compare every checksum error with construct's)."""

Parent = SimpleNamespace
"""What a record's ``_parent`` expressions see: the enclosing record's fields so far."""


def tag_error(buf: bytes, pos: int, end: int, tag: int) -> DecodeError:
    """The error for a missing or wrong tag byte at ``pos`` (see ``runtime.record.Tag``)."""
    if pos >= end:
        return DecodeError(f"truncated tag 0x{tag:02x}: needs 1 byte, 0 remain", offset=pos)
    return DecodeError(f"expected tag 0x{tag:02x}, got 0x{buf[pos]:02x}", offset=pos)


def msb_uvar(buf, pos: int, end: int, bits: int, what: str = "varint") -> tuple[int, int]:
    """One unsigned msb-count varint at ``pos``: ``(value, new_pos)``, with the errors of
    :func:`runtime.msbvarint.read_uvar` (truncation, a value wider than ``bits``)."""
    if pos >= end:
        raise DecodeError(f"truncated {what}: needs 1 byte, 0 remain", offset=pos)
    first = buf[pos]
    n = _LENGTH[first]
    if n == 1:
        return first >> 1, pos + 1
    stop = pos + n
    if stop > end:
        raise DecodeError(f"truncated {what}: announces {n} bytes, {end - pos} remain", offset=pos)
    if n == 9:
        value = int.from_bytes(buf[pos + 1 : stop], "little")
    else:
        value = int.from_bytes(buf[pos:stop], "little") >> n
    if value >> bits:
        raise DecodeError(f"{what} {value} does not fit in uint{bits}", offset=pos)
    return value, stop


def msb_svar(buf, pos: int, end: int, bits: int, what: str = "signed varint"):
    """One zigzag msb-count varint (:func:`runtime.msbvarint.read_svar`)."""
    value, pos = msb_uvar(buf, pos, end, bits, what)
    return (value >> 1) ^ -(value & 1), pos


def msb_uvar_array(buf, pos: int, end: int, count: int, bits: int):
    """``count`` unsigned varints back to back, or ``None`` when any of them is not a
    well-formed 1- or 2-byte varint within ``bits`` (the caller then reads them one by one
    to raise the exact error). ``(values, new_pos)`` otherwise."""
    out = []
    append = out.append
    limit = 1 << bits
    for _ in range(count):
        if pos >= end:
            return None
        b = buf[pos]
        if not b & 1:
            append(b >> 1)
            pos += 1
        elif b & 3 == 1 and pos + 1 < end:
            v = (b | (buf[pos + 1] << 8)) >> 2
            if v >= limit:
                return None
            append(v)
            pos += 2
        else:
            return None
    return out, pos


def msb_field_id(buf, pos: int, end: int, field_id: int) -> tuple[bool, int]:
    """Peek at the next field id of a ``mysql::serialization`` message: ``(True, after)``
    when it is ``field_id``, ``(False, pos)`` when it belongs to a later field; an earlier
    id is an error (``runtime.serializable.SerializableMessage._parse_field``)."""
    found, after = msb_uvar(buf, pos, end, 64, "field id")
    if found == field_id:
        return True, after
    if found < field_id:
        raise DecodeError(f"expected field id {field_id}, found {found}", offset=pos)
    return False, pos


def mysql_size(id_len: int, lnifid_len: int, payload: int) -> int:
    """The ``serializable_field_size`` MySQL writes (``runtime.serializable._Header``)."""
    return id_len + uvar_size(payload) + lnifid_len + payload
