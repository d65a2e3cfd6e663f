"""Protobuf records in forms upb reads and never writes, written back byte for byte.

upb (the protobuf package, the peer of specs/protobuf_wire.yaml) takes a varint longer than
it needs (in a key, a length or a value), an int32/enum/uint32/sint32 varint past 32 bits
(it keeps the low 32), a bool of 2, a map entry other than key then value; it writes them
back canonically. Ours reads what upb reads, and keeps each such record's bytes in the
model's ``wire_layout`` (``(number, bytes)``, ``(number, count, bytes)`` for a packed
record) while the model still holds what they say; a value changed since is written
canonically. The compiled tier reads and writes them alike
(tests/test_protobuf_kept_compiled.py)."""

from __future__ import annotations

import json

import pytest

from generated import protobuf_wire as pw
from generator.cli import fuzz
from runtime.core.errors import EncodeError
from runtime.core.leb128 import write_uvarint
from tests.test_gallery_protobuf_wire import PEER, ours, same_as_construct, upb_values

CASES = {
    "int32 enum past 32 bits": b"\x20" + write_uvarint(2**32 + 2),
    "enum sign-extended in five bytes": b"\x20\xff\xff\xff\xff\x0f",
    "non-minimal uint64 value": b"\x10\x81\x00",
    "non-minimal key": b"\x8a\x00\x01x",
    "non-minimal length": b"\x0a\x81\x00x",
    "bool of 2": b"\x88\x01\x02",
    "packed int32 non-minimal element": b"\xa2\x01\x03\x81\x00\x05",
    "packed int32 past 32 bits": b"\xa2\x01\x05" + write_uvarint(2**33 + 7),
    "unpacked int32 past 32 bits": b"\xa0\x01" + write_uvarint(2**40 + 1),
    "map entry value then key": b"\x42\x06\x12\x01v\x0a\x01k",
    "map entry without its key": b"\x42\x03\x12\x01v",
    "nested message, non-minimal length": b"\x5a\x82\x00\x10\x05",
    "sint32 past 32 bits in a nested message": b"\x2a\x07\x20" + write_uvarint(2**35 + 3),
    "oneof uint64, then a non-minimal voucher": b"\x70\x05\x6a\x81\x00a",
}


UPB_UNKNOWN_ENTRY = b"\x42\x08\x0a\x01k\x12\x01v\x18\x01"
"""A map entry with an unknown field: upb keeps the whole entry as an unknown field of the
order (no attribute); ours reads the attribute k = v (open, told the lead). Either way it
is written back as it came."""


def test_a_map_entry_with_an_unknown_field_is_written_back():
    parsed = pw.parse(UPB_UNKNOWN_ENTRY)
    assert parsed.attributes == {"k": "v"}
    assert pw.build(parsed) == UPB_UNKNOWN_ENTRY
    same_as_construct(UPB_UNKNOWN_ENTRY)


@pytest.mark.parametrize("data", CASES.values(), ids=CASES)
def test_upb_reads_it_and_we_write_it_back(data):
    PEER.classes["order"].FromString(data)  # upb takes it
    parsed = pw.parse(data)
    assert ours(parsed) == upb_values(data)  # the values upb reads
    assert pw.build(parsed) == data
    assert pw.build_construct(parsed) == data
    assert pw.build(pw.from_dict(pw.to_dict(parsed))) == data  # the JSON form keeps it
    same_as_construct(data)  # the compiled tier declines or gives construct's model


def test_a_changed_value_is_written_canonically():
    parsed = pw.parse(CASES["int32 enum past 32 bits"])
    assert parsed.status == 2
    parsed.status = 3
    assert pw.build(parsed) == b"\x20\x03"
    packed = pw.parse(CASES["packed int32 non-minimal element"])
    packed.ratings.append(9)  # the kept record still holds the first two; the third after it
    assert pw.build(packed) == CASES["packed int32 non-minimal element"] + b"\xa2\x01\x01\x09"
    packed.ratings[0] = 2  # no longer what the kept record says: written anew
    assert pw.build(packed) == b"\xa2\x01\x02\x02\x05\xa2\x01\x01\x09"
    entry = pw.parse(CASES["map entry value then key"])
    entry.attributes["k"] = "w"
    assert pw.build(entry) == b"\x42\x06\x0a\x01k\x12\x01w"


def test_canonical_bytes_keep_no_layout():
    assert pw.parse(b"\x10\x81\x01\x20\x02").wire_layout is None  # a two-byte varint, minimal


@pytest.mark.parametrize(
    "kept",
    [
        b"",  # no record at all
        b"\xff",  # no record that reads
        b"\xa2\x01\x01\x05",  # a record of one element where the entry says two
        b"\xa2\x01\x04\x81\x00\x05\x07",  # of three
        b"\x10\x01",  # a record of another field
        b"\xa2\x01\x03\x81\x00\x05\x10\x01",  # the record, then another field's
        b"\xa2\x01\x03\x81\x00\x05\x08\x01",  # the record, then an unknown one
    ],
)
def test_kept_bytes_that_no_longer_read_as_the_model_are_written_anew(kept):
    # runtime/core/kept.py's reads_as on one record: bytes that are not the record's (they
    # do not read, or hold other elements or another field) leave the model's values
    model = pw.parse(CASES["packed int32 non-minimal element"])
    model.wire_layout = ((20, 2, kept),)
    assert pw.build(model) == pw.build_construct(model) == b"\xa2\x01\x02\x01\x05"


