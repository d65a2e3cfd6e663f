"""MySQL's msb-count varints (research/mysql_serialization.md §1-§2)."""

import doctest
import io
import json
from pathlib import Path

import pytest
from construct import Array, SizeofError, Struct
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime.core.msbvarint
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.fast import MSB_LENGTH
from runtime.core.msbvarint import (
    MsbVarInt,
    MsbZigZag,
    decode_uvar,
    encode_uvar,
    uvar_size,
)

VECTORS = json.loads((Path(__file__).parent / "data/vectors/mysql_serialization.json").read_text())
WIDTH = {"uint64": 64, "uint8": 8, "int64": 64}
INT_VECTORS = [v for v in VECTORS if v["decoded"].get("type") in WIDTH]
U64_MAX, I64_MIN, I64_MAX = 2**64 - 1, -(2**63), 2**63 - 1


def codec(type_name):
    signed = type_name.startswith("int")
    return (MsbZigZag if signed else MsbVarInt)(WIDTH[type_name])


def reference_encode(value: int) -> bytes:
    """An independent model of §1: try lengths 1..8, else the 9-byte form."""
    for n in range(1, 9):
        if value < 1 << (7 * n):
            word = value << n | (2 ** (n - 1) - 1)
            return word.to_bytes(n, "little")
    return b"\xff" + value.to_bytes(8, "little")


def test_every_integer_vector_is_covered():
    assert len(INT_VECTORS) == 29


@pytest.mark.parametrize("vec", INT_VECTORS, ids=lambda v: v["name"])
def test_vector_parses_and_builds(vec):
    data, value = bytes.fromhex(vec["hex"]), int(vec["decoded"]["value"])
    con = codec(vec["decoded"]["type"])
    assert con.parse(data) == value
    assert con.build(value) == data
    assert con.compile().parse(data) == value
    assert con.compile().build(value) == data
    if "bytes" in vec["decoded"]:
        assert (
            len(data)
            == vec["decoded"]["bytes"]
            == uvar_size(
                value if vec["decoded"]["type"] == "uint64" else (value << 1) ^ (value >> 63)
            )
        )


@pytest.mark.parametrize(
    "value, hexed",
    [(0, "00"), (-1, "02"), (1, "04"), (-2, "06"), (63, "fc"), (-64, "fe"), (64, "0102")]
    + [(65535, "f3ff0f"), (-65535, "ebff0f"), (-65536, "fbff0f")]
    + [(I64_MAX, "fffeffffffffffffff"), (I64_MIN, "ff" * 9)],
)
def test_signed_examples_from_research(value, hexed):
    assert MsbZigZag().build(value).hex() == hexed
    assert MsbZigZag().parse(bytes.fromhex(hexed)) == value


@pytest.mark.parametrize("n", range(1, 10))
def test_length_boundaries(n):
    lowest = 0 if n == 1 else 1 << (7 * (n - 1))
    highest = U64_MAX if n == 9 else (1 << (7 * n)) - 1
    if n == 9:
        lowest = 1 << 56  # no 9th group of 7 bits: 57..64-bit values all take 9 bytes
    for value in (lowest, lowest + 1, highest - 1, highest):
        data = encode_uvar(value)
        assert len(data) == n == uvar_size(value) == MSB_LENGTH[data[0]]
        assert data == reference_encode(value)
        assert decode_uvar(b"\xaa" + data + b"\xbb", 1) == (value, n + 1)
    if n < 9:
        assert len(encode_uvar(highest + 1)) == n + 1


def test_length_matches_mysqls_bit_width_formula():
    # variable_length_integers.h computes the length as ((bit_width * 575) >> 12) + 1.
    for width in range(65):
        value = (1 << width) - 1
        assert uvar_size(value) == ((width * 575) >> 12) + 1


@pytest.mark.parametrize(
    "hexed, value",
    [("0100", 0), ("030000", 0), ("07000000", 0), ("0500", 1), ("7f01000000000000", 1)]
    + [("ff0100000000000000", 1), ("ff0000000000000000", 0)],
)
def test_longer_than_needed_forms_are_accepted(hexed, value):
    data = bytes.fromhex(hexed)
    assert MsbVarInt().parse(data) == value
    assert MsbVarInt().build(value) == encode_uvar(value)  # writers stay minimal


@settings(max_examples=300)
@given(st.integers(0, U64_MAX))
def test_unsigned_round_trip(value):
    data = MsbVarInt().build(value)
    assert data == reference_encode(value)
    assert MsbVarInt().parse(data) == value
    assert decode_uvar(data) == (value, len(data))


