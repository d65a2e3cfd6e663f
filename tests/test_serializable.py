"""mysql::serialization messages, strings and containers (research/mysql_serialization.md §4-§9)."""

import doctest
import json
import uuid
import zlib
from pathlib import Path

import pytest
from construct import FixedSized, Int8ul, Int16ul, Int32ul, SizeofError, Struct, this
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime.formats.serializable
from generated import mysql_serialization
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.limits import Limits
from runtime.core.msbvarint import MsbVarInt, MsbZigZag, encode_uvar
from runtime.core.scalars import LengthPrefixedBytes
from runtime.formats.serializable import Field, MsbMap, MsbVector, SerializableMessage


def msb_string(encoding: str | None = None) -> LengthPrefixedBytes:
    """A varint byte length, then the bytes: what the spec's ``string`` is in mysql messages."""
    return LengthPrefixedBytes(MsbVarInt(64), encoding)


VECTORS = {
    v["name"]: v
    for v in json.loads(
        (Path(__file__).parent / "data/vectors/mysql_serialization.json").read_text()
    )
}
BODY_VECTORS = [v for name, v in VECTORS.items() if name.startswith("gtid_tagged_body")]
SEED = bytes.fromhex(VECTORS["gtid_tagged_body_seed_blog_9.2.0"]["hex"])

# The GTID_TAGGED_LOG_EVENT body of research §7 and the event framing of §8, as
# specs/mysql_serialization.yaml defines them (parsed to Containers here, not model classes).
GTID_TAGGED_FIELDS = mysql_serialization.gtid_tagged_body.fields
GTID_TAGGED_BODY = SerializableMessage(*GTID_TAGGED_FIELDS)
GTID_TAGGED_EVENT = Struct(
    "timestamp" / Int32ul,
    "type_code" / Int8ul,
    "server_id" / Int32ul,
    "event_size" / Int32ul,
    "log_pos" / Int32ul,
    "flags" / Int16ul,
    "body" / FixedSized(this.event_size - 19 - 4, GTID_TAGGED_BODY),
    "crc32" / Int32ul,
)
# A newer writer's version of the same message, with two more fields at the end.
NEWER_BODY = SerializableMessage(
    *GTID_TAGGED_FIELDS,
    Field(12, "future_counter", MsbVarInt(), default=0),
    Field(13, "future_note", msb_string(), default=b""),
)


def documented(vec) -> dict:
    """The vector's values in this model's shape: UUID as its 16 byte values."""
    want = dict(vec["decoded"])
    want.pop("absent_fields", None)
    want["uuid"] = list(uuid.UUID(want["uuid"]).bytes)
    return want


def seed_model(**changes) -> dict:
    model = documented(VECTORS["gtid_tagged_body_seed_blog_9.2.0"])
    del model["serializable_field_size"], model["last_non_ignorable_field_id"]
    return {**model, **changes}


# -- known-good vectors --------------------------------------------------------------------------


@pytest.mark.parametrize("vec", BODY_VECTORS, ids=lambda v: v["name"])
def test_body_vectors_decode_to_documented_values_and_rebuild(vec):
    data = bytes.fromhex(vec["hex"])
    model = GTID_TAGGED_BODY.parse(data)
    assert dict(model) == documented(vec)
    assert model.serializable_field_size == len(data)
    assert GTID_TAGGED_BODY.build(model) == data
    fresh = {k: v for k, v in documented(vec).items() if not k.startswith(("serial", "last_non"))}
    assert GTID_TAGGED_BODY.build(fresh) == data  # header values computed, not copied
    assert GTID_TAGGED_BODY.compile().parse(data) == model


def test_seed_absent_fields_are_the_documented_ones():
    absent = VECTORS["gtid_tagged_body_seed_blog_9.2.0"]["decoded"]["absent_fields"]
    assert absent == ["original_commit_timestamp", "original_server_version", "commit_group_ticket"]
    ids_on_wire = {SEED[i] >> 1 for i in (3, 5, 29, 31, 39, 41, 43, 52, 55)}
    assert ids_on_wire == {0, 1, 2, 3, 4, 5, 6, 8, 9}  # §9: fields 7, 10, 11 are not written