@pytest.mark.parametrize(
    "unknown",
    [
        b"",  # no record at all
        b"\x00",  # field number 0
        b"\x08",  # a key without its varint
        b"\x0a\x05x",  # a length past the record's bytes
        b"\x0d\x01\x02",  # a fixed32 of three bytes
        b"\x08\x01\x08",  # a record, then part of another
        b"\x0c",  # the end of a group that never started
        b"\x0b\x10\x01",  # a group without its end
        b"\x0f",  # wire type 7
    ],
)
def test_a_layout_bytes_entry_that_is_not_one_record_is_refused(unknown):
    # Written as it is, it made bytes parse refuses (b"\x00": "field number 0"), or bytes
    # that read as other records (found by fuzzing JSON forms whose layout was edited)
    model = pw.parse(b"\x0a\x01x", "address")
    model.wire_layout = (unknown, 1)
    with pytest.raises(EncodeError, match=r"^wire_layout\[0\]: bytes .* are not one record"):
        pw.build(model, "address")
    document = {**pw.to_dict(model), "wire_layout": [{"$hex": unknown.hex()}, 1]}
    with pytest.raises(EncodeError, match="not one record"):
        pw.build(pw.from_dict(document, "address"), "address")


@pytest.mark.parametrize(
    "unknown", [b"\x18\x01", b"\x4a\x01y", b"\x0b\x10\x01\x0c", b"\x1d\x00\x00\x00\x00"]
)
def test_a_layout_bytes_entry_of_one_record_is_written_as_it_is(unknown):
    model = pw.parse(unknown + b"\x0a\x01x", "address")
    assert model.wire_layout == (unknown, 1)
    assert pw.build(model, "address") == unknown + b"\x0a\x01x"


# -- bytes entries that parse reads as a known field --------------------------------------

READ_TWICE = {
    "a string": ("address", (b"\x0a\x01a" b"\x12\x01c" b"\x0a\x01b")),
    "a oneof's members": ("order", (b"\x6a\x01v" b"\x70\x05")),
    "a map key": ("order", (b"\x42\x06\x0a\x01k\x12\x01a" b"\x42\x06\x0a\x01k\x12\x01b")),
    "a message": ("line_item", (b"\x1a\x02\x10\x01" b"\x1a\x02\x10\x02")),
}


@pytest.mark.parametrize("record, data", READ_TWICE.values(), ids=READ_TWICE)
def test_a_record_read_twice_is_kept_as_bytes_and_written_back(record, data):
    model = pw.parse(data, record)
    assert any(type(entry) is bytes for entry in model.wire_layout)
    assert pw.build(model, record) == data
    assert pw.build(pw.from_dict(pw.to_dict(model), record), record) == data


@pytest.mark.parametrize(
    "record, layout, values, error",
    [
        # found by fuzzing JSON forms: another message's layout entry spliced into this one's
        (
            "line_item",
            [b"\x2a\x01\xff"],
            {},
            r"\[0\]: bytes 2a01ff are a record of labels, which parse refuses: labels\[0\] at offset 2: string is not UTF-8",
        ),
        (
            "line_item",
            [b"\x2a\x01a"],
            {},
            r"\[0\]: bytes 2a0161 are a record of labels, which parse would read as an element the model does not hold",
        ),
        (
            "address",
            [b"\x0a\x01a"],
            {"street": ""},
            r"\[0\]: bytes 0a0161 are a record of street, which parse would read as its value: only a record that a later one",
        ),
        (
            "address",
            [1, b"\x0a\x01a"],
            {"street": "b"},
            r"\[1\]: bytes 0a0161 are a record of street",
        ),
        (
            "address",
            [b"\x0a\x01\xff", 1],
            {"street": "b"},
            r"\[0\]: bytes 0a01ff are a record of street, which parse refuses",
        ),
        ("order", [b"\x70\x05"], {}, r"\[0\]: bytes 7005 are a record of loyalty_points"),
        (
            "order",
            [b"\x42\x06\x0a\x01k\x12\x01a", 8],
            {"attributes": {"j": "b"}},
            r"\[0\]: bytes .* are a record of attributes, which parse would read as its entry of key 'k'",
        ),
    ],
)
def test_a_bytes_entry_parse_reads_as_a_known_field_is_refused(record, layout, values, error):
    # parse keeps a known field's record as bytes only when a later record of the field
    # (its oneof, its map key) replaces it; any other would be read back as a value the
    # model does not hold, or refused
    document = {**pw.to_dict(pw.parse(b"", record)), **values}
    document["wire_layout"] = [
        {"$hex": entry.hex()} if type(entry) is bytes else entry for entry in layout
    ]
    with pytest.raises(EncodeError, match="^wire_layout" + error):
        pw.build(pw.from_dict(document, record), record)


def test_the_fuzz_finding_is_refused_with_the_entry_and_field():
    """The forms phase of ``wirespec fuzz`` (seed 6) spliced an order's line item record,
    kept as bytes, into a line item's layout: field 5 (labels) of that message, whose
    bytes are no UTF-8. Build wrote it; parse refused it as labels[0]."""
    saved = fuzz.CRASH_DIR / "protobuf_wire" / "line_item--50171f12942a.json"
    t = fuzz.target("protobuf_wire", "line_item")
    with pytest.raises(
        EncodeError,
        match=r"^wire_layout\[4\]: bytes 2a23.* are a record of labels, which parse refuses: labels\[0\] at offset 2: string is not UTF-8",
    ):
        t.build(t.from_dict(json.loads(saved.read_text())))
    assert fuzz.replay(saved) is None
