"""Tablestore PlainBuffer: the vectors of research/plainbuffer.md, every value type, cell ops,
the JSON form, the Spark mapping, and what happens to bad bytes.

The expected bytes come from the research note (which was checked against the tablestore SDK)
or from :func:`ref_cell`/:func:`ref_row`, a small independent encoder written from that note's
"Layout" and "CRC8" sections. It shares no code with the runtime.
"""

import json
import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plainbuffer_support import (
    HEADER,
    I64_MAX,
    I64_MIN,
    SEED,
    SEED_CELL_CHECKSUMS,
    SEED_ROW_CHECKSUM,
    cell,
    message,
    ref_cell,
    ref_crc8,
    ref_payload,
    ref_row,
    row,
    span,
    view,
)

from generated import plainbuffer as pb
from generated.plainbuffer import CellOp, ValueType
from runtime import DecodeError


def test_seed_transcription_matches_the_note():
    # The hex block of research/plainbuffer.md, line by line; 189 bytes.
    assert len(SEED) == 189
    assert SEED.hex().startswith("750000000103040300000070")
    assert SEED.hex().endswith("636f6c756d6e3406010aa70922")


def test_seed_decodes_to_the_documented_values():
    m = pb.parse(SEED)
    assert m.header == 0x75
    assert len(m.rows) == 1
    r = m.rows[0]
    assert [c.name for c in r.primary_key] == ["pk1", "pk2"]
    assert [c.name for c in r.attributes] == ["column1", "column2", "column3", "column4"]
    assert (r.primary_key[0].value.type, r.primary_key[0].value.value) == (
        ValueType.STRING,
        "iampk",
    )
    assert (r.primary_key[1].value.type, r.primary_key[1].value.value) == (ValueType.INTEGER, 100)
    a = r.attributes
    assert (a[0].value.type, a[0].value.value, a[0].timestamp) == (ValueType.STRING, "bad", 1001)
    assert (a[1].value.type, a[1].value.value, a[1].timestamp) == (ValueType.INTEGER, 128, 1002)
    assert (a[2].value.type, a[2].value.value, a[2].timestamp) == (ValueType.DOUBLE, 34.2, 1003)
    assert (a[3].value, a[3].op, a[3].timestamp) == (None, CellOp.DELETE_ALL_VERSION, None)
    assert all(c.op is None for c in list(r.primary_key) + list(a[:3]))
    assert all(c.timestamp is None for c in r.primary_key)
    assert [c.checksum for c in list(r.primary_key) + list(a)] == SEED_CELL_CHECKSUMS
    assert r.checksum == SEED_ROW_CHECKSUM
    assert r.delete_marker is False


def test_seed_rebuilds_byte_identical():
    assert pb.build(pb.parse(SEED)) == SEED


def test_seed_round_trips_through_json_text():
    text = json.dumps(pb.to_dict(pb.parse(SEED)))
    d = json.loads(text)
    assert d["rows"][0]["attributes"][3]["op"] == "DELETE_ALL_VERSION"
    assert d["rows"][0]["primary_key"][0]["value"] == {"type": "STRING", "value": "iampk"}
    assert pb.build(pb.from_dict(d)) == SEED


def test_seed_built_from_a_model_written_by_hand():
    m = message(
        row(
            [("pk1", 3, "iampk"), ("pk2", 0, 100)],
            [
                ("column1", 3, "bad", None, 1001),
                ("column2", 0, 128, None, 1002),
                ("column3", 1, 34.2, None, 1003),
                ("column4", None, None, CellOp.DELETE_ALL_VERSION),
            ],
        )
    )
    assert pb.build(m) == SEED


def test_reference_encoder_reproduces_the_seed():
    # Guards the oracle the other tests use.
    assert ref_crc8(b"123456789") == 0xF4
    rebuilt = HEADER + ref_row(
        [("pk1", 3, "iampk"), ("pk2", 0, 100)],
        [
            ("column1", 3, "bad", None, 1001),
            ("column2", 0, 128, None, 1002),
            ("column3", 1, 34.2, None, 1003),
            ("column4", None, None, 0x01),
        ],
    )
    assert rebuilt == SEED


# -- the other reference cells and rows of the note -------------------------------------------


