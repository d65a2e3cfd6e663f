"""LEB128 varints and the chunk primitives (Craft's), as construct classes and as functions."""

import functools
import io

import pytest
from construct import Bytes, Struct, this
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.core.chunks import Chunk, CountedChunks
from runtime.core.errors import DecodeError, EncodeError, LimitError, SpecError
from runtime.core.leb128 import (
    UVarInt,
    ZigZagVarInt,
    read_reversed_uvarint,
    read_uvarint,
    read_zigzag,
    write_reversed_uvarint,
    write_uvarint,
    write_zigzag,
)
from runtime.core.limits import Limits
from runtime.core.reversed_uvarint import ReversedUVarInt

# The chunk and region types of the spec language (generator/spec/types.py), as Craft's
# spec names them.
uvarint_chunk = functools.partial(Chunk)
varint_chunk = functools.partial(Chunk, zigzag=True)
delta_uvarint_chunk = functools.partial(Chunk, delta=True)
delta_varint_chunk = functools.partial(Chunk, zigzag=True, delta=True)
string_chunk = functools.partial(Chunk, payload=True)
nullable_bytes_chunk = functools.partial(Chunk, zigzag=True, payload=True)
size_tables = functools.partial(CountedChunks, delta_varint_chunk(0), repeated=True)
term_dictionary = functools.partial(
    CountedChunks, string_chunk(0, encoding="utf-8"), name="term dictionary", noun="term"
)

U64 = 2**64 - 1
uint64 = st.integers(0, U64)
int64 = st.integers(-(2**63), 2**63 - 1)


# ------------------------------------------------------------------------------- LEB128
@pytest.mark.parametrize(
    "value, hexbytes",
    [(0, "00"), (-1, "01"), (1, "02"), (-2, "03"), (13, "1a"), (-13, "19"), (108, "d801"),
     (216, "b003"), (-128, "ff01"), (2000, "a01f"), (2**63 - 1, "feffffffffffffffff01"),
     (-(2**63), "ffffffffffffffffff01")],
)  # fmt: skip
def test_zigzag_examples_from_the_format_document(value, hexbytes):
    data = bytes.fromhex(hexbytes)
    assert write_zigzag(value) == data
    assert read_zigzag(data, 0) == (value, len(data))
    assert ZigZagVarInt().parse(data) == value
    assert ZigZagVarInt().build(value) == data


@pytest.mark.parametrize(
    "value, hexbytes",
    [(0, "00"), (127, "7f"), (128, "8001"), (300, "ac02"), (U64, "ff" * 9 + "01")],
)
def test_uvarint_examples(value, hexbytes):
    data = bytes.fromhex(hexbytes)
    assert write_uvarint(value) == data
    assert read_uvarint(data, 0) == (value, len(data))
    assert UVarInt().parse(data) == value


@given(uint64)
def test_uvarint_round_trip(value):
    data = write_uvarint(value)
    assert len(data) <= 10
    assert read_uvarint(b"\x00" + data, 1) == (value, len(data) + 1)


@given(int64)
def test_zigzag_round_trip(value):
    assert read_zigzag(write_zigzag(value)) == (value, len(write_zigzag(value)))


def test_reader_accepts_non_shortest_forms_as_go_does():
    assert read_uvarint(b"\x80\x00") == (0, 2)
    assert read_uvarint(b"\xff" * 9 + b"\x00") == (2**63 - 1, 10)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xff" * 9 + b"\x02", "overflows 64 bits"),  # 10th byte may only be 0 or 1
        (b"\xff" * 10 + b"\x01", "longer than 10 bytes"),
        (b"\x80\x80", "truncated varint"),
        (b"", "truncated varint"),
    ],
)
def test_bad_varints_raise_decode_error_at_the_varint_start(data, message):
    with pytest.raises(DecodeError, match=message) as info:
        read_uvarint(b"\x00\x00" + data, 2)
    assert info.value.offset == 2
    s = Struct("pad" / Bytes(2), "v" / UVarInt())
    with pytest.raises(DecodeError, match=message) as info:
        s.parse(b"\x00\x00" + data)
    assert info.value.offset == 2


