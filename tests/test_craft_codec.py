"""Whole Craft messages: the known-good vectors, round trips, tiflow's batching, bad input."""

import json
import math
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import ticdc_craft as craft
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from generated.ticdc_craft import (
    COLUMN_TYPE_CRAFT,
    DICTIONARIES,
    VALUE_DECODERS,
    decode_message,
    encode_events,
    frame,
)
from runtime.core.chunks import Chunk, CountedChunks
from runtime.core.errors import DecodeError, EncodeError, LimitError
from runtime.core.leb128 import write_reversed_uvarint
from runtime.formats.craft import CraftMessage

VECTORS = json.loads(
    (Path(__file__).resolve().parent / "data/vectors/ticdc_craft.json").read_text()
)
TERMS = DICTIONARIES["frame.term_dictionary"]
MAPPING = craft.MAPPINGS["message"]
WAY_BACK = craft.UNMAPPINGS["message"]
VALUES = VALUE_DECODERS["column_group.values"]
RAW = frame  # the spec's layout
EVENTS = CraftMessage(frame, VALUES, TERMS, MAPPING, WAY_BACK)  # its events
SEED = {v["name"]: bytes.fromhex(v["hex"]) for v in VECTORS}


# ----------------------------------------------------------------------------- vectors
@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_vector_decodes_to_its_documented_values_and_rebuilds(vector):
    data = bytes.fromhex(vector["hex"])
    want = vector["decoded"]
    raw = RAW.parse(data)
    assert raw.version == want["version"]
    assert raw.term_dictionary == want["term_dictionary"]
    assert raw.size_tables == want["size_tables"]
    events = EVENTS.parse(data)
    assert len(events) == len(want["events"])
    for ev, w in zip(events, want["events"]):
        assert ev.commit_ts == w["commit_ts"]
        assert (
            ev.op == w["type_name"] if w["type"] != 1 else ev.op in ("insert", "update", "delete")
        )
        if w["type"] == 3:
            assert isinstance(ev, ResolvedEvent)
            continue
        assert (ev.schema, ev.table) == (w["schema"], w["table"])
        if w["type"] == 2:
            assert (ev.ddl_type, ev.query) == (w["ddl_type"], w["query"])
            continue
        assert ev.partition is None and w["partition"] == -1
        for group in w["column_groups"]:
            columns = ev.new if group["group_name"] == "new" else ev.old
            assert [(c.name, c.type, c.flags) for c in columns] == [
                (c["name"], c["type"], c["flag"]) for c in group["columns"]
            ]
            for col, c in zip(columns, group["columns"]):
                if c["value_hex"] is None:
                    assert col.value is None
                elif isinstance(col.value, bytes):
                    assert col.value == bytes.fromhex(c["value_hex"]) == c["value"].encode()
                else:
                    assert col.value == c["value"]
    # Both models write the identical bytes, and so does the batching encoder.
    assert RAW.build(raw) == data
    assert EVENTS.build(events) == data
    assert b"".join(encode_events(events)) == data


def test_seed_row_example_is_an_update_of_a_b():
    data = SEED["seed_row_changed_update"]
    assert len(data) == 301
    (ev,) = decode_message(data)
    assert (ev.op, ev.commit_ts, ev.schema, ev.table) == ("update", 424316552636792833, "a", "b")
    assert [c.value for c in ev.new][5:] == [2.0, 2000, None]
    assert [c.value for c in ev.old][:3] == [b"varchar0", b"string0", "2021/01/01"]


def test_seed_ddl_and_resolved_examples():
    assert len(SEED["seed_ddl"]) == 41 and len(SEED["seed_resolved"]) == 20
    assert list(decode_message(SEED["seed_ddl"])) == [
        DdlEvent(424316583965360129, "a", "b", 1, "create table a")
    ]
    assert list(decode_message(SEED["seed_resolved"])) == [ResolvedEvent(424316594097225729)]


def test_raw_container_edits_rebuild_with_fresh_size_tables():
    raw = RAW.parse(SEED["seed_ddl"])
    raw.bodies[0].query = "create table abc"
    again = RAW.parse(RAW.build(raw))
    assert again.bodies[0].query == "create table abc"
    assert again.size_tables == [[13, 5], [18]]