def test_put_row_without_column4_ends_09_a8():
    # "The same row without column4 (serialize_for_put_row) ends ...0a cf 09 a8".
    start, _ = span("rows[0].attributes[3]")
    put = SEED[:start] + bytes.fromhex("09a8")
    m = pb.parse(put)
    assert m.rows[0].checksum == 0xA8
    assert [c.name for c in m.rows[0].attributes] == ["column1", "column2", "column3"]
    assert pb.build(m) == put
    m.rows[0].attributes.pop()
    assert pb.build(m)[-4:] != put[-4:]  # the row checksum really depends on the cells


def test_delete_one_version_cell():
    data = bytes.fromhex("03 04 01000000 63 06 03 07 d204000000000000 0a c1")
    c = pb.parse(data, record="cell")
    assert (c.name, c.value, c.op, c.timestamp, c.checksum) == (
        "c",
        None,
        CellOp.DELETE_ONE_VERSION,
        1234,
        0xC1,
    )
    assert pb.build(c, record="cell") == data
    # the checksum covers the timestamp before the op: name, ts 1234, op 3
    assert ref_crc8(b"c" + struct.pack("<q", 1234) + b"\x03") == 0xC1
    assert ref_crc8(b"c" + b"\x03" + struct.pack("<q", 1234)) != 0xC1


@pytest.mark.parametrize(
    "name, tail, vtype",
    [
        # The note elides the names ("..."); "a" and "b" are the one-letter names whose cells
        # end in exactly the documented bytes (checked by the SDK in test_plainbuffer_sdk.py).
        ("a", "05 01000000 09 0a df", ValueType.INF_MIN),
        ("b", "05 01000000 0a 0a e9", ValueType.INF_MAX),
    ],
)
def test_inf_min_and_inf_max_pk_cells(name, tail, vtype):
    data = bytes.fromhex("03 04 01000000") + name.encode() + bytes.fromhex(tail)
    c = pb.parse(data, record="cell")
    assert (c.name, c.value.type, c.value.value) == (name, vtype, None)
    assert c.checksum == data[-1]
    assert pb.build(c, record="cell") == data
    assert pb.build(cell(name, vtype), record="cell") == data


def test_delete_row_marker():
    # "A delete-row marker row is 01 <pk cells> 08 09 crc" and the CRC ends with byte 1.
    pk = [("pk1", 3, "iampk"), ("pk2", 0, 100)]
    data = HEADER + ref_row(pk, deleted=True)
    pk_end = span("rows[0].primary_key[1].checksum")[1]
    assert data[:pk_end] == SEED[:pk_end]
    assert data[pk_end:-1] == b"\x08\x09"
    assert data[-1] == ref_crc8(bytes((0x98, 0x05, 0x01)))
    m = pb.parse(data)
    assert m.rows[0].delete_marker is True
    assert m.rows[0].attributes == []
    assert pb.build(message(row(pk, deleted=True))) == data
    # the same row without the marker has a different checksum
    assert pb.build(message(row(pk)))[-1] == ref_crc8(bytes((0x98, 0x05, 0x00)))


def test_empty_primary_key_still_writes_its_tag():
    data = pb.build(message(row([], [("x", 0, 1)])))
    assert data == HEADER + ref_row([], [("x", 0, 1)])
    assert data[4:6] == b"\x01\x02"
    assert view(pb.parse(data)) == view(message(row([], [("x", 0, 1)])))


def test_no_attributes_means_no_attribute_tag():
    data = pb.build(message(row([("k", 0, 1)])))
    cell_bytes, _ = ref_cell("k", 0, 1)
    assert data[4:] == b"\x01" + cell_bytes + data[-2:]
    assert data[-2] == 0x09  # straight from the last pk cell to the row checksum


def test_attribute_tag_with_no_cells_is_rejected():
    start = len(HEADER + ref_row([("k", 0, 1)])) - 2
    bad = HEADER + ref_row([("k", 0, 1)])[:-2] + b"\x02\x09\x00"
    with pytest.raises(DecodeError) as err:
        pb.parse(bad)
    assert err.value.path == "rows[0].attributes"
    assert err.value.offset == start + 1


# -- multi-row messages ----------------------------------------------------------------------


