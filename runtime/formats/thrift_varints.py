"""The zigzag varints of Thrift Compact's integers, read: one at a time (an i16, i32 or i64,
a size, a long-form field id, the envelope's seqid), and a list's runs of equal-sized ones
at once (:func:`read_zigzag_run`).

Each reader takes the well-formed case in one flat loop and hands anything else (cut, too
long, too wide) to :mod:`runtime.core.leb128`, which raises the exact error. Generated
modules call them as ``rt.<name>`` of :mod:`runtime.formats.thrift_compact`.

    >>> read_i32(b"\\xfe\\xff\\xff\\xff\\x0f", 0, 5)
    (2147483647, 5)
    >>> read_size(b"\\xff\\xff\\xff\\xff\\x0f", 0, 5)
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: size 4294967295 is negative as an int32
"""

from __future__ import annotations

import struct

from runtime.core.errors import DecodeError
from runtime.core.leb128 import read_uvarint

ZZ7 = tuple((u >> 1) ^ -(u & 1) for u in range(128))
"""A one-byte zigzag varint -> its value (a lookup is cheaper than the arithmetic)."""


def _varint(buf, pos, end, bits, max_bytes, what):
    try:
        return read_uvarint(buf, pos, bits=bits, max_bytes=max_bytes, end=end)
    except DecodeError as err:
        err.message = f"{what}: {err.message}"
        raise


# The readers below take the well-formed case in one flat loop and hand anything else
# (truncated, too long, too wide) to _varint, which raises the exact error.


def read_i16(buf, pos: int, end: int):
    p, u, shift = pos, 0, 0
    stop = pos + 3 if pos + 3 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 16:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 16, 3, "i16")
    return (u >> 1) ^ -(u & 1), pos


def read_i32(buf, pos: int, end: int):
    p, u, shift = pos, 0, 0
    stop = pos + 5 if pos + 5 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 32:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 32, 5, "i32")
    return (u >> 1) ^ -(u & 1), pos


def read_i64(buf, pos: int, end: int):
    if pos + 10 <= end:  # unrolled: no loop counter, no shift variable
        b = buf[pos]
        if b < 0x80:
            return ZZ7[b], pos + 1
        u = b & 0x7F
        b = buf[pos + 1]
        if b < 0x80:
            u |= b << 7
            return (u >> 1) ^ -(u & 1), pos + 2
        u |= (b & 0x7F) << 7
        b = buf[pos + 2]
        if b < 0x80:
            u |= b << 14
            return (u >> 1) ^ -(u & 1), pos + 3
        u |= (b & 0x7F) << 14
        b = buf[pos + 3]
        if b < 0x80:
            u |= b << 21
            return (u >> 1) ^ -(u & 1), pos + 4
        u |= (b & 0x7F) << 21
        # Past 28 bits the groups go to `h`, so every step stays a one-digit int operation
        # and only the final combine works on a big int.
        b = buf[pos + 4]
        h = b & 0x7F
        n = 5
        if b >= 0x80:
            b = buf[pos + 5]
            h |= (b & 0x7F) << 7
            n = 6
            if b >= 0x80:
                b = buf[pos + 6]
                h |= (b & 0x7F) << 14
                n = 7
                if b >= 0x80:
                    b = buf[pos + 7]
                    h |= (b & 0x7F) << 21
                    n = 8
                    if b >= 0x80:
                        b = buf[pos + 8]
                        h |= (b & 0x7F) << 28
                        n = 9
                        if b >= 0x80:
                            b = buf[pos + 9]
                            if b > 1:  # too long or too wide: _varint raises the error
                                _varint(buf, pos, end, 64, 10, "i64")
                            h |= b << 35
                            n = 10
        v = h << 27 | u >> 1
        return (~v if u & 1 else v), pos + n
    p, u, shift = pos, 0, 0
    stop = pos + 10 if pos + 10 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 64:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 64, 10, "i64")
    return (u >> 1) ^ -(u & 1), pos


def read_size(buf, pos: int, end: int):
    """A length or element count: a varint that must fit a non-negative int32."""
    p, u, shift = pos, 0, 0
    stop = pos + 5 if pos + 5 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u > 0x7FFFFFFF:
                break
            return u, p
        shift += 7
    u, new = _varint(buf, pos, end, 32, 5, "size")
    if u > 0x7FFFFFFF:
        raise DecodeError(f"size {u} is negative as an int32", offset=pos)
    return u, new


# -- runs of zigzag varints --------------------------------------------------------------
# A list of i16/i32/i64 whose elements all take the same number of bytes (ids, timestamps,
# counters of one magnitude) decodes with a few whole-run operations instead of a Python
# step per byte: the varints' bytes are spread into 2/4/8-byte lanes (bytes.replace
# pads after each last byte), the 7-bit groups of every lane are packed together at once on one big int (a
# shift/mask ladder), zigzag-decoded likewise, and `struct` unpacks the lanes.

RUN_MIN = 8
"""Shorter lists (and shorter runs) are read element by element: that is as fast."""


_RUN_CHUNK = 512  # elements per step: bounds the size of the big ints and of the masks


