"""TiCDC Open Protocol: vectors, round-trip properties, tiflow's batching, bad input."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import math
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from generated.ticdc_open_protocol import (
    COLUMN_TYPE_RENDERING,
    decode_message,
    encode_event,
    encode_events,
    key_frames,
    value_frames,
)
from runtime.core.errors import DecodeError, EncodeError, LimitError
from runtime.core.limits import Limits
from runtime.formats.open_protocol_frames import split_frames

VECTORS_FILE = Path(__file__).parent / "data/vectors/ticdc_open_protocol.json"
VECTORS = json.loads(VECTORS_FILE.read_text())["vectors"]
FRAMED = [v for v in VECTORS if v["hex"]["key"]]
UNLIMITED = {"max_batch_size": 1 << 62, "max_message_bytes": 1 << 62}


def u64(n: int) -> bytes:
    return struct.pack(">Q", n)


def frame(*docs: bytes, version: bool = False) -> bytes:
    return (u64(1) if version else b"") + b"".join(u64(len(d)) + d for d in docs)


# ---------------------------------------------------------------- vectors


def expected_event(doc: dict):
    """The model event a documented vector event stands for, read straight from its JSON."""
    key, value = doc["key"], doc["value"]
    common = {"commit_ts": key["ts"], "schema": key.get("scm"), "table": key.get("tbl")}
    if key["t"] == 3:
        return ResolvedEvent(key["ts"])
    if key["t"] == 2:
        return DdlEvent(**common, ddl_type=value["t"], query=value["q"])

    def columns(section):
        out = []
        for name, c in section.items():
            v = c["v"]
            if c["t"] == 15 and "f" not in c:  # the 2020 layout: VARCHAR bytes in base64
                v = base64.b64decode(v)
            out.append(Column(name, c["t"], c.get("f", 2 if c.get("h") else 0), v))
        return out

    if "d" in value:
        return RowChangedEvent(**common, partition=key.get("ptn"), old=columns(value["d"]))
    return RowChangedEvent(**common, partition=key.get("ptn"), new=columns(value["u"]))


@pytest.mark.parametrize("vector", FRAMED, ids=[v["name"] for v in FRAMED])
def test_vector_decodes_to_documented_events_and_rebuilds_identically(vector):
    key, value = bytes.fromhex(vector["hex"]["key"]), bytes.fromhex(vector["hex"]["value"])
    events = decode_message(key, value)
    assert events == [expected_event(e) for e in vector["decoded"]["events"]]
    layout = "legacy" if vector.get("legacy_layout") else "tiflow"
    assert list(encode_events(events, layout=layout, **UNLIMITED)) == [(key, value)]


def test_seed_rows_carry_the_documented_text():
    checked = 0
    for vector in FRAMED:
        key, value = bytes.fromhex(vector["hex"]["key"]), bytes.fromhex(vector["hex"]["value"])
        for doc, ev in zip(vector["decoded"]["events"], decode_message(key, value)):
            semantic = doc.get("row_semantic", {}).get("columns")
            if semantic is None:
                continue
            for col in ev.new or ev.old:
                want = semantic[col.name]
                assert col.value == (want["bytes_utf8"].encode() if "val" == col.name else want)
                checked += 1
    assert checked == 14  # logs 5-8 and 11-12 have two columns, deletes 9-10 one


def test_upstream_lang_event_fixture_regenerates_byte_for_byte():
    vector = next(v for v in VECTORS if v["name"] == "upstream_case_set_lang_event")
    gen = vector["generated"]
    events = [
        RowChangedEvent(1, "a", "8" * i or None, new=[Column("col1", 1, 0, "8" * i)])
        for i in range(1024)
    ]
    [(key, value)] = encode_events(events, **UNLIMITED)
    assert (len(key), len(value)) == (gen["key_len"], gen["value_len"])
    assert hashlib.sha256(key).hexdigest() == gen["key_sha256"]
    assert hashlib.sha256(value).hexdigest() == gen["value_sha256"]
    assert decode_message(key, value) == events
    assert key[16:].startswith(bytes.fromhex(gen["first_event"]["key_hex"]))


def test_construct_framing_agrees_with_the_fast_path():
    for vector in FRAMED + [{"hex": {"key": frame(b"{}", version=True).hex(), "value": "00" * 8}}]:
        key, value = bytes.fromhex(vector["hex"]["key"]), bytes.fromhex(vector["hex"]["value"])
        frames = split_frames(key, value, Limits())
        keys = [key[ks:ke] for ks, ke, _, _ in frames]
        values = [value[vs:ve] for _, _, vs, ve in frames]
        assert list(key_frames.parse(key).keys) == keys
        assert list(value_frames.parse(value).values) == values
        assert key_frames.build({"keys": keys}) == key
        assert value_frames.build({"values": values}) == value


# ---------------------------------------------------------------- per-type rendering


@pytest.mark.parametrize(
    "column, v",
    [
        (Column("c", 8, 0x80, 2**64 - 1), "18446744073709551615"),
        (Column("c", 8, 0, -(2**63)), "-9223372036854775808"),
        (Column("c", 4, 1, 153.1230010986328), "153.123"),
        (Column("c", 5, 1, 1.0), "1"),
        (Column("c", 5, 1, 1e21), "1e+21"),
        (Column("c", 246, 1, "129012.1230000"), '"129012.1230000"'),
        (Column("c", 245, 0, '{"key1": "value1"}'), '"{\\"key1\\": \\"value1\\"}"'),
        (Column("c", 15, 0, b"<\xff>"), '"\\u003c\\ufffd\\u003e"'),
        (
            Column("c", 253, 1, bytes.fromhex("89504e470d0a1a0a")),
            '"\\\\x89PNG\\\\r\\\\n\\\\x1a\\\\n"',
        ),
        (Column("c", 252, 0, "测试text".encode()), '"5rWL6K+VdGV4dA=="'),
        (Column("c", 252, 0, b""), '""'),
        (Column("c", 247, 1, 1), "1"),
        (Column("c", 6, 1, None), "null"),
    ],
)
def test_column_values_render_as_tiflow_writes_them(column, v):
    _, value = encode_event(RowChangedEvent(1, new=[column]))
    handle = ',"h":true' if column.flags & 2 else ""
    want = f'{{"u":{{"c":{{"t":{column.type}{handle},"f":{column.flags},"v":{v}}}}}}}'
    assert value.decode() == want


def test_columns_are_sorted_bytewise_like_a_go_map():
    names = ["é", "b", "a1", "_x", "a", "B"]
    _, value = encode_event(RowChangedEvent(1, new=[Column(n, 3, 0, 1) for n in names]))
    assert list(json.loads(value)["u"]) == ["B", "_x", "a", "a1", "b", "é"]


def test_key_fields_come_in_tiflow_order_with_omitempty():
    ev = RowChangedEvent(415508878783938562, "test", "t1", partition=98, new=[], row_id=5)
    key, _ = encode_event(ev)
    assert key == b'{"ts":415508878783938562,"scm":"test","tbl":"t1","rid":5,"ptn":98,"t":1}'
    ev = RowChangedEvent(
        1, "", None, partition=0, new=[], handle_key_only=True, claim_check_location="s3://b/x.json"
    )
    key, _ = encode_event(ev)
    assert key == b'{"ts":1,"ptn":0,"t":1,"ohk":true,"ccl":"s3://b/x.json"}'


def test_ticdc_new_architecture_layout_decodes():
    key = b'{"ts":7,"scm":"s","tbl":"t","t":1,"ohk":false,"ccl":"f.json","ptn":3}'
    value = b'{"u":{"z":{"t":3,"h":true,"f":11,"v":1},"a":{"t":15,"f":64,"v":"<&>"}}}'
    [ev] = decode_message(frame(key, version=True), frame(value))
    assert ev == RowChangedEvent(
        7,
        "s",
        "t",
        partition=3,
        claim_check_location="f.json",
        new=[Column("z", 3, 11, 1), Column("a", 15, 64, b"<&>")],
    )


def test_update_and_delete_sections():
    old, new = [Column("id", 3, 11, 1)], [Column("id", 3, 11, 2)]
    _, value = encode_event(RowChangedEvent(1, new=new, old=old))
    assert (
        value
        == b'{"u":{"id":{"t":3,"h":true,"f":11,"v":2}},"p":{"id":{"t":3,"h":true,"f":11,"v":1}}}'
    )
    _, value = encode_event(RowChangedEvent(1, old=old))
    assert value == b'{"d":{"id":{"t":3,"h":true,"f":11,"v":1}}}'
    [ev] = decode_message(frame(b'{"ts":1,"t":1}', version=True), frame(value))
    assert ev.op == "delete" and ev.old == old


@pytest.mark.parametrize(
    "columns, bad",
    [
        ('"a":{"t":3,"f":129,"v":1},"b":{"t":3,"v":2}', "d.b"),  # tiflow, then legacy
        ('"a":{"t":3,"v":1},"b":{"t":3,"f":129,"v":2}', "d.b"),  # legacy, then tiflow
    ],
)
def test_a_message_mixing_tiflow_and_legacy_columns_is_rejected(columns, bad):
    # fuzz finding tests/fuzz/crashes/ticdc_open_protocol/message--81873fb14648: the layout
    # is the message's, so the f of a tiflow column in a legacy message was lost on build
    value = frame(b'{"d":{' + columns.encode() + b"}}")
    key = frame(b'{"ts":1,"t":1}', version=True)
    with pytest.raises(DecodeError, match="all tiflow .* or all legacy") as info:
        decode_message(key, value)
    assert info.value.path == f"events[0].value.{bad}" and info.value.offset == 8
    # across events too: the second event's column disagrees with the first's
    one = frame(b'{"d":{"a":{"t":3,"f":1,"v":1}}}')
    two = frame(b'{"d":{"a":{"t":3,"v":1}}}')
    with pytest.raises(DecodeError, match="all legacy") as info:
        decode_message(key + frame(b'{"ts":2,"t":1}'), one + two)
    assert info.value.path == "events[1].value.d.a" and info.value.offset == len(one) + 8


# ---------------------------------------------------------------- round-trip properties

UINT64_MAX, INT64_MIN, INT64_MAX = 2**64 - 1, -(2**63), 2**63 - 1
int64s = st.integers(INT64_MIN, INT64_MAX) | st.sampled_from([INT64_MIN, INT64_MAX, 0, -1])
uint64s = st.integers(0, UINT64_MAX) | st.sampled_from([0, UINT64_MAX, 2**63])
texts = st.text(max_size=12)
flag_sets = st.integers(0, 0xFF)


def _value(kind: str, flags: int):
    if kind == "int":
        return uint64s if flags & 0x80 else int64s
    return {
        "uint": uint64s,
        "sint": int64s,
        "float32": st.floats(width=32, allow_nan=False, allow_infinity=False),
        "float64": st.floats(allow_nan=False, allow_infinity=False),
        "text": texts,
        # text columns hold valid UTF-8 here; invalid UTF-8 has its own property below
        "string": st.binary(max_size=12) if flags & 1 else texts.map(str.encode),
        "base64": st.binary(max_size=12),
        "raw": st.none() | int64s | texts,  # an integral float would come back as int
    }[kind]


@st.composite
def columns(draw, min_size=0):
    names = draw(st.lists(st.text(max_size=6), min_size=min_size, max_size=6, unique=True))
    out = []
    for name in names:
        code = draw(st.sampled_from(sorted(map(int, COLUMN_TYPE_RENDERING))) | st.integers(0, 255))
        flags = draw(flag_sets)
        kind = COLUMN_TYPE_RENDERING.get(code, "raw")
        out.append(Column(name, code, flags, draw(st.none() | _value(kind, flags))))
    return out


optional_names = st.none() | st.text(min_size=1, max_size=6)


@st.composite
def row_events(draw):
    op = draw(st.sampled_from(["insert", "update", "delete"]))
    new = draw(columns(min_size=1 if op == "update" else 0)) if op != "delete" else None
    old = draw(columns(min_size=1)) if op != "insert" else None
    return RowChangedEvent(
        commit_ts=draw(uint64s),
        schema=draw(optional_names),
        table=draw(optional_names),
        partition=draw(st.none() | int64s),
        new=new,
        old=old,
        row_id=draw(st.none() | int64s.filter(bool)),
        handle_key_only=draw(st.booleans()),
        claim_check_location=draw(optional_names),
    )


events = st.one_of(
    row_events(),
    st.builds(DdlEvent, uint64s, optional_names, optional_names, int64s, texts),
    st.builds(ResolvedEvent, uint64s),
)


def canonical(evs, legacy: bool = False):
    """Events as comparable tuples: columns sorted as Go sorts them, floats by their bits."""

    def col(c):
        v = ("float", c.value.hex()) if isinstance(c.value, float) else c.value
        return (c.name, c.type, c.flags & 2 if legacy else c.flags, v)

    def cols(cs):
        return None if cs is None else sorted(map(col, cs), key=lambda t: t[0].encode())

    out = []
    for ev in evs:
        if isinstance(ev, RowChangedEvent):
            ev = dataclasses.replace(ev, new=cols(ev.new), old=cols(ev.old))
        out.append(ev)
    return out


def decode_all(messages):
    return [ev for key, value in messages for ev in decode_message(key, value)]


@settings(max_examples=120, deadline=None)
@given(st.lists(events, max_size=6), st.integers(1, 4))
def test_random_events_round_trip(evs, batch):
    messages = list(encode_events(evs, max_batch_size=batch))
    assert canonical(decode_all(messages)) == canonical(evs)
    for key, value in messages:  # and the bytes are a fixed point
        assert list(encode_events(decode_message(key, value), **UNLIMITED)) == [(key, value)]


@settings(max_examples=40, deadline=None)
@given(st.lists(row_events(), max_size=4))
def test_random_rows_round_trip_in_the_2020_layout(evs):
    messages = list(encode_events(evs, layout="legacy"))
    assert canonical(decode_all(messages), legacy=True) == canonical(evs, legacy=True)
    for key, value in messages:
        for _, _, vs, ve in split_frames(key, value, Limits()):
            sections = json.loads(value[vs:ve] or b"{}").values()
            assert not any("f" in col for cols in sections for col in cols.values())


@given(st.binary(max_size=16), st.sampled_from([15, 253, 254]))
def test_invalid_utf8_text_reads_back_as_go_writes_it(data, code):
    [(key, value)] = encode_events([RowChangedEvent(1, new=[Column("c", code, 0, data)])])
    [ev] = decode_message(key, value)
    # Each invalid byte became one escaped \ufffd: the model holds it as the byte 0xFF.
    as_ff = {c: 0xDCFF for c in range(0xDC80, 0xDD00)}
    text = data.decode("utf-8", "surrogateescape").translate(as_ff)
    assert ev.new[0].value == text.encode("utf-8", "surrogateescape")
    assert list(encode_events([ev])) == [(key, value)]


def test_float_sign_and_float32_value_survive():
    cols = [Column("d", 5, 1, -0.0), Column("f", 4, 1, 0.1)]
    [(key, value)] = encode_events([RowChangedEvent(1, new=cols)])
    assert b'"v":-0}' in value and b'"v":0.1}' in value
    d, f = decode_message(key, value)[0].new
    assert math.copysign(1, d.value) == -1
    assert f.value == struct.unpack("<f", struct.pack("<f", 0.1))[0]


# ---------------------------------------------------------------- batching (tiflow)

# tiflow open_protocol_encoder_test.go testEvent: key 34 + value 79 bytes + 60 = 173.
TIFLOW_TEST_EVENT = RowChangedEvent(
    1, "a", "b", new=[Column("col1", 15, 0x0A, b"aa"), Column("col2", 15, 0, b"bb")]
)


def length(message) -> int:
    """tiflow's ``Message.Length()``."""
    return len(message[0]) + len(message[1]) + 36