def test_multi_row_message():
    rows = [
        ([("pk1", 3, "iampk"), ("pk2", 0, 100)], [("a", 0, 1, None, 5)], False),
        ([("pk1", 3, "other")], [("c", None, None, 0x03, 1234), ("n", 0, 7, 0x04)], False),
        ([("pk1", 7, b"\x00\x01")], [], True),
    ]
    data = HEADER + b"".join(ref_row(*r) for r in rows)
    m = pb.parse(data)
    assert len(m.rows) == 3
    assert [r.delete_marker for r in m.rows] == [False, False, True]
    assert m.rows[1].attributes[0].op == CellOp.DELETE_ONE_VERSION
    assert m.rows[1].attributes[1].op == CellOp.INCREMENT
    assert m.rows[2].primary_key[0].value.value == b"\x00\x01"
    # each row's checksum restarts at 0: it equals the checksum of that row alone
    for i, r in enumerate(rows):
        assert m.rows[i].checksum == pb.parse(HEADER + ref_row(*r)).rows[0].checksum
    assert pb.build(message(*(row(*r) for r in rows))) == data


@pytest.mark.parametrize("deleted", [True, False])
def test_row_without_attributes_round_trips_through_json(deleted):
    data = HEADER + ref_row([("pk1", 3, "iampk")], deleted=deleted)
    d = json.loads(json.dumps(pb.to_dict(pb.parse(data))))
    assert d["rows"][0]["attributes"] == []
    assert pb.build(pb.from_dict(d)) == data


def test_seed_row_repeated():
    data = SEED + SEED[4:] + SEED[4:]
    m = pb.parse(data)
    assert len(m.rows) == 3
    assert view(m)[0] == view(m)[2] == view(pb.parse(SEED))[0]
    assert pb.build(m) == data


def test_header_only_message():
    # research/plainbuffer.md: message = header row+  (at least one row)
    with pytest.raises(DecodeError) as err:
        pb.parse(HEADER)
    assert err.value.offset == 4


# -- every value type ------------------------------------------------------------------------

NAN_WITH_PAYLOAD = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_DEAD_BEEF))[0]

VALUES = [
    (ValueType.INTEGER, 0),
    (ValueType.INTEGER, I64_MIN),
    (ValueType.INTEGER, I64_MAX),
    (ValueType.INTEGER, -1),
    (ValueType.DOUBLE, 34.2),
    (ValueType.DOUBLE, -0.0),
    (ValueType.DOUBLE, math.inf),
    (ValueType.DOUBLE, -math.inf),
    (ValueType.DOUBLE, NAN_WITH_PAYLOAD),
    (ValueType.DOUBLE, 5e-324),
    (ValueType.BOOLEAN, True),
    (ValueType.BOOLEAN, False),
    (ValueType.STRING, ""),
    (ValueType.STRING, "héllo 名字 🎉"),
    (ValueType.BLOB, b""),
    (ValueType.BLOB, bytes(range(256))),
    (ValueType.NULL, None),
    (ValueType.INF_MIN, None),
    (ValueType.INF_MAX, None),
    (ValueType.AUTO_INCREMENT, None),
]


@pytest.mark.parametrize("vtype, value", VALUES, ids=lambda x: repr(x)[:30])
def test_every_value_type(vtype, value):
    expected = HEADER + ref_row([("k", vtype, value)], [("v", vtype, value, None, 1)])
    m = message(row([("k", vtype, value)], [("v", vtype, value, None, 1)]))
    assert pb.build(m) == expected
    back = pb.parse(expected)
    assert view(back) == view(m)
    assert type(back.rows[0].primary_key[0].value.value) is type(value)
    assert pb.build(pb.from_dict(json.loads(json.dumps(pb.to_dict(back))))) == expected
    # the int32 after 0x05 counts the type byte and the payload
    value_len = struct.unpack_from("<i", expected, 4 + 1 + 1 + 1 + 4 + 1 + 1)[0]
    assert value_len == 1 + len(ref_payload(vtype, value))


@pytest.mark.parametrize("bad", [2, 3, 0x80, 0xFF])
def test_boolean_byte_must_be_0_or_1(bad):
    data = bytearray(HEADER + ref_row([("k", ValueType.BOOLEAN, True)]))
    at = data.index(b"\x02\x01\x0a") + 1  # type byte 0x02, payload 0x01, then 0x0a
    data[at] = bad
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(data))
    assert err.value.offset == at
    assert err.value.path == "rows[0].primary_key[0].value.value"