def test_bit_width_checks_for_thrift():
    assert UVarInt(bits=16).parse(b"\xff\xff\x03") == 0xFFFF
    with pytest.raises(DecodeError, match="exceeds 16 bits"):
        UVarInt(bits=16).parse(b"\x80\x80\x04")
    with pytest.raises(EncodeError, match="out of range for uint16"):
        UVarInt(bits=16).build(0x10000)
    assert ZigZagVarInt(bits=32).parse(write_zigzag(-(2**31))) == -(2**31)
    with pytest.raises(DecodeError, match="exceeds 32 bits"):
        ZigZagVarInt(bits=32).parse(write_zigzag(2**31))
    with pytest.raises(EncodeError, match="out of range for int32"):
        ZigZagVarInt(bits=32).build(2**31)
    with pytest.raises(DecodeError, match="longer than 5 bytes"):
        UVarInt(bits=32, max_bytes=5).parse(b"\x80" * 5 + b"\x00")


@pytest.mark.parametrize("bad", [-1, 2**64, True, 1.0, "1", None])
def test_uvarint_build_rejects_non_uint64(bad):
    with pytest.raises(EncodeError):
        UVarInt().build(bad)


def test_bad_constructor_arguments():
    with pytest.raises(SpecError):
        UVarInt(bits=65)
    with pytest.raises(SpecError):
        ZigZagVarInt(max_bytes=11)


@given(uint64, int64)
def test_compiled_varints_match_interpreted_without_fallback(u, s):
    struct_ = Struct("u" / UVarInt(), "s" / ZigZagVarInt())
    compiled = _compiled(struct_)
    data = struct_.build({"u": u, "s": s})
    assert compiled.build({"u": u, "s": s}) == data
    assert compiled.parse(data) == struct_.parse(data) == {"u": u, "s": s}


_COMPILED = {}


def _compiled(c):
    key = repr(c)
    if key not in _COMPILED:
        _COMPILED[key] = c.compile()
        assert "linkedparsers[" not in _COMPILED[key].source
    return _COMPILED[key]


# ------------------------------------------------------------------------------ chunks
def test_chunks_take_their_count_from_the_context_like_array():
    s = Struct(
        "n" / UVarInt(),
        "ts" / delta_uvarint_chunk(this.n),
        "types" / uvarint_chunk(this.n),
        "ids" / delta_varint_chunk(lambda ctx: ctx.n),
    )
    data = bytes.fromhex("0205ffffffffffffffffff010ffe010402")
    parsed = s.parse(data)
    assert parsed.ts == [5, 4]  # the decreasing ts wraps modulo 2**64
    assert parsed.types == [15, 254]
    assert parsed.ids == [2, 3]
    assert s.build(parsed) == data


def test_compiled_chunks_match_interpreted():
    s = Struct(
        "n" / UVarInt(),
        "a" / uvarint_chunk(this.n),
        "b" / varint_chunk(this.n),
        "c" / delta_uvarint_chunk(this.n),
        "d" / delta_varint_chunk(this.n),
        "e" / string_chunk(this.n, encoding="utf-8"),
        "f" / nullable_bytes_chunk(this.n),
    )
    compiled = s.compile()
    assert "linkedparsers[" not in compiled.source
    value = {"n": 3, "a": [1, 300, 0], "b": [-1, 5, 0], "c": [9, 3, U64], "d": [0, -(2**63), 2**63 - 1],
                 "e": ["x", "", "yz"], "f": [None, b"", b"\x00"]}  # fmt: skip
    data = s.build(value)
    assert compiled.build(value) == data
    assert compiled.parse(data) == s.parse(data) == value


def test_delta_varint_chunk_wraps_like_int64():
    # 2**63-1 then -2**63: the int64 difference wraps to +1
    assert delta_varint_chunk(2).build([2**63 - 1, -(2**63)]).hex() == "feffffffffffffffff01" + "02"
    assert delta_varint_chunk(2).parse(bytes.fromhex("feffffffffffffffff0102")) == [
        2**63 - 1,
        -(2**63),
    ]


def test_string_chunk_puts_all_lengths_first():
    assert string_chunk(3).build([b"ab", b"", b"c"]).hex() == "020001" + "6162" + "63"


def test_nullable_bytes_chunk_seed_lengths():
    # 10 0e 14 26 26 10 04 01 = 8,7,10,19,19,8,2,-1 (seed example, value lengths)
    lengths = bytes.fromhex("100e142626100401")
    values = [bytes(n) for n in (8, 7, 10, 19, 19, 8, 2)] + [None]
    data = lengths + b"".join(v for v in values if v)
    assert nullable_bytes_chunk(8).parse(data) == values
    assert nullable_bytes_chunk(8).build(values) == data