def test_max_message_bytes_anchor_173_fits_and_172_does_not():
    [message] = encode_events([TIFLOW_TEST_EVENT], max_message_bytes=173)
    assert length(message) == 173
    with pytest.raises(EncodeError, match="max_message_bytes=172") as info:
        list(encode_events([TIFLOW_TEST_EVENT], max_message_bytes=172))
    assert info.value.path == "events[0]"


def test_every_message_stays_within_max_message_bytes():
    messages = list(encode_events([TIFLOW_TEST_EVENT] * 10_000, max_message_bytes=256))
    assert all(length(m) <= 256 for m in messages)
    # 173 for the first event, +129 for each further one: only one fits in 256
    assert len(messages) == 10_000


def test_flush_point_is_exactly_where_length_would_pass_the_limit():
    at_two = 173 + 129  # Length() of a message with two test events
    for limit, sizes in [(at_two, [2, 2, 1]), (at_two - 1, [1] * 5)]:
        messages = list(encode_events([TIFLOW_TEST_EVENT] * 5, max_message_bytes=limit))
        assert [len(decode_message(*m)) for m in messages] == sizes


def test_max_batch_size_caps_events_per_message():
    messages = list(
        encode_events([TIFLOW_TEST_EVENT] * 10_000, max_batch_size=64, max_message_bytes=1 << 20)
    )
    counts = [len(split_frames(*m, Limits())) for m in messages]
    assert max(counts) == 64 and sum(counts) == 10_000