# ------------------------------------------------------------------ property round trip
def _value(kind):
    return {
        "varint": st.integers(-(2**63), 2**63 - 1),
        "uvarint": st.integers(0, 2**64 - 1) | st.sampled_from([0, 2**64 - 1]),
        "f64": st.floats(allow_nan=False) | st.sampled_from([-0.0, math.inf]),
        "str": st.text(max_size=12),
        "bytes": st.binary(max_size=12),
        "null": st.none(),
    }[kind]


@st.composite
def columns(draw):
    out = []
    for _ in range(draw(st.integers(0, 5))):
        code = int(draw(st.sampled_from(sorted(COLUMN_TYPE_CRAFT))))
        flags = draw(st.sampled_from([0, 0x80, 0x01, 0x02 | 0x08, 0xFF]))
        value = draw(st.none() | _value(VALUES.wire_type(code, flags)))
        out.append(Column(draw(st.sampled_from(["id", "v", "名", ""])), code, flags, value))
    return out


names = st.none() | st.sampled_from(["s1", "s2", "t1", "db", "Db", "表"])
ts = st.integers(0, 2**64 - 1)


@st.composite
def row_events(draw):
    images = draw(st.sampled_from([("new",), ("old",), ("new", "old")]))
    return RowChangedEvent(
        commit_ts=draw(ts),
        schema=draw(names),
        table=draw(names),
        partition=draw(st.none() | st.integers(0, 2**63 - 1)),
        new=draw(columns()) if "new" in images else None,
        old=draw(columns()) if "old" in images else None,
    )