def test_seed_event_with_header_and_crc():
    vec = VECTORS["gtid_tagged_event_seed_blog_full"]
    data = bytes.fromhex(vec["hex"])
    event = GTID_TAGGED_EVENT.parse(data)
    for key, value in vec["decoded"]["header"].items():
        assert event[key] == value
    assert event.crc32 == int(vec["decoded"]["crc32"], 16) == zlib.crc32(data[:-4])
    assert len(data) - 23 == vec["decoded"]["body_len"] == event.body.serializable_field_size
    assert dict(event.body) == documented(VECTORS["gtid_tagged_body_seed_blog_9.2.0"])
    assert GTID_TAGGED_EVENT.build(event) == data


# -- presence rules ------------------------------------------------------------------------------


def test_replica_fields_are_written_when_they_differ():
    model = seed_model(
        original_commit_timestamp=1739823289000000,
        original_server_version=80400,
        commit_group_ticket=7,
    )
    data = GTID_TAGGED_BODY.build(model)
    assert data[-6:] == bytes.fromhex("14") + encode_uvar(80400) + bytes.fromhex("160e")
    assert bytes.fromhex("0e") + encode_uvar(1739823289000000) in data
    parsed = GTID_TAGGED_BODY.parse(data)
    assert {k: parsed[k] for k in model} == model
    assert parsed.serializable_field_size == len(data)


def test_fields_equal_to_their_default_are_not_written():
    assert GTID_TAGGED_BODY.build(seed_model(original_server_version=90200)) == SEED
    assert GTID_TAGGED_BODY.build(seed_model(commit_group_ticket=None)) == SEED
    no_optional = {k: v for k, v in seed_model().items() if not k.startswith(("orig", "commit"))}
    assert GTID_TAGGED_BODY.build(no_optional) == SEED


def test_present_field_equal_to_its_default_is_accepted():
    # MySQL's writer never does this, but its reader takes it: field 11 written as 0.
    data = bytes([SEED[0], SEED[1] + 4]) + SEED[2:] + bytes.fromhex("1600")
    assert GTID_TAGGED_BODY.parse(data).commit_group_ticket == 0


# -- serializable_field_size ---------------------------------------------------------------------

PADDED = SerializableMessage(Field(0, "pad", msb_string()))


@pytest.mark.parametrize("payload", [124, 125, 126, 127, 128, 16379, 16380, 16383, 16384])
def test_size_is_self_consistent_and_mysqls_formula_is_accepted(payload):
    # Payload = field id (1) + length varint + string; the header is version, size, lnifid.
    length = next(n for n in range(payload) if 1 + len(encode_uvar(n)) + n == payload)
    model = {"pad": b"x" * length}
    data = PADDED.build(model)
    size = PADDED.parse(data).serializable_field_size
    assert size == len(data)
    mysql = 1 + len(encode_uvar(payload)) + 1 + payload  # §5.2: size varint measured on P
    crossing = payload in (125, 126, 127, 16380, 16381, 16382, 16383)
    assert (mysql == size - 1) if crossing else (mysql == size)
    variant = data[:1] + encode_uvar(mysql) + data[1 + len(encode_uvar(size)) :]
    assert len(variant) == len(data)
    parsed = PADDED.parse(variant)
    assert parsed.serializable_field_size == mysql and parsed.pad == model["pad"]
    assert PADDED.build(parsed) == variant  # round trip keeps MySQL's value
    assert PADDED.build({**model, "serializable_field_size": mysql - 1}) == data  # stale: fixed