def test_default_batch_is_sixteen_and_five_rows_by_two_make_three_messages():
    assert len(list(encode_events([TIFLOW_TEST_EVENT] * 17))) == 2
    assert len(list(encode_events([TIFLOW_TEST_EVENT] * 5, max_batch_size=2))) == 3
    assert list(encode_events([])) == []


def test_ddl_and_resolved_close_the_batch_and_go_alone():
    evs = [TIFLOW_TEST_EVENT, TIFLOW_TEST_EVENT, ResolvedEvent(5), DdlEvent(6, "a", "b", 3, "x")]
    evs.append(TIFLOW_TEST_EVENT)
    messages = list(encode_events(evs))
    assert [len(decode_message(*m)) for m in messages] == [2, 1, 1, 1]


def test_resolved_message_is_the_documented_bytes():
    [(key, value)] = encode_events([ResolvedEvent(2333)])
    assert key.hex() == "0000000000000001" "0000000000000011" + b'{"ts":2333,"t":3}'.hex()
    assert value == bytes(8)


# ---------------------------------------------------------------- bad input

ROW_KEY = b'{"ts":1,"scm":"a","tbl":"b","t":1}'
ROW_VALUE = b'{"u":{"id":{"t":3,"h":true,"f":11,"v":1}}}'
GOOD_KEY, GOOD_VALUE = frame(ROW_KEY, ROW_KEY, version=True), frame(ROW_VALUE, ROW_VALUE)