events_strategy = st.lists(
    st.one_of(
        row_events(),
        row_events(),
        st.builds(DdlEvent, ts, names, names, st.integers(0, 80), st.text(max_size=20)),
        st.builds(ResolvedEvent, ts),
    ),
    max_size=12,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(events_strategy, st.integers(1, 5))
def test_random_event_batches_round_trip(events, batch):
    messages = list(encode_events(events, max_batch_size=batch))
    decoded = [ev for m in messages for ev in decode_message(m)]
    assert decoded == events
    for m in messages:  # and every message is what the reference would write for its events
        assert EVENTS.build(EVENTS.parse(m)) == m
        assert RAW.build(RAW.parse(m)) == m


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(events_strategy, st.integers(1, 5))
def test_the_spec_frame_computes_its_size_tables_on_build(events, batch):
    """The frame's JSON form leaves out what the builder computes (the size tables and
    their length, every column count): building it again gives the same bytes, and the
    checked decoder (frame + event mapping) agrees with the straight-line one."""
    checked = CraftMessage(frame, VALUES, TERMS, MAPPING, WAY_BACK, fast=False)
    for m in encode_events(events, max_batch_size=batch):
        wire = craft.parse(m, "frame")
        form = craft.to_dict(wire)
        rebuilt = craft.from_dict(form, "frame")
        assert rebuilt.size_tables == [] and rebuilt.size_tables_length is None
        assert craft.build(rebuilt, "frame") == m
        assert checked.parse(m) == EVENTS.parse(m)
        assert checked.build(checked.parse(m)) == m


def _with_size_tables(name, tables):
    """Seed message ``name`` with its size tables replaced by ``tables``."""
    data = SEED[name]
    out = bytearray()
    CountedChunks(Chunk(0, zigzag=True, delta=True), repeated=True).pack(tables, out)
    cut = len(data) - 1 - RAW.parse(data).size_tables_length
    return data[:cut] + bytes(out) + write_reversed_uvarint(len(out))


def test_the_number_of_size_tables_follows_the_events():
    # a resolved message has no column group tables; a row event has one
    for name, tables in (
        ("seed_resolved", [[13, 0], [0], [5]]),
        ("seed_row_changed_update", [[13, 60], [216]]),
    ):
        err = _decode_error(_with_size_tables(name, tables))
        assert (err.path, err.offset) == ("header", 1) and "len(size_tables) ==" in err.message
    err = _decode_error(_with_size_tables("seed_resolved", [[13, 0]]))
    assert (err.path, err.offset) == ("size_tables", 14) and "len(size_tables) >= 2" in err.message
    # a row event whose group table is empty: the spec's rule on column_groups says so
    # (before its 216 body bytes are found left over)
    err = _decode_error(_with_size_tables("seed_row_changed_update", [[13, 60], [216], []]))
    assert (err.path, err.offset, err.message) == (
        "bodies[0].column_groups",
        14,
        "a row event needs at least one column group",
    )


def test_nan_payloads_and_negative_zero_survive():
    nan = struct.unpack("<d", bytes.fromhex("0100000000f8ff7f"))[0]
    ev = RowChangedEvent(1, "s", "t", new=[Column("f", 5, 0, nan), Column("z", 4, 0, -0.0)])
    (back,) = decode_message(next(encode_events([ev])))
    assert struct.pack("<d", back.new[0].value) == bytes.fromhex("0100000000f8ff7f")
    assert math.copysign(1, back.new[1].value) == -1


def test_value_encodings_follow_type_code_and_unsigned_flag():
    def raw_values(*cols):
        raw = RAW.parse(next(encode_events([RowChangedEvent(1, "s", "t", new=list(cols))])))
        return [v.hex() if v is not None else None for v in raw.bodies[0].column_groups[0].values]

    assert raw_values(
        Column("a", 1, 0, -128),
        Column("b", 8, 0x80, 2**64 - 1),
        Column("c", 13, 0x80, 2021),  # YEAR ignores the Unsigned flag
        Column("d", 4, 0, 1.0),  # FLOAT is 8 bytes
        Column("e", 246, 0, "129012.1230000"),
        Column("f", 15, 0, b""),  # empty, not NULL
        Column("g", 255, 0, None),
    ) == ["ff01", "ff" * 9 + "01", "ca1f", "000000000000f03f", "3132393031322e31323330303030", "",
          None]  # fmt: skip


def test_terms_are_interned_schemas_then_tables_then_columns():
    rows = [
        RowChangedEvent(1, "s1", "t1", new=[Column("x", 3, 0, 1)]),
        RowChangedEvent(2, "s1", "t2", new=[Column("y", 3, 0, 1)], old=[Column("x", 3, 0, 1)]),
        RowChangedEvent(3, "s2", "t1", new=[Column("t1", 3, 0, 1)]),
    ]
    (message,) = encode_events(rows)
    raw = RAW.parse(message)
    assert raw.term_dictionary == ["s1", "s2", "t1", "t2", "x", "y"]
    assert raw.header.schema == [0, 0, 1] and raw.header.table == [2, 3, 2]
    assert raw.bodies[1].column_groups[1].names == [4]  # ids can go backwards


# ----------------------------------------------------------------------------- batching
def _row(i, value=100):
    # estimate: 32 + len("a") + len("b") + len("col1") + len(a0 01) + 16 = 56
    return RowChangedEvent(1000 + i, "a", "b", new=[Column("col1", 3, 0, value)])


def test_max_message_bytes_flushes_after_the_row_that_crosses_it():
    messages = list(encode_events([_row(i) for i in range(23)], max_message_bytes=256))
    sizes = [len(list(decode_message(m))) for m in messages]
    assert sizes == [5, 5, 5, 5, 3]  # 5 * 56 = 280 > 256 (the check runs after each append)


def test_max_batch_size():
    sizes = [len(list(decode_message(m))) for m in encode_events(map(_row, range(200)), 64)]
    assert sizes == [64, 64, 64, 8]
    assert [len(list(decode_message(m))) for m in encode_events(map(_row, range(40)))] == [
        16,
        16,
        8,
    ]


def test_one_oversized_row_is_sent_alone_anyway():
    big = RowChangedEvent(1, "a", "b", new=[Column("v", 15, 0, bytes(500))])
    sizes = [len(list(decode_message(m))) for m in encode_events([_row(0), big, _row(1)], 16, 256)]
    assert sizes == [2, 1]


def test_ddl_and_resolved_events_are_messages_of_their_own():
    stream = [_row(0), _row(1), DdlEvent(5, "a", None, 3, "create"), _row(2), ResolvedEvent(9)]
    ops = [[e.op for e in decode_message(m)] for m in encode_events(stream)]
    assert ops == [["insert", "insert"], ["ddl"], ["insert"], ["resolved"]]


# ---------------------------------------------------------------------------- bad input
def _decode_error(data, **limits):
    with pytest.raises(DecodeError) as info:
        list(decode_message(data, **limits))
    assert info.value.offset is not None
    return info.value


def _patched(name, offset, new):
    data = bytearray(SEED[name])
    data[offset : offset + 1] = bytes.fromhex(new)
    return bytes(data)


def test_bad_version():
    err = _decode_error(b"\x02" + SEED["seed_resolved"][1:])
    assert (err.path, err.offset) == ("version", 0) and "expected 1 but parsed 2" in err.message
    assert _decode_error(b"\x00" + SEED["seed_resolved"][1:]).path == "version"


def test_overflowing_varint():
    err = _decode_error(bytes.fromhex("ff" * 9 + "02") + SEED["seed_resolved"][1:])
    assert (err.path, err.offset) == ("version", 0) and "overflows" in err.message


def test_size_tables_pointing_outside_the_message():
    err = _decode_error(_patched("seed_resolved", 19, "7f"))
    assert err.path == "size_tables" and "outside" in err.message  # its length is wrong
    # meta table [14, 1] (delta coded): a 1-byte term dictionary that cannot hold a term
    err = _decode_error(_patched("seed_resolved", 15, "1c"))
    assert (err.path, err.offset) == ("term_dictionary", 14)
    # a body size that runs into the term dictionary and the size tables
    err = _decode_error(_patched("seed_ddl", 39, "40"))
    assert (err.path, err.offset) == ("bodies[0]", 14) and "needs 32 bytes" in err.message


def test_term_id_out_of_range():
    err = _decode_error(_patched("seed_ddl", 13, "04"))  # table id 2, dictionary has 2 terms
    assert (err.path, err.offset) == ("header.table[0]", 13)
    assert "term id 2 out of range" in err.message
    err = _decode_error(_patched("seed_row_changed_update", 16, "14"))  # name id 10 of 10 terms
    assert err.path == "bodies[0].column_groups[0].names[0]" and err.offset == 16


def test_rows_mixed_with_a_ddl_event_are_refused_by_the_frame():
    row = RowChangedEvent(5, "db", "t", new=[Column("a", 3, 0, 7)])
    ddl = DdlEvent(6, "db", "t", 3, "q")  # its terms have the row message's ids: db 0, t 1
    mixed, other = RAW.parse(EVENTS.encode([row])), RAW.parse(EVENTS.encode([ddl]))
    for name in ("commit_ts", "type", "partition", "schema", "table"):
        setattr(mixed.header, name, getattr(mixed.header, name) + getattr(other.header, name))
    mixed.bodies = mixed.bodies + other.bodies
    with pytest.raises(EncodeError, match=r"header\.type: row events mixed with DDL/resolved"):
        RAW.build(mixed)  # build checks the rule too: these are the bytes it would write
    data = bytes.fromhex(
        "01050101020100000002000101040300020e0301710302010164627461021403020e07010e08"
    )  # 2 + 2 size tables: the size tables' own rule holds
    for parse in (craft.parse, craft.parse_construct, RAW.parse):
        with pytest.raises(DecodeError) as err:
            parse(data)
        assert err.value.path.endswith("header.type") and err.value.offset == 3
        assert err.value.message == "row events mixed with DDL/resolved events"


def test_column_count_disagreeing_with_size_table():
    for count in ("07", "09"):
        err = _decode_error(_patched("seed_row_changed_update", 15, count))
        assert err.path.startswith("bodies[0].column_groups[0]")
        assert 14 <= err.offset <= 122  # the group, or where it stops making sense


def test_bad_value_bytes_name_the_column():
    raw = RAW.parse(SEED["seed_row_changed_update"])
    raw.bodies[0].column_groups[1].values[5] = bytes(7)  # float64 needs 8 bytes
    err = _decode_error(RAW.build(raw))
    assert err.path == "events[0].old[5].value"
    assert err.offset == 220  # where the old float's bytes start (offsets 220-227)


def test_unknown_type_code_and_event_type():
    err = _decode_error(_patched("seed_row_changed_update", 24, "11"))  # type code 17
    assert (err.path, err.offset) == ("events[0].new[0].type", 24)
    err = _decode_error(_patched("seed_resolved", 10, "04"))
    assert (err.path, err.offset) == ("header.type[0]", 10)


def test_limits_are_applied():
    with pytest.raises(LimitError):
        list(decode_message(SEED["seed_row_changed_update"], max_count=7))
    with pytest.raises(LimitError):
        list(decode_message(SEED["seed_row_changed_update"], max_message_bytes=300))


@pytest.mark.parametrize("name", sorted(SEED))
def test_every_truncation_is_a_decode_error(name):
    data = SEED[name]
    for cut in range(len(data)):
        _decode_error(data[:cut])
        _decode_error(data[cut + 1 :] if cut else data[1:])  # and missing prefixes


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SEED)), st.data())
def test_corrupted_messages_raise_only_decode_errors(name, data):
    buf = bytearray(SEED[name])
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    try:
        events = list(decode_message(bytes(buf)))
    except DecodeError as err:
        assert err.offset is not None and 0 <= err.offset <= len(buf)
    else:  # whatever decodes is a valid model: it encodes, and decodes back the same
        messages = list(encode_events(events))
        again = [ev for m in messages for ev in decode_message(m)]
        assert list(encode_events(again)) == messages  # bytes compare NaN values exactly