def test_gtid_body_at_the_size_boundary():
    # A replica's event with a long tag, a UUID of high bytes and big counters is long
    # enough for §5.2's window (payload 125..127 bytes, sizes 129..131).
    base = seed_model(
        uuid=[0xFF] * 16,
        gno=-(2**40),
        last_committed=-(2**40),
        sequence_number=2**40,
        transaction_length=2**40,
        original_commit_timestamp=2**63,
        commit_group_ticket=2**60,
        tag="",
    )
    shortest = len(GTID_TAGGED_BODY.build(base)) - 3  # payload without the tag's characters
    for payload in (125, 126, 127):
        data = GTID_TAGGED_BODY.build({**base, "tag": "t" * (payload - shortest)})
        assert len(data) == payload + 4 and data[1:3] == encode_uvar(payload + 4)
        mysql_variant = data[:1] + encode_uvar(payload + 3) + data[3:]
        parsed = GTID_TAGGED_BODY.parse(mysql_variant)
        assert parsed.tag == "t" * (payload - shortest) and parsed.serializable_field_size == (
            payload + 3
        )
        assert GTID_TAGGED_BODY.build(parsed) == mysql_variant


@pytest.mark.parametrize("declared", [58, 60, 0, 2**64 - 1])
def test_size_mismatch_is_a_decode_error_at_the_size_field(declared):
    data = SEED[:1] + encode_uvar(declared) + SEED[2:]
    with pytest.raises(DecodeError, match="serializable_field_size") as info:
        GTID_TAGGED_BODY.parse(data)
    assert info.value.offset == 1


def test_trailing_bytes_after_a_top_level_message_are_a_size_mismatch():
    with pytest.raises(DecodeError, match="has 60 bytes") as info:
        GTID_TAGGED_BODY.parse(SEED + b"\x00")
    assert info.value.offset == 1


# -- forward compatibility and last_non_ignorable_field_id ---------------------------------------


def test_newer_writers_trailing_fields_are_skipped():
    newer = NEWER_BODY.build(seed_model(future_counter=99, future_note=b"hello"))
    assert len(newer) > len(SEED)
    parsed = GTID_TAGGED_BODY.parse(newer)
    assert {k: parsed[k] for k in seed_model()} == seed_model()
    assert NEWER_BODY.parse(newer).future_note == b"hello"


def test_newer_writer_skipping_an_optional_field_then_adding_one():
    newer = NEWER_BODY.build(seed_model(future_counter=5))
    assert GTID_TAGGED_BODY.parse(newer).commit_group_ticket == 0


def test_unknown_non_ignorable_field_is_a_clear_error():
    strict_newer = SerializableMessage(
        *GTID_TAGGED_FIELDS,
        Field(12, "must_understand", MsbVarInt(), default=0, unknown_field_policy="error"),
    )
    data = strict_newer.build(seed_model(must_understand=1))
    assert data[2:3] == encode_uvar(13)  # lnifid: the non-ignorable field 12, plus one
    with pytest.raises(DecodeError, match="non-ignorable field 12") as info:
        GTID_TAGGED_BODY.parse(data)
    assert info.value.offset == 2
    assert strict_newer.parse(data).last_non_ignorable_field_id == 13


def test_lnifid_equal_to_the_known_field_count_is_accepted_and_kept():
    data = SEED[:2] + encode_uvar(12) + SEED[3:]
    model = GTID_TAGGED_BODY.parse(data)
    assert model.last_non_ignorable_field_id == 12
    assert GTID_TAGGED_BODY.build(model) == data


def test_lnifid_counts_present_non_ignorable_fields_only():
    msg = SerializableMessage(
        Field(0, "a", MsbVarInt(), unknown_field_policy="error"),
        Field(1, "b", MsbVarInt()),
        Field(2, "c", MsbVarInt(), default=0, unknown_field_policy="error"),
    )
    assert msg.build({"a": 1, "b": 1, "c": 0}).hex() == "020e02" "0002" "0202"  # lnifid 1
    assert msg.build({"a": 1, "b": 1, "c": 3})[2:3] == encode_uvar(3)