def second_value(doc: bytes) -> tuple[bytes, bytes]:
    """A two-event message whose second value is ``doc``."""
    return GOOD_KEY, frame(ROW_VALUE, doc)


def second_key(doc: bytes) -> tuple[bytes, bytes]:
    return frame(ROW_KEY, doc, version=True), GOOD_VALUE


V2 = 8 + len(ROW_VALUE) + 8  # where the second value document starts
K2 = 8 + 8 + len(ROW_KEY) + 8


def column(v: bytes, t: int = 3, f: bytes = b"11") -> bytes:
    return b'{"u":{"id":{"t":%d,"h":true,"f":%s,"v":%s}}}' % (t, f, v)


BAD = {
    "short version": ((b"\x00\x00\x00", b""), "version", 0),
    "version 2": ((u64(2) + GOOD_KEY[8:], GOOD_VALUE), "version", 0),
    "truncated key length": ((u64(1) + b"\x00\x00", GOOD_VALUE), "events[0].key", 8),
    "key length beyond data": ((u64(1) + u64(99) + b"{}", GOOD_VALUE), "events[0].key", 8),
    "key length 2**64-1": ((u64(1) + u64(UINT64_MAX), GOOD_VALUE), "events[0].key", 8),
    "value length beyond data": ((GOOD_KEY, u64(999) + ROW_VALUE), "events[0].value", 0),
    "fewer values": ((GOOD_KEY, frame(ROW_VALUE)), "events[1].value", V2 - 8),
    "fewer keys": ((frame(ROW_KEY, version=True), GOOD_VALUE), "events[1].key", K2 - 8),
    "key not JSON": (second_key(b'{"ts":1,'), "events[1].key", K2 + 8),
    "key is an array": (second_key(b"[1]"), "events[1].key", K2),
    "ts is a string": (second_key(b'{"ts":"1","t":1}'), "events[1].key.ts", K2),
    "ts above 2**64": (second_key(b'{"ts":18446744073709551616,"t":1}'), "events[1].key.ts", K2),
    "ts is a float": (second_key(b'{"ts":4.1e17,"t":1}'), "events[1].key.ts", K2),
    "ts missing": (second_key(b'{"t":1}'), "events[1].key.ts", K2),
    "unknown t": (second_key(b'{"ts":1,"t":9}'), "events[1].key.t", K2),
    "scm a number": (second_key(b'{"ts":1,"scm":5,"t":1}'), "events[1].key.scm", K2),
    "ohk a string": (second_key(b'{"ts":1,"t":1,"ohk":"y"}'), "events[1].key.ohk", K2),
    "ptn beyond int64": (
        second_key(b'{"ts":1,"t":1,"ptn":9223372036854775808}'),
        "events[1].key.ptn",
        K2,
    ),
    "value not JSON": (second_value(b'{"u":'), "events[1].value", V2 + 5),
    "int v is a float": (second_value(column(b"1.5")), "events[1].value.u.id.v", V2),
    "int v is a bool": (second_value(column(b"true")), "events[1].value.u.id.v", V2),
    "signed v at 2**63": (
        second_value(column(b"9223372036854775808")),
        "events[1].value.u.id.v",
        V2,
    ),
    "unsigned v below 0": (second_value(column(b"-1", f=b"139")), "events[1].value.u.id.v", V2),
    "bit v negative": (second_value(column(b"-1", t=16)), "events[1].value.u.id.v", V2),
    "varchar v a number": (second_value(column(b"1", t=15)), "events[1].value.u.id.v", V2),
    "blob v not base64": (second_value(column(b'"@@"', t=252)), "events[1].value.u.id.v", V2),
    "blob v unpadded": (second_value(column(b'"YQ"', t=252)), "events[1].value.u.id.v", V2),
    "binary v bad quote": (
        second_value(column(b'"\\\\q"', t=253, f=b"3")),
        "events[1].value.u.id.v",
        V2,
    ),
    "double v a string": (second_value(column(b'"1"', t=5)), "events[1].value.u.id.v", V2),
    "double v too big": (second_value(column(b"1e400", t=5)), "events[1].value.u.id.v", V2),
    "float v too big": (second_value(column(b"1e39", t=4)), "events[1].value.u.id.v", V2),
    "decimal v a number": (second_value(column(b"1", t=246)), "events[1].value.u.id.v", V2),
    "raw v an object": (second_value(column(b"{}", t=6)), "events[1].value.u.id.v", V2),
    "v missing": (second_value(b'{"u":{"id":{"t":3,"f":0}}}'), "events[1].value.u.id.v", V2),
    "t above 255": (second_value(column(b"1", t=256)), "events[1].value.u.id.t", V2),
    "f negative": (second_value(column(b"1", f=b"-1")), "events[1].value.u.id.f", V2),
    "h without handle flag": (second_value(column(b"1", f=b"1")), "events[1].value.u.id.h", V2),
    "column not object": (second_value(b'{"u":{"id":[]}}'), "events[1].value.u.id", V2),
    "section not object": (second_value(b'{"u":[]}'), "events[1].value.u", V2),
    "delete with update": (second_value(b'{"u":{},"d":{}}'), "events[1].value.d", V2),
    "old row alone": (second_value(b'{"p":{}}'), "events[1].value.p", V2),
    "value is a string": (second_value(b'"x"'), "events[1].value", V2),
    "ddl without query": (
        (frame(b'{"ts":1,"t":2}', version=True), frame(b'{"t":3}')),
        "events[0].value.q",
        8,
    ),
    "ddl type a string": (
        (frame(b'{"ts":1,"t":2}', version=True), frame(b'{"q":"","t":"3"}')),
        "events[0].value.t",
        8,
    ),
    "resolved with a value": (
        (frame(b'{"ts":1,"t":3}', version=True), frame(b"{}")),
        "events[0].value",
        8,
    ),
}


