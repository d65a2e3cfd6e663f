"""The flat varint readers of runtime/thrift_compact.py agree with the checked reader
(runtime/leb128.py) on every input: the same value and end, or the same error."""

from __future__ import annotations

import random

import pytest

import runtime.thrift_compact as rt
from runtime.errors import DecodeError


def _reference(kind, buf, pos, end):
    bits, max_bytes = {"i16": (16, 3), "i32": (32, 5), "i64": (64, 10), "size": (32, 5)}[kind]
    u, new = rt._varint(buf, pos, end, bits, max_bytes, kind)
    if kind == "size":
        if u > 0x7FFFFFFF:
            raise DecodeError(f"size {u} is negative as an int32", offset=pos)
        return u, new
    return (u >> 1) ^ -(u & 1), new


def _outcome(fn, *args):
    try:
        return fn(*args)
    except DecodeError as err:
        return ("error", str(err), err.offset)


def _inputs():
    rng = random.Random(8)
    out = [b"", b"\x00", b"\x80", b"\xff" * 12, b"\xff\xff\x03", b"\xff\xff\x04"]
    out += [b"\xff" * 4 + bytes([x]) for x in (0x07, 0x0F, 0x10, 0x7F)]
    out += [b"\xff" * 9 + bytes([x]) for x in (0x00, 0x01, 0x02, 0x7F)]
    for _ in range(3000):
        n = rng.randrange(1, 12)
        body = [rng.choice((rng.randrange(0x80, 0x100), 0xFF, 0x80)) for _ in range(n - 1)]
        out.append(bytes(body + [rng.randrange(0, 0x100)]))
    return out


@pytest.mark.parametrize("kind", ["i16", "i32", "i64", "size"])
def test_flat_readers_match_the_checked_reader(kind):
    fn = getattr(rt, f"read_{kind}")
    for data in _inputs():
        buf = b"\x01" + data + b"\x02" * 11  # room for the unrolled path, or not
        for end in {len(buf), len(data) + 2, len(data) + 1, len(data) - 1}:
            if end < 1:
                continue
            assert _outcome(fn, buf, 1, end) == _outcome(_reference, kind, buf, 1, end), (
                data.hex(),
                end,
            )