_RUN_MAX_SIZE = {16: 3, 32: 5, 64: 8}  # 9- and 10-byte i64 take the element loop


_HIGH_BIT = bytes(b & 0x80 for b in range(256))


_LEADING = bytes(b if b & 0x80 else 0 for b in range(256))


class _Run:
    """What decoding a run of ``size``-byte varints needs: the expected continuation bits
    and, for its lane width, the masks of the packing ladder and of the zigzag step."""

    def __init__(self, size: int):
        self.lane = lane = 1 << (size - 1).bit_length()  # bytes: 2, 4 or 8
        self.pad = bytes(lane - size + 1) if lane > size else b""

        def tile(value: int, width: int) -> int:  # value repeated every `width` bytes
            return int.from_bytes(
                value.to_bytes(width, "little") * (lane * _RUN_CHUNK // width), "little"
            )

        # Step s joins each pair of (7 << s)-bit groups held in (8 << s)-bit slots: the
        # high one moves down (1 << s) bits, next to the low one; the masks drop the
        # continuation bits. The last step also shifts both right one more bit: the
        # zigzag's u >> 1.
        self.ladder = []
        shift = 1
        while shift < lane:
            group = 7 * shift
            last = int(2 * shift == lane)
            keep = tile((1 << group) - 1 - last, 2 * shift)  # bit 0 is the sign, not shifted over
            move = tile(((1 << group) - 1) << (8 * shift), 2 * shift)
            self.ladder.append((keep, last, move, shift + last))
            shift *= 2
        self.one = tile(1, lane)
        self.ones = (1 << (8 * lane)) - 1
        self.over = {bits: tile(self.ones >> bits << bits, lane) for bits in (15, 31)}
        self.fmt = "<%d" + {2: "h", 4: "i", 8: "q"}[lane]


_RUNS: dict = {}  # size -> _Run, built on first use


_RUN_HIGH = [b""] + [(b"\x80" * (size - 1) + b"\x00") * _RUN_CHUNK for size in range(1, 9)]


def read_zigzag_run(buf, pos: int, end: int, n: int, bits: int, out: list) -> int:
    """Append to ``out`` the leading elements of a list of ``n`` zigzag varints of ``bits``
    bits at ``pos`` that come in runs of equal size, each in its shortest form; return the
    position after them.

    The caller's element loop reads whatever is left (mixed sizes, 9-10 byte forms, bad
    bytes), so values and errors are exactly the loop's.

    >>> out = []
    >>> read_zigzag_run(b"\\x83\\x01" * 8 + b"\\x00", 0, 17, 9, 32, out), out  # 8 of 2 bytes, 1 left
    (16, [-66, -66, -66, -66, -66, -66, -66, -66])
    """
    top = _RUN_MAX_SIZE[bits]
    while n - len(out) >= RUN_MIN:
        p = pos
        while p < end and buf[p] >= 0x80:
            p += 1
        size = p + 1 - pos
        if p >= end or size > top:
            break
        k = min(n - len(out), _RUN_CHUNK, (end - pos) // size)
        region = buf[pos : pos + k * size]
        got, want = region.translate(_HIGH_BIT), _RUN_HIGH[size][: k * size]
        if got != want:  # the run ends at the first varint of another size
            diff = int.from_bytes(got, "little") ^ int.from_bytes(want, "little")
            k = ((diff & -diff).bit_length() - 1) // (8 * size)
            if k < RUN_MIN:
                break
            region = region[: k * size]
        if size > 1:  # a longer form than the value needs (last byte 0): the loop reads it
            longer = region[size - 1 :: size].find(0)
            if longer >= 0:
                k = longer
                if k < RUN_MIN:
                    break
                region = region[: k * size]
        else:
            out += map(ZZ7.__getitem__, region)
            pos += k
            continue
        run = _RUNS.get(size) or _RUNS.setdefault(size, _Run(size))
        if run.pad:  # into lanes: zero the last bytes, pad after them, put them back
            lanes = bytearray(region.translate(_LEADING).replace(b"\x00", run.pad))
            lanes[size - 1 :: run.lane] = region[size - 1 :: size]
            region = lanes
        x = int.from_bytes(region, "little")
        odd = x & run.one  # each lane's zigzag sign: bit 0 of its first byte
        for keep, low, move, high in run.ladder:
            x = (x & keep) >> low | (x & move) >> high
        if 7 * size > bits and x & run.over[bits - 1]:
            break  # a value too wide: the element loop reports it
        x ^= odd * run.ones
        out += struct.unpack(run.fmt % k, x.to_bytes(run.lane * k, "little"))
        pos += k * size
    return pos


def read_field_id(buf, pos: int, end: int):
    """The zigzag i16 field id of a long-form field header."""
    try:
        return read_i16(buf, pos, end)
    except DecodeError as err:
        err.message = f"long-form field id: {err.message}"
        err.struct_level = True
        raise


def read_seqid(buf, pos: int, end: int):
    """The envelope's seqid: an unsigned 32-bit varint holding an int32 (two's complement)."""
    u, pos = _varint(buf, pos, end, 32, 5, "seqid")
    return (u - (1 << 32) if u > 0x7FFFFFFF else u), pos