@pytest.mark.parametrize("message, path, offset", BAD.values(), ids=BAD.keys())
def test_bad_input_raises_decode_error_with_offset_and_path(message, path, offset):
    with pytest.raises(DecodeError) as info:
        decode_message(*message)
    assert (info.value.path, info.value.offset) == (path, offset)
    assert "offset" in str(info.value) and path in str(info.value)


def test_limits_bound_the_event_count_and_message_size():
    with pytest.raises(LimitError):
        decode_message(GOOD_KEY, GOOD_VALUE, max_count=1)
    with pytest.raises(LimitError):
        decode_message(GOOD_KEY, GOOD_VALUE, max_message_bytes=len(GOOD_VALUE) - 1)
    assert len(decode_message(GOOD_KEY, GOOD_VALUE, max_count=2)) == 2


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_corrupted_messages_raise_only_decode_error(data):
    vector = data.draw(st.sampled_from(FRAMED))
    parts = [bytearray.fromhex(vector["hex"]["key"]), bytearray.fromhex(vector["hex"]["value"])]
    part = parts[data.draw(st.integers(0, 1))]
    if data.draw(st.booleans()):
        del part[data.draw(st.integers(0, len(part))) :]
    elif part:
        part[data.draw(st.integers(0, len(part) - 1))] = data.draw(st.integers(0, 255))
    try:
        decode_message(bytes(parts[0]), bytes(parts[1]))
    except DecodeError as err:
        assert err.offset is not None and err.path