def test_invalid_utf8_string_is_a_decode_error():
    data = bytearray(HEADER + ref_row([("k", ValueType.STRING, "ab")]))
    at = data.index(b"ab")
    data[at] = 0xFF
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(data))
    assert err.value.path == "rows[0].primary_key[0].value.value"


# -- cell ops --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, vtype, value, ts",
    [
        (CellOp.DELETE_ALL_VERSION, None, None, None),
        (CellOp.DELETE_ONE_VERSION, None, None, 1234),
        (CellOp.DELETE_ONE_VERSION, None, None, None),
        (CellOp.INCREMENT, ValueType.INTEGER, 5, None),
        (CellOp.INCREMENT, ValueType.INTEGER, -5, 1700000000000),
    ],
)
def test_cell_ops(op, vtype, value, ts):
    data = HEADER + ref_row([("k", 0, 1)], [("col", vtype, value, int(op), ts)])
    m = pb.parse(data)
    c = m.rows[0].attributes[0]
    assert (c.op, c.timestamp) == (op, ts)
    assert c.value is None if vtype is None else c.value.value == value
    assert pb.build(m) == data
    assert pb.to_dict(m)["rows"][0]["attributes"][0]["op"] == op.name
    # wire order: op (0x06) before timestamp (0x07)
    if ts is not None:
        assert data.index(bytes((0x06, op))) < data.index(b"\x07" + struct.pack("<q", ts))


@pytest.mark.parametrize("bad_op", [0x00, 0x02, 0x05, 0xFF])
def test_unknown_cell_op(bad_op):
    data = bytearray(HEADER + ref_row([("k", 0, 1)], [("col", None, None, 0x01)]))
    at = data.index(b"\x06\x01") + 1
    data[at] = bad_op
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(data))
    assert (err.value.offset, err.value.path) == (at, "rows[0].attributes[0].op")


# -- non-ASCII names -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["名字", "colonne_é", "🎉", "Ωmega-列"])
def test_non_ascii_utf8_names(name):
    raw = name.encode("utf-8")
    data = pb.build(message(row([(name, 0, 1)], [(name, 3, name, None, 9)])))
    assert data == HEADER + ref_row([(name, 0, 1)], [(name, 3, name, None, 9)])
    # the name length is the UTF-8 byte length, not the character count
    assert data[6:11] == b"\x04" + struct.pack("<i", len(raw)) and len(raw) != len(name)
    assert data[11 : 11 + len(raw)] == raw
    m = pb.parse(data)
    assert m.rows[0].primary_key[0].name == name
    assert m.rows[0].primary_key[0].checksum == ref_crc8(raw + b"\x00" + struct.pack("<q", 1))
    assert pb.build(pb.from_dict(json.loads(json.dumps(pb.to_dict(m))))) == data


# -- Spark -----------------------------------------------------------------------------------


def spark_verifier():
    from pyspark.sql.types import _make_type_verifier

    return _make_type_verifier(pb.spark_schema(), nullable=False)


def test_spark_schema_types():
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        BooleanType,
        LongType,
        StringType,
        TimestampType,
    )

    schema = pb.spark_schema()
    assert schema.fieldNames() == ["primary_key", "attributes", "delete_marker"]
    assert isinstance(schema["delete_marker"].dataType, BooleanType)
    for section in ("primary_key", "attributes"):
        assert isinstance(schema[section].dataType, ArrayType)
        cell_t = schema[section].dataType.elementType
        assert cell_t.fieldNames() == ["name", "value", "op", "timestamp", "timestamp_ts"]
        assert isinstance(cell_t["name"].dataType, StringType)
        assert isinstance(cell_t["timestamp"].dataType, LongType)  # logical: unix_millis
        assert isinstance(cell_t["timestamp_ts"].dataType, TimestampType)
        value_t = cell_t["value"].dataType
        assert isinstance(value_t["type"].dataType, StringType)
        payload = value_t["value"].dataType
        assert isinstance(payload["integer"].dataType, LongType)
        assert isinstance(payload["blob"].dataType, BinaryType)


def rows_of(model):
    verify = spark_verifier()
    out = list(pb.to_rows(model))
    for r in out:
        verify(r)
    return out