def test_empty_non_ignorable_nested_message_does_not_count():
    optional_inner = SerializableMessage(Field(0, "y", MsbVarInt(), default=0), top_level=False)
    msg = SerializableMessage(Field(0, "inner", optional_inner, unknown_field_policy="error"))
    assert msg.build({"inner": {"y": 0}}).hex() == "020c00" + "00" "0600"  # lnifid 0
    assert msg.build({"inner": {"y": 1}})[2:3] == encode_uvar(1)


def test_docstring_examples():
    assert doctest.testmod(runtime.formats.serializable).failed == 0


# -- nested messages and containers -------------------------------------------------------------

INNER = SerializableMessage(
    Field(0, "x", MsbVarInt()), Field(1, "y", MsbVarInt(), default=0), top_level=False
)
OUTER = SerializableMessage(
    Field(0, "a", MsbVarInt()),
    Field(1, "inner", INNER, unknown_field_policy="error"),
    Field(2, "b", MsbVarInt(), default=0),
)


def test_nested_message_counts_its_size_from_its_field_id():
    data = OUTER.build({"a": 1, "inner": {"x": 5, "y": 0}, "b": 2})
    #                      ver size lnifid  id a  id size lnifid  id x   id b
    assert data.hex() == "02" "18" "04" + "0002" + "02" "0a" "00" "000a" + "0404"
    model = OUTER.parse(data)
    assert model.last_non_ignorable_field_id == 2  # inner is non-ignorable and has a field
    assert model.inner == {
        "serializable_field_size": 5,
        "last_non_ignorable_field_id": 0,
        "x": 5,
        "y": 0,
    }
    assert OUTER.build(model) == data


def test_nested_message_absent_when_the_parent_ends_gets_defaults_or_errors():
    lenient = SerializableMessage(
        Field(0, "a", MsbVarInt()),
        Field(
            1, "inner", SerializableMessage(Field(0, "y", MsbVarInt(), default=3), top_level=False)
        ),
    )
    assert lenient.parse(bytes.fromhex("020a00" "0002")).inner.y == 3
    with pytest.raises(DecodeError, match="required field 0") as info:
        OUTER.parse(bytes.fromhex("020a00" "0002"))
    assert info.value.path == "inner.x" and info.value.offset == 5


def test_nested_message_id_must_match():
    with pytest.raises(DecodeError, match="expected field id 1, found 2") as info:
        OUTER.parse(bytes.fromhex("020e00" "0002" "0402"))
    assert info.value.offset == 5


def test_nested_newer_fields_are_skipped_and_the_parent_continues():
    newer_inner = SerializableMessage(*INNER.fields, Field(2, "z", MsbVarInt()), top_level=False)
    newer = SerializableMessage(OUTER.fields[0], Field(1, "inner", newer_inner), OUTER.fields[2])
    data = newer.build({"a": 1, "inner": {"x": 5, "y": 6, "z": 2**40}, "b": 9})
    model = OUTER.parse(data)
    assert (model.a, model.inner.x, model.inner.y, model.b) == (1, 5, 6, 9)


def test_vector_of_messages_has_no_ids_and_sizes_from_the_size_varint():
    vec = MsbVector(INNER)
    data = vec.build([{"x": 1}, {"x": 2, "y": 3}])
    #                      count  size lnifid id x   size lnifid id x id y
    assert data.hex() == "04" + "08" "00" "0002" + "0c" "00" "0004" "0206"
    assert [dict(m) for m in vec.parse(data)] == [
        {"serializable_field_size": 4, "last_non_ignorable_field_id": 0, "x": 1, "y": 0},
        {"serializable_field_size": 6, "last_non_ignorable_field_id": 0, "x": 2, "y": 3},
    ]


@pytest.mark.parametrize("payload", [125, 126, 127])
def test_container_message_with_mysqls_short_size(payload):
    # In a container there is no id: MySQL's size is short by one for payload 126 and 127.
    pad = MsbVector(SerializableMessage(Field(0, "s", msb_string()), top_level=False))
    good = pad.build([{"s": b"q" * (payload - 2)}, {"s": b"r"}])
    size = pad.parse(good)[0].serializable_field_size
    mysql = 1 + 1 + payload
    assert size == mysql + (payload > 125)
    variant = good[:1] + encode_uvar(mysql) + good[1 + len(encode_uvar(size)) :]
    parsed = pad.parse(variant)
    assert [m.s for m in parsed] == [b"q" * (payload - 2), b"r"]
    assert pad.build(parsed) == variant


