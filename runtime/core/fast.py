"""Helpers of the generated fast path: the errors it raises, built exactly as the
construct path builds them, so both paths fail the same way, and the slow branches of
the msb-count varints that the generated code inlines only for their one-byte form.

    >>> str(tag_error(b"\\x07", 0, 1, 0x03))
    '<message> at offset 0: expected tag 0x03, got 0x07'
    >>> msb_uvar(bytes.fromhex("c3020b"), 0, 3, 64)
    (90200, 3)
"""

from __future__ import annotations

import re
import struct
import threading
import zlib
from itertools import accumulate  # noqa: F401 - generated code sums delta-coded chunks
from types import SimpleNamespace

import anycrc
import crc32c

from runtime.core.checksum import (  # noqa: F401 - the quick tier's CRC-8 of one-byte items
    CRC8_TABLE,
)
from runtime.core.errors import DecodeError
from runtime.core.flags import FlagMembers  # noqa: F401 - a flags enum's _X_BY_VALUE
from runtime.core.kept import note
from runtime.core.leb128 import (  # noqa: F401 - for generated code
    read_reversed_uvarint,
    read_uvarint,
)
from runtime.core.msbvarint import (  # noqa: F401 - for generated code
    _LENGTH,
    encode_uvar,
    msb_svar_noting,
    msb_uvar,
    msb_uvar_noting,
    uvar_size,
    zigzag,
)

CHECKSUMS = {
    "crc8": anycrc.Model("CRC8-SMBUS").calc,
    "crc32": zlib.crc32,
    "crc32c": crc32c.crc32c,
}
"""The C functions behind ``runtime.core.checksum.crc8``/``crc32``, called without the wrapper
(the same results: the fast-path tests compare every checksum error with construct's)."""


class Retry(Exception):
    """A check of a generated quick-tier reader (``_quick_<record>``) failed: the input is
    read again by the exact reader, which gives the model or the exact error."""


QUICK_FAILURES = (Retry, IndexError, struct.error, ValueError)
"""What a quick-tier reader raises on bytes it does not take: its own ``Retry``, a read past
the buffer (IndexError, struct.error) and bad text (UnicodeDecodeError, a ValueError)."""

MSB_LENGTH = _LENGTH
"""The length (1..9) of the msb-count varint each first byte starts."""

MSB_SHORTEST = (None, 0, *(1 << 7 * (n - 1) for n in range(2, 9)), 1 << 56)
"""The smallest value whose shortest msb-count varint takes ``n`` (1..9) bytes, by ``n``:
a varint of ``n`` bytes below it is written longer than it needs (MySQL's reader takes it,
its writer never writes it).

    >>> MSB_SHORTEST[1], MSB_SHORTEST[2], MSB_SHORTEST[3], MSB_SHORTEST[9] == 1 << 56
    (0, 128, 16384, True)
"""


def msb_head_as_built(declared: int, lnifid: int, size_len: int, lnifid_len: int, length: int):
    """Whether a mysql::serialization message head whose size and lnifid varints take
    ``size_len`` and ``lnifid_len`` bytes is one build writes for a message of ``length``
    bytes: both shortest, or widened as ``runtime.formats.serializable._Header.widened``
    widens them (to the true length: the room in the lnifid up to 9 bytes, then the size).
    A reader of the common forms leaves any other head to the Python reader (wire_form).

        >>> msb_head_as_built(5, 0, 1, 1, 5), msb_head_as_built(6, 0, 1, 2, 6)
        (True, True)
        >>> msb_head_as_built(6, 0, 2, 1, 6)  # build widens the lnifid first
        False
    """
    size_shortest = uvar_size(declared)
    if size_len == size_shortest and lnifid_len == uvar_size(lnifid):
        return True
    return declared == length and (size_len == size_shortest or lnifid_len == 9)


MSB_ZIGZAG1 = tuple(None if b & 1 else (b >> 2) ^ -((b >> 1) & 1) for b in range(256))
"""The signed (zigzag) value of each one-byte msb-count varint, by its byte."""

LEB128_ZIGZAG1 = tuple((b >> 1) ^ -(b & 1) for b in range(128))
"""The signed (zigzag) value of each one-byte LEB128 varint, by its byte."""

Parent = SimpleNamespace
"""What a record's ``_parent`` expressions see: the enclosing record's fields so far."""

EMPTY_PARENT = Parent()
"""What a fast writer returns when nothing reads its record's fields: one object shared by
every such record (a new ``Parent()`` a record cost ~300 instructions); no writer assigns to
a returned Parent, only to the ``ctx`` it made itself.

>>> EMPTY_PARENT == Parent()
True
"""


_measuring = threading.local()
"""The sizes measured while an outermost :func:`measured` runs (``sizes``: (writer, value)
ids to the value and its size), so a record nested in records measured before they are
written is measured once per enclosing measurement, not twice per level (2**depth writes).
A fixed-width size before its field is reserved and patched instead (no shipped spec calls
:func:`measured` any more); a varint-width one, or one of a list of records, is still
measured, and a user's spec may nest those."""