# --------------------------------------------------------------------------- bad models
@pytest.mark.parametrize(
    "event, path",
    [
        (RowChangedEvent(1, "s", "t"), "events[0]"),
        (RowChangedEvent(1, "s", "t", new=[Column("c", 99, 0, 1)]), "events[0].new[0].value"),
        (RowChangedEvent(1, "s", "t", new=[Column("c", 3, 0, 2**63)]), "events[0].new[0].value"),
        (RowChangedEvent(1, "s", "t", new=[Column("c", 3, 0x80, -1)]), "events[0].new[0].value"),
        (RowChangedEvent(1, "s", "t", new=[Column("c", 4, 0, "1.0")]), "events[0].new[0].value"),
        (RowChangedEvent(1, "s", "t", new=[Column("c", 6, 0, b"x")]), "events[0].new[0].value"),
        (RowChangedEvent(1, "s", "t", partition=-1, new=[]), "events[0].partition"),
        (RowChangedEvent(2**64, "s", "t", new=[]), "events[0].commit_ts"),
        ("not an event", "events[0]"),
    ],
)
def test_bad_events_raise_encode_error_with_a_path(event, path):
    with pytest.raises(EncodeError) as info:
        list(encode_events([ResolvedEvent(0), event][1:]))
    assert info.value.path == path