def test_container_message_size_too_small():
    inner = MsbVector(INNER)
    assert inner.parse(bytes.fromhex("02" "0800" "0002"))[0].x == 1
    with pytest.raises(DecodeError, match="1 byte.* past serializable_field_size=3") as info:
        inner.parse(bytes.fromhex("02" "0600" "0002"))
    assert info.value.offset == 1
    with pytest.raises(DecodeError, match="required field 0") as info:
        inner.parse(bytes.fromhex("02" "0400" "0002"))
    with pytest.raises(DecodeError, match="header alone is 2 bytes"):
        inner.parse(bytes.fromhex("02" "0200" "0002"))
    with pytest.raises(DecodeError, match="5 remain"):
        inner.parse(bytes.fromhex("02" "0e00" "0002" "00"))


def test_map_and_vector_round_trip_inside_a_message():
    msg = SerializableMessage(
        Field(0, "ids", MsbVector(MsbZigZag())),
        Field(1, "attrs", MsbMap(msb_string("utf8"), MsbVector(MsbVarInt(8)))),
    )
    model = {"ids": [-1, 0, 2**62], "attrs": {"a": [1, 255], "": []}}
    data = msg.build(model)
    parsed = msg.parse(data)
    assert parsed.ids == model["ids"] and parsed.attrs == model["attrs"]
    assert msg.build(parsed) == data


def test_container_errors_carry_index_paths():
    msg = SerializableMessage(Field(0, "items", MsbVector(INNER)))
    data = msg.build({"items": [{"x": 1}, {"x": 2}]})
    bad = data[:-1] + b"\xff"  # x of items[1] now announces 9 bytes
    with pytest.raises(DecodeError, match="announces 9 bytes") as info:
        msg.parse(bad)
    assert info.value.path == "items[1].x" and info.value.offset == len(data) - 1
    with pytest.raises(EncodeError) as info:
        msg.build({"items": [{"x": 1}, {"x": -1}]})
    assert info.value.path == "items[1].x"
    mapped = MsbMap(MsbVarInt(8), MsbVarInt())
    with pytest.raises(EncodeError) as info:
        mapped.build({1: 2, 300: 4})
    assert info.value.path == "[1].key"


def test_repeated_map_key_is_a_decode_error():
    with pytest.raises(DecodeError, match="repeated") as info:
        MsbMap(MsbVarInt(), MsbVarInt()).parse(bytes.fromhex("04" "0202" "0204"))
    assert info.value.offset == 3 and info.value.path == "[1]"


def test_counts_are_checked_before_allocating():
    with pytest.raises(DecodeError, match="bytes that remain") as info:
        MsbVector(MsbVarInt()).parse(encode_uvar(3) + b"\x00\x00")
    assert info.value.offset == 0
    with pytest.raises(DecodeError, match="limit max_count=1000000"):
        MsbVector(MsbVarInt()).parse(encode_uvar(2**40) + b"\x00\x00")
    with pytest.raises(DecodeError, match="bytes that remain"):
        MsbMap(MsbVarInt(), MsbVarInt()).parse(bytes.fromhex("04" "000000"))
    with pytest.raises(DecodeError, match="max_count"):
        MsbVector(MsbVarInt()).parse(bytes.fromhex("06000000"), limits=Limits(max_count=2))


# -- strings ------------------------------------------------------------------------------------


