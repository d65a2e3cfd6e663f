"""What specs/ticdc_open_protocol.yaml's ``json:`` section says is the codec's: the
claim-check object's members and their order come from its ``claim_check_object``
document, a column value's JSON value types from its kind (``column_type.rendering``'s
``kinds:``), and the loader refuses a document, key, kind or ``events:`` the codec could
not honour, at its file:line."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, RowChangedEvent
from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, EncodeError, SpecError
from tests.test_generator import load_module
from tests.test_open_protocol_claim_check import big_row, claim_check_object

ROOT = Path(__file__).resolve().parents[1]

SPECS = ROOT / "specs"


def edited_spec(tmp_path: Path, old: str, new: str) -> Path:
    """specs/ticdc_open_protocol.yaml with ``old`` replaced, beside the specs it imports."""
    for name in ("mysql_types.yaml", "ticdc_types.yaml"):
        (tmp_path / name).write_text((SPECS / name).read_text())
    text = (SPECS / "ticdc_open_protocol.yaml").read_text()
    assert old in text, old
    spec = tmp_path / "ticdc_open_protocol.yaml"
    spec.write_text(text.replace(old, new, 1))
    return spec


KEY = '      - {name: key, type: bytes, field: key, doc: "the Kafka key'
VALUE = '      - {name: value, type: bytes, field: value, doc: "the Kafka value'


def test_the_objects_members_come_from_the_spec(tmp_path):
    lines = (SPECS / "ticdc_open_protocol.yaml").read_text().splitlines(keepends=True)
    key_line = next(line for line in lines if line.startswith(KEY))
    value_line = next(line for line in lines if line.startswith(VALUE))
    spec = edited_spec(tmp_path, key_line + value_line, value_line + key_line)
    swapped = load_module("op_value_first", render_spec(spec)[1], tmp_path)
    message = op.Message([big_row()])
    key, value = op.build_pair(message)
    b64 = base64.b64encode
    data = swapped.build(message, "claim_check")
    assert data == b'{"value":"' + b64(value) + b'","key":"' + b64(key) + b'"}'
    assert swapped.parse(data, "claim_check") == message
    key_first = claim_check_object(message)  # Go reads either order: kept as read
    assert swapped.build(swapped.parse(key_first, "claim_check"), "claim_check") == key_first
    spec = edited_spec(tmp_path, KEY, KEY.replace("name: key,", "name: k,"))
    spec.write_text(spec.read_text().replace(VALUE, VALUE.replace("name: value,", "name: v,")))
    renamed = load_module("op_renamed", render_spec(spec)[1], tmp_path)
    data = renamed.build(message, "claim_check")
    assert data == b'{"k":"' + b64(key) + b'","v":"' + b64(value) + b'"}'
    assert renamed.parse(data, "claim_check") == message
    with pytest.raises(DecodeError, match="a claim-check object has k and v") as info:
        renamed.parse(claim_check_object(message), "claim_check")
    assert info.value.path == "k"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("document: claim_check_object", "document: nothing", "no JSON document 'nothing'"),
        ("document: claim_check_object", "document: column", "one bytes key with omit: never per Kafka column (key, value)"),
        (VALUE, VALUE.replace("type: bytes", "type: string"), "value (string, field value)"),
        (VALUE, VALUE.replace("type: bytes", "type: bytes, omit: empty"), "must have one bytes key"),
        (KEY, KEY.replace("field: key", "field: kee"), "key (bytes, field kee)"),
        ("    document: claim_check_object\n", "", "missing key 'document'"),
        (VALUE, VALUE.replace("type: bytes", "type: blob"), "'blob' is not one of"),
    ],
)  # fmt: skip
def test_a_bad_claim_check_document_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, old, new))
    assert message in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)  # file:line


def test_a_row_op_the_codec_does_not_know_is_a_spec_error_at_its_line(tmp_path):
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, "when: [insert, update]", "when: [insert, upsert]"))
    assert "'upsert' is not one of" in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)


SINT = "sint: {type: s64, flagless: wide, text: str}"


def test_a_kinds_value_types_come_from_the_spec(tmp_path):
    # YEAR's kind read and written as u64 instead of s64: -1 is refused both ways
    spec = edited_spec(tmp_path, SINT, "sint: {type: u64, flagless: wide, text: str}")
    unsigned = load_module("op_sint_u64", render_spec(spec)[1], tmp_path)
    event = RowChangedEvent(1, new=[Column("y", 13, 0, -1)])
    assert op.encode_event(event)[1] == b'{"u":{"y":{"t":13,"f":0,"v":-1}}}'
    with pytest.raises(EncodeError, match=r"in \[0, 18446744073709551615\], got -1") as info:
        unsigned.encode_event(event)
    assert info.value.path == "new[0].value"
    key, value = op.encode_events([event]).__next__()
    with pytest.raises(DecodeError, match=r"-1 is outside \[0, 18446744073709551615\]") as info:
        unsigned.decode_message(key, value)
    assert info.value.path == "events[0].value.u.y.v"


@pytest.mark.parametrize(
    "old, new, message",
    [
        (SINT, "sint: {type: s64, flagless: wide, text: varint}", "not valid under any of"),
        ("uint: u64", "uint: varint", "kinds.uint.type: type: 'varint' is no JSON value type"),
        (SINT, "sint: {type: s64, signed: wide}", "sint"),
        ("events: [ROW]", "events: [ROWS]", "'ROWS' is no member of the enum of an event-type key"),
    ],
)  # fmt: skip
def test_a_bad_kind_or_events_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, old, new))
    assert message in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)  # file:line


HANDLE = "bit: column_flag.HANDLE_KEY"
ANY = "rendering: column_type.rendering, field: value"
QUERY = "{name: q, type: string,"


@pytest.mark.parametrize(
    "old, new, key, message",
    [
        ("- {name: scm, type: string", "- {name: ts, type: string", "json.event_key.keys[1].name", "duplicate key 'ts'"),
        ("{name: t, type: u8, enum: column_type,", "{name: t, type: u8, enum: column_typ,", "json.column.keys[0].enum", "unknown enum 'column_typ'"),
        (HANDLE, "bit: column_flag.HANDLE_KYE", "json.column.keys[1].bit", "'column_flag.HANDLE_KYE' is not FLAGS_ENUM.MEMBER"),
        (HANDLE, "bit: column_type.LONG", "json.column.keys[1].bit", "'column_type.LONG' is not FLAGS_ENUM.MEMBER"),
        ("type: map, of: column,", "type: map,", "json.row_value.keys[0].of", "a map names the document of its values (of:), and only a map"),
        (QUERY, QUERY + " of: column,", "json.ddl_value.keys[0].of", "and only a map"),
        (ANY, "field: value", "json.column.keys[3].rendering", "an any value names its rendering table, and only it"),
        (QUERY, QUERY + " rendering: column_type.rendering,", "json.ddl_value.keys[0].rendering", "and only it"),
        (ANY, "rendering: column_flag.rendering, field: value", "json.column.keys[3].rendering", "'column_flag.rendering' is not ENUM.ATTRIBUTE"),
        (QUERY, QUERY + " logical: tidb_tso,", "json.ddl_value.keys[0].logical", "a time is an integer key's (no enum)"),
        ("{name: t, type: s64, enum: ddl_type,", "{name: t, type: s64, logical: tidb_tso, enum: ddl_type,", "json.ddl_value.keys[1].logical", "(no enum)"),
        ("  record: message\n", "  record: key_frames\n", "kafka_message.record", "'key_frames' is already a record"),
        ("columns: {key: key_frames,", "columns: {key: keyframes,", "kafka_message.columns.key", "no record named 'keyframes'"),
        ("codec: open_protocol", "codec: open_protocols", "kafka_message.codec", "no runtime module 'open_protocols'"),
        ("    record: claim_check\n", "    record: key_frames\n", "kafka_message.claim_check.record", "'key_frames' is already a record"),
        ("enums:\n", "enums:\n  message: {doc: M., type: u8, values: {A: {value: 1, doc: A.}}}\n", "kafka_message", "Message is the codec's class: rename the enum"),
    ],
)  # fmt: skip
def test_a_bad_json_key_or_kafka_message_is_a_spec_error_at_its_key(
    tmp_path, old, new, key, message
):
    spec = edited_spec(tmp_path, old, new)
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    assert (info.value.key, info.value.file) == (key, spec.name)
    assert message in info.value.message
    line = spec.read_text().splitlines()[info.value.line - 1]
    assert new.strip() in line or line == f"{key}:"  # the key's own line, or its section's