@pytest.mark.parametrize(
    ("event", "where"),
    [
        (RowChangedEvent(1, "s\ud800", "t", new=[]), "events[0]"),
        (RowChangedEvent(1, "s", "t", new=[Column("c\ud800", 7, 0, "x")]), "events[0]"),
        # a name's U+DC80..U+DCFF is no UTF-8 either: the term dictionary's reader refuses it
        (RowChangedEvent(1, "s", "t\udc80", new=[]), "events[0]"),
        (RowChangedEvent(1, "s", "t", new=[Column("d\udcff", 7, 0, "y")]), "events[0]"),
        (
            RowChangedEvent(1, "s", "t", new=[Column("c", 7, 0, "x\ud800")]),
            "events[0].new[0].value",
        ),
    ],
)
def test_a_lone_surrogate_no_reader_gives_is_our_encode_error(event, where):
    """Text a reader keeps (a value's U+DC80-U+DCFF, its bytes as escapes) is written back; a
    surrogate outside that range has no UTF-8, nor has a name's (the term dictionary is
    strict UTF-8), so writing it is an EncodeError at the event."""
    with pytest.raises(EncodeError) as info:
        list(craft.encode_events([event], 16))
    assert str(info.value).startswith(where + ":")
    assert "UTF-8 can write" in info.value.message


def test_a_name_no_reader_gives_is_refused_at_the_first_event_naming_it():
    """The term dictionary refuses the name (written once, for every event naming it): the
    refusal is said at the first event that names it, as the message's events are its
    model."""
    row = RowChangedEvent(1, "s", "t", new=[Column("a", 7, 0, "x")])
    odd = RowChangedEvent(2, "s", "t", new=[Column("a", 7, 0, "x"), Column("b\udcff", 7, 0, "y")])
    with pytest.raises(EncodeError) as info:
        list(craft.encode_events([row, odd, odd], 16))
    assert (
        str(info.value)
        == "events[1]: 'b\\udcff' is not text UTF-8 can write (surrogates not allowed)"
    )