def test_tag_longer_than_32_bytes():
    data = GTID_TAGGED_BODY.build(seed_model(tag="t" * 32))
    assert GTID_TAGGED_BODY.parse(data).tag == "t" * 32
    long_tag = data.replace(bytes([64]) + b"t" * 32, bytes([66]) + b"t" * 33)
    long_tag = long_tag[:1] + encode_uvar(len(long_tag)) + long_tag[2:]
    with pytest.raises(DecodeError, match="exceeds its bound of 32") as info:
        GTID_TAGGED_BODY.parse(long_tag)
    assert info.value.path == "tag" and info.value.offset == long_tag.index(b"\x42t")
    with pytest.raises(EncodeError, match="bound of 32") as info:
        GTID_TAGGED_BODY.build(seed_model(tag="t" * 33))
    assert info.value.path == "tag"


# -- malformed input: only DecodeError, always with an offset -----------------------------------


def assert_decode_error(con, data):
    with pytest.raises(DecodeError) as info:
        con.parse(data)
    assert info.value.offset is not None and 0 <= info.value.offset <= len(data)
    return info.value


@pytest.mark.parametrize("vec", BODY_VECTORS, ids=lambda v: v["name"])
def test_truncation_at_every_offset(vec):
    data = bytes.fromhex(vec["hex"])
    for cut in range(len(data)):
        err = assert_decode_error(GTID_TAGGED_BODY, data[:cut])
        # The version, the size or the lnifid is cut off, or else the size disagrees.
        assert err.offset == min(cut, 1 if cut > 2 else cut)


def test_truncation_inside_fields_of_a_contained_message():
    # The count, an element's size or a field's own check catches every cut.
    vec = MsbVector(SerializableMessage(*GTID_TAGGED_FIELDS, top_level=False))
    data = vec.build([seed_model(), seed_model(tag="other", gno=-5)])
    for cut in range(len(data)):
        assert_decode_error(vec, data[:cut])


def test_varint_announcing_more_bytes_than_remain_inside_a_field():
    data = SEED[:-3] + bytes.fromhex("c7020b")  # 0xc7 announces 4 bytes, 3 remain
    err = assert_decode_error(GTID_TAGGED_BODY, data)
    assert err.offset == len(SEED) - 3 and err.path == "immediate_server_version"
    assert "announces 4 bytes, 3 remain" in str(err) and "offset 56" in str(err)


def test_wrong_format_version():
    err = assert_decode_error(GTID_TAGGED_BODY, bytes.fromhex("04") + SEED[1:])
    assert "format version" in err.message and err.offset == 0


@pytest.mark.parametrize("field_id_offset", [39, 41])
def test_out_of_order_or_repeated_ids_are_errors(field_id_offset):
    data = bytearray(SEED)
    data[field_id_offset] = 0x04  # id 2 again, where 4 / 5 was
    err = assert_decode_error(GTID_TAGGED_BODY, bytes(data))
    assert "found 2" in err.message and err.offset == field_id_offset


def test_required_field_missing():
    data = SEED[:3] + SEED[5:]  # drop field 0 (gtid_flags)
    data = data[:1] + encode_uvar(len(data)) + data[2:]
    err = assert_decode_error(GTID_TAGGED_BODY, data)
    assert err.path == "gtid_flags" and err.offset == 3


def test_uuid_byte_over_uint8():
    data = SEED.replace(bytes.fromhex("2502"), bytes.fromhex("2504"), 1)  # 0x89 -> 0x109
    err = assert_decode_error(GTID_TAGGED_BODY, data)
    assert err.path == "uuid[0]" and "uint8" in err.message and err.offset == 6


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_bodies_raise_only_decode_errors(data):
    body = bytearray(SEED)
    for _ in range(data.draw(st.integers(1, 4))):
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    try:
        GTID_TAGGED_BODY.parse(bytes(body))
    except DecodeError as err:
        assert err.offset is not None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80))
def test_random_bytes_raise_only_decode_errors(blob):
    for con in (GTID_TAGGED_BODY, MsbVector(INNER), OUTER):
        try:
            con.parse(blob)
        except DecodeError as err:
            assert err.offset is not None


# -- models, build errors and spec errors --------------------------------------------------------

