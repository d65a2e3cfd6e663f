"""The flat varint readers of runtime/formats/thrift_varints.py agree with the checked reader
(runtime/core/leb128.py) on every input: the same value and end, or the same error; a list
read as zigzag runs, then the element loop, agrees with the element loop alone."""

from __future__ import annotations

import random

import pytest

import runtime.formats.thrift_varints as rt
from runtime.core.errors import DecodeError


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


def _element_loop(buf, pos, end, n, bits, out):
    read = {16: rt.read_i16, 32: rt.read_i32, 64: rt.read_i64}[bits]
    for _ in range(len(out), n):
        v, pos = read(buf, pos, end)
        out.append(v)
    return pos


def _varints(us):
    out = bytearray()
    for u in us:
        while u > 0x7F:
            out.append(u & 0x7F | 0x80)
            u >>= 7
        out.append(u)
    return bytes(out)


def _lists():
    rng = random.Random(9)
    for _ in range(1500):
        n = rng.choice((8, 9, 20, 60, 511, 512, 513, 1100))
        if rng.random() < 0.6:  # equal sizes, sometimes one odd element
            size = rng.randrange(1, 11)
            us = [rng.randrange(1 << (7 * size - 7), 1 << min(7 * size, 64)) for _ in range(n)]
            if rng.random() < 0.3:
                us[rng.randrange(n)] = rng.randrange(1 << 64)
            data = _varints(us)
        else:  # anything
            data = bytes(
                rng.choice((rng.randrange(256), rng.randrange(0x80, 256)))
                for _ in range(rng.randrange(12 * n))
            )
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data) + 1)]
        tail = bytes(rng.randrange(256) for _ in range(rng.randrange(4)))
        yield n, rng.choice((16, 32, 64)), data + tail


def _run_then_loop(data, n, bits):
    out = []
    pos = rt.read_zigzag_run(data, 0, len(data), n, bits, out)
    assert len(out) <= n
    return out, _element_loop(data, pos, len(data), n, bits, out)


def _loop_only(data, n, bits):
    out = []
    return out, _element_loop(data, 0, len(data), n, bits, out)


def test_zigzag_runs_then_the_element_loop_match_the_element_loop():
    for n, bits, data in _lists():
        assert _outcome(_run_then_loop, data, n, bits) == _outcome(_loop_only, data, n, bits), (
            n,
            bits,
            data.hex(),
        )