@settings(max_examples=300)
@given(st.integers(I64_MIN, I64_MAX))
def test_signed_round_trip(value):
    data = MsbZigZag().build(value)
    assert data == reference_encode(2 * value if value >= 0 else -2 * value - 1)
    assert MsbZigZag().parse(data) == value


@pytest.mark.parametrize(
    "con, hexed, limit",
    [
        (MsbVarInt(8), "0104", "uint8"),  # 256
        (MsbVarInt(8), "ff" + "00" * 7 + "01", "uint8"),  # 2**56 in the 9-byte form
        (MsbVarInt(32), encode_uvar(2**32).hex(), "uint32"),
        (MsbVarInt(16), encode_uvar(2**16).hex(), "uint16"),
        (MsbZigZag(8), encode_uvar(256).hex(), "uint8"),  # range-checked before unzigzag
    ],
)
def test_values_wider_than_the_field_are_rejected(con, hexed, limit):
    with pytest.raises(DecodeError, match=limit) as info:
        Struct("pad" / MsbVarInt(), "v" / con).parse(b"\x02" + bytes.fromhex(hexed))
    assert info.value.offset == 1


def test_widest_values_of_each_width_are_accepted():
    assert MsbVarInt(8).parse(encode_uvar(255)) == 255
    assert MsbVarInt(32).parse(encode_uvar(2**32 - 1)) == 2**32 - 1
    assert MsbZigZag(8).parse(encode_uvar(255)) == -128
    assert MsbZigZag(32).build(2**31 - 1) == encode_uvar(2**32 - 2)


@pytest.mark.parametrize(
    "con, value",
    [
        (MsbVarInt(8), 256),
        (MsbVarInt(8), -1),
        (MsbVarInt(), 2**64),
        (MsbVarInt(32), 2**32),
        (MsbZigZag(), 2**63),
        (MsbZigZag(), -(2**63) - 1),
        (MsbZigZag(8), 128),
        (MsbVarInt(), "1"),
        (MsbVarInt(), 1.0),
        (MsbVarInt(), True),
        (MsbZigZag(), None),
    ],
)
def test_build_rejects_out_of_range_and_non_integers(con, value):
    with pytest.raises(EncodeError):
        con.build(value)
    with pytest.raises(EncodeError):
        con.compile().build(value)


@pytest.mark.parametrize("vec", INT_VECTORS, ids=lambda v: v["name"])
def test_truncation_anywhere_is_a_decode_error_at_the_varint(vec):
    data = bytes.fromhex(vec["hex"])
    con = Struct("pad" / MsbVarInt(), "v" / codec(vec["decoded"]["type"]))
    for cut in range(len(data)):
        for parser in (con, con.compile()):
            with pytest.raises(DecodeError, match="truncated") as info:
                parser.parse(b"\x00" + data[:cut])
            assert info.value.offset == 1


def test_varint_announcing_more_bytes_than_remain():
    with pytest.raises(DecodeError, match="announces 9 bytes, 3 remain") as info:
        MsbVarInt().parse(b"\xff\x00\x00")
    assert info.value.offset == 0
    with pytest.raises(DecodeError, match="announces 8 bytes, 2 remain") as info:
        decode_uvar(b"\x00\x00\x7f\x00", 2)
    assert info.value.offset == 2
    with pytest.raises(DecodeError, match="needs 1 byte") as info:
        decode_uvar(b"\x00", 1)
    assert info.value.offset == 1


def test_compiled_parser_inlines_the_varints_and_agrees():
    con = Struct("flags" / MsbVarInt(8), "uuid" / Array(16, MsbVarInt(8)), "gno" / MsbZigZag())
    compiled = con.compile()
    assert "linkedparsers[" not in compiled.source
    assert "linkedbuilders[" not in compiled.source
    data = bytes.fromhex("02" + "0102" * 16 + "ffffffffffffffffff")
    assert compiled.parse(data) == con.parse(data)
    assert con.parse(data).gno == I64_MIN
    assert compiled.build(con.parse(data)) == data


def test_sizeof_is_variable():
    with pytest.raises(SizeofError):
        MsbVarInt().sizeof()
    with pytest.raises(SizeofError):
        MsbZigZag().sizeof()


def test_only_c_integer_widths():
    with pytest.raises(SpecError):
        MsbVarInt(12)
    assert repr(MsbZigZag(32)) == "MsbZigZag(32)"


def test_stream_position_after_parse():
    stream = io.BytesIO(bytes.fromhex("fd03" + "04"))
    assert MsbVarInt(8).parse_stream(stream) == 255
    assert stream.tell() == 2


def test_docstring_examples():
    assert doctest.testmod(runtime.core.msbvarint).failed == 0
