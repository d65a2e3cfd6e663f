"""Bad input: every failure is a DecodeError with an offset and a field path, never a
RecursionError, MemoryError, hang or a foreign exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from thrift_support import codec, struct_strategy, thrift_model

from generated import parquet
from generated import thrift_compact as tc
from runtime.core.errors import DecodeError, EncodeError, LimitError

SPEC = thrift_model()
MOD = codec()

USER = tc.User(
    id=7,
    name="ann",
    age=30,
    score=2.5,
    avatar=b"\x01\x02",
    tags=["a"],
    shard=3,
    addresses=[tc.Address("Main 1", "Springfield", "123")],
    prefs={"k": "v"},
)


def test_truncation_at_every_offset_is_a_decode_error_with_offset():
    data = tc.build(USER)
    for cut in range(len(data)):
        with pytest.raises(DecodeError) as info:
            tc.parse(data[:cut], "User")
        assert info.value.offset is not None and 0 <= info.value.offset <= cut


@given(st.data())
@settings(max_examples=25, deadline=None)
def test_truncated_generated_values(data):
    name = data.draw(st.sampled_from(["AllTypes", "Maps", "Node", "Holder"]))
    wire = MOD.build(data.draw(struct_strategy(SPEC, MOD, name)))
    cut = data.draw(st.integers(0, len(wire) - 1))
    with pytest.raises(DecodeError):
        MOD.parse(wire[:cut], name)


def test_field_path_names_the_nested_field():
    data = tc.build(USER)
    city = data.index(b"Springfield")
    with pytest.raises(DecodeError) as info:
        tc.parse(data[: city + 3], "User")
    assert info.value.path == "addresses[0].city"


@pytest.mark.parametrize("nibble", [14, 15])
def test_bad_type_nibbles(nibble):
    # an unknown field with type 14/15 cannot be skipped
    with pytest.raises(DecodeError, match="unknown compact type"):
        tc.parse(bytes([0x10 | nibble, 0, 0]), "Address")
    # as a list element type
    with pytest.raises(DecodeError) as info:
        tc.parse(bytes([0xA9, 0x10 | nibble, 0, 0]), "User")
    assert info.value.path == "tags"


def test_list_element_type_that_disagrees_with_the_schema():
    # tags is set<string>; the header says two i32 elements
    data = bytes.fromhex("16 0e 18 01 61 8a 25 02 04 00".replace(" ", ""))
    with pytest.raises(DecodeError, match="element type I32") as info:
        tc.parse(data, "User")
    assert info.value.path == "tags" and info.value.offset == 6


def test_sizes_larger_than_the_remaining_bytes():
    with pytest.raises(DecodeError, match="byte length 100") as info:
        tc.parse(bytes.fromhex("1864616263"), "Address")
    assert info.value.path == "street" and info.value.offset == 2
    # a list claiming 2**31-1 elements: refused before allocating anything
    with pytest.raises(DecodeError) as info:
        tc.parse(bytes.fromhex("16 00 18 00 99 f8 ff ff ff 07".replace(" ", "")), "User")
    assert info.value.path == "addresses"
    # a map claiming a million pairs
    with pytest.raises(DecodeError):
        tc.parse(bytes.fromhex("1b c0 84 3d 88 00".replace(" ", "")), "Address")
    with pytest.raises(LimitError):
        tc.parse(bytes.fromhex("16 00 18 00 99 fc 0a 00 00".replace(" ", "")), "User", max_count=5)


def test_over_long_varints():
    with pytest.raises(DecodeError, match="i64: varint longer than 10 bytes"):
        tc.parse(bytes.fromhex("16" + "ff" * 11 + "01 00".replace(" ", "")), "User")
    with pytest.raises(DecodeError, match="i32"):
        tc.parse(bytes.fromhex("15" + "ff" * 5 + "0f00"), "TApplicationException")
    with pytest.raises(DecodeError, match="size"):
        tc.parse(bytes.fromhex("18" + "ff" * 5 + "0f"), "Address")


def test_depth_beyond_the_limit_is_an_error_not_a_recursion_error():
    deep = b"\x1c" * 5000 + b"\x00" * 5001  # Node.tail nested 5000 times
    deep_node = b"\x15\x00" + (b"\x2c\x15\x00") * 3000 + b"\x00" * 3001
    with pytest.raises(LimitError, match="max_depth=64"):
        tc.parse(deep, "get_user_args")
    with pytest.raises(LimitError, match="max_depth=64") as info:
        MOD.parse(deep_node, "Node")
    assert info.value.path.startswith("tail.tail.tail")
    with pytest.raises(LimitError):
        MOD.parse(deep_node, "Node", max_depth=10)
    # schemaless: unknown nested structs and lists are bounded too
    with pytest.raises(LimitError):
        tc.parse_raw(b"\x1c" * 200 + b"\x00" * 201)
    with pytest.raises(LimitError):
        tc.parse_raw(b"\x19" + b"\x19" * 200 + b"\x00")
    # a configured limit so high that Python's stack would overflow: still a DecodeError
    with pytest.raises(DecodeError):
        MOD.parse(
            b"\x15\x00" + (b"\x2c\x15\x00") * 30000 + b"\x00" * 30001, "Node", max_depth=10**6
        )


def test_bad_protocol_id_or_version_in_a_message():
    good = tc.build(tc.Message("ping", tc.MessageType.CALL, 1, tc.RawStruct([])))
    assert good.hex() == "82210104706 96e6700".replace(" ", "")
    with pytest.raises(DecodeError, match="bad protocol id 0x80") as info:
        tc.parse(b"\x80" + good[1:], "message")
    assert (info.value.offset, info.value.path) == (0, "protocol_id")
    with pytest.raises(DecodeError, match="bad version 2") as info:
        tc.parse(good[:1] + b"\x22" + good[2:], "message")
    assert (info.value.offset, info.value.path) == (1, "version")
    for cut in range(len(good)):
        with pytest.raises(DecodeError):
            tc.parse(good[:cut], "message")


def test_utf8_strictness_options():
    data = bytes.fromhex("1802ff610000")[:-1]
    with pytest.raises(DecodeError, match="invalid UTF-8") as info:
        tc.parse(data, "Address")
    assert info.value.path == "street"
    assert tc.parse(data, "Address", strings="replace").street == "\ufffda"
    assert tc.parse(data, "Address", strings="bytes").street == b"\xffa"
    assert tc.build(tc.parse(data, "Address", strings="bytes")) == data


def test_trailing_bytes_and_missing_required_fields():
    with pytest.raises(DecodeError, match="trailing"):
        tc.parse(b"\x00\x00", "Address")
    with pytest.raises(DecodeError, match="required field id"):
        tc.parse(b"\x00", "User")
    with pytest.raises(EncodeError, match="required") as info:
        tc.build(tc.User(name="x"))
    assert info.value.path == "id"


def test_union_rules():
    with pytest.raises(EncodeError, match="exactly one"):
        tc.build(tc.Lookup())
    with pytest.raises(EncodeError, match="exactly one"):
        tc.build(tc.Lookup(id=1, name="x"))
    with pytest.raises(DecodeError, match="more than one"):
        tc.parse(bytes.fromhex("16021801780000")[:-1], "Lookup")


def test_encode_errors_name_the_field():
    with pytest.raises(EncodeError) as info:
        tc.build(tc.User(id=1, name="x", age=300))
    assert info.value.path == "age"
    with pytest.raises(EncodeError) as info:
        tc.build(tc.User(id=2**63, name="x"))
    assert info.value.path == "id"


@given(st.binary(max_size=64))
@settings(max_examples=300, deadline=None)
def test_random_bytes_only_ever_raise_decode_errors(data):
    for record in ("User", "get_user_result", "message"):
        try:
            tc.parse(data, record)
        except DecodeError:
            pass
    try:
        tc.parse_raw(data)
    except DecodeError:
        pass


@pytest.mark.parametrize(
    "ct, data",
    [
        ("I32", ""),  # no value at all
        ("I32", "0400"),  # a value, then a byte
        ("BINARY", "04"),  # a length past its bytes
        ("STRUCT", "0000"),  # a struct, then a byte
        ("LIST", ""),  # no header
        ("BOOLEAN_TRUE", "01"),  # a bool field's value is its header: no bytes
    ],
)
def test_an_unknown_field_whose_bytes_are_not_one_value_is_refused_by_build(ct, data):
    # Written as they were, they made bytes parse refuses ("trailing bytes after the struct"),
    # found by fuzzing edited JSON forms of Parquet's structs
    document = {"$wire": {"order": [{"id": 1, "type": ct, "data": {"$hex": data}}]}}
    model = parquet.from_dict(document, "MapType")
    with pytest.raises(EncodeError, match=f"field 1: bytes {data} are not one {ct} value"):
        parquet.build(model, "MapType")


@pytest.mark.parametrize("wire", ["150400", "180178 00", "1c 1500 00 00", "19 15 02 00", "11 00"])
def test_an_unknown_field_of_one_value_is_written_back(wire):
    data = bytes.fromhex(wire.replace(" ", ""))
    model = parquet.parse(data, "MapType")
    assert model.wire_layout.unknown
    assert parquet.build(model, "MapType") == data
