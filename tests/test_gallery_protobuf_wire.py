"""specs/protobuf_wire.yaml against the protobuf package (upb), both ways.

The peer's descriptor is made at test time from the same schema (samples/protobuf_peer.py,
no protoc). upb's serializer is canonical (field-number order, packed repeats, map keys
sorted with ``deterministic=True``), so our build of a model made from values must give
its bytes, and our parse of its bytes must equal its decode. Non-canonical wire (any
order, unpacked repeats, unknown fields, values read twice) must rebuild byte for byte.

With the compiled tier, ``parse`` gives lazy models (built on the first access of a
field): each is held equal to ``parse_construct``'s eager model, read all at once and field
by field (:func:`same_as_construct`).
"""

from __future__ import annotations

import dataclasses
import pathlib
import random
import struct

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from generated import protobuf_wire as pw
from runtime.core.errors import DecodeError, EncodeError
from samples.protobuf_peer import Peer, plain

SAMPLES = sorted((pathlib.Path(__file__).parent.parent / "samples" / "protobuf_wire").glob("*.bin"))
PEER = Peer(pw)
ORDER = PEER.classes["order"]
CASES = settings(
    max_examples=int(__import__("os").environ.get("PB_CASES", 300)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def upb_values(data: bytes, record: str = "order") -> dict:
    return plain(
        pw.RECORDS[record], PEER.values(pw.RECORDS[record], PEER.classes[record].FromString(data))
    )


def _signalling(value: float) -> bool:
    """Whether ``value`` is a NaN with its quiet bit clear (as a float32 or a double)."""
    return value != value and not struct.pack("<d", value)[6] & 0x08  # noqa: PLR0124


def ours(model, record: str = "order") -> dict:
    return plain(pw.RECORDS[record], model)


def same_as_construct(data: bytes) -> None:
    """``parse`` (lazy with the compiled tier) gives ``parse_construct``'s model, whether
    its fields are first read all at once or one by one (last field first); where
    ``parse_construct`` raises a DecodeError, so does ``parse``."""
    try:
        expected = pw.parse_construct(data)
    except DecodeError:
        with pytest.raises(DecodeError):
            pw.parse(data)
        return
    assert repr(pw.parse(data)) == repr(expected)  # NaN-safe, nested models included
    one_by_one = pw.parse(data)
    for f in reversed(dataclasses.fields(one_by_one)):
        getattr(one_by_one, f.name)
    assert repr(one_by_one) == repr(expected)
    assert pw.build(pw.parse(data)) == pw.build_construct(expected)


def in_upb_map_order(model, upb_bytes: bytes):
    """The model with its maps in the order upb's deterministic serializer writes them
    (its own string order: not Python's), read from upb's bytes. The schema's maps are
    all on the top-level order."""
    peer_order = pw.parse(upb_bytes)
    for f in pw.order.fields:
        if f.kind == "map":
            value = model[f.name]
            setattr(model, f.name, {k: value[k] for k in peer_order[f.name]})
    return model


def records(data: bytes) -> list[bytes]:
    """The top-level records of a message, split by their keys (a splitter of its own)."""
    out, pos = [], 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        wire_type = key & 7
        if wire_type == 0:
            _, pos = _varint(data, pos)
        elif wire_type == 2:
            n, pos = _varint(data, pos)
            pos += n
        else:
            pos += 8 if wire_type == 1 else 4
        out.append(data[start:pos])
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def unpacked(record: bytes) -> bytes:
    """A packed varint record (ratings, price_adjustments) as one record per element."""
    key, pos = _varint(record, 0)
    _, pos = _varint(record, pos)  # the packed length: the elements run to the end
    out = bytearray()
    element_key = uvarint(key & ~7)
    while pos < len(record):
        start = pos
        _, pos = _varint(record, pos)
        out += element_key + record[start:pos]
    return bytes(out)


UNKNOWN = st.one_of(
    st.tuples(st.integers(21, 2047), st.just(0), st.integers(0, 2**64 - 1)).map(
        lambda t: uvarint(t[0] << 3) + uvarint(t[2])
    ),
    st.tuples(st.integers(2049, 2**29 - 1), st.binary(max_size=8)).map(
        lambda t: uvarint(t[0] << 3 | 2) + uvarint(len(t[1])) + t[1]
    ),
    st.tuples(st.integers(21, 99), st.binary(min_size=4, max_size=4)).map(
        lambda t: uvarint(t[0] << 3 | 5) + t[1]
    ),
    # a group (wire types 3 and 4) holding a varint record, kept whole
    st.integers(21, 99).map(lambda n: uvarint(n << 3 | 3) + b"\x08\x01" + uvarint(n << 3 | 4)),
    # a known number with another wire type is unknown too (field 2 is a varint)
    st.binary(min_size=8, max_size=8).map(lambda b: uvarint(2 << 3 | 1) + b),
)


# -- upb's bytes -> our parse ----------------------------------------------------------


@CASES
@given(pw.strategies("order"))
def test_upb_bytes_parse_to_upb_decode_and_rebuild(model):
    data = PEER.to_pb("order", model).SerializeToString(deterministic=True)
    parsed = pw.parse(data)
    assert ours(parsed) == upb_values(data)
    assert parsed.wire_layout is None  # canonical bytes: the model is the values alone
    assert pw.build(parsed) == data
    same_as_construct(data)


# -- our build -> upb ------------------------------------------------------------------


@CASES
@given(pw.strategies("order"))
def test_our_build_is_upb_bytes_and_upb_reads_it(model):
    # upb takes a float from Python through a C cast, which quiets a signalling NaN: no
    # upb message holds one to write (ours writes its bits: tests/test_float32.py)
    assume(not _signalling(model.delivery_longitude))
    expected = PEER.to_pb("order", model).SerializeToString(deterministic=True)
    model = in_upb_map_order(model, expected)
    data = pw.build(model)
    assert data == expected
    assert upb_values(data) == ours(model)
    assert ours(pw.parse(data)) == ours(model)


# -- any order, unpacked, unknown fields ---------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pw.strategies("order"), st.randoms(use_true_random=False), st.lists(UNKNOWN, max_size=3))
def test_non_canonical_wire_rebuilds_exactly(model, rnd, unknown):
    parts = records(PEER.to_pb("order", model).SerializeToString(deterministic=True))
    parts = [unpacked(p) if p[:1] in (b"\x4a",) or p[:2] == b"\xa2\x01" else p for p in parts]
    parts += unknown
    rnd.shuffle(parts)
    data = b"".join(parts)
    parsed = pw.parse(data)
    assert pw.build(parsed) == data
    assert ours(parsed) == upb_values(data)
    same_as_construct(data)


# -- the samples and hand-made cases ----------------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples(path):
    data = path.read_bytes()
    parsed = pw.parse(data)
    assert pw.build(parsed) == data
    assert pw.build_construct(parsed) == data
    assert pw.from_dict(pw.to_dict(parsed)) == parsed
    assert pw.parse_construct(data) == parsed
    if path.name != "order_mixed_writers.bin":  # upb merges nothing there either, but
        assert ours(parsed) == upb_values(data)  # its unknown fields are ours alone
    same_as_construct(data)
    for cut in range(len(data)):
        same_as_construct(data[:cut])
    rnd = random.Random(path.name)
    for _ in range(30):  # byte mutations
        mutated = bytearray(data)
        mutated[rnd.randrange(len(data))] = rnd.randrange(256)
        same_as_construct(bytes(mutated))


def test_mixed_writers_sample():
    data = (SAMPLES[0].parent / "order_mixed_writers.bin").read_bytes()
    parsed = pw.parse(data)
    assert parsed.status == 3 and parsed.ratings == [4, 3]  # last status wins; unpacked read
    assert ours(parsed) == upb_values(data)
    unknown = [e for e in parsed.wire_layout if isinstance(e, bytes)]
    assert unknown == [b"\x20\x01", b"\xa8\x01\x2a", b"\xc2\xbb\x01\x05hello"]
    assert (
        b"hello" in PEER.classes["order"].FromString(data).SerializeToString()
    )  # upb keeps them too


def test_last_wins_oneof_and_map_duplicates():
    data = (
        bytes.fromhex("6a0161")  # voucher_code "a"
        + bytes.fromhex("7005")  # loyalty_points 5: the oneof's last member wins
        + bytes.fromhex("42060a016b120176")  # attributes k=v
        + bytes.fromhex("42060a016b120177")  # attributes k=w: the last wins
        + bytes.fromhex("0a0178" "0a0179")  # order_id x then y
    )
    parsed = pw.parse(data)
    assert parsed.voucher_code is None and parsed.loyalty_points == 5
    assert parsed.attributes == {"k": "w"} and parsed.order_id == "y"
    assert ours(parsed) == upb_values(data)
    assert pw.build(parsed) == data


def test_edited_model_writes_new_fields_after_the_layout():
    data = (SAMPLES[0].parent / "order_mixed_writers.bin").read_bytes()
    parsed = pw.parse(data)
    parsed.ratings.append(1)
    parsed.gift = True
    rebuilt = pw.build(parsed)
    assert rebuilt.startswith(data[: data.index(b"\x20\x03")])
    assert pw.parse(rebuilt).ratings == [4, 3, 1] and pw.parse(rebuilt).gift is True
    assert ours(pw.parse(rebuilt)) == upb_values(rebuilt)


@pytest.mark.parametrize(
    "hex_data, message",
    [
        ("0b", "group 1 has no end"),
        ("0c", "end of group 1 without its start"),
        ("0b14", "group 1 ends as group 2"),
        ("0b1b1c", "group 1 has no end"),
        ("0e00", "wire type 6 does not exist"),
        ("0000", "field number 0"),
        ("0a02c328", "not UTF-8"),
        ("0a05616263", "runs past the end"),
        ("19000000", "truncated fixed-width"),
        ("4a0180", "truncated varint"),
        ("5203000000", "not a multiple of 4"),
        ("ffffffff7f00", "exceeds 32 bits"),
    ],
)
def test_bad_bytes_are_decode_errors(hex_data, message):
    with pytest.raises(DecodeError, match=message):
        pw.parse(bytes.fromhex(hex_data))
    with pytest.raises(DecodeError, match=message):
        pw.parse_construct(bytes.fromhex(hex_data))


@pytest.mark.parametrize(
    "hex_data, error",
    [
        (  # the length of items[2]'s sku runs past the end of items[2]
            "0a0241311007 2a030a0178 2a030a0179 2a040a7f7a7a",
            "items[2].sku at offset 18: length 127 runs past the end (2 byte(s) left)",
        ),
        (  # items[2]'s own length runs past the end of the message
            "0a0241311007 2a030a0178 2a030a0179 2a040a027a",
            "items[2] at offset 16: length 4 runs past the end (3 byte(s) left)",
        ),
        ("3a0161 3a0562", "tags[1] at offset 3: length 5 runs past the end (1 byte(s) left)"),
        ("4a05 02", "price_adjustments at offset 0: length 5 runs past the end (1 byte(s) left)"),
        # an entry of a map: by its key when that reads alone, else by its index
        ("4206 0a016b 120576", "attributes[0].value at offset 5: length 5 runs past the end"),
        ("4206 0a016b 12015a 4206 0a016c 1201ff", "attributes['l'].value at offset 15: string"),
        ("4206 0a016b 12015a 4203 0a01ff", "attributes[1].key at offset 12: string is not UTF-8"),
        ("0a80", "order_id at offset 1: truncated varint: input ends 1 byte(s) into it"),
        ("0a0141 10ff", "customer_id at offset 4: truncated varint: input ends 1 byte(s)"),
        ("79 0000", "delivery_latitude at offset 0: truncated fixed-width value"),
        ("2a04 1a02 10ff", "items[0].unit_price.units at offset 5: truncated varint"),
        ("9a0104 0a0161 12", "subtotals[0].value at offset 7: truncated varint"),
        ("9a0107 0a0162 1202 10ff", "subtotals['b'].value.units at offset 9: truncated varint"),
        # an element of a packed record: its index among the field's elements
        ("a20102 0102 a20104 030405ff", "ratings[5] at offset 11: truncated varint"),
        # an unknown field (30) has no path: its offset says which record
        ("f20105 61", "<message> at offset 0: length 5 runs past the end (1 byte(s) left)"),
        ("7d 0000", "<message> at offset 0: truncated fixed-width value"),  # 15 is a double
    ],
)
def test_truncated_records_name_their_field_and_offset(hex_data, error):
    """A record that runs past the end of its message is named by its field path (an
    element by its index) and offset, the same text in both tiers: the compiled loop
    declines it, and the Python reader raises."""
    data = bytes.fromhex(hex_data.replace(" ", ""))
    for parse in (pw.parse, pw.parse_construct):
        with pytest.raises(DecodeError) as err:
            parse(data)
        assert str(err.value).startswith(error)
    if pw.order.compiled is not None:
        assert pw.order.compiled.try_read(data, 0, len(data), pw._LIMITS, 1) is None


@pytest.mark.parametrize(
    "group",
    [
        "0b0c",  # an empty group of field 1 (a string field here: another wire type)
        "abbb01 08011203616263 1d00000000 190000000000000000 acbb01",  # field 3000
        "ab01 0b 1005 0c ac01",  # field 21 holding a nested group of field 1
    ],
)
def test_groups_are_kept_as_unknown_records(group):
    """upb keeps an unknown group in its unknown fields; so do we, whole and in place."""
    group = group.replace(" ", "")
    data = bytes.fromhex("0a0178" + group + "1007")
    parsed = pw.parse(data)
    assert parsed.order_id == "x" and parsed.customer_id == 7
    assert parsed.wire_layout == (1, bytes.fromhex(group), 2)
    assert pw.build(parsed) == data and pw.build_construct(parsed) == data
    assert ours(parsed) == upb_values(data)
    assert bytes.fromhex(group) in ORDER.FromString(data).SerializeToString()


def test_nested_groups_count_against_max_depth():
    data = bytes.fromhex("ab01" + "0b" * 3 + "0c" * 3 + "ac01")
    assert pw.parse(data).wire_layout == (data,)
    with pytest.raises(DecodeError, match="max_depth"):
        pw.parse(data, max_depth=3)


def test_an_empty_packed_record_is_written_back():
    data = bytes.fromhex("a20100" "a2010101" "a20100")  # ratings: empty, [1], empty
    parsed = pw.parse(data)
    assert parsed.ratings == [1] and parsed.wire_layout == ((20, 0), (20, 1), (20, 0))
    assert pw.build(parsed) == data and pw.build_construct(parsed) == data


def test_largest_field_number_is_kept():
    record = uvarint((2**29 - 1) << 3) + b"\x01"
    parsed = pw.parse(record)
    assert parsed.wire_layout == (record,) and pw.build(parsed) == record


def test_nesting_is_bounded_and_errors_name_the_path():
    with pytest.raises(DecodeError) as err:
        pw.parse(bytes.fromhex("2a04" "1a02" "08ff"))  # items[0].unit_price.units truncated
    assert err.value.path == "items[0].unit_price"  # (a varint where its string is: unknown)


def test_build_refuses_bad_models():
    with pytest.raises(EncodeError, match="both"):
        pw.build(pw.Order(voucher_code="a", loyalty_points=1))
    with pytest.raises(EncodeError, match="not in"):
        pw.build(pw.Order(customer_id=-1))
    with pytest.raises(EncodeError):
        pw.build(pw.Order(order_id=b"bytes"))


def test_spark_rows_fit_the_schema():
    from pyspark.sql.types import _make_type_verifier

    verify = _make_type_verifier(pw.spark_schema())
    for path in SAMPLES:
        rows = list(pw.to_rows(pw.parse(path.read_bytes())))
        assert len(rows) == 1
        verify(rows[0])


def test_inspect_spans_cover_every_record():
    from runtime.core.codec import parse
    from runtime.core.spans import SpanRecorder, run

    data = (SAMPLES[0].parent / "order_mixed_writers.bin").read_bytes()
    recorder = SpanRecorder()
    trace = run(lambda: parse(pw.RECORDS["order"], data, spans=recorder), data, recorder)
    assert trace.error is None
    covered = sorted((s.start, s.end) for s in trace.leaves())
    assert covered[0][0] == 0 and covered[-1][1] == len(data)
    assert any("unknown field 3000" in str(s.role) for s in trace.leaves())


GOOD = {"name": "x", "number": 1, "type": "int32"}


@pytest.mark.parametrize(
    "field, outer, error",
    [
        ({**GOOD, "type": "int33"}, None, "unknown protobuf type 'int33'"),
        ({**GOOD, "number": None}, None, "number"),
        ({**GOOD, "type": "string", "repeat": "packed"}, None, "only numeric scalars pack"),
        ({**GOOD, "tag": 3}, None, "'tag' is not possible in a protobuf message"),
        ({**GOOD, "number": 2**29}, None, r"fields\[0\].number: 536870912 is greater"),
        ({**GOOD, "type": "enum"}, None, "goes with enum"),
        (GOOD, {"name": "m", "type": "m", "doc": "unsized"}, "has no end: give it a size"),
    ],
)
def test_spec_errors_name_file_line_and_key(tmp_path, field, outer, error):
    import yaml

    from generator.spec.loader import load
    from generator.spec.validate import build_model
    from runtime.core.errors import SpecError

    field = {k: v for k, v in field.items() if v is not None}
    records = {"m": {"doc": "m", "layout": "protobuf", "fields": [{**field, "doc": "x"}]}}
    if outer is not None:
        records["outer"] = {"doc": "o", "fields": [outer]}
    spec = {"format": "pb_errors", "title": "t", "doc": "d", "endian": "le"}
    spec |= {"default_record": "m", "records": records}
    path = tmp_path / "pb_errors.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(SpecError, match=error) as err:
        build_model(load(path))
    assert "pb_errors.yaml:" in str(err.value)


def test_spark_batches_of_lazy_models_are_the_eager_rows():
    """The Spark worker's Arrow batch (models from ``parse``, lazy with the compiled tier)
    holds the rows of ``parse_construct``'s eager models."""
    import pyarrow as pa
    from pyspark.sql.types import BinaryType, StructField, StructType

    from runtime.spark.decode import BatchDecoder, codec, output_schema

    spark_codec = codec("protobuf_wire")
    schema, *_ = output_schema(
        StructType([StructField("value", BinaryType())]), spark_codec, "FAILFAST", ["value"]
    )
    datas = [path.read_bytes() for path in SAMPLES]
    got = BatchDecoder(spark_codec, schema).decode(
        pa.record_batch([pa.array(datas, pa.binary())], names=["value"])
    )
    rows = [row for data in datas for row in pw.to_rows(pw.parse_construct(data))]
    want = pa.Table.from_pylist(
        [dict(zip(got.schema.names, row)) for row in rows], schema=got.schema
    ).to_batches()[0]
    assert got.equals(want)
