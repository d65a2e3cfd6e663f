"""Open Protocol bytes that Python's JSON reading alone would lose: the escape style of
U+0008/U+000C (Go < 1.22 ``\\u0008``, Go >= 1.22 ``\\b``), an escaped ``\\ufffd`` (Go's
rendering of an invalid UTF-8 byte) next to a literal U+FFFD, and key members an event
kind does not carry. Each must come back byte for byte, also through the JSON form."""

from __future__ import annotations

import json

import pytest

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, RowChangedEvent
from runtime.core.errors import DecodeError
from runtime.formats.open_protocol_frames import join_frames

FFFD = "\ufffd".encode()


def round_trips(key: bytes, value: bytes) -> op.Message:
    """The message of (key, value), after checking both ways back to the same bytes."""
    model = op.parse_pair(key, value)
    assert op.build_pair(model) == (key, value)
    again = op.from_dict(json.loads(json.dumps(op.to_dict(model))), "message")
    assert again == model and op.build_pair(again) == (key, value)
    return model


def row(*columns: Column, **key) -> RowChangedEvent:
    return RowChangedEvent(1, **{"schema": "s", "table": "t", **key}, new=list(columns))


# ---------------------------------------------------------------- U+0008 and U+000C


@pytest.mark.parametrize("escapes, written", [("unicode", rb"\u0008\u000c"), ("short", rb"\b\f")])
def test_control_escapes_come_back_in_the_style_they_came(escapes, written):
    evs = [row(Column("a\b", 15, 0, b"x\b\fy"), Column("d", 12, 0, "\f"), table="t\b")]
    key, value = op.build_pair(op.Message(evs, "tiflow", escapes))
    assert written in value
    model = round_trips(key, value)
    assert model.events == evs
    if escapes == "short":  # tiflow's own: nothing to say
        assert model.escapes is None and "escapes" not in op.to_dict(model)
    else:
        assert model.escapes == op.to_dict(model)["escapes"] == escapes


def test_a_new_message_is_written_in_the_newer_style_and_none_is_read_back_without():
    evs = [row(Column("c", 15, 0, b"\b"))]
    key, value = op.build_pair(op.Message(evs))
    assert rb'"v":"\b"' in value
    assert round_trips(key, value).escapes is None


def test_legacy_messages_default_to_the_old_style_and_keep_a_newer_one():
    legacy = [row(Column("d", 12, 0, "a\bb"))]
    key, value = op.build_pair(op.Message(legacy, "legacy"))
    assert rb"a\u0008b" in value
    assert round_trips(key, value).escapes is None
    key, value = op.build_pair(op.Message(legacy, "legacy", "short"))
    assert rb"a\bb" in value
    model = round_trips(key, value)
    assert (model.layout, model.escapes) == ("legacy", "short")


def test_a_binary_strings_quoted_b_is_no_json_escape():
    # strconv.Quote writes byte 08 as \b; JSON then doubles the backslash: \\b.
    evs = [row(Column("bin", 15, 1, b"\x08"), Column("txt", 15, 0, b"\x08"))]
    key, value = op.build_pair(op.Message(evs, "tiflow", "unicode"))
    assert rb'"v":"\\b"' in value and rb'"v":"\u0008"' in value
    assert round_trips(key, value).escapes == "unicode"


def test_both_styles_in_one_message_is_a_decode_error():
    old = op.build_pair(op.Message([row(Column("c", 15, 0, b"\b"))], "tiflow", "unicode"))
    new = op.build_pair(op.Message([row(Column("c", 15, 0, b"\f"))], "tiflow", "short"))
    key = old[0] + new[0][8:]  # two events in one batch
    value = old[1] + new[1]
    with pytest.raises(DecodeError, match="one Go version writes a message") as info:
        op.parse_pair(key, value)
    assert info.value.path == "events[1].value"
    assert value[info.value.offset : info.value.offset + 2] == rb"\f"


# ---------------------------------------------------------------- \ufffd and U+FFFD