# ---------------------------------------------------------------- bad models

BAD_MODELS = {
    "NaN double": (RowChangedEvent(1, new=[Column("c", 5, 0, math.nan)]), "events[0].new[0].value"),
    "float32 overflow": (
        RowChangedEvent(1, new=[Column("c", 4, 0, 1e39)]),
        "events[0].new[0].value",
    ),
    "signed int at 2**63": (
        RowChangedEvent(1, new=[Column("c", 8, 0, 2**63)]),
        "events[0].new[0].value",
    ),
    "unsigned int below 0": (
        RowChangedEvent(1, new=[Column("c", 8, 0x80, -1)]),
        "events[0].new[0].value",
    ),
    "bool for int": (RowChangedEvent(1, new=[Column("c", 3, 0, True)]), "events[0].new[0].value"),
    "str for varchar": (
        RowChangedEvent(1, new=[Column("c", 15, 0, "x")]),
        "events[0].new[0].value",
    ),
    "bytes for decimal": (
        RowChangedEvent(1, new=[Column("c", 246, 0, b"1")]),
        "events[0].new[0].value",
    ),
    "type code 300": (RowChangedEvent(1, new=[Column("c", 300, 0, 1)]), "events[0].new[0].type"),
    "duplicate names": (
        RowChangedEvent(1, old=[Column("c", 3), Column("c", 3)]),
        "events[0].old[1].name",
    ),
    "negative ts": (ResolvedEvent(-1), "events[0].commit_ts"),
    "ts above 2**64": (DdlEvent(2**64, query="x"), "events[0].commit_ts"),
    "not an event": ("row", "events[0]"),
}


@pytest.mark.parametrize("event, path", BAD_MODELS.values(), ids=BAD_MODELS.keys())
def test_bad_models_raise_encode_error_with_path(event, path):
    with pytest.raises(EncodeError) as info:
        list(encode_events([ResolvedEvent(0), event][1:]))
    assert info.value.path == path


def test_unknown_layout_is_refused():
    with pytest.raises(EncodeError):
        list(encode_events([], layout="canal"))