def test_to_rows_matches_the_schema_for_the_seed():
    (r,) = rows_of(pb.parse(SEED))
    pk, attrs, deleted = r
    assert deleted is False
    names = pb.spark_schema()["primary_key"].dataType.elementType["value"].dataType
    payload_names = names["value"].dataType.fieldNames()
    pk1 = dict(zip(payload_names, pk[0][1][1]))
    assert pk[0][0] == "pk1" and pk[0][1][0] == "STRING" and pk1["string"] == "iampk"
    col2 = dict(zip(payload_names, attrs[1][1][1]))
    assert attrs[1][3] == 1002 and col2["integer"] == 128
    assert attrs[3] == ("column4", None, "DELETE_ALL_VERSION", None, None)


def test_to_rows_every_value_type_is_accepted_and_distinguishable():
    m = message(row([(f"k{i}", t, v) for i, (t, v) in enumerate(VALUES)], [("a", 0, 1)]))
    (r,) = rows_of(m)
    types = [c[1][0] for c in r[0]]
    assert types == [t.name for t, _ in VALUES]
    sentinels = {c[1][0]: c[1][1] for c in r[0] if c[1][0] in ("INF_MIN", "INF_MAX")}
    sentinels["AUTO_INCREMENT"] = next(c[1][1] for c in r[0] if c[1][0] == "AUTO_INCREMENT")
    assert len(sentinels) == 3  # the type column tells them apart ...
    assert all(all(x is None for x in payload) for payload in sentinels.values())  # ... alone


@pytest.mark.parametrize("deleted", [True, False])
def test_to_rows_row_without_attributes(deleted):
    m = pb.parse(HEADER + ref_row([("pk1", 3, "iampk")], deleted=deleted))
    ((pk, attrs, marker),) = rows_of(m)
    assert [c[0] for c in pk] == ["pk1"]
    assert attrs in (None, [])
    assert marker is deleted


def test_spark_verifier_rejects_a_wrong_row():
    # the check is not vacuous: an INTEGER payload out of LongType's range is refused
    (r,) = rows_of(pb.parse(SEED))
    pk = list(r[0])
    pk[1] = ("pk2", ("INTEGER", (2**63, None, None, None, None)), None, None)
    with pytest.raises((TypeError, ValueError)):
        spark_verifier()((pk, r[1], r[2]))


# -- property: models built, parsed, JSON'd and mapped to Spark --------------------------------

names = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
typed_values = st.one_of(
    st.tuples(st.just(ValueType.INTEGER), st.integers(I64_MIN, I64_MAX)),
    st.tuples(st.just(ValueType.DOUBLE), st.floats(allow_nan=True, allow_infinity=True)),
    st.tuples(st.just(ValueType.BOOLEAN), st.booleans()),
    st.tuples(st.just(ValueType.STRING), names),
    st.tuples(st.just(ValueType.BLOB), st.binary(max_size=12)),
    st.tuples(
        st.sampled_from(
            [ValueType.NULL, ValueType.INF_MIN, ValueType.INF_MAX, ValueType.AUTO_INCREMENT]
        ),
        st.none(),
    ),
)
timestamps = st.none() | st.integers(I64_MIN, I64_MAX)
ops = st.none() | st.sampled_from(list(CellOp))


@st.composite
def cell_args(draw, with_op=True):
    value = draw(st.none() | typed_values)
    vtype, v = (None, None) if value is None else value
    return (draw(names), vtype, v, draw(ops) if with_op else None, draw(timestamps))


row_args = st.tuples(
    st.lists(cell_args(), max_size=3), st.lists(cell_args(), max_size=4), st.booleans()
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row_args, min_size=1, max_size=3))
def test_property_build_parse_json_spark(rows):
    m = message(*(row(*r) for r in rows))
    data = pb.build(m)
    assert data == HEADER + b"".join(
        ref_row(
            [c[:3] + (None if c[3] is None else int(c[3]),) + c[4:] for c in pk],
            [c[:3] + (None if c[3] is None else int(c[3]),) + c[4:] for c in attrs],
            deleted,
        )
        for pk, attrs, deleted in rows
    )
    back = pb.parse(data)
    assert view(back) == view(m)
    assert pb.build(back) == data
    assert pb.build(pb.from_dict(json.loads(json.dumps(pb.to_dict(back))))) == data
    assert len(rows_of(back)) == len(rows)
