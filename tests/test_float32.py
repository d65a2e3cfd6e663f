"""A float32 keeps its bits, a signalling NaN's payload included, in every tier.

``struct``'s ``"f"`` (and a C cast) widens a float32 to a double and, on x86, sets a
signalling NaN's quiet bit: MessagePack ``ca7f8f0004`` came back as ``ca7fcf0004``.
runtime/core/float32.py widens and narrows a NaN on its bits instead."""

from __future__ import annotations

import struct

import pytest

from generated import msgpack as mp
from generated import protobuf_wire as pw
from runtime.core import float32
from runtime.core.limits import DEFAULT

BITS = [
    0x7F800001,  # the smallest signalling payload
    0x7F8F0004,  # the fuzzer's
    0xFFBFFFFF,  # negative, the largest signalling payload
    0x7FC00000,  # the quiet NaN
    0xFFC00001,  # negative quiet with a payload
    0x7F800000,  # infinity
    0x80000000,  # -0.0
    0x3FC00000,  # 1.5
    0x00000001,  # the smallest subnormal
]


@pytest.mark.parametrize("bits", BITS, ids=hex)
def test_widen_then_pack_is_the_identity(bits):
    value = float32.widen(bits)
    for order in "<>":
        assert float32.pack(value, order) == struct.pack(order + "I", bits)
        again = float32.nan_from(struct.pack(order + "I", bits), 0, order)
        assert struct.pack("<d", again) == struct.pack("<d", value)


def test_a_double_nan_a_float32_cannot_hold_packs_as_struct_packs_it():
    value = struct.unpack("<d", bytes.fromhex("010000000000f07f"))[0]  # payload bit 0 only
    assert float32.pack(value, "<") == struct.pack("<f", value)


@pytest.mark.parametrize("bits", BITS, ids=hex)
def test_msgpack_float32_in_every_reader_and_writer(bits):
    data = b"\xca" + struct.pack(">I", bits)
    assert mp.build(mp.parse(data, "float32"), "float32") == data
    assert mp.build_construct(mp.parse_construct(data, "float32"), "float32") == data
    assert (
        mp.build(mp.from_dict(mp.to_dict(mp.parse(data, "float32")), "float32"), "float32") == data
    )
    quick, _ = mp.QUICK_READERS["float32"]
    model, _ = quick(data, 0, len(data), DEFAULT)
    assert mp.build(model, "float32") == data
    array = b"\x92" + data + data  # inside a value, by the fused and the nested readers
    assert mp.build(mp.parse(array)) == array


@pytest.mark.parametrize("bits", BITS, ids=hex)
def test_protobuf_float_keeps_its_bits(bits):
    data = b"\x85\x01" + struct.pack("<I", bits)  # delivery_longitude = 16, I32
    assert pw.build(pw.parse(data)) == data
    assert pw.build_construct(pw.parse_construct(data)) == data