def measured(writer, value) -> int:
    """The bytes a generated fast writer writes for ``value``: ``sizeof(x)`` in a length
    written before ``x``.

    >>> measured(lambda v, out: out.extend(v), b"abc")
    3
    """
    sizes = getattr(_measuring, "sizes", None)
    if sizes is not None:
        known = sizes.get((id(writer), id(value)))
        if known is not None:
            return known[1]
    outermost = sizes is None
    if outermost:
        _measuring.sizes = sizes = {}
    try:
        out = bytearray()
        writer(value, out)
        sizes[id(writer), id(value)] = (value, len(out))  # the value kept: its id stays its own
        return len(out)
    finally:
        if outermost:
            _measuring.sizes = None


def measured_case(value, writers: dict) -> int:
    """``sizeof(x)`` of a switch's value ``x`` before it is written, by the value's type:
    ``writers`` maps each case's class to its fast writer (``bytes`` to None: their
    length); a value of another type raises KeyError, and construct builds it.

    >>> measured_case(b"abc", {bytes: None}), measured_case(7, {int: lambda v, out: out.append(v)})
    (3, 1)
    """
    writer = writers[type(value)]
    return len(value) if writer is None else measured(writer, value)


def tag_error(buf: bytes, pos: int, end: int, tag: int) -> DecodeError:
    """The error for a missing or wrong tag byte at ``pos`` (see ``runtime.core.tags.Tag``)."""
    if pos >= end:
        return DecodeError(f"truncated tag 0x{tag:02x}: needs 1 byte, 0 remain", offset=pos)
    return DecodeError(f"expected tag 0x{tag:02x}, got 0x{buf[pos]:02x}", offset=pos)


_ARRAYS: dict = {}
GROUPED_ARRAY_MAX = 64
"""Arrays up to this count are matched with one group per element (faster than a
second pass with ``findall``); longer ones are split after the match."""


def _array_matcher(count: int, bits: int):
    """The ``match`` of ``count`` 1- or 2-byte varints whose values fit in ``bits`` (at least
    7: the msb primitives have 8 to 64), the
    ``findall`` that splits the matched bytes into elements (None where the match has one
    group per element), and the value of each element's byte string."""
    key = (count, bits)
    if key not in _ARRAYS:
        one = [b for b in range(0, 256, 2) if b >> 1 < 1 << bits]
        two_first = list(range(1, 256, 4))
        # shortest forms only: a 2-byte value is at least 128, its second byte at least 2
        two_second = [
            s for s in range(2, 256) if any((f | s << 8) >> 2 < 1 << bits for f in two_first)
        ]
        values = {bytes([b]): b >> 1 for b in one}
        values.update(
            {
                bytes([f, s]): (f | s << 8) >> 2
                for f in two_first
                for s in two_second
                if (f | s << 8) >> 2 < 1 << bits
            }
        )
        cls = lambda bs: b"[" + b"".join(re.escape(bytes([b])) for b in bs) + b"]"
        if bits >= 14:
            token = cls(one) + b"|" + cls(two_first) + b"[\x02-\xff]"
        else:
            # 2-byte forms within `bits`: first byte's top 6 bits and the second byte
            top = (1 << (bits - 6)) - 1
            token = cls(one)
            if top >= 2:  # 7 bits have no 2-byte shortest form
                token += b"|" + cls(two_first) + cls(range(2, top + 1))
        if count <= GROUPED_ARRAY_MAX:
            # One group per element: the match hands over every element's bytes at once.
            all_re = re.compile((b"(" + token + b")") * count, re.DOTALL)
            split = None
        else:
            all_re = re.compile(b"(?:" + token + b"){%d}" % count, re.DOTALL)
            split = re.compile(b"(?:" + token + b")", re.DOTALL).findall
        _ARRAYS[key] = (all_re.match, split, values.__getitem__)
    return _ARRAYS[key]


class MsbArray:
    """``count`` (at most ``GROUPED_ARRAY_MAX``) 1- or 2-byte msb varints within ``bits``
    in their shortest forms,
    as the common form of a generated message reader reads them: ``match(buf, pos, end)``
    with one group per element, ``value`` of a group, and ``last``, the bytes and the
    values of the array it matched last. The reader tries ``last`` first: the same bytes
    are the same elements, and a binlog's events mostly carry one server's UUID."""

    __slots__ = ("last", "match", "value")

    def __init__(self, count: int, bits: int):
        self.match, split, self.value = _array_matcher(count, bits)
        assert split is None, count
        self.last = (bytes(count), (0,) * count)  # count zeros: a true pair from the start


def msb_uvar_array(buf, pos: int, end: int, count: int, bits: int):
    """``count`` unsigned varints back to back, or ``None`` when any of them is not a
    well-formed 1- or 2-byte varint within ``bits`` in its shortest form (the caller then reads them one by one
    to raise the exact error). ``(values, new_pos)`` otherwise."""
    match, split, value = _ARRAYS.get((count, bits)) or _array_matcher(count, bits)
    m = match(buf, pos, end)
    if m is None:
        return None
    stop = m.end()
    if split is None:
        return list(map(value, m.groups())), stop
    return list(map(value, split(buf, pos, stop))), stop