gtid_models = st.fixed_dictionaries(
    {
        "gtid_flags": st.integers(0, 255),
        "uuid": st.lists(st.integers(0, 255), min_size=16, max_size=16),
        "gno": st.integers(-(2**63), 2**63 - 1),
        "tag": st.text("abcdefghijklmnopqrstuvwxyz_0123456789", max_size=32),
        "last_committed": st.integers(-(2**63), 2**63 - 1),
        "sequence_number": st.integers(-(2**63), 2**63 - 1),
        "immediate_commit_timestamp": st.integers(0, 2**64 - 1),
        "original_commit_timestamp": st.integers(0, 2**64 - 1),
        "transaction_length": st.integers(0, 2**64 - 1),
        "immediate_server_version": st.integers(0, 2**32 - 1),
        "original_server_version": st.integers(0, 2**32 - 1),
        "commit_group_ticket": st.integers(0, 2**64 - 1),
    }
)


@settings(max_examples=150, deadline=None)
@given(gtid_models)
def test_any_gtid_body_round_trips_with_a_true_size(model):
    data = GTID_TAGGED_BODY.build(model)
    parsed = GTID_TAGGED_BODY.parse(data)
    assert {k: parsed[k] for k in model} == model
    assert parsed.serializable_field_size == len(data)
    assert parsed.last_non_ignorable_field_id == 0
    assert GTID_TAGGED_BODY.build(parsed) == data


@pytest.mark.parametrize(
    "changes, path",
    [
        ({"gtid_flags": 256}, "gtid_flags"),
        ({"uuid": [1] * 15}, "uuid"),
        ({"uuid": 5}, "uuid"),
        ({"tag": 5}, "tag"),
        ({"immediate_server_version": 2**32}, "immediate_server_version"),
        ({"gno": None}, "gno"),
    ],
)
def test_bad_model_values_are_encode_errors_with_the_field_path(changes, path):
    with pytest.raises(EncodeError) as info:
        GTID_TAGGED_BODY.build(seed_model(**changes))
    assert info.value.path == path


def test_missing_required_field_and_non_mapping_model():
    model = seed_model()
    del model["transaction_length"]
    with pytest.raises(EncodeError, match="missing") as info:
        GTID_TAGGED_BODY.build(model)
    assert info.value.path == "transaction_length"
    with pytest.raises(EncodeError, match="mapping"):
        GTID_TAGGED_BODY.build([1, 2])


@pytest.mark.parametrize(
    "make",
    [
        lambda: SerializableMessage(Field(1, "a", MsbVarInt())),
        lambda: SerializableMessage(Field(0, "a", MsbVarInt()), Field(0, "b", MsbVarInt())),
        lambda: SerializableMessage(Field(0, "a", MsbVarInt()), Field(1, "a", MsbVarInt())),
        lambda: SerializableMessage(Field(0, "serializable_field_size", MsbVarInt())),
        lambda: SerializableMessage(Field(0, "a", MsbVarInt(), default_from="nope")),
        lambda: SerializableMessage(Field(0, "a", MsbVarInt(), default_from="a")),
        lambda: SerializableMessage(
            Field(0, "a", MsbVarInt(), default=0), Field(1, "b", MsbVarInt(), default_from="a")
        ),
        lambda: Field(0, "a", MsbVarInt(), default=0, default_from="b"),
        lambda: Field(0, "a", MsbVarInt(), unknown_field_policy="maybe"),
        lambda: Field(0, "inner", SerializableMessage()),
        lambda: Field(0, "inner", INNER, default={}),
        lambda: MsbVector(SerializableMessage()),
    ],
)
def test_invalid_definitions_are_spec_errors(make):
    with pytest.raises(SpecError):
        make()


def test_sizeof_is_variable_and_repr_is_readable():
    for con in (GTID_TAGGED_BODY, msb_string(), MsbVector(INNER), MsbMap(MsbVarInt(), INNER)):
        with pytest.raises(SizeofError):
            con.sizeof()
    assert repr(GTID_TAGGED_FIELDS[7]) == (
        "Field(7, 'original_commit_timestamp', MsbVarInt(64), "
        "default_from='immediate_commit_timestamp')"
    )