def test_escaped_fffd_and_literal_fffd_in_a_varchar_come_back_apart():
    text = b'{"u":{"c":{"t":15,"f":0,"v":"a\\ufffdb' + FFFD + b'c"}}}'
    key, value = join_frames([(b'{"ts":1,"scm":"s","tbl":"t","t":1}', text)])
    model = round_trips(key, value)
    # the invalid byte Go replaced is lost: 0xFF stands for it; the literal stays U+FFFD
    assert model.events[0].new[0].value == b"a\xffb" + FFFD + b"c"
    assert op.to_dict(model)["events"][0]["new"][0]["value"] == {"$hex": "61ff62efbfbd63"}


def test_go_writes_each_invalid_byte_as_one_escaped_fffd():
    evs = [row(Column("c", 254, 0, b"\xe4\xbdx" + FFFD))]
    key, value = op.build_pair(op.Message(evs))
    assert rb'"v":"\ufffd\ufffdx' + FFFD + b'"' in value
    assert round_trips(key, value).events[0].new[0].value == b"\xff\xffx" + FFFD


def test_escaped_fffd_in_text_values_and_names_reads_as_fffd():
    # Documented canonical form: str values cannot hold the marker (Spark, JSON text).
    text = b'{"u":{"n\\ufffd":{"t":12,"f":0,"v":"\\ufffd"}}}'
    key, value = join_frames([(b'{"ts":1,"scm":"s","tbl":"t","t":1}', text)])
    [col] = op.parse_pair(key, value).events[0].new
    assert (col.name, col.value) == ("n\ufffd", "\ufffd")


# ---------------------------------------------------------------- key members per kind


@pytest.mark.parametrize(
    "key, member",
    [
        (b'{"ts":1,"scm":"s","t":3}', "scm"),
        (b'{"ts":1,"ptn":0,"t":3}', "ptn"),
        (b'{"ts":1,"scm":"s","tbl":"t","rid":5,"t":2}', "rid"),
        (b'{"ts":1,"scm":"s","tbl":"t","t":2,"ohk":true}', "ohk"),
        (b'{"ts":1,"scm":"s","tbl":"t","t":2,"ccl":"s3://b/x.json"}', "ccl"),
    ],
)
def test_a_key_member_the_event_kind_does_not_carry_is_a_decode_error(key, member):
    value = b"" if b'"t":3' in key else b'{"q":"DROP TABLE t","t":4}'
    k, v = join_frames([(key, value)])
    with pytest.raises(DecodeError, match="event has no") as info:
        op.parse_pair(k, v)
    assert info.value.path == f"events[0].key.{member}"
    assert k[info.value.offset : info.value.offset + 1] == b"{"


def test_pingcap_ticdc_empty_members_on_a_resolved_key_are_read():
    k, v = join_frames([(b'{"ts":1,"scm":"","tbl":"","t":3}', b"")])
    assert op.parse_pair(k, v).events[0].commit_ts == 1


def test_a_row_key_without_tbl_is_tiflows_omitted_empty_name():
    # tiflow's own lang_event fixture: tbl is omitempty, so a row of table "" has none.
    k, v = join_frames([(b'{"ts":1,"scm":"a","t":1}', b'{"u":{"c":{"t":1,"f":0,"v":""}}}')])
    assert round_trips(k, v).events[0].table is None


@pytest.mark.parametrize("value", [2**63, 2**64 - 1, -(2**63)])
def test_a_legacy_integer_beyond_int64_is_written_back(value):
    # A legacy column has no flags, so it reads any 64-bit integer, signed or not; the
    # writer checked the model's flags (a signed int64 unless UNSIGNED) and refused
    # what the reader had accepted.
    text = b'{"u":{"n":{"t":8,"v":%d}}}' % value
    key, value_bytes = join_frames([(b'{"ts":1,"scm":"s","tbl":"t","t":1}', text)])
    model = round_trips(key, value_bytes)
    assert model.layout == "legacy" and model.events[0].new[0].value == value