chunk_cases = [
    (uvarint_chunk, st.lists(uint64, max_size=8)),
    (varint_chunk, st.lists(int64, max_size=8)),
    (delta_uvarint_chunk, st.lists(uint64, max_size=8)),
    (delta_varint_chunk, st.lists(int64, max_size=8)),
    (string_chunk, st.lists(st.binary(max_size=12), max_size=8)),
    (nullable_bytes_chunk, st.lists(st.none() | st.binary(max_size=12), max_size=8)),
]


@pytest.mark.parametrize("cls, values", chunk_cases, ids=lambda c: getattr(c, "keywords", ""))
@settings(max_examples=60)
@given(data=st.data())
def test_chunks_round_trip_and_every_truncation_is_a_decode_error(cls, values, data):
    items = data.draw(values)
    chunk = cls(len(items))
    encoded = chunk.build(items)
    assert chunk.parse(encoded) == items
    for cut in range(len(encoded)):
        with pytest.raises(DecodeError) as info:
            chunk.parse(encoded[:cut])
        assert 0 <= info.value.offset <= cut


def test_chunk_build_checks_the_element_count():
    with pytest.raises(EncodeError, match="expected 2 elements, found 1"):
        uvarint_chunk(2).build([1])


def test_chunk_errors_name_the_element_and_offset():
    with pytest.raises(DecodeError) as info:
        Struct("pad" / Bytes(1), "x" / uvarint_chunk(3)).parse(b"\x00\x01\x02\x80")
    assert (info.value.offset, info.value.path) == (3, "[2]")
    with pytest.raises(EncodeError) as info:
        varint_chunk(2).build([1, 2**63])
    assert info.value.path == "[1]"


def test_nullable_length_below_minus_one_is_rejected():
    with pytest.raises(DecodeError, match="negative length -2") as info:
        nullable_bytes_chunk(2).parse(b"\x00\x03")
    assert (info.value.offset, info.value.path) == (1, "[1]")


def test_chunk_counts_are_checked_before_allocating():
    with pytest.raises(LimitError):
        uvarint_chunk(5).parse(bytes(5), limits=Limits(max_count=4))
    with pytest.raises(DecodeError, match="truncated chunk"):
        uvarint_chunk(1000).unpack(bytes(3), 0, 3, 1000)
    with pytest.raises(LimitError):
        string_chunk(1).parse(b"\x05abcde", limits=Limits(max_string=4))


def test_invalid_text_is_a_decode_error():
    with pytest.raises(DecodeError, match="invalid utf-8") as info:
        string_chunk(1, encoding="utf-8").parse(b"\x02a\xff")
    assert info.value.offset == 2


# ----------------------------------------------------- trailer, size tables, dictionary
def test_reversed_uvarint_reads_backwards_from_the_end():
    assert write_reversed_uvarint(198) == bytes.fromhex("01c6")
    assert read_reversed_uvarint(bytes.fromhex("aa01c6")) == (198, 1)
    assert read_reversed_uvarint(bytes.fromhex("0a")) == (10, 0)
    stream = io.BytesIO(bytes.fromhex("aa bb 01 c6"))
    assert ReversedUVarInt().parse_stream(stream) == 198
    assert stream.tell() == 0  # a lookahead, like Pointer


@given(uint64)
def test_reversed_uvarint_round_trip(value):
    data = b"\x55" + write_reversed_uvarint(value)
    assert read_reversed_uvarint(data) == (value, 1)


@pytest.mark.parametrize("data", [b"", b"\x80", b"\x80" * 11, b"\x02" + b"\xff" * 9])
def test_bad_reversed_uvarint(data):
    with pytest.raises(DecodeError, match="reversed uvarint"):
        read_reversed_uvarint(data)


def test_size_tables_of_the_seed_row_example():
    data = bytes.fromhex("021a5e01b00302d80100")
    assert size_tables().parse(data) == [[13, 60], [216], [108, 108]]
    assert size_tables().build([[13, 60], [216], [108, 108]]) == data


def test_size_tables_truncated_table_names_the_table():
    with pytest.raises(DecodeError) as info:
        size_tables().parse(bytes.fromhex("021a5e03b003"))
    assert info.value.path == "[1]"


def test_term_dictionary_is_absent_when_empty():
    assert term_dictionary().build([]) == b""
    assert term_dictionary().parse(b"") == []
    assert term_dictionary().parse(bytes.fromhex("0201016162")) == ["a", "b"]
    with pytest.raises(DecodeError, match="must be omitted"):
        term_dictionary().parse(b"\x00")
    with pytest.raises(DecodeError, match="after the last term"):
        term_dictionary().parse(bytes.fromhex("01016162"))