def msb_field_id(buf, pos: int, end: int, field_id: int) -> tuple[bool, int]:
    """Peek at the next field id of a ``mysql::serialization`` message: ``(True, after)``
    when it is ``field_id`` (noted when longer than it needs, ``runtime.core.kept``),
    ``(False, pos)`` when it belongs to a later field; an earlier id is an error
    (``runtime.formats.serializable.SerializableMessage._parse_field``)."""
    found, after = msb_uvar(buf, pos, end, 64, "field id")
    if found == field_id:
        if after - pos > 1 and uvar_size(found) < after - pos:
            note()
        return True, after
    if found < field_id:
        raise DecodeError(f"expected field id {field_id}, found {found}", offset=pos)
    return False, pos


def msb_uvar_bytes(value, bits: int) -> bytes:
    """The shortest msb-count varint of ``value``, an ``int`` in ``0 .. 2**bits-1`` (the
    generated writers inline the one-byte form). Anything else raises ValueError: the
    generated ``build`` then writes the model with construct, which says what is wrong
    (``runtime.core.msbvarint.write_uvar``).

        >>> msb_uvar_bytes(90200, 32).hex()
        'c3020b'
    """
    if value.__class__ is not int or value < 0 or value >> bits:
        raise ValueError("not an msb varint of this width")
    if value < 0x4000:  # runtime.core.msbvarint.encode_uvar, its short forms in one call
        return bytes((value << 1,)) if value < 0x80 else ((value << 2) | 1).to_bytes(2, "little")
    return encode_uvar(value)


MSB_U8 = tuple(encode_uvar(value) for value in range(256))
"""The msb-count varint of each uint8, by its value: a fixed count of them (a UUID's 16)
written as ``b"".join(map(MSB_U8.__getitem__, bytes(values)))``."""


def msb_svar_bytes(value, bits: int) -> bytes:
    """The zigzag msb-count varint of ``value``, an ``int`` in ``-2**(bits-1) ..
    2**(bits-1)-1`` (``runtime.core.msbvarint.write_svar``); else ValueError, as above.

        >>> msb_svar_bytes(-1, 64).hex(), msb_svar_bytes(1, 64).hex()
        ('02', '04')
    """
    if value.__class__ is not int or not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise ValueError("not a signed msb varint of this width")
    return encode_uvar(zigzag(value, bits))


def mysql_size(id_len: int, lnifid_len: int, payload: int) -> int:
    """The ``serializable_field_size`` MySQL writes (``runtime.formats.serializable._Header``)."""
    return id_len + uvar_size(payload) + lnifid_len + payload


def choice_table(cases) -> list:
    """A choice's readers by first byte (``runtime.core.choice.Choice``): for each byte value,
    the reader of the only case it can start, a tuple of ``(magic, mask, reader)`` when
    the bytes after it decide (or an earlier case is longer), or None.

    >>> table = choice_table([(b"\\xd6\\xff", b"\\xff\\xff", "ts"), (b"\\xd6", b"\\xff", "ext"), (b"\\x00", b"\\x80", "int")])
    >>> table[0x05], table[0xd6], table[0xc1]
    ('int', ((b'\\xd6\\xff', b'\\xff\\xff', 'ts'), (b'\\xd6', b'\\xff', 'ext')), None)
    """
    table = []
    for byte in range(256):
        matching = tuple(c for c in cases if byte & c[1][0] == c[0][0])
        if not matching:
            table.append(None)
        elif len(matching[0][0]) == 1:
            table.append(matching[0][2])  # the first match decides on this byte alone
        else:
            table.append(matching)
    return table


def pick(candidates, buf, pos: int, end: int):
    """The reader of the first of ``candidates`` whose bytes match at ``pos``, or None; a
    truncation error when the input ends inside a candidate's leading bytes (as
    ``runtime.core.choice.Choice``)."""
    for magic, mask, reader in candidates:
        if end - pos >= len(magic) and all(
            buf[pos + i] & m == g for i, (g, m) in enumerate(zip(magic, mask))
        ):
            return reader
    for magic, mask, _ in candidates:
        if end - pos < len(magic) and all(
            buf[pos + i] & m == g for i, (g, m) in enumerate(zip(magic[: end - pos], mask))
        ):
            raise DecodeError(
                f"truncated: needs {len(magic)} bytes, {end - pos} remain", offset=pos
            )
    return None


def no_case(buf, pos: int, end: int, width: int) -> DecodeError:
    """The error of a choice no case of which matches (``runtime.core.choice.Choice``)."""
    if pos >= end:
        return DecodeError("truncated: a value needs at least 1 byte", offset=pos)
    return DecodeError(
        f"no case matches the bytes {bytes(buf[pos : min(pos + width, end)]).hex()}", offset=pos
    )
