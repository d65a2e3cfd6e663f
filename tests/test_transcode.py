"""Transcoding between Open Protocol and Craft through the shared TiCDC events."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from generator.cli.transcode import craft_codec, differences, notes, transcode
from runtime.core.errors import EncodeError

ROOT = Path(__file__).resolve().parents[1]
OP, CRAFT = "ticdc_open_protocol", "ticdc_craft"
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT64 = st.integers(0, 2**64 - 1)
TEXT = st.text(max_size=8)
BOTH = sorted(int(c) for c in op.COLUMN_TYPE_RENDERING)  # Craft has every one of them


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@st.composite
def column(draw, name):
    """A column value both formats carry exactly."""
    code = draw(st.sampled_from(BOTH))
    flags = draw(st.integers(0, 0xFF))
    kind = op.COLUMN_TYPE_RENDERING[op.ColumnType(code)]
    value = {
        "int": UINT64 if flags & 0x80 else INT64,
        "uint": UINT64,
        "sint": INT64,
        "float32": st.floats(width=32, allow_nan=False, allow_infinity=False).map(f32),
        "float64": st.floats(allow_nan=False, allow_infinity=False),
        "text": TEXT,
        "string": st.binary(max_size=8) if flags & 1 else TEXT.map(str.encode),
        "base64": st.binary(max_size=8),
        "raw": st.none(),
    }[kind]
    return Column(name, code, flags, draw(st.none() | value))


@st.composite
def image(draw, min_size=0):
    names = draw(
        st.lists(st.text(min_size=1, max_size=5), min_size=min_size, max_size=5, unique=True)
    )
    return sorted((draw(column(n)) for n in names), key=lambda c: c.name.encode())


@st.composite
def row(draw):
    op_ = draw(st.sampled_from(["insert", "update", "delete"]))
    return RowChangedEvent(
        commit_ts=draw(UINT64),
        schema=draw(st.text(min_size=1, max_size=5)),
        table=draw(st.text(min_size=1, max_size=5)),
        partition=draw(st.none() | st.integers(0, 2**63 - 1)),
        new=draw(image(min_size=1 if op_ == "update" else 0)) if op_ != "delete" else None,
        old=draw(image(min_size=1)) if op_ != "insert" else None,
    )


messages = st.one_of(
    st.lists(row(), min_size=1, max_size=4),
    st.builds(
        DdlEvent, UINT64, st.text(min_size=1, max_size=5), st.text(min_size=1, max_size=5),
        st.integers(1, 70), TEXT,
    ).map(lambda e: [e]),
    st.builds(ResolvedEvent, UINT64).map(lambda e: [e]),
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(messages)
def test_open_protocol_to_craft_and_back_is_unchanged(events):
    key, value = op.build_pair(op.Message(events))
    (nokey, craft), warnings = transcode(OP, CRAFT, key, value)
    assert nokey is None and warnings == []
    assert list(craft_codec().decode_message(craft)) == events
    back, warnings = transcode(CRAFT, OP, None, craft)
    assert warnings == [] and back == (key, value)


def test_what_craft_cannot_carry_is_named_in_warnings():
    event = RowChangedEvent(
        5, "s", "t", new=[Column("id", 3, 11, 1)], row_id=1, handle_key_only=True,
        claim_check_location="s3://b/x.json",
    )  # fmt: skip
    (_, craft), warnings = transcode(OP, CRAFT, *op.build_pair(op.Message([event])))
    assert [w.split(": ")[1].split("=")[0].split(" ")[0] for w in warnings] == ["rid", "ohk", "ccl"]
    [back] = craft_codec().decode_message(craft)
    assert back.row_id is None and not back.handle_key_only and back.new == event.new


def test_craft_floats_that_are_not_float32_are_reported():
    event = RowChangedEvent(5, "s", "t", new=[Column("f", 4, 1, 0.1)])
    [craft] = craft_codec().encode_events([event])
    (key, value), warnings = transcode(CRAFT, OP, None, craft)
    assert len(warnings) == 1 and "float32" in warnings[0]
    assert op.parse_pair(key, value).events[0].new[0].value == f32(0.1)


def test_legacy_layout_transcodes_to_the_same_events():
    key = bytes.fromhex("0000000000000001 0000000000000022") + b'{"ts":1,"scm":"a","tbl":"b","t":1}'
    doc = b'{"u":{"id":{"t":3,"h":true,"v":1},"val":{"t":15,"v":"YWE="}}}'
    value = struct.pack(">Q", len(doc)) + doc
    (_, craft), warnings = transcode(OP, CRAFT, key, value)
    assert warnings == []
    assert list(craft_codec().decode_message(craft)) == op.decode_message(key, value)


def wirespec(*args):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *map(str, args)],
        capture_output=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip


def test_cli_transcodes_both_ways(tmp_path):
    events = [RowChangedEvent(9, "s", "t", new=[Column("id", 3, 11, 1)], row_id=1)]
    key, value = op.build_pair(op.Message(events))
    (tmp_path / "k").write_bytes(key)
    (tmp_path / "v").write_bytes(value)
    out = wirespec("transcode", OP, CRAFT, tmp_path / "v", tmp_path / "c", "--key", tmp_path / "k")
    assert out.returncode == 0 and b"warning: event 0 (ts 9): rid=1" in out.stderr, out.stderr
    out = wirespec(
        "transcode", CRAFT, OP, tmp_path / "c", tmp_path / "v2", "--key-out", tmp_path / "k2"
    )
    assert out.returncode == 0 and out.stderr == b"", out.stderr
    [back] = op.decode_message((tmp_path / "k2").read_bytes(), (tmp_path / "v2").read_bytes())
    assert back.new == events[0].new and back.row_id is None


@pytest.mark.parametrize(
    "args",
    [
        ("transcode", OP, CRAFT, "v", "c"),  # no --key
        ("transcode", CRAFT, OP, "c", "v"),  # no --key-out
        ("transcode", OP, "plainbuffer", "v", "c", "--key", "k"),
    ],
)
def test_cli_transcode_usage_errors_have_no_traceback(tmp_path, args):
    out = subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *args],
        capture_output=True, cwd=tmp_path, timeout=60, check=False,
        env={"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert out.returncode != 0 and b"Traceback" not in out.stderr and out.stderr


def test_column_order_alone_is_no_warning():
    """Craft keeps table order, Open Protocol writes columns in name order: no loss."""
    craft = (ROOT / "samples" / "ticdc_craft" / "row_batch.bin").read_bytes()
    (key, value), warnings = transcode(CRAFT, OP, None, craft)
    assert warnings == []
    [first, *_] = craft_codec().decode_message(craft)
    [again, *_] = op.parse_pair(key, value).events
    assert (
        [c.name for c in again.new]
        == sorted(c.name for c in first.new)
        != [c.name for c in first.new]
    )


def test_a_change_is_named_by_column_flag_type_and_value():
    before = [RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0x41, 1), Column("b", 15, 0, b"x")])]
    after = [RowChangedEvent(7, "s", "t", new=[Column("a", 8, 0x01, 2)], row_id=3)]
    assert differences(before, after) == [
        "event 0 (ts 7): new.a: type 3 became 8",
        "event 0 (ts 7): new.a: flag NULLABLE lost",
        "event 0 (ts 7): new.a: value 1 became 2",
        "event 0 (ts 7): new.b: column dropped",
        "event 0 (ts 7): row_id: None became 3",
    ]


def test_a_type_craft_has_no_value_for_is_named():
    event = RowChangedEvent(5, "s", "t", new=[Column("g", 255, 0, "POINT(1 2)")])
    assert notes([event], CRAFT) == [
        "event 0 (ts 5): new.g: Craft has no value of type GEOMETRY (255); written as NULL"
    ]


def test_a_ddl_beside_rows_is_no_one_craft_message():
    row = RowChangedEvent(5, "s", "t", new=[Column("id", 3, 11, 1)])
    ddl = DdlEvent(6, "s", "t", 3, "CREATE TABLE t (id INT)")
    with pytest.raises(EncodeError, match="these 2 events make 2 Craft messages, not one"):
        transcode(OP, CRAFT, *op.build_pair(op.Message([row, ddl])))


def test_what_open_protocol_cannot_carry_is_named():
    """A FLOAT past float32's range (it becomes infinity) and text that is not UTF-8."""
    event = RowChangedEvent(
        5, "s", "t", new=[Column("f", 4, 0, 1e300), Column("v", 15, 0, b"\xff")]
    )
    assert notes([event], OP) == [
        "event 0 (ts 5): new.f: FLOAT 1e+300 is rounded to float32",
        "event 0 (ts 5): new.v: text that is not UTF-8 becomes U+FFFD",
    ]
    decimal = RowChangedEvent(5, "s", "t", new=[Column("d", 0, 0, "1.5")])  # no column_type 0
    assert notes([decimal], CRAFT) == [
        "event 0 (ts 5): new.d: Craft has no value of type 0; written as NULL"
    ]


def test_a_changed_event_count_kind_or_added_flag_is_named():
    row = RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0, 1)])
    assert differences([row], [row, row]) == ["1 event became 2"]
    assert differences([row], [DdlEvent(7)]) == ["event 0: RowChangedEvent became DdlEvent"]
    flagged = RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0x41, 1)])
    assert differences([row], [flagged]) == ["event 0 (ts 7): new.a: flag BINARY|NULLABLE added"]
